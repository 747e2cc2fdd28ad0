"""The ``studyguide-environment`` directive: a table of where the book's outputs were produced.

Each question page records its provenance while it is read; an ``EnvironmentCollector`` keeps those records
per document (purged when a page is read again, merged after parallel reads).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment.collectors import EnvironmentCollector
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

from .. import provenance
from ..locale import Locale
from . import state

RECORDS = "studyguide_provenance"  # env attribute: docname -> provenance record (or None)
SUMMARY_DOCS = "studyguide_summary_docs"  # env attribute: docnames that hold the summary


class environment_summary(nodes.General, nodes.Element):
    """Placeholder, replaced by the summary table once every page has been read."""


def _store(env: Any, name: str, default: Any) -> Any:
    if not hasattr(env, name):
        setattr(env, name, default)
    return getattr(env, name)


def record(env: Any, docname: str, prov: dict | None) -> None:
    """Keep the provenance of a question page (called while the page is read)."""
    _store(env, RECORDS, {})[docname] = prov


class ProvenanceCollector(EnvironmentCollector):
    """Provenance records and summary pages, kept per document."""

    def clear_doc(self, app: Sphinx, env: Any, docname: str) -> None:
        """Forget what a re-read document recorded."""
        _store(env, RECORDS, {}).pop(docname, None)
        _store(env, SUMMARY_DOCS, set()).discard(docname)

    def merge_other(self, app: Sphinx, env: Any, docnames: AbstractSet[str], other: Any) -> None:
        """Merge what parallel readers recorded."""
        mine, theirs = _store(env, RECORDS, {}), _store(other, RECORDS, {})
        mine.update({d: theirs[d] for d in docnames if d in theirs})
        _store(env, SUMMARY_DOCS, set()).update(_store(other, SUMMARY_DOCS, set()) & docnames)

    def process_doc(self, app: Sphinx, doctree: nodes.document) -> None:
        """Note the pages that hold the summary."""
        if any(True for _ in doctree.findall(environment_summary)):
            _store(app.env, SUMMARY_DOCS, set()).add(app.env.docname)

    def get_updated_docs(self, app: Sphinx, env: Any) -> list[str]:
        """Rewrite the summary pages whenever pages were read again."""
        st = state.of(env)
        return sorted(_store(env, SUMMARY_DOCS, set())) if st is not None and st.reading else []


class EnvironmentDirective(SphinxDirective):
    """Insert the execution-environment summary of all question pages."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        """Return the placeholder node."""
        return [environment_summary()]


def _table(rows: list[provenance.SummaryRow], total: int, words: Locale) -> nodes.table:
    table = nodes.table(classes=["studyguide-environment"])
    group = nodes.tgroup(cols=3)
    table += group
    for width in (6, 1, 3):
        group += nodes.colspec(colwidth=width)
    head, body = nodes.thead(), nodes.tbody()
    group += head
    group += body

    def row(cells: list[str], parent: nodes.Element) -> None:
        """Append one table row."""
        r = nodes.row()
        for text in cells:
            r += nodes.entry("", nodes.paragraph(text=text))
        parent += r

    row([words.t("environment.head_env"), words.t("environment.head_pages"), words.t("environment.head_dates")], head)
    for item in rows:
        dates = item.first_date if item.first_date == item.last_date else words.t("environment.date_range", first=item.first_date, last=item.last_date)
        row([item.environment, str(item.pages), dates], body)
    row([words.t("environment.total"), str(total), ""], body)
    return table


class EnvironmentSummary(SphinxPostTransform):
    """Replace each placeholder once all pages are read; runs before references are resolved."""

    default_priority = 5

    def run(self, **kwargs: Any) -> None:
        """Fill in every placeholder of this document."""
        placeholders = list(self.document.findall(environment_summary))
        if placeholders:
            _fill(self.env, placeholders)


def _fill(env: Any, placeholders: list[environment_summary]) -> None:
    """Replace the placeholders with the summary table, and list the CPU-fallback and timing pages."""
    st = state.of(env)
    if st is None or st.book is None:
        return
    words, packages = st.config.locale, st.config.provenance
    prov = _store(env, RECORDS, {})
    questions = st.book.questions
    rows = provenance.summarize(list(prov.values()), words, packages)
    content: list[nodes.Node] = [nodes.paragraph(text=words.t("environment.intro")), _table(rows, len(prov), words)]
    fallback = [q for q in questions if provenance.is_cpu_fallback(q.needs_gpu, prov.get(q.docname))]
    if fallback:
        content.append(nodes.paragraph(text=words.t("environment.fallback", n=len(fallback))))
        content.append(_links(fallback))
    timed = [q for q in questions if (prov.get(q.docname) or {}).get("alone")]
    if timed:
        content.append(nodes.paragraph(text=words.t("environment.timed", n=len(timed))))
        content.append(_links(timed))
    for node in placeholders:
        node.replace_self([n.deepcopy() for n in content])


def _links(questions: list[Any]) -> nodes.bullet_list:
    """A bullet list of links to question pages, by title."""
    items = nodes.bullet_list()
    for q in questions:
        ref = addnodes.pending_xref("", nodes.inline(text=q.title), refdomain="std", reftype="ref", reftarget=q.id, refexplicit=True, refwarn=True)
        items += nodes.list_item("", nodes.paragraph("", "", ref))
    return items


def setup(app: Sphinx) -> None:
    """Register the directive, node, collector and post-transform."""
    app.add_node(environment_summary)
    app.add_directive("studyguide-environment", EnvironmentDirective)
    app.add_env_collector(ProvenanceCollector)
    app.add_post_transform(EnvironmentSummary)
