"""The self-test PDF: its root lists each tier's bare questions, then that tier's answers.

The answers are the same chapter pages as in the book. They are attached to the self-test root by
toctree nodes added *after* Sphinx has recorded the toctrees (priority 890 > doctree-read at 880), so
the LaTeX builder inlines them while the website's navigation keeps a single parent per page.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util.docutils import SphinxDirective

from ..generate import selftest_label

BACK_LINK = r"\ifdefined\studyguideselftest\par\hyperref[{label}]{{\small {text}}}\par\fi"


class selftest_placeholder(nodes.General, nodes.Element):
    """Where the self-test root's tiers go."""


class SelftestDirective(SphinxDirective):
    """``studyguide-selftest``: one group of docnames per tier (question list, then chapters), blank-line separated."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        """Return the placeholder holding the groups."""
        groups, current = [], []
        for line in [*self.content, ""]:
            if line.strip():
                current.append(line.strip())
            elif current:
                groups.append(current)
                current = []
        return [selftest_placeholder(groups=groups)]


def _toctree(parent: str, docnames: list[str]) -> nodes.compound:
    node = addnodes.toctree(
        parent=parent, entries=[(None, d) for d in docnames], includefiles=list(docnames), maxdepth=-1,
        caption=None, glob=False, hidden=True, includehidden=False, numbered=0, titlesonly=False,
    )
    wrapper = nodes.compound(classes=["toctree-wrapper"])
    wrapper += node
    return wrapper


class SelftestTiers(SphinxTransform):
    """Replace the placeholder by, per tier, the question list and then the tier's chapters."""

    default_priority = 890

    def apply(self, **kwargs: Any) -> None:
        """Insert the late toctrees."""
        for node in list(self.document.findall(selftest_placeholder)):
            node.replace_self([_toctree(self.env.docname, group) for group in node["groups"]])


def back_link(question_id: str, words: Any) -> nodes.raw:
    """A LaTeX link from an answer back to its question; it prints only in the self-test PDF."""
    return nodes.raw("", BACK_LINK.format(label=selftest_label(question_id), text=words.t("selftest.back")), format="latex", studyguide=True)


def setup(app: Sphinx) -> None:
    """Register the directive, node and transform."""
    app.add_node(selftest_placeholder)
    app.add_directive("studyguide-selftest", SelftestDirective)
    app.add_transform(SelftestTiers)
