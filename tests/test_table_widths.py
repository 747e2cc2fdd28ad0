"""The e-reader's table column widths (latexrefs.column_widths): pure, from a docutils table."""

from __future__ import annotations

from docutils import nodes
from docutils.core import publish_doctree
from studyguide.sphinxext.latexrefs import column_widths


def _table(rows: list[list[str]]) -> nodes.Element:
    text = ".. list-table::\n\n" + "".join(
        "   * - " + "\n     - ".join(row) + "\n" for row in rows)
    return next(publish_doctree(text).findall(nodes.table))


def test_a_short_column_keeps_its_widest_cell_and_the_long_ones_share_the_rest() -> None:
    widths = column_widths(_table([["环节", "手段", "写法"], ["训练循环", "早停", "自己实现或用框架回调，" * 4]]), 46)
    assert widths[0] == len("训练循环") * 2 + 2  # four CJK characters and their slack: never one per line
    assert widths[1] == len("早停") * 2 + 2
    assert sum(widths) == 46 - 2 * 3


def test_columns_that_all_fit_get_their_content_and_spans_give_up() -> None:
    assert column_widths(_table([["a", "bb"], ["ccc", "d"]]), 46) == [5, 4]
    spanning = _table([["a", "b"], ["c", "d"]])
    next(spanning.findall(nodes.entry))["morecols"] = 1
    assert column_widths(spanning, 46) == []


def test_a_header_stays_on_one_line_when_the_headers_fit_side_by_side() -> None:
    """Issue #23: the 6-inch PDF broke the header "PyTorch 中的写法" before its last character, on every page of the
    table (regularization-methods): its long column got 16 columns for a 16-column header and its slack."""
    rows = [["环节", "手段", "PyTorch 中的写法"], ["训练循环", "Dropout、归一化层、随机深度", "nn.Dropout、nn.BatchNorm*、nn.LayerNorm；依赖 train()/eval()"]]
    text = ".. list-table::\n   :header-rows: 1\n\n" + "".join("   * - " + "\n     - ".join(row) + "\n" for row in rows)
    table = next(publish_doctree(text).findall(nodes.table))
    body_only = column_widths(_table(rows[1:]), 47)
    widths = column_widths(table, 47)
    assert body_only[2] < len("PyTorch ") + 2 * len("中的写法") + 2  # the case that broke
    assert widths[2] == len("PyTorch ") + 2 * len("中的写法") + 2, widths
    assert widths[0] == body_only[0] and sum(widths) == sum(body_only)  # the room came from the middle column
