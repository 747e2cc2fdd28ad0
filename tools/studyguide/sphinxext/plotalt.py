"""``{plot-alt}`` after a code cell: its one sentence becomes the ``alt`` of every image the cell drew (site, EPUB).

Placement and presence are checked by ``studyguide check`` (alttext.py); the directive prints nothing itself.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util.docutils import SphinxDirective

from ..page import PLOT_ALT


class plot_alt(nodes.Invisible, nodes.Element):
    """The text alternative of the plot of the code cell before it; removed once applied."""


class PlotAlt(SphinxDirective):
    """The directive: its content is the sentence."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        """Return the node that carries the sentence to the cell above."""
        return [plot_alt(text=" ".join("\n".join(self.content).split()))]


class ApplyPlotAlt(SphinxTransform):
    """Give each image of the preceding code cell the sentence as its alt, then drop the node."""

    default_priority = 846  # after the cells are labelled (proofs.py, 845)

    def apply(self, **kwargs: Any) -> None:
        """Move every sentence onto its cell's images."""
        for node in list(self.document.findall(plot_alt)):
            parent = node.parent
            before = [n for n in parent[: parent.index(node)] if isinstance(n, nodes.Element) and not isinstance(n, nodes.Invisible)]
            cell = before[-1] if before else None
            if isinstance(cell, nodes.container) and cell.get("nb_element") == "cell_code":
                for image in cell.findall(nodes.image):
                    image["alt"] = node["text"]
            parent.remove(node)


def setup(app: Sphinx) -> None:
    """Register the node, the directive and the transform."""
    app.add_node(plot_alt)
    app.add_directive(PLOT_ALT, PlotAlt)
    app.add_transform(ApplyPlotAlt)
