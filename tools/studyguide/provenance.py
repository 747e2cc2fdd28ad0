"""Where a page's outputs were produced: formatting one record, and summing up many (pure functions).

A record holds the device, the Python version, the date and the version of each package the book names in
``[tool.studyguide] provenance`` (top-level keys: ``"torch": "2.13.0+cpu"``), and for torch its CUDA version.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .locale import Locale


def device_text(prov: Mapping[str, Any], words: Locale) -> str:
    """``NVIDIA H200（GPU）`` or ``AMD EPYC（CPU）``."""
    kind = "GPU" if prov.get("device_type") == "cuda" else "CPU"
    return words.t("provenance.device", device=prov.get("device", words.t("provenance.unknown_device")), kind=kind)


def describe(prov: Mapping[str, Any] | None, words: Locale, packages: Sequence[str]) -> str:
    """One line for a page: device, package and CUDA versions, Python, date."""
    if not prov:
        return words.t("provenance.unrecorded")
    parts = [environment(prov, words, packages), words.t("provenance.executed", date=prov.get("date", "?"))]
    if prov.get("alone"):
        parts.append(timing_text(prov, words))
    return " · ".join(parts)


def environment(prov: Mapping[str, Any], words: Locale, packages: Sequence[str]) -> str:
    """Where outputs ran, without date or timing: device, package and CUDA versions, Python."""
    parts = [device_text(prov, words), *[f"{name} {prov.get(name, '?')}" for name in packages]]
    if prov.get("cuda"):
        parts.append(f"CUDA {prov['cuda']}")
    parts.append(f"Python {prov.get('python', '?')}")
    return " · ".join(parts)


def timing_text(prov: Mapping[str, Any], words: Locale) -> str:
    """How a page that times code ran: alone, with its thread count."""
    return words.t("provenance.timing", threads=prov.get("threads", "?"))


def is_cpu_fallback(needs_gpu: bool, prov: Mapping[str, Any] | None) -> bool:
    """True when a page needs a GPU but its outputs came from a CPU."""
    if not needs_gpu or not prov:
        return False
    return prov.get("device_type") != "cuda"


@dataclass(frozen=True)
class SummaryRow:
    """Pages that ran in one environment."""

    environment: str
    pages: int
    first_date: str
    last_date: str


def summarize(records: Iterable[Mapping[str, Any] | None], words: Locale, packages: Sequence[str]) -> list[SummaryRow]:
    """Group provenance records by environment; most pages first, then by name."""
    groups: dict[str, list[str]] = {}
    for prov in records:
        if prov:
            groups.setdefault(environment(prov, words, packages), []).append(str(prov.get("date", "?")))
        else:
            groups.setdefault(words.t("provenance.unrecorded"), []).append("?")
    rows = [SummaryRow(env, len(dates), min(dates), max(dates)) for env, dates in groups.items()]
    return sorted(rows, key=lambda r: (-r.pages, r.environment))
