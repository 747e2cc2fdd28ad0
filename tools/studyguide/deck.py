"""The Anki deck: one note per question, with guids from the question id so new editions update cards in place."""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

from .book import Book
from .locale import Locale
from .schema import Question

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


def guid(question: Question, namespace: str) -> str:
    """The note guid: derived from the book's namespace and the question id, so re-importing a new edition
    updates the same card, and two books with a question of the same id keep two cards. An empty namespace
    gives the guids of decks published before books had one (``guid_for("studyguide", id)``)."""
    import genanki

    return genanki.guid_for("studyguide", namespace, question.id) if namespace else genanki.guid_for("studyguide", question.id)


def markdown_html(text: str) -> str:
    """Render a page's Markdown (the 题目 section) to HTML, with MyST roles reduced to their text."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").render(_ROLE_RE.sub(lambda m: f"`{m.group(1)}`", text)).strip()


def tags(question: Question, book: Book, words: Locale) -> list[str]:
    """Tags: the tier, every topic, and the frequent mark when it is (Anki tags hold no spaces)."""
    label = book.tier(question.tier).label.replace(" ", "_")
    out = [f"tier::{question.tier}", f"{words.t('deck.tier_tag')}::{label}", *[f"topic::{t}" for t in question.topics]]
    out += [f"kind::{question.kind}"] if question.is_exercise else []
    return out + ([words.t("frequent").replace(" ", "_")] if question.frequent else [])


def fields(question: Question, words: Locale) -> list[str]:
    """The four fields of a note, as HTML."""
    code = f"<pre><code>{html.escape(question.snippet)}</code></pre>" if question.snippet else ""
    title = html.escape(question.title) + (f' <span class="tag">{html.escape(words.t("frequent"))}</span>' if question.frequent else "")
    prompt = markdown_html(question.prompt) + (f"<pre><code>{html.escape(question.signature)}</code></pre>" if question.is_exercise else "")
    return [title, prompt, html.escape(question.answer), code]


def build_deck(book: Book, out: Path, title: str, basename: str, words: Locale, edition: str = "", namespace: str | None = None) -> Path:
    """Write ``out`` (an .apkg): one note per question, in book order; the deck's description names the edition."""
    import genanki

    head, prompt, answer, code = words.words("deck.fields")
    model = genanki.Model(
        _stable_id(f"{basename}:model"), words.t("deck.model", title=title),
        fields=[{"name": f} for f in (head, prompt, answer, code)],
        templates=[{
            "name": words.t("deck.template"),
            "qfmt": f'<div class="title">{{{{{head}}}}}</div>{{{{{prompt}}}}}',
            "afmt": f'{{{{FrontSide}}}}<hr id="answer"><p>{{{{{answer}}}}}</p>{{{{{code}}}}}',
        }],
        css=CSS.replace('"Noto Sans CJK SC", "PingFang SC", ', '"Noto Sans CJK SC", "PingFang SC", ' if words.code == "zh" else ""),
    )
    deck = genanki.Deck(_stable_id(f"{basename}:deck"), title, description=f"{title} · {edition}" if edition else "")
    for q in book.questions:
        deck.add_note(genanki.Note(model=model, fields=fields(q, words), tags=tags(q, book, words), guid=guid(q, basename if namespace is None else namespace)))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    genanki.Package(deck).write_to_file(str(tmp))
    tmp.replace(out)
    return out
