"""PDF cross-references give the page they point to, in the book's words (“……（第 233 页）”), and are set upright.

Sphinx's ``latex_show_pagerefs`` writes `` (\\autopageref*{id})`` after each internal link; the translator
here writes the locale's form instead (``pdf.pageref``).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.writers.latex import LaTeXTranslator

from . import state


class PageRefTranslator(LaTeXTranslator):
    """Sphinx's LaTeX translator; internal references end with the page in the book's words."""

    def visit_reference(self, node: nodes.Element) -> None:
        """Sphinx's reference, with its ``(page)`` suffix rewritten."""
        super().visit_reference(node)
        tail = self.context[-1] if self.context else ""
        if isinstance(tail, str) and tail.startswith("}}} (\\autopageref*{") and tail.endswith("})"):
            target = tail[len("}}} (\\autopageref*{"):-2]
            words = state.of(self.builder.env).config.locale  # type: ignore[union-attr]
            self.context[-1] = "}}}" + words.t("pdf.pageref", page=f"\\pageref*{{{target}}}")


def setup(app: Sphinx) -> dict[str, Any]:
    """Use the translator for the LaTeX builder, and show page references."""
    app.set_translator("latex", PageRefTranslator, override=True)
    return {}
