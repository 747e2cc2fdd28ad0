"""Project options: defaults, validation, and the did-you-mean hint for unknown keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from studyguide.config import Config, load_config, parse_config
from studyguide.errors import ConfigError


def test_defaults_without_pyproject(tmp_path: Path) -> None:
    assert load_config(tmp_path) == Config()


def test_values_are_read_and_checked(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.studyguide]\ntitle = "书"\njobs = 4\n', encoding="utf-8")
    config = load_config(tmp_path)
    assert (config.title, config.jobs, config.basename) == ("书", 4, Config().basename)


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
