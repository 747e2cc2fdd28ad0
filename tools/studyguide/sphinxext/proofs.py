"""Proof links: ``{proof}`label``` after a conclusion points to the code cell labelled ``:label: label``.

On the site and in the EPUB the mark is a small 证据 link to the cell; in the PDFs it gives the cell's page;
in the quick-review edition, which holds no cells, the page of the cell in the full book.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxRole

from ..cells import LABEL_KEY
from ..page import PROOF_ROLE
from . import state

logger = logging.getLogger(__name__)
CLASS = "studyguide-proof"
BOOK_PREFIX = "book:"  # xr-hyper prefix of the full book's labels in the quick-review PDF (quickreview.py)


def anchor_id(label: str) -> str:
    """The HTML id of a labelled cell (unique on its page)."""
    return f"proof-{label}"


class proof_ref(nodes.Inline, nodes.Element):
    """A citation of a labelled cell of the page ``docname``; replaced per builder before writing."""


class proof_anchor(nodes.Invisible, nodes.Element):
    """The LaTeX label of a labelled cell, placed before it."""


class ProofRole(SphinxRole):
    """``{proof}`label```: cite the cell of this page labelled ``label``."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        """Return the citation node."""
        node = proof_ref(label=self.text.strip(), docname=self.env.docname)
        self.set_source_info(node)
        return [node], []


class LabelCells(SphinxTransform):
    """Give every labelled code cell its anchor, and check that each citation names one of them."""

    default_priority = 845

    def apply(self, **kwargs: Any) -> None:
        """Anchor the cells, then check the citations of this page."""
        docname = self.env.docname
        labels = set()
        for cell in list(self.document.findall(nodes.container)):
            label = (cell.get("cell_metadata") or {}).get(LABEL_KEY)
            if cell.get("nb_element") != "cell_code" or not isinstance(label, str) or not label:
                continue
            labels.add(label)
            cell["ids"].append(anchor_id(label))
            cell.parent.insert(cell.parent.index(cell), proof_anchor(label=label, docname=docname))
        for ref in self.document.findall(proof_ref):
            if ref["label"] not in labels:
                logger.warning("proof %r is not a cell label of this page (label the cell with ':label: %s')", ref["label"], ref["label"],
                               location=ref, type="studyguide", subtype="proof")


def _latex_id(docname: str, label: str) -> str:
    return f"\\detokenize{{{docname}:{anchor_id(label)}}}"


class ResolveProofs(SphinxPostTransform):
    """Turn citations into each builder's mark, and anchors into LaTeX labels (after the quick review copies, priority 3)."""

    default_priority = 6

    def run(self, **kwargs: Any) -> None:
        """Replace every proof node of this document."""
        latex = state.builder(self.env).format == "latex"
        for anchor in list(self.document.findall(proof_anchor)):
            tex = f"\\phantomsection\\label{{{_latex_id(anchor['docname'], anchor['label'])}}}"
            anchor.replace_self(nodes.raw("", tex, format="latex", studyguide=True) if latex else [])
        for ref in list(self.document.findall(proof_ref)):
            ref.replace_self(self._latex(ref) if latex else self._html(ref))

    def _latex(self, ref: proof_ref) -> nodes.Node:
        words = state.of(self.env).config.locale  # type: ignore[union-attr]
        target = _latex_id(ref["docname"], ref["label"])
        if ref.get("external"):  # the quick review: the page in the full book, through xr-hyper
            page = "\\pageref{" + BOOK_PREFIX + ref["docname"] + ":" + anchor_id(ref["label"]) + "}"
            tex = "{\\footnotesize " + words.t("proof.book_page", page=page) + "}"
        else:
            page = "\\pageref*{" + target + "}"
            tex = "{\\footnotesize\\hyperref[" + target + "]{" + words.t("proof.page", page=page) + "}}"
        return nodes.raw("", tex, format="latex", studyguide=True)

    def _html(self, ref: proof_ref) -> nodes.Node:
        words = state.of(self.env).config.locale  # type: ignore[union-attr]
        here = self.env.docname
        if ref["docname"] == here:
            uri = f"#{anchor_id(ref['label'])}"
        elif state.builder(self.env).name == "epub":  # the quick-review EPUB holds no question page
            return nodes.inline("", words.t("proof.in_book"), classes=[CLASS])
        else:
            uri = state.builder(self.env).get_relative_uri(here, ref["docname"]) + f"#{anchor_id(ref['label'])}"
        link = nodes.reference("", words.t("proof.mark"), refuri=uri, internal=True, classes=[CLASS], reftitle=words.t("proof.title"))
        return nodes.inline("", "", link, classes=[f"{CLASS}-mark"])


def _skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


def setup(app: Sphinx) -> None:
    """Register the role, the nodes and the two transforms."""
    skip = (_skip, None)
    app.add_node(proof_ref, html=skip, latex=skip, text=skip, man=skip, texinfo=skip)
    app.add_node(proof_anchor, html=skip, latex=skip, text=skip, man=skip, texinfo=skip)
    app.add_role(PROOF_ROLE, ProofRole())
    app.add_transform(LabelCells)
    app.add_post_transform(ResolveProofs)
