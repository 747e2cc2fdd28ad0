"""Code lexed once per build process: the site, the EPUBs and the PDFs share Pygments' tokens.

A build of all formats runs Sphinx several times in one process (site, two EPUBs, the PDFs' LaTeX), and each run
lexed every code cell again: Pygments' lexing took about 20 s of each. ``sphinx.highlighting`` calls
``pygments.highlight(source, lexer, formatter)``, which is ``format(lex(source, lexer), formatter)``; this keeps
the tokens, keyed by the source and everything the lexer was made with, and formats them for each output as
before. A lexing error is raised as before and nothing is kept (Sphinx retries with another lexer).
"""

from __future__ import annotations

from typing import Any

import pygments
import sphinx.highlighting
from sphinx.application import Sphinx

LIMIT = 100_000  # results kept; the memo starts afresh past it
_memo: dict[tuple[Any, ...], list[tuple[Any, str]]] = {}


def _spec(lexer: Any) -> tuple[Any, ...]:
    """What a lexer was made with: its class, options and filters."""
    options = tuple(sorted((k, repr(v)) for k, v in lexer.options.items()))
    filters = tuple(type(f).__qualname__ + repr(vars(f)) for f in lexer.filters)
    return (type(lexer).__module__, type(lexer).__qualname__, options, filters)


def highlight(source: str, lexer: Any, formatter: Any, outfile: Any = None) -> Any:
    """``pygments.highlight``, with the tokens from the memo when the same source was lexed by the same lexer."""
    key = (source, _spec(lexer))
    tokens = _memo.get(key)
    if tokens is None:
        tokens = list(pygments.lex(source, lexer))  # a lexing error propagates before anything is kept
        if len(_memo) >= LIMIT:
            _memo.clear()
        _memo[key] = tokens
    return pygments.format(iter(tokens), formatter, outfile)


def setup(app: Sphinx) -> None:
    """Make Sphinx's highlighter use the memo."""
    sphinx.highlighting.highlight = highlight  # type: ignore[attr-defined]
