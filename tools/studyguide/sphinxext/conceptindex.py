"""Concept entries of the book's index: a term with a Han character (广播, 混合精度) is a concept, the rest are API names.

API names are set in code font and sorted as they are spelled. A concept is set upright like the text around it,
and sorted by its pinyin among the API names (``广播`` with the g's), in the PDF (makeindex reads a sort key
before ``@``) and on the site and in the EPUB (Sphinx's category key: the pinyin's initial letter).
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform

HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# one level of a LaTeX index entry as Sphinx writes it: `` {key@\spxentry{key} `` or after ``!``
LATEX_LEVEL = re.compile(r"(?<=[{!])([^@{}!|]+)@\\spxentry\{\1\}")
API_BREAK = re.compile(r"\.(?=\w)")  # a break point after each dot of an API name in a two-column index
LATEX_MACRO = r"\newcommand{\studyguideconcept}[1]{#1}  % an index concept, upright (API names: \sphinxcode)" + "\n"


def is_concept(term: str) -> bool:
    """Whether an index term is a concept (it holds a Han character) rather than an API name."""
    return bool(HAN.search(term))


def sort_key(term: str) -> str:
    """The term's sort key: its Han characters in toneless pinyin, the rest as written, lower case."""
    from pypinyin import lazy_pinyin

    return " ".join(lazy_pinyin(term)).lower()


def latex_entries(tex: str) -> str:
    """``\\index`` commands with each concept level sorted by pinyin and set upright, and break points after the dots
    of each API level."""
    def level(m: re.Match[str]) -> str:
        term = m.group(1)
        if is_concept(term):
            return f"{sort_key(term)} {term}@\\studyguideconcept{{{term}}}"
        shown = API_BREAK.sub(r"\g<0>\\allowbreak{}", term)  # a long name breaks after its dots
        return f"{term}@\\spxentry{{{shown}}}"

    return LATEX_LEVEL.sub(level, tex)


class ConceptKeys(SphinxTransform):
    """Give each concept entry the initial of its pinyin as category key, so genindex files it under a letter."""

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        """Rewrite the entries of every index node of the document."""
        for node in self.document.findall(addnodes.index):
            node["entries"] = [_keyed(entry) for entry in node["entries"]]


def _keyed(entry: tuple[Any, ...]) -> tuple[Any, ...]:
    kind, value, target, main, key = entry
    first = value.split(";")[0].strip()
    if key is None and is_concept(first):
        key = sort_key(first)[:1].upper() or None
    return kind, value, target, main, key


def visit_index(translator: Any, node: nodes.Element, base: Any) -> None:
    """Sphinx's ``visit_index`` (``base``), then its ``\\index`` commands rewritten by ``latex_entries``."""
    start = len(translator.body)
    try:
        base(translator, node)
    finally:  # Sphinx's visit_index ends by raising SkipNode
        translator.body[start:] = [latex_entries(part) for part in translator.body[start:]]


def setup(app: Sphinx) -> None:
    """Register the transform (the LaTeX side is in latexrefs' translator)."""
    app.add_transform(ConceptKeys)
