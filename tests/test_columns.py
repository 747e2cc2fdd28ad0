"""Levelling a cheat sheet's columns (pure): which column each unit goes in."""

from __future__ import annotations

from studyguide.columns import Unit, arrange, heights


def units(*hs: float, group: int = 0) -> list[Unit]:
    return [Unit(h, group) for h in hs]


def test_a_short_sheet_is_short_in_every_column() -> None:
    cols = arrange(units(100, 100, 100, 100), gap=5, count=2)
    assert cols == [0, 0, 1, 1] and heights(units(100, 100, 100, 100), 5, cols, 2) == [205, 205]


def test_a_question_crosses_the_boundary_when_that_levels_the_columns() -> None:
    found = units(100, 100, 50, 50)  # in order, the best split is 200 | 100 (or 100 | 200)
    cols = arrange(found, gap=0, count=2)
    assert heights(found, 0, cols, 2) == [150, 150]
    assert cols == [0, 1, 0, 1]  # each column keeps the book's order


def test_groups_stay_in_order() -> None:
    found = [*units(50, 20, 150, 200, group=0), *units(50, 150, group=1)]
    cols = arrange(found, gap=0, count=2)
    assert max(cols[:4]) <= min(cols[4:])  # the second group starts no earlier than the first ends
    assert heights(found, 0, cols, 2) == [270, 350]  # though 320 | 300 would be more level


def test_a_group_heading_is_counted_once_on_the_first_unit_set() -> None:
    found = [Unit(100, 0, heading=20), Unit(100, 0, heading=20), Unit(100, 1, heading=20)]
    assert heights(found, 0, [0, 0, 1], 2) == [220, 120]
    assert heights(found, 0, [0, 1, 1], 2) == [120, 220]  # the group's second question, in column 2, has no heading
