"""The quick-review edition (速览版): each question's answer, 先给结论, 易错点 and cheat-sheet cell.

Nothing is copied into sources: ``studyguide-quick`` leaves a placeholder, and a post-transform fills it
from the question's own doctree when a builder writes the page. Links to other questions point to their
entry in this edition; the PDF also prints the page of the question in the full book (``xr-hyper``).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

from .. import exercises, page
from ..generate import quick_label
from . import proofs, state

CHEATSHEET_CLASS = "tag_cheatsheet"
BOOK_PREFIX = proofs.BOOK_PREFIX  # xr-hyper prefix of the full book's labels in the quick-review PDF
# In the quick-review PDF only: load the full book's labels (read from its .aux) under BOOK_PREFIX.
LATEX_EXTERNAL = (
    "\\edef\\sgjob{{\\jobname}}\\edef\\sgquick{{\\detokenize{{{quick}}}}}\n"
    "\\ifx\\sgjob\\sgquick\\externaldocument[{prefix}]{{{book}}}[{book}.pdf]\\fi\n"
)


class quick_placeholder(nodes.General, nodes.Element):
    """Where one question's quick-review content goes."""


class QuickDirective(SphinxDirective):
    """``studyguide-quick <id>``: the quick-review entry of one question."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        """Return the placeholder; the question's page becomes a dependency of this one."""
        qid = self.arguments[0]
        st = state.of(self.env)
        book = st.book if st else None
        question = next((q for q in book.questions if q.id == qid), None) if book else None
        if question is None:
            raise self.error(f"studyguide-quick: no question with id {qid!r} (run `make sync`)")
        self.env.note_dependency(str(self.env.doc2path(question.docname)))
        return [quick_placeholder(qid=qid, docname=question.docname)]


def _section(doctree: nodes.Node, section_id: str) -> nodes.section | None:
    return next((s for s in doctree.findall(nodes.section) if section_id in s["ids"]), None)


def _body(section: nodes.section | None) -> list[nodes.Node]:
    """A section's content, without its title and the LaTeX labels of its cells (they belong to the full book)."""
    return [c for c in section.children if not isinstance(c, nodes.title | proofs.proof_anchor)] if section is not None else []


def _through_solution(body: list[nodes.Node]) -> list[nodes.Node]:
    """An exercise's 参考实现 up to its solution cell: the scope checks after it stay in the full book."""
    for i, node in enumerate(body):
        meta: dict[str, Any] = (node.get("cell_metadata") or {}) if isinstance(node, nodes.container) else {}
        if meta.get("label") == exercises.SOLUTION:
            return body[: i + 1]
    return body


def _clean(node: nodes.Node, question_ids: set[str]) -> nodes.Node:
    """A copy without ids (they stay unique), whose links to questions point into this edition."""
    node = node.deepcopy()  # docutils' copy: copy.deepcopy would follow .parent and copy the whole page
    for entry in list(node.findall(addnodes.index)) if isinstance(node, nodes.Element) else []:
        entry.parent.remove(entry)  # the book's index points into the full book
    for anchor in list(node.findall(proofs.proof_anchor)) if isinstance(node, nodes.Element) else []:
        anchor.parent.remove(anchor)  # the cell's label belongs to the full book
    for ref in node.findall(proofs.proof_ref) if isinstance(node, nodes.Element) else []:
        ref["external"] = True  # cites a cell of the full book
    for sub in [node, *node.findall(nodes.Element)] if isinstance(node, nodes.Element) else []:
        sub["ids"], sub["names"] = [], []
        if isinstance(sub, addnodes.pending_xref):
            sub.attributes.pop("refdoc", None)  # resolved from the page it is copied into, not from the question's page
        if isinstance(sub, addnodes.pending_xref) and sub.get("reftype") == "ref":
            target = sub.get("reftarget", "")
            if target in question_ids:
                sub["reftarget"] = quick_label(target)
            else:
                sub.replace_self(nodes.inline("", "", *sub.children))
    return node


def _is_snippet(node: nodes.Node) -> bool:
    """The cheat-sheet cell (printed once, under its own heading)."""
    return isinstance(node, nodes.container) and CHEATSHEET_CLASS in node["classes"]


class FillQuick(SphinxPostTransform):
    """Replace each placeholder by the answer, 先给结论, 易错点 and cheat-sheet cell of its question.

    An exercise gives its 参考实现 up to the solution cell (the answer line, the idea, its cost and the solution; not
    the scope checks after it) and the bullets of its 易错点.
    """

    default_priority = 3  # before myst-nb picks output mime types (4) and references are resolved (10)

    def run(self, **kwargs: Any) -> None:
        """Fill every placeholder of this document."""
        st = state.of(self.env)
        book = st.book if st else None
        if book is None:
            return
        ids = {q.id for q in book.questions}
        by_id = {q.id: q for q in book.questions}
        labels = {t.id: t.label for t in book.topics}
        for node in list(self.document.findall(quick_placeholder)):
            question = by_id[node["qid"]]
            source = self.env.get_doctree(node["docname"])
            words = st.config.locale  # type: ignore[union-attr]
            shape = book.rules.shape_of(question.kind)
            body = _body(_section(source, shape.answer_section))
            kept = [n for n in (_through_solution(body) if question.is_exercise else body) if not _is_snippet(n) and not isinstance(n, addnodes.index)]
            out: list[nodes.Node] = [_clean(n, ids) for n in kept]
            pitfalls = [n for n in _body(_section(source, page.PITFALLS)) if not (question.is_exercise and isinstance(n, nodes.container))]
            if pitfalls:
                out.append(nodes.rubric(text=book.rules.shape.title(page.PITFALLS)))
                out += [_clean(n, ids) for n in pitfalls]
            cell = next((c for c in source.findall(nodes.container) if CHEATSHEET_CLASS in c["classes"]), None)
            if cell is not None:
                out.append(nodes.rubric(text=words.t("quick.code")))
                out.append(_clean(cell, ids))
            out.append(self._where(question, labels, book, words))
            node.replace_self(out)

    def _where(self, question: Any, labels: dict[str, str], book: Any, words: Any) -> nodes.Node:
        """Where the question is in the full book: a page number in the PDF, its chapter elsewhere."""
        where = f"{book.tier(question.tier).label} · {labels[question.chapter]}"
        if state.builder(self.env).format == "latex":
            label = f"{question.docname}:{question.id}"
            text = words.t("quick.where_page", where=where, page=f"\\pageref{{{BOOK_PREFIX}{label}}}")
            return nodes.raw("", f"\\par{{\\small\\color{{gray}}{text}}}\\par", format="latex", studyguide=True)
        para = nodes.paragraph(classes=["studyguide-book-location"])
        para += nodes.Text(words.t("quick.where", where=where))
        return para


def latex_external(quick_stem: str, book_stem: str) -> str:
    """Preamble lines that give the quick-review PDF the full book's page numbers."""
    return LATEX_EXTERNAL.format(quick=quick_stem, prefix=BOOK_PREFIX, book=book_stem)


def setup(app: Sphinx) -> None:
    """Register the directive, node and post-transform."""
    app.add_node(quick_placeholder)
    app.add_directive("studyguide-quick", QuickDirective)
    app.add_post_transform(FillQuick)
