"""Text alternatives for plots: ``check`` asks for one after each cell that drew, and the site and EPUB carry it."""

from __future__ import annotations

import zipfile
from pathlib import Path

import nbformat
import pytest
from pages import BODY, TOPICS_YML, page
from studyguide import alttext, notebook
from studyguide.book import parse_book, parse_page

PLOT = "```{{code-cell}} python\nprint(1)\n```\n\n```{{plot-alt}}\n{text}\n```\n\n"


def _problems(text: str) -> list[str]:
    _, _, found = parse_page("1-basics/tensor/q1.md", text, {"tensor": None}, "book")  # type: ignore[dict-item]
    return [f"{p.line}: {p.message}" for p in found if p.key == "plot-alt"]


def _with(block: str) -> str:
    return page(body=BODY.format(ref="q1").replace("## 易错点", block + "## 易错点", 1))


def test_an_alternative_must_follow_a_cell_and_say_something() -> None:
    good = _with(PLOT.format(text="一条从 1 降到 0 的曲线。"))
    assert _problems(good) == []
    lines = good.splitlines()
    assert _problems(good.replace("```\n\n```{plot-alt}", "```\n\n间隔的一段话。\n\n```{plot-alt}", 1)) == [
        f"{lines.index('```{plot-alt}') + 3}: follows no code cell"]
    assert _problems(_with(PLOT.format(text=""))) == [f"{lines.index('```{plot-alt}') + 1}: is empty"]
    twice = good.replace("一条从 1 降到 0 的曲线。\n```\n", "一条从 1 降到 0 的曲线。\n```\n\n```{plot-alt}\n又一句。\n```\n", 1)
    assert _problems(twice) == [f"{lines.index('```{plot-alt}') + 5}: follows no code cell"]  # one sentence per cell


def _stored(tmp: Path, sources: list[str], drawing: list[bool]) -> Path:
    image = nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"})
    cells = [nbformat.v4.new_code_cell(s, outputs=[image] if d else []) for s, d in zip(sources, drawing, strict=True)]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), tmp / "q1.ipynb")
    return tmp


TWO_CELLS = BODY.format(ref="q1").replace("## 易错点", PLOT.format(text="一条曲线。") + "```{code-cell} python\nprint(2)\n```\n\n## 易错点", 1)


@pytest.mark.parametrize("drawing, expected", [
    ([True, True], ["code cell 3 draws a plot with no text alternative"]),
    ([True, False], []),
    ([False, False], []),  # an alternative over a cell that draws nothing names no image: harmless
])
def test_each_drawing_cell_has_an_alternative_and_no_other(tmp_path: Path, drawing: list[bool], expected: list[str]) -> None:
    book = parse_book({"topics.yml": TOPICS_YML, "1-basics/tensor/q1.md": page(body=TWO_CELLS)})
    sources = [c.source for c in book.pages["q1"].cells]  # the page's first cell is the cheat sheet
    found = alttext.problems(book, "book", notebook.read_stored(book, _stored(tmp_path, sources, [False, *drawing])))
    assert [p.message for p in found] == expected


def test_a_cell_added_before_a_plot_since_the_page_ran_does_not_move_the_plot(tmp_path: Path) -> None:
    book = parse_book({"topics.yml": TOPICS_YML, "1-basics/tensor/q1.md": page(body=TWO_CELLS)})
    ran = [c.source for c in book.pages["q1"].cells]
    added = TWO_CELLS.replace("```{code-cell} python\nprint(1)", "```{code-cell} python\nprint(0)\n```\n\n```{code-cell} python\nprint(1)", 1)
    book = parse_book({"topics.yml": TOPICS_YML, "1-basics/tensor/q1.md": page(body=added)})
    assert len(book.pages["q1"].cells) == len(ran) + 1
    stored = notebook.read_stored(book, _stored(tmp_path, ran, [False, True, False]))  # stored before the new cell
    assert alttext.problems(book, "book", stored) == []  # the plot is still the cell its sentence follows
    edited = notebook.read_stored(book, _stored(tmp_path, [ran[0], "print(9)", ran[2]], [False, True, True]))
    assert [p.message for p in alttext.problems(book, "book", edited)] == ["code cell 4 draws a plot with no text alternative"]


@pytest.mark.build
def test_the_site_and_the_epub_give_the_plot_its_sentence(built_minibook: Path) -> None:
    source = (built_minibook / "book/2-intermediate/autograd/grad-demo.md").read_text(encoding="utf-8")
    sentence = source.split("```{plot-alt}\n", 1)[1].split("\n```", 1)[0]
    html = (built_minibook / "_build/html/2-intermediate/autograd/grad-demo.html").read_text(encoding="utf-8")
    assert f'<img alt="{sentence}" src="../../_images/' in html
    with zipfile.ZipFile(built_minibook / "_build/minibook.epub") as z:
        page_xhtml = next(z.read(n).decode() for n in z.namelist() if n.endswith("grad-demo.xhtml"))
    assert f'alt="{sentence}"' in page_xhtml and "plot-alt" not in page_xhtml
