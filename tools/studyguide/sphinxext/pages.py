"""Question pages: a stable label from the id, a metadata line and the provenance of the outputs."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from .. import notebook, provenance
from ..book import Book
from ..locale import Locale
from ..schema import Question
from . import environment, selftest, state

logger = logging.getLogger(__name__)


def _meta_line(question: Question, book: Book, words: Locale) -> nodes.paragraph:
    labels = {t.id: t.label for t in book.topics}
    para = nodes.paragraph(classes=["studyguide-meta"])
    para += nodes.Text(f"{book.tier(question.tier).label} · " + words.t("list_sep").join(labels[t] for t in question.topics))
    if question.frequent:
        para += nodes.Text(" · ")
        para += nodes.inline(text=words.t("frequent"), classes=["studyguide-frequent"])
    if question.needs_gpu:
        para += nodes.Text(f" · {words.t('needs_gpu')}")
    if question.is_exercise:
        para += nodes.Text(f" · {words.t('exercise.mark')}")
    return para


def answer_line(question: Question) -> nodes.paragraph:
    """The front matter's one-sentence answer, the first line of 先给结论 in every format."""
    para = nodes.paragraph("", "", classes=["studyguide-answer"])
    para += nodes.strong(text=question.answer)
    return para


def _provenance_nodes(question: Question, prov: dict | None, words: Locale, packages: tuple[str, ...]) -> list[nodes.Node]:
    para = nodes.paragraph(classes=["studyguide-provenance"])
    para += nodes.strong(text=words.t("provenance.label"))
    para += nodes.Text(provenance.describe(prov, words, packages))
    out: list[nodes.Node] = [para]
    if provenance.is_cpu_fallback(question.needs_gpu, prov):
        note = nodes.admonition(classes=["warning", "studyguide-cpu-fallback"])
        note += nodes.title(text=words.t("provenance.fallback_title"))
        note += nodes.paragraph(text=words.t("provenance.fallback_note"))
        out.append(note)
    return out


class QuestionPage(SphinxTransform):
    """Decorate a question page; runs before the domains collect labels (priority 850)."""

    default_priority = 840

    def apply(self, **kwargs: object) -> None:
        """Add the id label, the metadata line and the provenance under the title."""
        st = state.of(self.env)
        book = st.book if st else None
        docname = self.env.current_document.docname
        question = book.by_docname().get(docname) if book else None
        section = next(iter(self.document.findall(nodes.section)), None)
        if book is None or question is None or section is None:
            return
        self._set_id(section, question.id)
        section["names"].append(question.id)
        self.document.nameids[question.id] = question.id
        self.document.nametypes[question.id] = True
        shape = book.rules.shape_of(question.kind)
        for sub in section.findall(nodes.section):
            key = shape.key(sub[0].astext()) if sub is not section and len(sub) else ""
            if key and sub.parent is section:
                self._set_id(sub, key)
            if key == shape.answer_section and sub.parent is section:
                sub.insert(1, answer_line(question))
        prov = self._provenance(question, book)
        environment.record(self.env, docname, prov)
        words = st.config.locale  # type: ignore[union-attr]
        title_index = section.first_child_matching_class(nodes.title) or 0
        extra = [_meta_line(question, book, words), *_provenance_nodes(question, prov, words, st.config.provenance),  # type: ignore[union-attr]
                 selftest.back_link(question.id, words)]
        section[title_index + 1 : title_index + 1] = extra

    def _set_id(self, node: nodes.Element, new_id: str) -> None:
        """Give a section a stable first id; its old ids keep working as aliases."""
        if new_id in self.document.ids and self.document.ids[new_id] is not node:
            return
        if new_id in node["ids"]:  # the title's own slug may already be this id
            node["ids"].remove(new_id)
        node["ids"].insert(0, new_id)
        self.document.ids[new_id] = node

    def _provenance(self, question: Question, book: Book) -> dict | None:
        srcdir = Path(self.env.srcdir)
        store = srcdir / notebook.STORE_DIR / f"{question.id}.ipynb"
        self.env.note_dependency(str(store))
        key = book.pages[question.id].key
        cache = notebook.open_cache(Path(self.config.nb_execution_cache_path))
        prov = notebook.cached_provenance(cache, key)
        if prov is None:
            logger.warning(
                "outputs were executed inside Sphinx, so their device is not recorded (run `make execute`)",
                location=question.docname,
                type="studyguide",
                subtype="unrecorded",
            )
        return prov
