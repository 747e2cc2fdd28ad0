"""The Anki deck: one note per question, with guids from the question id so new editions update cards in place."""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

from .book import Book
from .schema import TIER_BY_ID, Question

FIELDS = ("题目", "问法", "答案", "代码")
_ROLE_RE = re.compile(r"\{[a-z:-]+\}`([^`<]*?)(?:\s*<[^>]*>)?`")
CSS = """.card { font-family: "Noto Sans CJK SC", "PingFang SC", sans-serif; font-size: 18px; line-height: 1.5;
  text-align: left; color: #1f2a44; background: #fff; }
.title { font-weight: bold; font-size: 20px; margin-bottom: .4em; }
.tag { color: #b3261e; font-size: 14px; }
pre { background: #f2f2f2; padding: .5em; border-radius: 4px; font-size: 14px; white-space: pre-wrap; }
code { font-family: "Noto Sans Mono CJK SC", monospace; }"""


def _stable_id(text: str) -> int:
    """A stable 31-bit id for Anki's model and deck (never changes between editions)."""
    return int(hashlib.sha1(text.encode()).hexdigest()[:7], 16) + (1 << 30)


def guid(question: Question) -> str:
    """The note guid: derived from the question id only, so re-importing updates the same card."""
    import genanki

    return genanki.guid_for("studyguide", question.id)


def markdown_html(text: str) -> str:
    """Render a page's Markdown (the 题目 section) to HTML, with MyST roles reduced to their text."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").render(_ROLE_RE.sub(lambda m: f"`{m.group(1)}`", text)).strip()


def tags(question: Question) -> list[str]:
    """Tags: the tier, every topic, and 高频 when it is."""
    out = [f"tier::{question.tier}", f"层级::{TIER_BY_ID[question.tier].label}", *[f"topic::{t}" for t in question.topics]]
    return out + (["高频"] if question.frequent else [])


def fields(question: Question) -> list[str]:
    """The four fields of a note, as HTML."""
    code = f"<pre><code>{html.escape(question.snippet)}</code></pre>" if question.snippet else ""
    title = html.escape(question.title) + (' <span class="tag">高频</span>' if question.frequent else "")
    return [title, markdown_html(question.prompt), html.escape(question.answer), code]


def build_deck(book: Book, out: Path, title: str, basename: str, edition: str = "") -> Path:
    """Write ``out`` (an .apkg): one note per question, in book order; the deck's description names the edition."""
    import genanki

    model = genanki.Model(
        _stable_id(f"{basename}:model"), f"{title} · 题卡",
        fields=[{"name": f} for f in FIELDS],
        templates=[{
            "name": "问答",
            "qfmt": '<div class="title">{{题目}}</div>{{问法}}',
            "afmt": '{{FrontSide}}<hr id="answer"><p>{{答案}}</p>{{代码}}',
        }],
        css=CSS,
    )
    deck = genanki.Deck(_stable_id(f"{basename}:deck"), title, description=f"{title} · {edition}" if edition else "")
    for q in book.questions:
        deck.add_note(genanki.Note(model=model, fields=fields(q), tags=tags(q), guid=guid(q)))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    genanki.Package(deck).write_to_file(str(tmp))
    tmp.replace(out)
    return out
