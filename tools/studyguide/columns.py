"""Level columns for a cheat sheet: which column each unit (a question or a table) goes in (pure, heights in pt).

Typst fills columns in order, so the last column of a short sheet would be empty. Here the units are split into
columns so that the tallest column is as short as possible and the columns end as level as possible. Groups (a
tier's questions, a reference table) stay in order; a group split across two columns may send any of its questions
to either side, each side keeping the book's order, which levels columns that indivisible units would leave ragged.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

IMPROVEMENT_PT = 0.5  # a move is made only when it levels the columns by more than this


@dataclass(frozen=True)
class Unit:
    """One indivisible block of a sheet."""

    height: float  # as printed, without its group's heading
    group: int  # groups are numbered in print order
    heading: float = 0.0  # the extra height when it is its group's first unit and carries the heading


def heights(units: Sequence[Unit], gap: float, columns: Sequence[int], count: int) -> list[float]:
    """The height of each of ``count`` columns, unit ``i`` in column ``columns[i]``."""
    out = [0.0] * count
    members = [0] * count
    headed: set[int] = set()
    for i in sorted(range(len(units)), key=lambda i: (columns[i], i)):  # print order
        u, c = units[i], columns[i]
        out[c] += u.height + (gap if members[c] else 0.0) + (u.heading if u.group not in headed else 0.0)
        members[c] += 1
        headed.add(u.group)
    return out


def cost(units: Sequence[Unit], gap: float, columns: Sequence[int], count: int) -> tuple[float, float]:
    """The tallest column, then the difference between the tallest and the shortest."""
    cols = heights(units, gap, columns, count)
    return max(cols), max(cols) - min(cols)


def _ordered(units: Sequence[Unit], columns: Sequence[int]) -> bool:
    """True when every group ends in a column no later than the next group begins."""
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    for u, c in zip(units, columns, strict=True):
        first[u.group], last[u.group] = min(first.get(u.group, c), c), max(last.get(u.group, c), c)
    groups = sorted(first)
    return all(last[a] <= first[b] for a, b in itertools.pairwise(groups))


def _contiguous(units: Sequence[Unit], gap: float, count: int) -> list[int]:
    """The best split of the units, in print order, into ``count`` runs."""
    n = len(units)
    splits = []
    for cuts in itertools.combinations(range(1, n), max(min(count, n) - 1, 0)):
        bounds = (0, *cuts, n)
        splits.append([c for c, (a, b) in enumerate(itertools.pairwise(bounds)) for _ in range(a, b)])
    return min(splits, key=lambda columns: cost(units, gap, columns, count))


def _better(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """True when cost ``a`` beats ``b`` by more than ``IMPROVEMENT_PT``: a shorter tallest column, or a more level page."""
    return a[0] < b[0] - IMPROVEMENT_PT or (a[0] <= b[0] and a[1] < b[1] - IMPROVEMENT_PT)


def arrange(units: Sequence[Unit], gap: float, count: int) -> list[int]:
    """The column of each unit: the best split in print order, then single moves and swaps across a boundary."""
    columns = _contiguous(units, gap, count)
    while True:
        here = cost(units, gap, columns, count)
        tries = [[*columns[:i], c + d, *columns[i + 1:]] for i, c in enumerate(columns) for d in (-1, 1) if 0 <= c + d < count]
        tries += [[columns[j] if k == i else columns[i] if k == j else c for k, c in enumerate(columns)]
                  for i, j in itertools.combinations(range(len(units)), 2)
                  if units[i].group == units[j].group and abs(columns[i] - columns[j]) == 1]
        better = [t for t in tries if _ordered(units, t) and _better(cost(units, gap, t, count), here)]
        if not better:
            return columns
        columns = min(better, key=lambda t: cost(units, gap, t, count))
