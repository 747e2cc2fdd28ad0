"""Where long inline code may break in the PDFs (latexrefs.mark_breaks): pure, on strings."""

from __future__ import annotations

import pytest
from studyguide.sphinxext.latexrefs import BREAK, SOFT_BREAK, mark_breaks


@pytest.mark.parametrize(("code", "marked"), [
    ("nn.init.ones_(m.weight)", "nn.|init.|ones_(|m.|weight)"),
    ("LayerNorm(bias=False)", "LayerNorm(|bias=|False)"),  # a keyword argument breaks after '='
    ('param_groups[i]["param_names"]', 'param_groups[i]|["param_names"]'),  # and between '][', so a line need not stretch
    ("a == b", "a == b"),  # no break before a space
    ("x.view(-1)", "x.|view(|-1)"),
    ("f()", "f()"),  # nor before ')'
])
def test_inline_code_breaks_after_dots_parens_equals_and_between_brackets(code: str, marked: str) -> None:
    assert mark_breaks(code).replace(SOFT_BREAK, "").replace(BREAK, "|") == marked  # the hard break points


def test_a_long_name_may_also_break_inside_at_a_cost() -> None:
    assert mark_breaks("named_parameters").replace(SOFT_BREAK, "~").count("~") >= 3


def test_a_table_cell_keeps_its_last_two_chinese_characters_together() -> None:
    from docutils import nodes
    from studyguide.sphinxext.latexrefs import ends_a_cell

    def cell(*texts: str) -> list[nodes.Text]:
        para = nodes.paragraph("", "", *(nodes.Text(t) for t in texts))
        nodes.entry("", para)
        return list(para.children)  # type: ignore[arg-type]

    assert ends_a_cell(cell("Dropout、归一化层、随机深度")[0])
    assert not any(ends_a_cell(t) for t in (*cell("随机深度", " x"), *cell("深度。"), *cell("Dropout")))  # not last, punctuation, Latin
    body = nodes.paragraph("", "", nodes.Text("正文里的随机深度"))
    assert not ends_a_cell(body.children[0])  # type: ignore[arg-type]
