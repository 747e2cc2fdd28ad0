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


def _flag(value: Any) -> str | None:
    return None if isinstance(value, bool) else "expected true or false"


def _opt(default: Any, help: str, validator: Callable[[Any], str | None]) -> Any:
    return field(default=default, metadata={"help": help, "validator": validator})


@dataclass(frozen=True)
class Config:
    """Options of a studyguide project (the ``[tool.studyguide]`` table)."""

    title: str = _opt("学习指南", "book title on the cover, the site and the metadata", _text)
    author: str = _opt("编写组", "author shown in the PDF and the EPUB", _text)
    description: str = _opt("每个答案都由真实运行的代码支撑。", "one-line lead on the home page", _text)
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
        from .safety import Allow

        return Rules(require_proofs=self.require_proofs, allow=Allow(raw_html=self.allow_raw_html, raw_latex=self.allow_raw_latex))

    @property
    def edition_text(self) -> str:
        """The edition as printed on the title page, e.g. ``2026.11 版``."""
        return f"{self.edition} 版"


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
    return Config(**table)


def load_config(root: Path) -> Config:
    """Read ``root/pyproject.toml`` (defaults without the table); a release tag on HEAD sets the edition."""
    path = root / CONFIG_FILE
    config = Config()
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: invalid TOML: {exc}") from None
        config = parse_config(data.get("tool", {}).get("studyguide", {}), f"{path.name} [{TABLE}]")
    tagged = edition_mod.tagged(root)
    return dataclasses.replace(config, edition=tagged) if tagged else config
