"""Command line: check, sync, execute, merge, shards, build, status, new, doctor. Only this module exits."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

from . import alttext, archive, changes, editions, generate, glyphs, mathcheck, notebook, parsememo, programs, scaffold, shard, status
from . import build as build_mod
from . import execute as execute_mod
from .book import Book, load_book
from .config import Config, load_config, parse_config
from .errors import BookError, BuildError, StudyguideError
from .project import Layout


def _book(root: Path, config: Config, pages: list[str] | None = None) -> Book:
    only = None
    if pages:
        book_dir = (root / config.book_dir).resolve()
        full = [(Path(p) if Path(p).is_absolute() else root / p).resolve() for p in pages]
        only = {f.relative_to(book_dir).as_posix() if f.is_relative_to(book_dir) else str(f) for f in full}
    layout = Layout(root, config)
    book = load_book(root / config.book_dir, prefix=config.book_dir, only=only, rules=layout.rules, memo_file=layout.build / parsememo.FILE)
    stored = notebook.read_stored(book, layout.book / notebook.STORE_DIR)  # read once for both checks
    found = glyphs.problems(book, config.book_dir, stored, glyphs.font_preamble(config.locale.code == "zh"), layout.build / ".glyphs.json")
    found += alttext.problems(book, config.book_dir, stored)
    if found:
        raise BookError(found)
    formulas = [(f"{config.book_dir}/{q.path}", line, tex, display) for q in book.questions for line, tex, display in book.pages[q.id].outline.formulas]
    bad_math = mathcheck.problems(formulas, layout.build / ".math_checked.json")
    if bad_math:
        raise BookError(bad_math)
    return book


def _sync(root: Path, config: Config, book: Book, check: bool) -> generate.SyncReport:
    book_dir = root / config.book_dir
    front = tuple(d for d in generate.FRONT_DOCS if (book_dir / f"{d}.md").is_file())
    history = changes.read_history(root, config.book_dir, config.edition)
    return generate.sync(book_dir, generate.plan(book, config, front, history), check=check)


def cmd_check(args: argparse.Namespace, root: Path, config: Config) -> int:
    """Validate every page (or the pages given); the generated pages are made at build time, not checked in."""
    book = _book(root, config, args.pages)
    if args.pages:
        print(f"ok: {len(book.questions)} page(s) valid")
        return 0
    print(f"ok: {len(book.questions)} questions, {len(book.topics)} topics")
    return 0


def cmd_sync(args: argparse.Namespace, root: Path, config: Config) -> int:
    """Regenerate the home, chapter and environment pages (only changed files are written)."""
    report = _sync(root, config, _book(root, config), check=False)
    for p in report.created + report.updated:
        print(f"wrote   {config.book_dir}/{p}")
    for p in report.removed:
        print(f"removed {config.book_dir}/{p}")
    return 0


def _execute(args: argparse.Namespace, root: Path, config: Config, book: Book) -> execute_mod.ExecuteReport:
    layout = Layout(root, config)
    part = shard.parse_spec(args.shard) if getattr(args, "shard", None) else None
    jobs = args.jobs or (config.shard_jobs if part is not None else 0) or config.jobs
    report = execute_mod.execute(
        book, layout.book, layout.cache, prefix=config.book_dir, jobs=jobs,
        timeout=config.cell_timeout, retries=config.retries, timing_threads=config.timing_threads, frozen=args.frozen, force=getattr(args, "force", False),
        prune=not getattr(args, "pages", None) and part is None, shard=part, shard_jobs=config.shard_jobs,
        packages=config.provenance, max_lines=config.max_output_lines,
    )
    layout.build.mkdir(parents=True, exist_ok=True)
    (layout.build / "execute-report.json").write_text(json.dumps(asdict(report), ensure_ascii=False, indent=1) + "\n")
    for name in report.removed:
        print(f"execute: removed {config.book_dir}/{notebook.STORE_DIR}/{name} (its page no longer exists)")
    alone = f" ({len(report.timed_alone)} timing page(s) alone, {report.snippets_run} cheat-sheet cell(s) alone)" if report.executed else ""
    share = f" as shard {report.shard} ({len(report.share)} page(s) its share)" if report.shard else ""
    print(f"execute: {len(report.executed)} page(s) executed{share}{alone}, {report.pages - len(report.executed)} up to date, {report.imported} imported into the cache ({report.seconds:.1f} s)")
    if getattr(args, "archive", None):
        ids = {f"{config.book_dir}/{q.path}": q.id for q in book.questions}
        out = archive.pack(layout.book / notebook.STORE_DIR, [ids[p] for p in report.executed], args.archive, report.shard or "1/1")
        print(f"execute: wrote {out} ({len(report.executed)} notebook(s)); import it with `studyguide merge {out.name}`")
    return report


def cmd_execute(args: argparse.Namespace, root: Path, config: Config) -> int:
    """Execute stale pages (or the stale pages given) in parallel; store their outputs in book/_executed/."""
    book = _book(root, config, args.pages)
    if not args.pages:
        _sync(root, config, book, check=False)
    _execute(args, root, config, book)
    return 0


def cmd_merge(args: argparse.Namespace, root: Path, config: Config) -> int:
    """Import shards' archives into book/_executed/; a conflict between archives imports nothing."""
    book = _book(root, config)
    report = archive.merge(book, root / config.book_dir, args.archives, prefix=config.book_dir)
    print(f"merge: {len(report.written)} notebook(s) written, {len(report.unchanged)} unchanged, from {len(args.archives)} archive(s)")
    return 0


def cmd_shards(args: argparse.Namespace, root: Path, config: Config) -> int:
    """Show how the stale pages (all pages with --force) split into N shards by recorded time."""
    book = _book(root, config)
    book_dir = root / config.book_dir
    store = notebook.read_store(book_dir / notebook.STORE_DIR)
    pages = [s for s in execute_mod.survey(book, book_dir, config.book_dir, store) if args.force or not s.fresh]
    costs = execute_mod.shard_costs(pages, store, config.shard_jobs)
    timed = sum(c is not None for c in costs.values())
    unit = f"seconds (parallel pages ÷ shard_jobs = {config.shard_jobs})" if config.shard_jobs else "recorded seconds"
    for count in args.counts:
        parts = shard.partition(costs, count)
        loads = shard.loads(parts, costs)
        sizes = [len(p) for p in parts]
        by_time = f"max/mean {shard.imbalance(loads):.3f} by recorded time, " if timed else ""
        print(f"N={count}: pages per shard {sizes}, {unit} {[round(x, 1) for x in loads]}, "
              f"{by_time}max/mean {shard.imbalance([float(n) for n in sizes]):.3f} by page count")
    print(f"{len(pages)} page(s), {timed} with a recorded execution time")
    return 0


def cmd_build(args: argparse.Namespace, root: Path, config: Config) -> int:
    """Check, sync, execute what is stale, then build the requested formats."""
    start = time.monotonic()
    unknown = sorted(set(args.formats) - {*editions.FORMATS, "all"})
    if unknown:
        raise BuildError(f"build: unknown format(s) {', '.join(unknown)} (choose from {', '.join(editions.FORMATS)}, or all)")
    book = _book(root, config)
    _sync(root, config, book, check=False)
    _execute(args, root, config, book)
    layout = Layout(root, config)
    formats = editions.FORMATS if "all" in args.formats else tuple(args.formats or editions.DEFAULT_FORMATS)
    report = build_mod.build(layout, book, formats, jobs=args.sphinx_jobs)
    for fmt, secs in report.seconds.items():
        print(f"built {fmt:7s} in {secs:6.1f} s")
    print(f"outputs: {layout.html / 'index.html'}, {layout.pdf}, {layout.epub} ({time.monotonic() - start:.1f} s in all)")
    return 0


def cmd_status(args: argparse.Namespace, root: Path, config: Config) -> int:
    """List pages whose outputs are stale or came from a CPU; ``--strict`` fails on GPU pages without GPU outputs."""
    book = _book(root, config)
    lines, failed = status.report(book, root / config.book_dir, config.book_dir, strict=args.strict)
    print("\n".join(lines))
    return 1 if failed else 0


def cmd_new(args: argparse.Namespace, root: Path, config: Config) -> int:
    """Create a question page with the full shape and metadata, ready to fill in."""
    book = _book(root, config)
    path = scaffold.create(root / config.book_dir, book, args.id, args.tier, args.topic, args.title, config.locale, "torch" in config.provenance)
    print(f"created {path.relative_to(root)}; fill it in, then run `make`")
    return 0


def cmd_init(args: argparse.Namespace, root: Path, config: Config) -> int:
    """Start a new study guide in a new folder: config, topics, a preface, a sample page per tier, README, Makefile."""
    from . import init

    target = args.folder if args.folder.is_absolute() else root / args.folder
    written = init.create(target, args.title, args.language, args.author)
    print(f"created {len(written)} files in {target}; now run `make` there (or `studyguide --root {target} build`)")
    return 0


def cmd_verify(args: argparse.Namespace, root: Path, config: Config) -> int:
    """Check the built outputs: every edition present, EPUBs valid (epubcheck), cheat sheets one page, every page's run recorded."""
    from . import verify

    layout = Layout(root, config)
    found = verify.problems(layout, _book(root, config), epubcheck=not args.no_epubcheck)
    if found:
        print("\n".join(found), file=sys.stderr)
        return 1
    print(f"ok: every output of {config.title} is in {layout.build}")
    return 0


def cmd_serve(args: argparse.Namespace, root: Path, config: Config) -> int:
    """Serve the built website as a static host would (gzip, cache headers), to try it on a phone or in Lighthouse."""
    from . import serve

    site = Layout(root, config).html
    httpd = serve.server(site, args.port, args.host)
    print(f"serving {site} at http://{args.host}:{httpd.server_port}/ (Ctrl-C stops)")
    try:
        httpd.serve_forever()
    finally:
        httpd.server_close()
    return 0


def cmd_doctor(args: argparse.Namespace, root: Path, config: Config) -> int:
    """Report every missing program or font with the command that installs it."""
    groups = {"PDF": (programs.PDF + programs.MATH, programs.TEX_FILES), "EPUB check": (programs.EPUBCHECK, ()), "PDF checks": (programs.PDF_TOOLS, ()),
              "e-reader checks": (programs.READERS, ())}
    failed = 0
    for what, (reqs, tex) in groups.items():
        try:
            programs.require(what, reqs, tex)
            print(f"ok: {what}")
        except StudyguideError as exc:
            print(exc, file=sys.stderr)
            failed = 1
    return failed


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``studyguide``."""
    p = argparse.ArgumentParser(prog="studyguide", description="Write and build a study guide whose every answer is backed by code that ran.")
    p.add_argument("--root", type=Path, default=Path.cwd(), help="project root (holds pyproject.toml and the book folder)")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("check", help=cmd_check.__doc__)
    s.add_argument("pages", nargs="*", help="check only these question pages (paths from the project root)")
    sub.add_parser("sync", help=cmd_sync.__doc__)
    for name, func in (("execute", cmd_execute), ("build", cmd_build)):
        s = sub.add_parser(name, help=func.__doc__)
        s.add_argument("--jobs", type=int, default=0, help="pages executed in parallel (default: [tool.studyguide] jobs)")
        s.add_argument("--frozen", action="store_true", help="execute nothing; fail if any page's stored outputs are stale")
        if name == "execute":
            s.add_argument("--force", action="store_true", help="execute every page, not only stale ones")
            s.add_argument("--shard", metavar="I/N", help="run only shard I of N of the stale pages, balanced by recorded time")
            s.add_argument("--archive", type=Path, help="also write the notebooks this run executed to a tar, for `studyguide merge`")
            s.add_argument("pages", nargs="*", help="execute only these question pages (paths from the project root)")
        else:
            s.add_argument("formats", nargs="*", help="formats to build, or all (default: all but the on-request ones): "
                           + "; ".join(f"{f}: {editions.FORMAT_HELP[f]}" for f in editions.FORMATS))
            s.add_argument("--sphinx-jobs", type=int, default=1, help="parallel Sphinx readers")
    s = sub.add_parser("merge", help=cmd_merge.__doc__)
    s.add_argument("archives", nargs="+", type=Path, help="archives written by `studyguide execute --archive`")
    s = sub.add_parser("shards", help=cmd_shards.__doc__)
    s.add_argument("counts", nargs="+", type=int, help="shard counts to show, e.g. 2 4 8")
    s.add_argument("--force", action="store_true", help="split every page, not only the stale ones")
    s = sub.add_parser("status", help=cmd_status.__doc__)
    s.add_argument("--strict", action="store_true", help="fail if a page that needs a GPU has no GPU outputs")
    s = sub.add_parser("new", help=cmd_new.__doc__)
    s.add_argument("id", help="kebab-case question id, also the file name")
    s.add_argument("--tier", required=True, help="a tier id of the book (see its config)")
    s.add_argument("--topic", required=True, help="topic id from book/topics.yml (the chapter)")
    s.add_argument("--title", default="", help="the question title")
    s = sub.add_parser("serve", help=cmd_serve.__doc__)
    s.add_argument("--port", type=int, default=8000, help="port to listen on (0: any free one)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: reachable from a phone on the same network)")
    sub.add_parser("doctor", help=cmd_doctor.__doc__)
    s = sub.add_parser("init", help=cmd_init.__doc__)
    s.add_argument("folder", type=Path, help="the new book's folder (created; must be empty)")
    s.add_argument("--title", required=True, help="the book's title")
    s.add_argument("--language", default="zh", help="the language of everything the generator prints: zh or en")
    s.add_argument("--author", default="", help="the author (default: the language's)")
    s = sub.add_parser("verify", help=cmd_verify.__doc__)
    s.add_argument("--no-epubcheck", action="store_true", help="skip epubcheck (it needs Java)")
    return p


COMMANDS = {"check": cmd_check, "sync": cmd_sync, "execute": cmd_execute, "merge": cmd_merge, "shards": cmd_shards, "build": cmd_build,
            "status": cmd_status, "new": cmd_new, "doctor": cmd_doctor, "serve": cmd_serve, "init": cmd_init, "verify": cmd_verify}


def main(argv: list[str] | None = None) -> int:
    """Entry point: run a command; print errors as one line each and return non-zero."""
    args = parser().parse_args(argv)
    root = args.root.resolve()
    try:
        config = parse_config({}) if args.command == "init" else load_config(root)  # a new book needs no project here
        return COMMANDS[args.command](args, root, config)
    except StudyguideError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
