"""The words a book is printed in: one TOML file per language (``locales/<code>.toml``), loaded once."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .errors import ConfigError

LOCALES = Path(__file__).parent / "locales"


@dataclass(frozen=True)
class Locale:
    """A language: its codes, the default tiers and sections, answer rules and every UI string."""

    code: str
    name: str
    sphinx_language: str
    html_lang: str
    search_language: str
    answer_max_chars: int
    bullet_max_chars: int
    sentence_ends: str
    end_hint: str
    tiers: tuple[Mapping[str, str], ...]
    sections: tuple[tuple[str, str], ...]  # (stable key, title), in page order
    exercise_sections: tuple[tuple[str, str], ...]  # the same for an exercise page (kind: exercise)
    strings: Mapping[str, Any]

    def t(self, key: str, **values: object) -> str:
        """The string ``key``, with ``{name}`` fields filled in."""
        text = self.strings[key]
        return str(text).format(**values) if values else str(text)

    def words(self, key: str) -> tuple[str, ...]:
        """A list-valued string (e.g. the deck's field names)."""
        return tuple(self.strings[key])

    def section(self, key: str) -> str:
        """The title of a page section by its stable key (``short-answer`` → ``先给结论``)."""
        return dict(self.sections)[key]

    def edition(self, edition: str) -> str:
        """The edition as printed (``2026.12 版``, ``edition 2026.12``)."""
        return self.t("edition", edition=edition)

    def part(self, index: int, label: str) -> str:
        """The caption of a tier in the navigation (``第一部分 入门``, ``Part 1: Basics``)."""
        numbers = self.t("part_numbers")
        n = numbers[index] if numbers and index < len(numbers) else str(index + 1)
        return self.t("part", n=n, label=label)


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def available() -> tuple[str, ...]:
    """The language codes shipped with the tool."""
    return tuple(sorted(p.stem for p in LOCALES.glob("*.toml")))


@cache
def load(code: str) -> Locale:
    """The locale ``code`` (``zh``, ``en``); raise ``ConfigError`` for an unknown one."""
    path = LOCALES / f"{code}.toml"
    if not path.is_file():
        raise ConfigError(f"language: unknown language {code!r} (choose one of: {', '.join(available())})")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    answer = data["answer"]
    return Locale(
        code=data["code"], name=data["name"], sphinx_language=data["sphinx_language"], html_lang=data["html_lang"],
        search_language=data["search_language"], answer_max_chars=answer["max_chars"], bullet_max_chars=answer["bullet_max_chars"], sentence_ends=answer["sentence_ends"],
        end_hint=answer["end_hint"], tiers=tuple(data["tiers"]), sections=tuple(data["sections"].items()),
        exercise_sections=tuple(data["exercise_sections"].items()),
        strings=_flatten(data["strings"]),
    )
