"""The build benchmark's report: a column per page count, targets, linear growth, and an exit status (no timing asserted)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES
from studyguide import bench
from studyguide.book import load_book


def figures(scale: float) -> dict[str, float]:
    base = {key: 10.0 for key, _, _ in bench.ROWS}
    base.update(pages=150, notebooks_imported=150, cells_executed_second_build=0, cells_executed_prose_edit=0, noop=5.0, prose_html=5.0)
    return {k: (v * scale if k in bench.STAGES else v) for k, v in base.items()} | {"pages": 150 * scale, "notebooks_imported": 150 * scale}


def test_the_report_has_a_column_per_page_count_a_target_and_the_ratio() -> None:
    lines, missed = bench.report({150: figures(1.0), 300: figures(2.0)})
    assert lines[0].split() == ["measure", "150", "pages", "300", "pages", "target", "ratio"]
    assert len(lines) == 1 + len(bench.ROWS) and missed == []
    html = next(line for line in lines if line.startswith("clean build, HTML"))
    assert "10.0 s" in html and "20.0 s" in html and "<= 60 s" in html and html.endswith("2.00x")


def test_a_stage_that_grows_faster_than_linear_or_misses_its_target_is_reported() -> None:
    slow = figures(2.0)
    slow["clean_html"] = 10.0 * 2.5  # 2.5x at twice the pages
    _, missed = bench.report({150: figures(1.0), 300: slow})
    assert missed == ["clean_html grows 2.50x from 150 to 300 pages (at most 2.2x)"]
    over = figures(1.0)
    over["noop"] = 9.0
    _, missed = bench.report({150: over})
    assert missed == ["noop 9.0 over its target 8 at 150 pages"]


def test_a_book_larger_than_asked_is_cut_without_breaking_a_link_or_emptying_a_chapter(tmp_path: Path) -> None:
    src = FIXTURES / "minibook"
    dest = tmp_path / "three"
    dest.mkdir()
    assert bench.make_book(src, dest, 3) == 3
    book = load_book(dest / "book")
    assert sorted(q.id for q in book.questions) == ["gpu-demo", "grad-demo", "shape-demo"]  # the exercise is neither linked nor alone
    assert not list((dest / "book").rglob("relu-from-scratch.md"))
    (tmp_path / "two").mkdir()
    with pytest.raises(SystemExit, match="cannot cut the book to 2 pages"):
        bench.make_book(src, tmp_path / "two", 2)
