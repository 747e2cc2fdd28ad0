"""Execute the stale pages in parallel, keep their outputs in the store and import the store into the cache."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from . import cells, notebook
from .book import Book
from .config import Config
from .errors import ExecutionError
from .kernel import PageRun, prepare_ipython_dir, run_page, warm_font_cache
from .schema import Question
from .shard import Shard, partition


@dataclass(frozen=True)
class PageState:
    """A question page, the key of its current code, and whether the store holds outputs for it."""

    question: Question
    path: Path
    shown: str  # path as printed, relative to the project root
    key: str
    fresh: bool
    timing: bool = False  # the page times code: it runs alone, after the parallel batch
    snippet: bool = False  # the page has a cheat-sheet cell, also run alone in a fresh kernel


@dataclass
class ExecuteReport:
    """What one ``execute`` run did."""

    pages: int = 0
    imported: int = 0
    executed: list[str] = field(default_factory=list)
    timed_alone: list[str] = field(default_factory=list)
    snippets_run: int = 0
    removed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    shard: str = ""  # "I/N" when only a shard's share of the stale pages ran
    share: list[str] = field(default_factory=list)  # ids of that share


def survey(book: Book, book_dir: Path, prefix: str, store: dict[str, notebook.StoreEntry]) -> list[PageState]:
    """Compare every page's code with the store: fresh pages need no execution."""
    states = []
    for q in book.questions:
        path = book_dir / q.path
        parsed = book.pages.get(q.id)
        if parsed is not None and parsed.key:  # parsed once, when the book was read
            key, code, timing = parsed.key, list(parsed.cells), parsed.timing
        else:
            nb = notebook.read_page(path)
            key, code = notebook.cache_key(nb), cells.from_notebook(nb, path.read_text(encoding="utf-8"))
            timing = cells.is_timing([c.source for c in code])
        entry = store.get(q.id)
        snippet = any(c.is_snippet for c in code)
        states.append(PageState(q, path, f"{prefix}/{q.path}", key, entry is not None and entry.key == key, timing, snippet))
    return states


def recorded_seconds(store: dict[str, notebook.StoreEntry], question_id: str) -> float | None:
    """Seconds the page's last execution took, as kept with its stored outputs; None when not recorded."""
    entry = store.get(question_id)
    seconds = entry.provenance.get("seconds") if entry else None
    return float(seconds) if isinstance(seconds, int | float) else None


def shard_costs(pages: list[PageState], store: dict[str, notebook.StoreEntry], parallel: int = 0) -> dict[str, float | None]:
    """Each page's share of a shard's wall time: recorded seconds, ÷ ``parallel`` for pages of the parallel batch."""
    costs = {}
    for s in pages:
        seconds = recorded_seconds(store, s.question.id)
        costs[s.question.id] = seconds / parallel if seconds is not None and parallel and not s.timing else seconds
    return costs


def share_of(pages: list[PageState], store: dict[str, notebook.StoreEntry], shard: Shard, parallel: int = 0) -> list[str]:
    """Ids of the pages that ``shard`` runs: its part of a partition balanced by recorded time."""
    return partition(shard_costs(pages, store, parallel), shard.count)[shard.index - 1]


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
    timeout: int = Config.cell_timeout,
    retries: int = 2,
    timing_threads: int = 0,
    frozen: bool = False,
    force: bool = False,
    prune: bool = True,
    shard: Shard | None = None,
    shard_jobs: int = 0,
    packages: tuple[str, ...] = (),
    max_lines: int = 0,
    progress: Callable[[str], None] = lambda line: print(line, flush=True),
) -> ExecuteReport:
    """Import the store into the cache, run stale pages (all with ``force``), export their outputs.

    With ``frozen`` nothing runs: stale pages raise ``ExecutionError``, as on CI's fresh clone.
    Pages that time code run one at a time after the parallel batch, with ``timing_threads`` threads
    (0: one per core); every cheat-sheet cell also runs alone in a fresh kernel, in the parallel batch.
    With ``prune`` stored outputs of pages that no longer exist are deleted (only for a whole book).
    With ``shard`` only that shard's share of the stale pages runs (see ``shard.partition``), balanced on
    ``shard_jobs`` pages at once (see ``shard_costs``).
    """
    start = time.monotonic()
    report = ExecuteReport()
    store_dir = book_dir / notebook.STORE_DIR
    store = notebook.read_store(store_dir)
    states = survey(book, book_dir, prefix, store)
    report.pages = len(states)
    stale = [s for s in states if force or not s.fresh]
    if shard is not None:
        report.shard = str(shard)
        report.share = share_of(stale, store, shard, shard_jobs)
        stale = [s for s in stale if s.question.id in report.share]
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
        warm_font_cache()
        cores = os.cpu_count() or 1
        batch = [s for s in stale if not s.timing]
        jobs_list = [(s, False) for s in batch] + [(s, True) for s in stale if s.snippet]
        workers = max(1, min(len(jobs_list), jobs or cores))
        solo = [s for s in stale if s.timing]
        progress(f"executing {len(stale)} of {len(states)} pages with {workers} worker(s), then {len(solo)} timing page(s) alone; {len(jobs_list) - len(batch)} cheat-sheet cell(s) alone")
        threads = max(1, cores // workers)
        done = 0
        run_args = (timeout, retries, ipython_dir, packages, max_lines)
        for state, snippet_only, run in _run_all(jobs_list, workers, *run_args, threads):
            if snippet_only:
                report.snippets_run += 1
                if not run.ok:
                    report.failed.append(run.error)
                    progress(f"FAILED alone {state.shown} (cheat-sheet cell)")
                continue
            done += 1
            _record(state, run, store_dir, cache, report, progress, f"[{done}/{len(stale)}]")
        for state, _, run in _run_all([(s, False) for s in solo], 1, *run_args, timing_threads or cores):
            done += 1
            if run.ok:
                run.provenance["alone"] = True
                report.timed_alone.append(state.shown)
            _record(state, run, store_dir, cache, report, progress, f"[{done}/{len(stale)}] (alone)")
    report.seconds = round(time.monotonic() - start, 2)
    if report.failed:
        raise ExecutionError("\n".join(sorted(report.failed)))
    return report


def _record(state: PageState, run: PageRun, store_dir: Path, cache: object, report: ExecuteReport,
            progress: Callable[[str], None], counter: str) -> None:
    """Store a finished page's outputs and import them into the cache, or note its failure."""
    if not run.ok:
        report.failed.append(run.error)
        progress(f"{counter} FAILED {state.shown}")
        return
    text = notebook.to_store(run.nb, state.shown, {**run.provenance, "seconds": run.seconds})
    path = store_dir / f"{state.question.id}.ipynb"
    _write_if_changed(path, text)
    notebook.import_entry(cache, notebook.StoreEntry(path, text, state.key))
    report.executed.append(state.shown)
    retry = f", {run.attempts} attempts" if run.attempts > 1 else ""
    progress(f"{counter} ok     {state.shown} ({run.seconds:.1f} s on {run.provenance.get('device', '?')}{retry})")


Job = tuple[PageState, bool]  # (page, run only its cheat-sheet cell)


def _run_all(jobs: list[Job], workers: int, timeout: int, retries: int, ipython_dir: Path, packages: tuple[str, ...], max_lines: int, threads: int):
    """Yield (state, snippet_only, PageRun) as jobs finish; one process per job at a time."""
    if workers == 1:
        for s, snippet_only in jobs:
            yield s, snippet_only, run_page(s.path, s.shown, timeout, retries, ipython_dir, threads, snippet_only, packages, max_lines)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {pool.submit(run_page, s.path, s.shown, timeout, retries, ipython_dir, threads, snippet_only, packages, max_lines): (s, snippet_only)
                   for s, snippet_only in jobs}
        for future in as_completed(futures):
            state, snippet_only = futures[future]
            try:
                run = future.result()
            except Exception as exc:  # a worker crashed: report the page, keep the others
                run = PageRun(state.shown, error=f"{state.shown}: executor crashed: {type(exc).__name__}: {exc}")
            yield state, snippet_only, run
