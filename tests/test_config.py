"""Project options: defaults, validation, and the did-you-mean hint for unknown keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from studyguide.config import Config, load_config, parse_config
from studyguide.errors import ConfigError


def test_defaults_without_pyproject(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config == parse_config({})
    assert (config.language, config.title, [t.id for t in config.tier_list]) == ("zh", "学习指南", ["basics", "intermediate", "advanced"])


def test_an_english_book_gets_english_defaults_and_its_own_tiers() -> None:
    tiers = [{"id": "core", "label": "Core", "folder": "1-core"}, {"id": "deep", "label": "Deep dives", "folder": "2-deep"}]
    config = parse_config({"language": "en", "tiers": tiers})
    assert (config.title, config.edition_text) == ("Study Guide", "edition 0.1")
    assert [(t.id, t.label, t.folder) for t in config.tier_list] == [("core", "Core", "1-core"), ("deep", "Deep dives", "2-deep")]
    assert config.rules.shape.title("short-answer") == "Short answer"


@pytest.mark.parametrize("key, value, said", [
    ("language", "fr", "expected one of: en, zh"),
    ("tiers", [{"id": "a", "label": "A"}], "tier 1: expected exactly the keys id, label, folder"),
    ("tiers", [{"id": "a", "label": "A", "folder": "x"}, {"id": "a", "label": "B", "folder": "y"}], "tier 2: id and folder must be unique"),
    ("plugins", ["../outside.py"], "expected a list of .py paths inside the project"),
    ("frequent_sheets", [{"reference": ["dtypes"]}], "sheet 1: expected tiers"),
])
def test_the_book_shape_options_are_checked(key: str, value: object, said: str) -> None:
    with pytest.raises(ConfigError, match=said):
        parse_config({key: value})


def test_values_are_read_and_checked(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.studyguide]\ntitle = "书"\njobs = 4\n', encoding="utf-8")
    config = load_config(tmp_path)
    assert (config.title, config.jobs, config.basename) == ("书", 4, parse_config({}).basename)


def test_unknown_key_and_bad_value_are_both_reported() -> None:
    with pytest.raises(ConfigError) as err:
        parse_config({"titel": "x", "jobs": -1}, "pyproject.toml [tool.studyguide]")
    assert str(err.value).splitlines() == [
        "pyproject.toml [tool.studyguide]: jobs: expected an integer >= 0 (help: pages executed in parallel; 0 means one per CPU core)",
        "pyproject.toml [tool.studyguide]: titel: unknown option (did you mean 'title'?)",
    ]


@pytest.mark.parametrize("key, value", [("basename", "Has Space"), ("book_dir", "/abs"), ("book_dir", "../up"), ("retries", True), ("title", " ")])
def test_validators_reject(key: str, value: object) -> None:
    with pytest.raises(ConfigError, match=f": {key}: "):
        parse_config({key: value})


def test_every_option_has_help() -> None:
    import dataclasses

    assert all(f.metadata["help"] and f.metadata["validator"] for f in dataclasses.fields(Config))


def test_invalid_toml(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.studyguide\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config(tmp_path)
