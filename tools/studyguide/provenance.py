"""Where a page's outputs were produced: formatting one record, and summing up many (pure functions)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

UNRECORDED = "未记录（页面在 Sphinx 构建中被直接执行；请运行 make execute）"


def device_text(prov: Mapping[str, Any]) -> str:
    """``NVIDIA H200（GPU）`` or ``AMD EPYC（CPU）``."""
    kind = "GPU" if prov.get("device_type") == "cuda" else "CPU"
    return f"{prov.get('device', '未知设备')}（{kind}）"


def describe(prov: Mapping[str, Any] | None) -> str:
    """One line for a page: device, torch and CUDA versions, Python, date."""
    if not prov:
        return UNRECORDED
    parts = [environment(prov), f"{prov.get('date', '?')} 执行"]
    if prov.get("alone"):
        parts.append(timing_text(prov))
    return " · ".join(parts)


def environment(prov: Mapping[str, Any]) -> str:
    """Where outputs ran, without date or timing: device, torch and CUDA versions, Python."""
    parts = [device_text(prov), f"torch {prov.get('torch', '?')}"]
    if prov.get("cuda"):
        parts.append(f"CUDA {prov['cuda']}")
    parts.append(f"Python {prov.get('python', '?')}")
    return " · ".join(parts)


def timing_text(prov: Mapping[str, Any]) -> str:
    """How a page that times code ran: alone, with its thread count."""
    return f"计时页：单独运行，{prov.get('threads', '?')} 个线程"


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


def summarize(records: Iterable[Mapping[str, Any] | None]) -> list[SummaryRow]:
    """Group provenance records by environment; most pages first, then by name."""
    groups: dict[str, list[str]] = {}
    for prov in records:
        if prov:
            groups.setdefault(environment(prov), []).append(str(prov.get("date", "?")))
        else:
            groups.setdefault(UNRECORDED, []).append("?")
    rows = [SummaryRow(env, len(dates), min(dates), max(dates)) for env, dates in groups.items()]
    return sorted(rows, key=lambda r: (-r.pages, r.environment))
