"""Topic index pages, the topic × tier overview, and the website pages of the cheat sheets (pure)."""

from __future__ import annotations

from .book import Book
from .locale import Locale
from .page import escape_markdown
from .schema import Question, Topic
from .sheets import Sheet

TOPICS_DIR = "topics"
SHEETS_DIR = "cheatsheets"
DOWNLOADS = "../downloads/cheatsheets"  # from a page in topics/ or cheatsheets/ to the sheet PDFs


def topic_label(topic: Topic, tier: str) -> str:
    """Label of a tier's section on a topic page, e.g. ``topic-tensor-basics``."""
    return f"topic-{topic.id}-{tier}"


def _item(q: Question, words: Locale) -> str:
    mark = (f" · **{words.t('frequent')}**" if q.frequent else "") + (f" · {words.t('exercise.mark')}" if q.is_exercise else "")
    return "- " + words.t("topics.item", ref=f"{{ref}}`{q.id}`", mark=mark, answer=escape_markdown(q.answer))


def _download(sheet_name: str, text: str) -> str:
    return f'<a class="reference download" href="{DOWNLOADS}/{sheet_name}.pdf" download="">{text}</a>'


def render_topic(book: Book, topic: Topic, header: str, sheet: str | None, words: Locale) -> str:
    """A topic page: its questions grouped by tier, each with the frequent mark and one-sentence answer."""
    out = [header, f"(topic-{topic.id})=", f"# {topic.label}\n"]
    if topic.description:
        out.append(topic.description + "\n")
    if sheet:
        online = f"{{doc}}`{words.t('topics.sheet_online')} <../{SHEETS_DIR}/{sheet}>`"
        out.append(words.t("topics.sheet", online=online, download=_download(sheet, words.t("topics.sheet_download"))) + "\n")
    for tier in book.tiers:
        qs = [q for q in book.questions if q.tier == tier.id and topic.id in q.topics]
        if qs:
            out += [f"({topic_label(topic, tier.id)})=", f"## {tier.label}\n", *[_item(q, words) for q in qs], ""]
    return "\n".join(out)


def render_overview(book: Book, header: str, words: Locale) -> str:
    """The overview: a topic × tier matrix of question counts, each count linking to its topic page."""
    tiers = [t for t in book.tiers if any(q.tier == t.id for q in book.questions)]  # no column of zeros
    out = [header, "(topics)=", f"# {words.t('topics.title')}\n", words.t("topics.intro") + "\n"]
    out.append(f"| {words.t('topics.head_topic')} | " + " | ".join(t.label for t in tiers) + f" | {words.t('topics.head_total')} |")
    out.append("| --- |" + " ---: |" * (len(tiers) + 1))
    for topic in book.topics:
        cells, total = [], 0
        for tier in tiers:
            n = sum(1 for q in book.questions if q.tier == tier.id and topic.id in q.topics)
            total += n
            cells.append(f"{{ref}}`{n} <{topic_label(topic, tier.id)}>`" if n else "0")
        name = f"{{ref}}`{topic.label} <topic-{topic.id}>`" if total else topic.label
        out.append(f"| {name} | " + " | ".join(cells) + f" | {total} |")
    used = [t for t in book.topics if any(t.id in q.topics for q in book.questions)]
    out += ["", "```{toctree}", ":hidden:", "", *[t.id for t in used], "```", ""]
    return "\n".join(out)


def render_sheet_page(sheet: Sheet, header: str, words: Locale) -> str:
    """A cheat sheet as a web page: the same items as the PDF, with links to the full answers."""
    out = [header, f"(cheatsheet-{sheet.name})=", f"# {words.t('sheets.page_title', title=sheet.title)}\n", _download(sheet.name, words.t("sheets.download")) + "\n"]
    frequent = f" · {words.t('frequent')}"
    for group in sheet.groups:
        out.append(f"## {group.heading}\n")
        for q in group.questions:
            out += [f"**{{ref}}`{q.id}`**" + (frequent if q.frequent else ""), "", escape_markdown(q.answer), ""]
            if q.sheet_code:
                out += ["```python", q.sheet_code, "```", ""]
    return "\n".join(out)


def render_sheet_index(sheets: list[Sheet], header: str, words: Locale) -> str:
    """The list of all cheat sheets, each with its web page and its PDF."""
    out = [header, "(cheatsheets)=", f"# {words.t('sheets.title')}\n", words.t("sheets.intro") + "\n"]
    for s in sheets:
        out.append(f"- {{doc}}`{s.title} <{s.name}>` · {_download(s.name, words.t('sheets.pdf'))}{words.t('sheets.count', n=len(s.questions))}")
    out += ["", "```{toctree}", ":hidden:", "", *[s.name for s in sheets], "```", ""]
    return "\n".join(out)
