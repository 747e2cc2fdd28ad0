"""Cheat sheets: grouping, snippets from executed cells, one page each, overflow errors, reproducibility."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import pytest
from outputs import font_sizes, pdf_fonts, pdf_text, visible_text
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
    assert " columns of 2 (60 questions, 60 of them printed without their snippet to make room); longest items: q0 (" in message
    assert message.endswith("(shorten those answers or snippets; the text is never shrunk below 8 pt)")


def test_snippets_are_left_out_before_a_sheet_overflows(tmp_path: Path) -> None:
    sheet = sheets.plan(book_with(40, snippet=True), ZH, TOP)[0]  # 40 questions with snippets need more than a page
    laid_out = sheets.fit(sheet, sheets.data(sheet, "书", "1 版", {}, ZH, {}))
    bare = [item["title"] for g in laid_out["groups"] for item in g["items"] if item["code"] == ""]
    assert 0 < len(bare) < 40 and laid_out["footer"].endswith(f" · {len(bare)} 道题未印代码（见书中该题）")
    pdf = tmp_path / "s.pdf"
    pdf.write_bytes(sheets.typeset(sheet, sheets.data(sheet, "书", "1 版", {}, ZH, {})))
    assert len(PdfReader(pdf).pages) == 1 and pdf_text(pdf).count("y = x * 2") == 40 - len(bare)


def test_a_short_sheet_is_short_in_both_columns() -> None:
    sheet = sheets.plan(book_with(7, snippet=True), ZH, TOP)[0]
    payload = sheets.data(sheet, "书", "1 版", {}, ZH, {})
    ends = sheets.column_ends(sheets.fit(sheet, payload))  # where Typst set each column's last unit
    tallest = max(sheets.measure(payload).heights) + 20  # one question and its group heading, in pt
    assert len(ends) == 2 and min(ends) > 0.1 and max(ends) - min(ends) < tallest / sheets.measure(payload).column, ends


def test_no_text_on_a_sheet_is_below_the_floor(tmp_path: Path) -> None:
    from studyguide.refblocks import Block, Table

    block = Block("t", lambda: Table("表", ("形状", "结果"), (("(3, 1)", "报错：维度不兼容"),)), "pytest")
    answer = "这是一个故意写得很长的答案，" * 4 + "好让答案的字数最多。"
    sheet = dataclasses.replace(sheets.plan(book_with(3, answer=answer, snippet=True), ZH, TOP)[0], references=("t",))
    pdf = tmp_path / "s.pdf"
    pdf.write_bytes(sheets.typeset(sheet, sheets.data(sheet, "书", "1 版", {"q0": "2026-01-01"}, ZH, {"t": block})))
    sizes = font_sizes(pdf)
    code = {size for (font, size) in sizes if "Mono" in font}
    body = max((n, size) for (font, size), n in sizes.items() if "Mono" not in font)[1]  # the answers' size: most text
    assert min(size for _, size in sizes) >= sheets.LAYOUT["code_pt"] and min(code) >= sheets.LAYOUT["code_pt"], sizes
    assert body >= sheets.LAYOUT["body_pt"] == 9 and sheets.LAYOUT["code_pt"] == 8, sizes


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
