"""Cheat sheets: grouping, snippets from executed cells, one page each, overflow errors, reproducibility."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from outputs import pdf_fonts, pdf_text, visible_text
from pages import TOPICS_YML, UNTAGGED_BODY, page
from pypdf import PdfReader
from studyguide import sheets
from studyguide.book import parse_book
from studyguide.cells import read
from studyguide.errors import BookError
from studyguide.locale import load

ZH = load("zh")


def load_book_of(project):  # noqa: ANN001, ANN201
    """The book of a project, read with its own rules."""
    from studyguide.book import load_book

    return load_book(project.book, rules=project.rules)
TOP = ((("basics",), ()),)  # one frequent sheet for the basics tier

pytestmark = pytest.mark.build  # executes kernels or builds: not in `make unit`

EMPTY_SNIPPET = "```{{code-cell}} python\n:tags: [cheatsheet]\nimport math\nassert math.isfinite(1.0)\n```\n\n## 易错点"
SNIPPET_CELL = "```{{code-cell}} python\n:tags: [cheatsheet]\ny = x * 2\nassert y == 4\n```\n\n## 易错点"


def book_with(n: int, answer: str = "短答案。", snippet: bool = False):
    body = UNTAGGED_BODY.replace("## 易错点", SNIPPET_CELL) if snippet else UNTAGGED_BODY.replace("## 易错点", EMPTY_SNIPPET)
    sources = {"topics.yml": TOPICS_YML}
    for i in range(n):
        sources[f"1-basics/tensor/q{i}.md"] = page(body=body.format(ref="q0"), id=f"q{i}", answer=answer, frequent=i % 2 == 0)
    return parse_book(sources)


def test_snippet_comes_from_the_cell_tagged_cheatsheet() -> None:
    cells = read(page(body=UNTAGGED_BODY.replace("## 易错点", SNIPPET_CELL).format(ref="q1")))
    assert [c.source for c in cells if c.is_snippet] == ["y = x * 2\nassert y == 4"]
    assert book_with(1, snippet=True).questions[0].snippet == "y = x * 2\nassert y == 4"


def test_snippet_size_is_checked() -> None:
    long_cell = SNIPPET_CELL.replace("y = x * 2\n", "y = x * 2\n" * 9)
    with pytest.raises(BookError) as err:
        parse_book({"topics.yml": TOPICS_YML, "1-basics/tensor/q.md": page(body=UNTAGGED_BODY.replace("## 易错点", long_cell).format(ref="q1"))})
    assert "cheatsheet: snippet is 10 lines, 13 wide (keep the cheat-sheet cell within 8 lines of 64 characters)" in str(err.value)


def test_plan_has_one_sheet_per_topic_and_a_frequent_sheet() -> None:
    plan = sheets.plan(book_with(3), ZH, TOP)
    assert [s.name for s in plan] == ["tensor", "top-basics"]
    assert [g.heading for g in plan[0].groups] == ["入门"]
    assert [q.id for q in plan[1].questions] == ["q0", "q2"]  # only 高频, grouped by chapter


def test_footer_names_topic_edition_and_latest_output_date() -> None:
    sheet = sheets.plan(book_with(2), ZH, TOP)[0]
    data = sheets.data(sheet, "书名", "2026.11 版", {"q0": "2026-11-01", "q1": "2026-11-30"}, ZH, {})
    assert data["footer"] == "张量 速查表 · 书名 2026.11 版 · 输出执行于 2026-11-30"


def test_a_sheet_that_does_not_fit_fails_with_size_and_longest_items() -> None:
    book = book_with(60, answer="这是一个故意写得很长的答案，" * 6 + "用来撑满页面。", snippet=True)
    sheet = sheets.plan(book, ZH, TOP)[0]
    with pytest.raises(sheets.SheetOverflowError) as err:
        sheets.typeset(sheet, sheets.data(sheet, "书", "1 版", {}, ZH, {}))
    message = str(err.value)
    assert message.startswith("cheat sheet 'tensor' (张量) overflows its page by ")
    assert " columns of 3 (60 questions); longest items: q0 (" in message
    assert message.endswith("(shorten those answers or snippets; the text is never shrunk below 7 pt)")


def test_a_failed_sheet_build_writes_nothing(tmp_path: Path) -> None:
    book = book_with(60, answer="这是一个故意写得很长的答案，" * 6 + "用来撑满页面。")
    with pytest.raises(sheets.SheetOverflowError):
        sheets.build_sheets(book, tmp_path, "书", "1", {}, ZH, {}, TOP)
    assert list(tmp_path.iterdir()) == []


def test_regenerating_gives_identical_bytes_and_skips_unchanged(tmp_path: Path) -> None:
    book = book_with(4, snippet=True)
    first = sheets.build_sheets(book, tmp_path / "a", "书", "1", {}, ZH, {}, TOP)
    again = sheets.build_sheets(book, tmp_path / "a", "书", "1", {}, ZH, {}, TOP)
    other = sheets.build_sheets(book, tmp_path / "b", "书", "1", {}, ZH, {}, TOP)
    assert first.written == ["tensor", "top-basics"] and again.written == [] and again.unchanged == ["tensor", "top-basics"]
    for name in first.written:
        assert (tmp_path / "a" / f"{name}.pdf").read_bytes() == (tmp_path / "b" / f"{name}.pdf").read_bytes()
    assert other.written == first.written


def test_built_sheets_are_one_page_with_every_question_and_embedded_fonts(built_minibook: Path) -> None:
    from studyguide.project import open_project

    project = open_project(built_minibook)
    book = load_book_of(project)
    plan = sheets.plan(book, project.config.locale, sheets.frequent_groups(project.config))
    assert {p.stem for p in (built_minibook / "_build/cheatsheets").glob("*.pdf")} == {s.name for s in plan}
    for sheet in plan:
        pdf = built_minibook / "_build/cheatsheets" / f"{sheet.name}.pdf"
        assert len(PdfReader(io.BytesIO(pdf.read_bytes())).pages) == 1, sheet.name
        text = pdf_text(pdf).replace(" ", "").replace("\n", "")
        for q in sheet.questions:
            assert q.title.replace(" ", "") in text, (sheet.name, q.id)
        assert all(f["emb"] == "yes" for f in pdf_fonts(pdf))
        assert (built_minibook / "_build/html/downloads/cheatsheets" / pdf.name).read_bytes() == pdf.read_bytes()
    tensor = pdf_text(built_minibook / "_build/cheatsheets/tensor.pdf")
    assert "t = torch.zeros(2, 3).t()" in tensor  # the executed snippet
    assert "张量基础与内存布局 速查表" in tensor and "输出执行于 20" in tensor  # footer: topic and date


def test_topic_and_sheet_pages_link_the_pdfs(built_minibook: Path) -> None:
    html = built_minibook / "_build/html"
    topic = (html / "topics/tensor.html").read_text(encoding="utf-8")
    assert 'href="../downloads/cheatsheets/tensor.pdf"' in topic
    sheet = (html / "cheatsheets/tensor.html").read_text(encoding="utf-8")
    assert 'href="../downloads/cheatsheets/tensor.pdf"' in sheet and "t = torch . zeros ( 2 , 3 )" in visible_text(sheet)
    assert not (built_minibook / "_build/epub/topics").exists()  # website only
