"""Split pages among N shards, balanced by each page's recorded execution time (pure functions)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .errors import ExecutionError

_SPEC_RE = re.compile(r"(\d+)/(\d+)")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_spec(text: str) -> Shard:
    """Parse ``I/N`` (1 ≤ I ≤ N); raise ``ExecutionError`` naming the fix otherwise."""
    m = _SPEC_RE.fullmatch(text.strip())
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ExecutionError(f"--shard {text}: expected I/N with 1 ≤ I ≤ N, e.g. --shard 2/4")
    return Shard(int(m.group(1)), int(m.group(2)))


def partition(costs: Mapping[str, float | None], count: int) -> list[list[str]]:
    """Greedy longest-processing-time: slowest page first onto the least-loaded shard (ties: lower shard).

    Pages are ordered by (-seconds, id), so equal times split the same way on every machine. Pages with
    no recorded time (``None``) follow, by id, onto the shard holding fewest of them (then least loaded).
    """
    loads = [0.0] * count
    untimed = [0] * count
    shards: list[list[str]] = [[] for _ in range(count)]
    timed = sorted(((c, p) for p, c in costs.items() if c is not None), key=lambda t: (-t[0], t[1]))
    for cost, page in timed:
        i = min(range(count), key=lambda k: (loads[k], k))
        shards[i].append(page)
        loads[i] += cost
    for page in sorted(p for p, c in costs.items() if c is None):
        i = min(range(count), key=lambda k: (untimed[k], loads[k], k))
        shards[i].append(page)
        untimed[i] += 1
    return [sorted(s) for s in shards]


def loads(shards: list[list[str]], costs: Mapping[str, float | None]) -> list[float]:
    """Recorded seconds of each shard (pages without a time count 0)."""
    return [sum(costs.get(p) or 0.0 for p in s) for s in shards]


def imbalance(values: list[float]) -> float:
    """Slowest shard over the mean shard: 1.0 is perfect balance (1.0 when nothing is recorded)."""
    mean = sum(values) / len(values) if values else 0.0
    return max(values) / mean if mean else 1.0
