"""Code is lexed once per process: each formatter gets Pygments' own result, from the memo's tokens."""

from __future__ import annotations

import inspect

import pygments
import pytest
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter, LatexFormatter
from pygments.lexers import PythonLexer
from studyguide.sphinxext import highlight as memo


@pytest.fixture
def lexed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = pygments.lex

    def counting(source: str, lexer):  # type: ignore[no-untyped-def]
        calls.append(source)
        return real(source, lexer)

    monkeypatch.setattr(pygments, "lex", counting)
    monkeypatch.setattr(memo, "_memo", {})
    return calls


def test_a_second_highlight_is_pygments_result_without_lexing_again(lexed: list[str]) -> None:
    source = "x = torch.randn(2, 3)  # 形状\nprint(x.sum())\n"
    makers = (HtmlFormatter, lambda: LatexFormatter(commandprefix="PYG"))
    expected = [pygments_highlight(source, PythonLexer(), make()) for make in makers]
    lexed.clear()
    for make, want in zip(makers, expected, strict=True):
        assert [memo.highlight(source, PythonLexer(), make()) for _ in range(2)] == [want, want]
    assert lexed == [source]  # lexed once for both formatters


def test_other_lexer_options_or_filters_are_lexed_anew_and_formatters_differ(lexed: list[str]) -> None:
    source = "def f(a):\n    return a\n"
    plain = memo.highlight(source, PythonLexer(), HtmlFormatter())
    numbered = memo.highlight(source, PythonLexer(), HtmlFormatter(linenos="inline"))
    filtered = PythonLexer()
    filtered.add_filter("raiseonerror")
    memo.highlight(source, filtered, HtmlFormatter())
    memo.highlight(source, PythonLexer(stripnl=False), HtmlFormatter())
    assert len(lexed) == 3
    assert plain != numbered == pygments_highlight(source, PythonLexer(), HtmlFormatter(linenos="inline"))


def test_sphinx_highlights_through_the_module_function_the_memo_replaces() -> None:
    from sphinx.highlighting import PygmentsBridge

    assert "hlsource = highlight(source, lexer, formatter)" in inspect.getsource(PygmentsBridge.highlight_block)


def test_a_lexing_error_is_raised_as_pygments_raises_it_and_not_kept(lexed: list[str]) -> None:
    from pygments.filters import ErrorToken

    strict = PythonLexer()
    strict.add_filter("raiseonerror")
    for _ in range(2):
        with pytest.raises(ErrorToken):
            memo.highlight("x = $\n", strict, HtmlFormatter())
    assert memo._memo == {} and len(lexed) == 2
