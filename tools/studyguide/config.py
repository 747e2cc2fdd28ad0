"""Project options: one dataclass, each field with help text and a validator, read from pyproject.toml."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import edition as edition_mod
from . import locale as locale_mod
from .errors import ConfigError, did_you_mean

CONFIG_FILE = "pyproject.toml"
TABLE = "tool.studyguide"


def _text(value: Any) -> str | None:
    return None if isinstance(value, str) and value.strip() else "expected a non-empty string"


def _stem(value: Any) -> str | None:
    ok = isinstance(value, str) and re.fullmatch(r"[a-z0-9][a-z0-9-]*", value)
    return None if ok else "expected a lowercase file stem such as 'pytorch-interview-guide'"


def _relpath(value: Any) -> str | None:
    ok = isinstance(value, str) and value and not Path(value).is_absolute() and ".." not in Path(value).parts
    return None if ok else "expected a relative path inside the project"


def _count(low: int) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        """None when ``value`` is an integer >= ``low``, else the message."""
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= low
        return None if ok else f"expected an integer >= {low}"

    return check


def _any_text(value: Any) -> str | None:
    return None if isinstance(value, str) and (value == "" or value.strip()) else "expected a string (empty: the default)"


def _language(value: Any) -> str | None:
    return None if value in locale_mod.available() else f"expected one of: {', '.join(locale_mod.available())}"


def _names(value: Any) -> str | None:
    ok = isinstance(value, list | tuple) and all(isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9_.-]+", v) for v in value)
    return None if ok else "expected a list of package names, e.g. [\"torch\"]"


def _plugin_paths(value: Any) -> str | None:
    ok = isinstance(value, list | tuple) and all(_relpath(v) is None and str(v).endswith(".py") for v in value)
    return None if ok else "expected a list of .py paths inside the project, e.g. [\"plugins/torch_tables.py\"]"


def _tiers(value: Any) -> str | None:
    if not isinstance(value, list | tuple):
        return "expected a list of {id, label, folder} tables"
    ids, folders = set(), set()
    for i, tier in enumerate(value):
        if not isinstance(tier, dict) or set(tier) != {"id", "label", "folder"}:
            return f"tier {i + 1}: expected exactly the keys id, label, folder"
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", str(tier["id"])) or _relpath(tier["folder"]) or "/" in str(tier["folder"]):
            return f"tier {i + 1}: id must be kebab-case and folder one folder name"
        if not isinstance(tier["label"], str) or not tier["label"].strip():
            return f"tier {i + 1}: label must be a non-empty string"
        if tier["id"] in ids or tier["folder"] in folders:
            return f"tier {i + 1}: id and folder must be unique"
        ids.add(tier["id"])
        folders.add(tier["folder"])
    return None


def _frequent_sheets(value: Any) -> str | None:
    if not isinstance(value, list | tuple):
        return "expected a list of {tiers = [...], reference = [...]} tables"
    for i, sheet in enumerate(value):
        if not isinstance(sheet, dict) or not set(sheet) <= {"tiers", "reference"} or not sheet.get("tiers"):
            return f"sheet {i + 1}: expected tiers = [tier ids] and, optionally, reference = [block names]"
        if not all(isinstance(t, str) for t in [*sheet["tiers"], *sheet.get("reference", [])]):
            return f"sheet {i + 1}: tiers and reference are lists of names"
    return None


def _flag(value: Any) -> str | None:
    return None if isinstance(value, bool) else "expected true or false"


def _opt(default: Any, help: str, validator: Callable[[Any], str | None]) -> Any:
    return field(default=default, metadata={"help": help, "validator": validator})


@dataclass(frozen=True)
class Config:
    """Options of a studyguide project (the ``[tool.studyguide]`` table)."""

    title: str = _opt("", "book title on the cover, the site and the metadata; empty: the language's default", _any_text)
    author: str = _opt("", "author shown in the PDF and the EPUB; empty: the language's default", _any_text)
    description: str = _opt("", "one-line lead on the home page; empty: the language's default", _any_text)
    language: str = _opt("zh", "language of every word the generator prints, and of search: " + ", ".join(locale_mod.available()), _language)
    tiers: tuple[Any, ...] = _opt((), "the tiers in reading order, each {id, label, folder}; empty: the language's three (basics, intermediate, advanced)", _tiers)
    provenance: tuple[str, ...] = _opt((), "Python packages whose versions each page records with its outputs (e.g. [\"torch\"]); a GPU is detected through torch when listed", _names)
    plugins: tuple[str, ...] = _opt((), "Python files of the project (paths from its root) that add reference blocks for the cheat sheets", _plugin_paths)
    frequent_sheets: tuple[Any, ...] = _opt((), "the 高频 (frequent) cheat sheets, each {tiers = [...], reference = [...]}; empty: one per tier", _frequent_sheets)
    deck_namespace: str = _opt("-", "namespace of the Anki note ids, so that two books never share a card: '-' means the basename; '' keeps the ids of decks published before namespaces (only for a book that published one)", _any_text)
    max_output_lines: int = _opt(400, "lines one cell's printed output may have; longer outputs fail at execute time, as no page could print them", _count(1))
    edition: str = _opt("0.1", "edition printed on the cover, the page footers, the metadata and the deck; a release tag on HEAD (v2026.12) overrides it", _text)
    basename: str = _opt("book", "stem of the PDF and EPUB file names in the build folder", _stem)
    book_dir: str = _opt("book", "folder of the MyST sources, relative to the project root", _relpath)
    build_dir: str = _opt("_build", "folder of all build outputs and caches", _relpath)
    jobs: int = _opt(0, "pages executed in parallel; 0 means one per CPU core", _count(0))
    shard_jobs: int = _opt(0, "pages a shard run executes in parallel; shards are balanced on it (a parallel page counts its recorded seconds ÷ shard_jobs, a timing page in full), so keep it the same on every runner; 0: use jobs and count every page in full", _count(0))
    cell_timeout: int = _opt(600, "seconds one cell may run before the page fails", _count(1))
    timing_threads: int = _opt(0, "threads of a page that times code (it runs alone); 0 means one per CPU core", _count(0))
    require_proofs: bool = _opt(True, "every bullet of 先给结论 and 易错点 must cite, with {proof}`label`, a code cell of its page labelled ':label: label' that asserts", _flag)
    allow_raw_html: bool = _opt(False, "let question pages hold HTML with script, event handlers or javascript: URLs (trusted authors only)", _flag)
    allow_raw_latex: bool = _opt(False, "let question pages hold raw LaTeX blocks, which can read files of the build machine (trusted authors only)", _flag)
    retries: int = _opt(2, "restarts of a page whose kernel failed to start or died", _count(0))

    @property
    def rules(self) -> Any:
        """The page rules this config sets (``book.Rules``)."""
        from .book import Rules
        from .page import SOLUTION, Shape
        from .safety import Allow
        from .schema import AnswerRule

        loc = self.locale
        answer = AnswerRule(loc.answer_max_chars, loc.sentence_ends, loc.end_hint)
        exercise = Shape(loc.exercise_sections, loc.bullet_max_chars, code_section=SOLUTION, answer_section=SOLUTION)
        return Rules(tiers=self.tier_list, shape=Shape(loc.sections, loc.bullet_max_chars), exercise_shape=exercise, answer=answer, require_proofs=self.require_proofs,
                     allow=Allow(raw_html=self.allow_raw_html, raw_latex=self.allow_raw_latex))

    @property
    def locale(self) -> locale_mod.Locale:
        """The book's language: UI strings, section titles, answer rules."""
        return locale_mod.load(self.language)

    @property
    def tier_list(self) -> tuple[Any, ...]:
        """The book's tiers (``schema.Tier``), in reading order."""
        from .schema import Tier

        return tuple(Tier(t["id"], t["label"], t["folder"]) for t in (self.tiers or self.locale.tiers))

    @property
    def edition_text(self) -> str:
        """The edition as printed on the title page, e.g. ``2026.11 版``."""
        return self.locale.edition(self.edition)


def parse_config(table: dict[str, Any], where: str = f"{CONFIG_FILE} [{TABLE}]") -> Config:
    """Validate a ``[tool.studyguide]`` table; raise ``ConfigError`` naming every bad key."""
    fields = {f.name: f for f in dataclasses.fields(Config)}
    errors = []
    for key, value in sorted(table.items()):
        if key not in fields:
            errors.append(f"{where}: {key}: unknown option ({did_you_mean(key, fields)})")
            continue
        message = fields[key].metadata["validator"](value)
        if message:
            errors.append(f"{where}: {key}: {message} (help: {fields[key].metadata['help']})")
    if errors:
        raise ConfigError("\n".join(errors))
    lists = {k: tuple(v) for k, v in table.items() if isinstance(v, list)}
    config = Config(**{**table, **lists})
    words = config.locale  # an empty title, author or lead takes the language's default
    defaults: dict[str, Any] = {k: words.t(f"defaults.{k}") for k in ("title", "author", "description") if not getattr(config, k)}
    return dataclasses.replace(config, **defaults)


def load_config(root: Path) -> Config:
    """Read ``root/pyproject.toml`` (defaults without the table); a release tag on HEAD sets the edition."""
    path = root / CONFIG_FILE
    config = parse_config({})
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: invalid TOML: {exc}") from None
        config = parse_config(data.get("tool", {}).get("studyguide", {}), f"{path.name} [{TABLE}]")
    tagged = edition_mod.tagged(root)
    return dataclasses.replace(config, edition=tagged) if tagged else config
