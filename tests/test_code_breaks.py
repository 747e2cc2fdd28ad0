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
