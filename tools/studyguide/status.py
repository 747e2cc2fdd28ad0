"""Which pages have stale outputs, and which pages' outputs came from a CPU."""

from __future__ import annotations

from pathlib import Path

from . import notebook
from .book import Book
from .execute import survey


def report(book: Book, book_dir: Path, prefix: str, strict: bool = False) -> tuple[list[str], bool]:
    """Lines describing every page that needs attention, and whether ``strict`` mode fails."""
    store = notebook.read_store(book_dir / notebook.STORE_DIR)
    lines, stale, cpu, fallback = [], 0, 0, 0
    for state in survey(book, book_dir, prefix, store):
        q, shown, entry = state.question, state.shown, store.get(state.question.id)
        if entry is None:
            stale += 1
            lines.append(f"{shown}: no stored outputs (run `make execute`)")
            continue
        if not state.fresh:
            stale += 1
            lines.append(f"{shown}: stale: code changed since its outputs were produced (run `make execute`)")
        prov = entry.provenance
        if prov.get("device_type") != "cuda":
            cpu += 1
            if q.needs_gpu:
                fallback += 1
                lines.append(f"{shown}: needs a GPU but its outputs came from {prov.get('device', 'an unknown device')} (CPU fallback)")
            else:
                lines.append(f"{shown}: outputs from CPU ({prov.get('device', '?')})")
    failed = strict and (fallback > 0 or stale > 0)
    summary = f"{len(book.questions)} pages: {stale} stale, {cpu} with CPU outputs, {fallback} of them need a GPU"
    if strict:
        summary += " — release check " + ("FAILED: every GPU page needs fresh GPU outputs" if failed else "passed")
    return lines + [summary], failed
