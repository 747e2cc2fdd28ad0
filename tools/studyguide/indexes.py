"""Topic index pages, the topic × tier overview, and the website pages of the cheat sheets (pure)."""

from __future__ import annotations

from .book import Book
from .page import escape_markdown
from .schema import TIERS, Question, Topic
from .sheets import Sheet

TOPICS_DIR = "topics"
SHEETS_DIR = "cheatsheets"
DOWNLOADS = "../downloads/cheatsheets"  # from a page in topics/ or cheatsheets/ to the sheet PDFs


def topic_label(topic: Topic, tier: str) -> str:
    """Label of a tier's section on a topic page, e.g. ``topic-tensor-basics``."""
    return f"topic-{topic.id}-{tier}"


def _item(q: Question) -> str:
    mark = " · **高频**" if q.frequent else ""
    return f"- {{ref}}`{q.id}`{mark}：{escape_markdown(q.answer)}"


def _download(sheet_name: str, text: str) -> str:
    return f'<a class="reference download" href="{DOWNLOADS}/{sheet_name}.pdf" download="">{text}</a>'


def render_topic(book: Book, topic: Topic, header: str, sheet: str | None) -> str:
    """A topic page: its questions grouped by tier, each with 高频 mark and one-sentence answer."""
    out = [header, f"(topic-{topic.id})=", f"# {topic.label}\n"]
    if topic.description:
        out.append(topic.description + "\n")
    if sheet:
        out.append(f"速查表：{{doc}}`在线查看 <../{SHEETS_DIR}/{sheet}>` · {_download(sheet, '下载 PDF（A4 一页）')}\n")
    for tier in TIERS:
        qs = [q for q in book.questions if q.tier == tier.id and topic.id in q.topics]
        if qs:
            out += [f"({topic_label(topic, tier.id)})=", f"## {tier.label}\n", *[_item(q) for q in qs], ""]
    return "\n".join(out)


def render_overview(book: Book, header: str) -> str:
    """The overview: a topic × tier matrix of question counts, each count linking to its topic page."""
    out = [header, "(topics)=", "# 话题索引\n", "每个数字是该话题在该层级的题目数，点击进入话题页。\n"]
    out.append("| 话题 | " + " | ".join(t.label for t in TIERS) + " | 合计 |")
    out.append("| --- |" + " ---: |" * (len(TIERS) + 1))
    for topic in book.topics:
        cells, total = [], 0
        for tier in TIERS:
            n = sum(1 for q in book.questions if q.tier == tier.id and topic.id in q.topics)
            total += n
            cells.append(f"{{ref}}`{n} <{topic_label(topic, tier.id)}>`" if n else "0")
        name = f"{{ref}}`{topic.label} <topic-{topic.id}>`" if total else topic.label
        out.append(f"| {name} | " + " | ".join(cells) + f" | {total} |")
    used = [t for t in book.topics if any(t.id in q.topics for q in book.questions)]
    out += ["", "```{toctree}", ":hidden:", "", *[t.id for t in used], "```", ""]
    return "\n".join(out)


def render_sheet_page(sheet: Sheet, header: str) -> str:
    """A cheat sheet as a web page: the same items as the PDF, with links to the full answers."""
    out = [header, f"(cheatsheet-{sheet.name})=", f"# 速查表：{sheet.title}\n", _download(sheet.name, "下载 PDF（A4 一页，适合打印）") + "\n"]
    for group in sheet.groups:
        out.append(f"## {group.heading}\n")
        for q in group.questions:
            out += [f"**{{ref}}`{q.id}`**" + (" · 高频" if q.frequent else ""), "", escape_markdown(q.answer), ""]
            if q.snippet:
                out += ["```python", q.snippet, "```", ""]
    return "\n".join(out)


def render_sheet_index(sheets: list[Sheet], header: str) -> str:
    """The list of all cheat sheets, each with its web page and its PDF."""
    out = [header, "(cheatsheets)=", "# 速查表\n", "每张速查表正好一页 A4，汇总一个话题（或全部高频题）的一句话答案与关键代码，适合考前打印复习。\n"]
    for s in sheets:
        out.append(f"- {{doc}}`{s.title} <{s.name}>` · {_download(s.name, 'PDF')}（{len(s.questions)} 题）")
    out += ["", "```{toctree}", ":hidden:", "", *[s.name for s in sheets], "```", ""]
    return "\n".join(out)
