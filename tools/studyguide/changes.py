"""The 本版更新 page: questions added and answers changed since the previous edition's tag (render is pure)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import edition, frontmatter
from .book import Book
from .page import escape_markdown

CHANGES_DOC = "changes"


@dataclass(frozen=True)
class History:
    """The previous edition and its answers by question id; ``previous`` is empty when there is none."""

    previous: str = ""  # e.g. "2026.11"
    answers: Mapping[str, str] = field(default_factory=dict)
    why_none: str = "没有提供版本历史。"  # shown when ``previous`` is empty


NO_GIT = "这份书稿不在 git 仓库中（或仓库里没有历史），无法与上一版比较。"
NO_TAG = "仓库里还没有更早的版本标签（形如 v2026.11 的 git 标签），这是第一个版本，没有可比较的上一版。"


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


def render(book: Book, history: History, current: str, header: str) -> str:
    """The page: the edition, then links to the added questions and to those whose answer changed."""
    out = [header, f"({CHANGES_DOC})=", "# 本版更新\n", f"本书版本：{current} 版。\n"]
    if not history.previous:
        return "\n".join([*out, history.why_none + "\n"])
    added = [q for q in book.questions if q.id not in history.answers]
    changed = [q for q in book.questions if q.id in history.answers and history.answers[q.id] != q.answer]
    out += [f"与上一版（{history.previous} 版）相比：新增 {len(added)} 道题，{len(changed)} 道题的结论有改动。"
            f"手里是 {history.previous} 版的读者，读下面这些题即可。\n", "## 新增的题目\n"]
    out += [f"- {{ref}}`{q.id}`" for q in added] or ["无。"]
    out += ["", "## 结论有改动的题目\n"]
    for q in changed:
        out += [f"- {{ref}}`{q.id}`", f"  - 现在：{escape_markdown(q.answer)}", f"  - {history.previous} 版：{escape_markdown(history.answers[q.id])}"]
    out += [] if changed else ["无。"]
    return "\n".join(out) + "\n"
