"""The page outline read from MyST tokens: bullets and their proofs, dunders, plain length, cheat-sheet asserts."""

from __future__ import annotations

import pytest
from pages import BODY, page
from studyguide import cells
from studyguide import page as page_mod


def outline(body: str) -> page_mod.Outline:
    return page_mod.parse(page(body=body.format(ref="q1")))


def test_bullets_of_both_proof_sections_carry_their_proofs_and_lines() -> None:
    out = outline(BODY.replace("- 结论。{{proof}}`sum`", "- 结论，`a`。{{proof}}`sum` {{proof}}`other`\n  续行 {{ref}}`q1`"))
    text = page(body=BODY.format(ref="q1"))
    assert [(b.section, b.proofs) for b in out.bullets] == [("short-answer", ("sum", "other")), ("pitfalls", ("sum",))]
    assert out.bullets[0].line == next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("- 结论"))
    assert out.bullets[0].markdown.endswith("续行 {ref}`q1`")


def test_nested_bullets_belong_to_their_parent() -> None:
    out = outline(BODY.replace("- 错误说法。{{proof}}`sum`", "- 错误说法。{{proof}}`sum`\n  - 细节，不必单独引用。"))
    assert [b.section for b in out.bullets] == ["short-answer", "pitfalls"]


def test_proof_marks_do_not_count_towards_the_bullet_length() -> None:
    assert page_mod.plain_length("`view` 共享存储。{proof}`view-shares`") == len("view 共享存储。")
    assert page_mod.plain_length("见 {ref}`标题 <some-id>`。") == len("见 标题。")


@pytest.mark.parametrize("prose, names", [
    ("在 __init__ 里建层", ["__init__"]),
    ("实现 __len__ 与 __getitem__", ["__len__", "__getitem__"]),
    ("调用 x.__len__() 时", ["__len__"]),
    ("写成 `__init__` 就对了", []),
    ("**加粗** 不是 dunder", []),
])
def test_dunders_outside_code_spans_are_found(prose: str, names: list[str]) -> None:
    out = outline(BODY.replace("为什么问。", prose))
    assert [name for _, name in out.dunders] == names


def test_a_dunder_in_a_title_is_found_too() -> None:
    out = outline(BODY.replace("# 标题", "# 为什么 __init__ 要先调用"))
    assert [name for _, name in out.dunders] == ["__init__"]


def test_escaped_answers_survive_markdown() -> None:
    from markdown_it import MarkdownIt

    html = MarkdownIt().render(page_mod.escape_markdown("实现 __len__ 和 a*b*c，`x`"))
    assert "<strong>" not in html and "<em>" not in html and "__len__" in html and "`x`" in html


def cell(code: str) -> cells.Cell:
    return cells.Cell(1, ("cheatsheet",), code)


@pytest.mark.parametrize("code, lines", [
    ("x = 1 + 1\nassert x == 2", [2]),
    ("assert 2 * 3 == 6", [1]),
    ("n = len([1, 2])\nassert n == 2", [2]),
    ("assert all(v > 0 for v in [1, 2])", [1]),
    ("import torch\nx = torch.ones(2)\nassert x.sum() == 2", []),
    ("import torch\nassert torch.float16.itemsize == 2", []),
    ("import torch\nfor t in torch.ones(2):\n    assert t == 1", []),
    ("import torch\na, b = torch.ones(4).chunk(2)\nc = a\nassert c.numel() == 2", []),
    ("import torch\nx = torch.ones(2)\nassert x.sum() == 2\nassert 1 + 1 == 2", [4]),
    ("import torch\nassert (n := torch.ones(3).numel()) == 3 and n > 0", []),
    ("assert (n := 2 + 1) == 3", [1]),
])
def test_cheat_sheet_asserts_must_check_a_computed_value(code: str, lines: list[int]) -> None:
    assert cells.constant_asserts(cell(code)) == lines


@pytest.mark.parametrize("code, expected", [
    ("assert f()", True),
    ("torch.testing.assert_close(a, b)", True),
    ("try:\n    f()\nexcept ValueError:\n    pass\nelse:\n    raise AssertionError('应当报错')", True),
    ("print(f())", False),
])
def test_a_cited_cell_must_check_something(code: str, expected: bool) -> None:
    assert cells.asserts(cell(code)) is expected
