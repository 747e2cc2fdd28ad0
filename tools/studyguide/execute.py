"""Execute the stale pages in parallel, keep their outputs in the store and import the store into the cache."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from . import notebook
from .book import Book
from .errors import ExecutionError
from .kernel import PageRun, prepare_ipython_dir, run_page
from .schema import Question


@dataclass(frozen=True)
class PageState:
    """A question page, the key of its current code, and whether the store holds outputs for it."""

    question: Question
    path: Path
    shown: str  # path as printed, relative to the project root
    key: str
    fresh: bool


@dataclass
class ExecuteReport:
    """What one ``execute`` run did."""

    pages: int = 0
    imported: int = 0
    executed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    seconds: float = 0.0


def survey(book: Book, book_dir: Path, prefix: str, store: dict[str, notebook.StoreEntry]) -> list[PageState]:
    """Compare every page's code with the store: fresh pages need no execution."""
    states = []
    for q in book.questions:
        path = book_dir / q.path
        key = notebook.cache_key(notebook.read_page(path))
        entry = store.get(q.id)
        states.append(PageState(q, path, f"{prefix}/{q.path}", key, entry is not None and entry.key == key))
    return states


def _write_if_changed(path: Path, text: str) -> None:
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def execute(
    book: Book,
    book_dir: Path,
    cache_dir: Path,
    *,
    prefix: str = "book",
    jobs: int = 0,
    timeout: int = 600,
    retries: int = 2,
    frozen: bool = False,
    force: bool = False,
    prune: bool = True,
    progress: Callable[[str], None] = lambda line: print(line, flush=True),
) -> ExecuteReport:
    """Import the store into the cache, run stale pages (all with ``force``), export their outputs.

    With ``frozen`` nothing runs: stale pages raise ``ExecutionError``, as on CI's fresh clone.
    With ``prune`` stored outputs of pages that no longer exist are deleted (only for a whole book).
    """
    start = time.monotonic()
    report = ExecuteReport()
    store_dir = book_dir / notebook.STORE_DIR
    store = notebook.read_store(store_dir)
    states = survey(book, book_dir, prefix, store)
    report.pages = len(states)
    stale = [s for s in states if force or not s.fresh]
    if frozen and stale:
        lines = [f"{s.shown}: outputs are stale (code changed since execution; run `make execute` and commit {prefix}/{notebook.STORE_DIR}/)" for s in stale]
        raise ExecutionError("\n".join(lines))
    cache = notebook.open_cache(cache_dir)
    for s in states:
        if s.fresh and notebook.import_entry(cache, store[s.question.id]):
            report.imported += 1
    if prune and not frozen:
        ids = {q.id for q in book.questions}
        for stem, entry in store.items():
            if stem not in ids:
                entry.path.unlink()
                report.removed.append(entry.path.name)
    if stale:
        ipython_dir = prepare_ipython_dir(cache_dir.resolve().parent / "ipython")
        workers = min(len(stale), jobs or os.cpu_count() or 1)
        progress(f"executing {len(stale)} of {len(states)} pages with {workers} worker(s)")
        for n, (state, run) in enumerate(_run_all(stale, workers, timeout, retries, ipython_dir), start=1):
            if run.ok:
                text = notebook.to_store(run.nb, state.shown, run.provenance)
                path = store_dir / f"{state.question.id}.ipynb"
                _write_if_changed(path, text)
                notebook.import_entry(cache, notebook.StoreEntry(path, text, state.key))
                report.executed.append(state.shown)
                retry = f", {run.attempts} attempts" if run.attempts > 1 else ""
                progress(f"[{n}/{len(stale)}] ok     {state.shown} ({run.seconds:.1f} s on {run.provenance.get('device', '?')}{retry})")
            else:
                report.failed.append(run.error)
                progress(f"[{n}/{len(stale)}] FAILED {state.shown}")
    report.seconds = round(time.monotonic() - start, 2)
    if report.failed:
        raise ExecutionError("\n".join(sorted(report.failed)))
    return report


def _run_all(stale: list[PageState], workers: int, timeout: int, retries: int, ipython_dir: Path):
    """Yield (state, PageRun) as pages finish; one process per page at a time."""
    if workers == 1:
        for s in stale:
            yield s, run_page(s.path, s.shown, timeout, retries, ipython_dir)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(run_page, s.path, s.shown, timeout, retries, ipython_dir): s for s in stale}
        for future in as_completed(futures):
            state = futures[future]
            try:
                run = future.result()
            except Exception as exc:  # a worker crashed: report the page, keep the others
                run = PageRun(state.shown, error=f"{state.shown}: executor crashed: {type(exc).__name__}: {exc}")
            yield state, run
