"""Question pages: a stable label from the id, a metadata line and the provenance of the outputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from .. import notebook, page, provenance
from ..schema import TIER_BY_ID, Question
from . import selftest, state

logger = logging.getLogger(__name__)
FALLBACK_NOTE = "本题的真实输出需要 GPU。下面的输出是在 CPU 上运行的回退结果：数值结论照样成立，但计时、显存等数字不代表 GPU 上的表现。"


def _meta_line(question: Question, labels: dict[str, str]) -> nodes.paragraph:
    para = nodes.paragraph(classes=["studyguide-meta"])
    para += nodes.Text(f"{TIER_BY_ID[question.tier].label} · " + "、".join(labels[t] for t in question.topics))
    if question.frequent:
        para += nodes.Text(" · ")
        para += nodes.inline(text="高频", classes=["studyguide-frequent"])
    if question.needs_gpu:
        para += nodes.Text(" · 需要 GPU")
    return para


def answer_line(question: Question) -> nodes.paragraph:
    """The front matter's one-sentence answer, the first line of 先给结论 in every format."""
    para = nodes.paragraph("", "", classes=["studyguide-answer"])
    para += nodes.strong(text=question.answer)
    return para


def _provenance_nodes(question: Question, prov: dict | None) -> list[nodes.Node]:
    para = nodes.paragraph(classes=["studyguide-provenance"])
    para += nodes.strong(text="输出来源：")
    para += nodes.Text(provenance.describe(prov))
    out: list[nodes.Node] = [para]
    if provenance.is_cpu_fallback(question.needs_gpu, prov):
        note = nodes.admonition(classes=["warning", "studyguide-cpu-fallback"])
        note += nodes.title(text="CPU 回退")
        note += nodes.paragraph(text=FALLBACK_NOTE)
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
        for sub in section.findall(nodes.section):
            title = sub[0].astext() if sub is not section and len(sub) else ""
            if title in page.SECTION_IDS and sub.parent is section:
                self._set_id(sub, page.SECTION_IDS[title])
            if title == page.SHORT_SECTION and sub.parent is section:
                sub.insert(1, answer_line(question))
        prov = self._provenance(question)
        env: Any = self.env  # carries the extension's own attributes
        env.studyguide_provenance[docname] = prov
        labels = {t.id: t.label for t in book.topics}
        title_index = section.first_child_matching_class(nodes.title) or 0
        extra = [_meta_line(question, labels), *_provenance_nodes(question, prov), selftest.back_link(question.id)]
        section[title_index + 1 : title_index + 1] = extra

    def _set_id(self, node: nodes.Element, new_id: str) -> None:
        """Give a section a stable first id; its old ids keep working as aliases."""
        if new_id in self.document.ids and self.document.ids[new_id] is not node:
            return
        if new_id in node["ids"]:  # the title's own slug may already be this id
            node["ids"].remove(new_id)
        node["ids"].insert(0, new_id)
        self.document.ids[new_id] = node

    def _provenance(self, question: Question) -> dict | None:
        srcdir = Path(self.env.srcdir)
        store = srcdir / notebook.STORE_DIR / f"{question.id}.ipynb"
        self.env.note_dependency(str(store))
        key = notebook.cache_key(notebook.read_page(srcdir / question.path))
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
