"""The 本版更新 page: questions added and answers changed since the previous edition's tag (render is pure)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import edition, frontmatter
from .book import Book
from .locale import Locale
from .page import escape_markdown

CHANGES_DOC = "changes"


@dataclass(frozen=True)
class History:
    """The previous edition and its answers by question id; ``previous`` is empty when there is none."""

    previous: str = ""  # e.g. "2026.11"
    answers: Mapping[str, str] = field(default_factory=dict)
    why_none: str = "changes.no_history"  # locale key of what is shown when ``previous`` is empty


NO_GIT = "changes.no_git"
NO_TAG = "changes.no_tag"


def answers_of(files: Mapping[str, str]) -> dict[str, str]:
    """Question id → answer, from the front matter of the question pages among ``files``."""
    out = {}
    for path, text in files.items():
        if not path.endswith(".md"):
            continue
        fm, _ = frontmatter.parse(text, path)
        meta = fm.data.get("studyguide") if fm else None
        if isinstance(meta, dict) and isinstance(meta.get("id"), str) and isinstance(meta.get("answer"), str):
            out[meta["id"]] = meta["answer"].strip()
    return out


def read_history(root: Path, book_dir: str, current: str) -> History:
    """The newest release tag before ``current`` in git history, and the answers the book had then."""
    if edition.git(root, "rev-parse", "HEAD") is None:
        return History(why_none=NO_GIT)
    tag = edition.previous_tag(root, current)
    if tag is None:
        return History(why_none=NO_TAG)
    files = edition.show_files(root, tag, book_dir) or {}
    return History(edition.of_tag(tag) or tag, answers_of(files))


def render(book: Book, history: History, current: str, header: str, words: Locale) -> str:
    """The page: the edition (``current``, as printed), then links to the added questions and to those whose answer changed."""
    out = [header, f"({CHANGES_DOC})=", f"# {words.t('changes.title')}\n", words.t("changes.edition", edition=current) + "\n"]
    if not history.previous:
        return "\n".join([*out, words.t(history.why_none) + "\n"])
    added = [q for q in book.questions if q.id not in history.answers]
    changed = [q for q in book.questions if q.id in history.answers and history.answers[q.id] != q.answer]
    out += [words.t("changes.summary", previous=history.previous, added=len(added), changed=len(changed)) + "\n", f"## {words.t('changes.added')}\n"]
    out += [f"- {{ref}}`{q.id}`" for q in added] or [words.t("none")]
    out += ["", f"## {words.t('changes.changed')}\n"]
    for q in changed:
        out += [f"- {{ref}}`{q.id}`", "  - " + words.t("changes.now", answer=escape_markdown(q.answer)),
                "  - " + words.t("changes.before", previous=history.previous, answer=escape_markdown(history.answers[q.id]))]
    out += [] if changed else [words.t("none")]
    return "\n".join(out) + "\n"
