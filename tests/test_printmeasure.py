"""The print checks find each defect they look for, in a small PDF drawn with the book's own fonts."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pymupdf
import pytest
from conftest import require_program
from printmeasure import measure

GREY = (0.949, 0.949, 0.949)
BODY = "这是正文的一行，用来占满页面的版心，让测量知道版心的上下边界在哪里。"


def font(pattern: str) -> str:
    """The file fontconfig picks for ``pattern`` (the same fonts the PDF build uses)."""
    return subprocess.run([require_program("fc-match"), "-f", "%{file}", pattern], capture_output=True, text=True, check=True).stdout


def draw(path: Path, *, split: tuple[int, int], title_at_foot: bool, stretched: bool, labels: bool = True) -> Path:
    """Three A4 pages of body text; a code box split ``split`` lines over pages 1–2, with LaTeX's continuation
    labels; a title near page 2's foot;
    one line of page 3 with its Chinese characters spread apart."""
    doc = pymupdf.open()
    fonts = {"body": font("Noto Serif CJK SC"), "mono": font("DejaVu Sans Mono"), "bold": font("Noto Sans CJK SC:bold")}
    for n in range(3):
        page = doc.new_page(width=595, height=842)
        for name, file in fonts.items():
            page.insert_font(fontname=name, fontfile=file)
        y = 80.0
        if n == 1:  # the split box continues at the top of page 2, under LaTeX's label
            if labels:
                page.insert_text((440, y), "（接上页）", fontname="body", fontsize=8)
            y += 12
            page.draw_rect(pymupdf.Rect(60, y - 10, 536, y + 12 * split[1] - 6), color=None, fill=GREY)
            for _ in range(split[1]):
                page.insert_text((64, y), "x = torch.ones(3)", fontname="mono", fontsize=8)
                y += 12
        room = 56 - (split[0] + 1 if n == 0 else 0) - (4 if n == 1 else 0)
        while y < 80 + 12 * room:
            if n == 2 and stretched and y > 300 and y < 313:
                for i, ch in enumerate("拉开的一行中文字符"):
                    page.insert_text((60 + i * 14, y), ch, fontname="body", fontsize=10)
            else:
                page.insert_text((60, y), BODY, fontname="body", fontsize=10)
            y += 12
        if n == 0:  # the box that runs to page 1's foot
            page.draw_rect(pymupdf.Rect(60, y - 10, 536, y + 12 * split[0] - 6), color=None, fill=GREY)
            for _ in range(split[0]):
                page.insert_text((64, y), "y = x.sum()", fontname="mono", fontsize=8)
                y += 12
            if labels:
                page.insert_text((440, y), "（续下页）", fontname="body", fontsize=8)
        if n == 1:
            y += 12
            if title_at_foot:
                page.insert_text((60, y), "易错点", fontname="bold", fontsize=12)
            else:
                page.insert_text((60, y), BODY, fontname="body", fontsize=10)
            y += 12
            for _ in range(2):
                page.insert_text((60, y), BODY, fontname="body", fontsize=10)
                y += 12
        page.insert_text((60, 45), "书名", fontname="body", fontsize=9)  # the header
        page.insert_text((280, 810), str(n + 1), fontname="body", fontsize=9)  # the footer
    doc.save(str(path))
    return path


@pytest.mark.parametrize(("split", "bad"), [((2, 20), True), ((20, 1), True), ((5, 6), True), ((6, 8), False)])
def test_a_split_box_is_a_defect_when_short_or_leaving_under_3_lines(tmp_path: Path, split: tuple[int, int], bad: bool) -> None:
    report = measure(draw(tmp_path / "x.pdf", split=split, title_at_foot=False, stretched=False))
    assert report.split_blocks == 1
    assert report.bad_splits == ([(1, *split)] if bad else [])


def test_two_boxes_that_meet_at_a_page_break_without_the_labels_are_two_blocks(tmp_path: Path) -> None:
    report = measure(draw(tmp_path / "x.pdf", split=(2, 1), title_at_foot=False, stretched=False, labels=False))
    assert report.split_blocks == 0 and report.bad_splits == []


def test_a_title_in_the_last_lines_and_a_stretched_line_are_found(tmp_path: Path) -> None:
    report = measure(draw(tmp_path / "x.pdf", split=(6, 8), title_at_foot=True, stretched=True))
    assert [p for p, _ in report.titles_at_foot] == [2] and report.titles_at_foot[0][1].endswith("错点")
    assert [p for p, _ in report.stretched] == [3]
    clean = measure(draw(tmp_path / "y.pdf", split=(6, 8), title_at_foot=False, stretched=False))
    assert clean.titles_at_foot == [] and clean.stretched == []
