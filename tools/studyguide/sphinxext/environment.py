"""The ``studyguide-environment`` directive: a table of where the book's outputs were produced."""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

from .. import provenance
from . import state


class environment_summary(nodes.General, nodes.Element):
    """Placeholder, replaced by the summary table once every page has been read."""


class EnvironmentDirective(SphinxDirective):
    """Insert the execution-environment summary of all question pages."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        """Return the placeholder node and remember which page holds it."""
        env: Any = self.env  # carries the extension's own attributes
        env.studyguide_summary_docs.add(env.docname)
        return [environment_summary()]


def _table(rows: list[provenance.SummaryRow], total: int) -> nodes.table:
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

    row(["执行环境", "页数", "执行日期"], head)
    for item in rows:
        dates = item.first_date if item.first_date == item.last_date else f"{item.first_date} 至 {item.last_date}"
        row([item.environment, str(item.pages), dates], body)
    row(["合计", str(total), ""], body)
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
    """Replace the placeholders with the summary table, and list the CPU-fallback pages."""
    records = list(env.studyguide_provenance.values())
    rows = provenance.summarize(records)
    intro = nodes.paragraph(text=(
        "书中每一段输出都来自真实运行。下表汇总了各题输出的产生环境；"
        "每道题的标题下方也注明了它自己的设备、torch 版本与执行日期。"
    ))
    content: list[nodes.Node] = [intro, _table(rows, len(records))]
    st = state.of(env)
    book = st.book if st else None
    questions = book.questions if book else ()
    prov = env.studyguide_provenance
    fallback = [q for q in questions if provenance.is_cpu_fallback(q.needs_gpu, prov.get(q.docname))]
    if fallback:
        content.append(nodes.paragraph(text=f"以下 {len(fallback)} 道题的真实输出需要 GPU，本版中它们的输出是 CPU 上的回退结果："))
        content.append(_links(fallback))
    timed = [q for q in questions if (prov.get(q.docname) or {}).get("alone")]
    if timed:
        content.append(nodes.paragraph(text=(
            f"以下 {len(timed)} 道题会计时。它们在其他页并行执行完之后逐一单独运行，线程数固定"
            "（见各页标题下的执行信息），计时用 torch.utils.benchmark 或 CUDA event，报告中位数与离散度："
        )))
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


def init_env(app: Sphinx, env: Any, docnames: list[str]) -> None:
    """Create the per-document stores on first use."""
    if not hasattr(env, "studyguide_provenance"):
        env.studyguide_provenance = {}
        env.studyguide_summary_docs = set()


def purge(app: Sphinx, env: Any, docname: str) -> None:
    """Forget what a re-read document recorded."""
    init_env(app, env, [])
    env.studyguide_provenance.pop(docname, None)
    env.studyguide_summary_docs.discard(docname)


def merge(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    """Merge what parallel readers recorded."""
    env.studyguide_provenance.update({d: other.studyguide_provenance[d] for d in docnames if d in other.studyguide_provenance})
    env.studyguide_summary_docs.update(other.studyguide_summary_docs & docnames)


def outdated(app: Sphinx, env: Any) -> list[str]:
    """Rewrite the summary page whenever pages were read again."""
    st = state.of(env)
    if st is not None and st.reading:
        return sorted(env.studyguide_summary_docs)
    return []


def setup(app: Sphinx) -> None:
    """Register the directive, node and events."""
    app.add_node(environment_summary)
    app.add_directive("studyguide-environment", EnvironmentDirective)
    app.connect("env-before-read-docs", init_env, priority=400)
    app.connect("env-purge-doc", purge)
    app.connect("env-merge-info", merge)
    app.connect("env-get-updated", outdated)
    app.add_post_transform(EnvironmentSummary)
