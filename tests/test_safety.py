"""Pages stay inside the book: the rules of `check` on files, script and raw LaTeX, and stored notebooks' outputs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from pages import BODY, page
from studyguide import notebook
from studyguide.book import Rules, load_book, parse_book
from studyguide.errors import BookError, ExecutionError
from studyguide.safety import Allow

TOPICS = "tensor:\n  label: 张量\n"


def problems(extra: str, rules: Rules | None = None) -> list[str]:
    body = BODY.format(ref="q1").replace("## 考点", extra + "\n\n## 考点")
    try:
        parse_book({"topics.yml": TOPICS, "1-basics/tensor/q.md": page(body=body)}, rules=rules or Rules())
    except BookError as exc:
        return [str(p) for p in exc.problems]
    return []


def test_raw_latex_and_script_pass_only_where_the_book_allows_them() -> None:
    latex, script = "```{raw} latex\n\\newpage\n```", "<script>alert(1)</script>"
    assert [p.split(": ")[1] for p in problems(latex)] == ["raw"]
    assert [p.split(": ")[1] for p in problems(script)] == ["html"]
    assert problems(latex, Rules(allow=Allow(raw_latex=True))) == []
    assert problems(script, Rules(allow=Allow(raw_html=True))) == []


@pytest.mark.parametrize("extra", [
    "见 [文档](https://pytorch.org/docs) 与 [本书](#question)。",
    "<kbd>Ctrl</kbd> 加 <sub>下标</sub>。",
    "```{raw} html\n<b>粗体</b>\n```",
])
def test_links_and_harmless_html_are_fine(extra: str) -> None:
    assert problems(extra) == []


def test_a_symlink_inside_the_book_to_a_file_outside_is_refused(tmp_path: Path) -> None:
    book = tmp_path / "book"
    (book / "1-basics/tensor").mkdir(parents=True)
    (book / "topics.yml").write_text(TOPICS, encoding="utf-8")
    (book / "1-basics/tensor/data.txt").symlink_to("/etc/passwd")
    body = BODY.format(ref="q1").replace("## 考点", "```{literalinclude} data.txt\n```\n\n## 考点")
    (book / "1-basics/tensor/q.md").write_text(page(body=body), encoding="utf-8")
    with pytest.raises(BookError) as caught:
        load_book(book)
    assert [str(p) for p in caught.value.problems] == [
        "book/1-basics/tensor/q.md:22: literalinclude: path 'data.txt' resolves outside the book folder (through a symlink) (only files under book/ may be read or linked)"]
    (book / "1-basics/tensor/data.txt").unlink()
    (book / "1-basics/tensor/data.txt").write_text("x = 1\n", encoding="utf-8")
    assert load_book(book).questions[0].id == "q1"  # a real file in the book may be included


def store_with(tmp_path: Path, output: object) -> Path:
    """A store holding one notebook of the test page, its first code cell given ``output``."""
    nb = notebook.parse_page(page(body=BODY.format(ref="q1")))
    store = tmp_path / "_executed"
    store.mkdir()
    text = notebook.to_store(nb, "book/1-basics/tensor/q.md", {"device": "cpu"})
    stored = nbformat.reads(text, as_version=4)
    stored.cells[0].outputs.append(output)
    nbformat.write(stored, store / "q1.ipynb")
    return store


@pytest.mark.parametrize("output", [
    nbformat.v4.new_output("display_data", data={"text/html": "<div onmouseover='steal()'>表</div>", "text/plain": "表"}),
    nbformat.v4.new_output("display_data", data={"application/javascript": "alert(1)"}),
    nbformat.v4.new_output("execute_result", data={"image/svg+xml": "<svg><script>alert(1)</script></svg>"}, execution_count=1),
])
def test_a_stored_notebook_whose_output_carries_script_is_rejected_at_import(tmp_path: Path, output: object) -> None:
    with pytest.raises(ExecutionError, match=r"q1.ipynb: code cell 1: a .* would run script on the site"):
        notebook.read_store(store_with(tmp_path, output))


def test_plain_html_outputs_are_kept(tmp_path: Path) -> None:
    table = nbformat.v4.new_output("display_data", data={"text/html": "<table><tr><td>1</td></tr></table>"})
    assert "q1" in notebook.read_store(store_with(tmp_path, table))
