"""Build the website, the EPUBs and the PDFs with Sphinx; promote outputs only when a build succeeds."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import editions, latex, notebook, programs, sheets
from .book import Book
from .build_state import PRELOADED
from .editions import FORMATS
from .errors import BuildError
from .project import Layout

SPHINX_PROJECT = Path(__file__).parent / "sphinx_project"  # the default conf.py and static files of every book
ORDER = FORMATS
__all__ = ["Layout", "build", "FORMATS", "ORDER"]


@dataclass
class BuildReport:
    """Seconds per stage."""

    seconds: dict[str, float] = field(default_factory=dict)


def _env(layout: Layout) -> dict[str, str]:
    """Keep TeX, jieba and IPython side effects inside the build folder."""
    var = layout.build / "cache-home"
    var.mkdir(parents=True, exist_ok=True)
    return {"TEXMFVAR": str(var / "texmf-var"), "TMPDIR": str(var), "IPYTHONDIR": str(layout.build / "ipython")}




def run_sphinx(layout: Layout, builder: str, jobs: int = 1, quiet: bool = True, settings: dict[str, str] | None = None,
               edition: str = "", book: Book | None = None) -> None:
    """Run one Sphinx builder in this process, warnings as errors; raise ``BuildError`` on failure.

    ``edition`` selects another edition of the same doctrees (``quickreview`` for the EPUB builder).
    ``book``, already parsed and checked, is handed to the extension so that it does not parse it again.
    """
    from sphinx.cmd.build import build_main

    argv = ["-b", builder, "-c", str(SPHINX_PROJECT), "-d", str(layout.doctrees), "-W", "--keep-going"]
    extra = {"studyguide_edition": edition} if edition else {}
    for key, value in {"studyguide_root": str(layout.root.resolve()), **extra, **(settings or {})}.items():
        argv += ["-D", f"{key}={value}"]
    argv += ["-j", str(jobs)] if jobs > 1 else []
    argv += ["-q"] if quiet else []
    argv += [str(layout.book), str(layout.outdir(builder, edition))]
    saved, saved_tmp = dict(os.environ), tempfile.tempdir
    os.environ.update({**_env(layout), "STUDYGUIDE_ROOT": str(layout.root.resolve())})
    tempfile.tempdir = None  # tempfile caches TMPDIR on first use: make it (and jieba, imgmath) read it again
    if book is not None:
        PRELOADED[str(layout.book.resolve())] = book
    try:
        code = build_main(argv)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        tempfile.tempdir = saved_tmp
        PRELOADED.clear()
    if code != 0:
        raise BuildError(f"{builder}: Sphinx stopped with the warnings or errors above; the last good output was kept")


def promote(src: Path, dest: Path, mirror: Path | None = None) -> None:
    """Replace ``dest`` atomically with ``src``; also copy it to ``mirror`` (the site's downloads)."""
    for target in filter(None, (dest, mirror)):
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        shutil.copyfile(src, tmp)
        os.replace(tmp, target)


def outputs_up_to_date(layout: Layout, outputs: list[Path]) -> bool:
    """True when no file of the book, stored output, doctree, project config, edition, cover, plugin, tool or
    installed package changed since all ``outputs`` were made.

    Sphinx's LaTeX and EPUB builders write and package every page on every run; skipping them keeps a no-op rebuild fast.
    """
    if not all(p.is_file() for p in outputs) or not (layout.doctrees / "environment.pickle").is_file():
        return False  # without doctrees the next Sphinx run writes them anew, newer than every output
    tool = Path(__file__).resolve().parent
    own = [layout.root / d for d in ("_static", *layout.config.plugins)]  # the cover, the plugins (files or folders)
    files = [layout.doctrees / "environment.pickle", layout.root / "pyproject.toml", layout.root / "conf.py", _edition_stamp(layout),
             *_tree(tool), *(p for d in own for p in ([d] if d.is_file() else _tree(d)))]
    entries = [layout.book, *_tree(layout.book, folders=True),  # a folder's time changes when a page is removed
               Path(sysconfig.get_paths()["purelib"])]  # and the packages' when one is installed or upgraded
    inputs = [p for p in files if p.is_file()] + [p for p in entries if p.exists()]
    newest = max((p.stat().st_mtime for p in inputs), default=float("inf"))
    return newest < min(p.stat().st_mtime for p in outputs)


def _tree(folder: Path, folders: bool = False) -> list[Path]:
    """The files (and with ``folders`` the folders) under ``folder``, but not caches, hidden or editor backup files."""
    if not folder.is_dir():
        return []
    return [p for p in folder.rglob("*") if not any(part == "__pycache__" or part.startswith((".", "#")) or part.endswith("~")
                                                     for part in p.relative_to(folder).parts) and (folders or p.is_file())]


def _edition_stamp(layout: Layout) -> Path:
    """A file holding the edition the outputs print (it may come from a release tag, which no source file shows),
    rewritten only when the edition changes."""
    stamp = layout.build / ".edition"
    text = layout.config.edition_text + "\n"
    if not stamp.is_file() or stamp.read_text(encoding="utf-8") != text:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(text, encoding="utf-8")
    return stamp


def _keep_downloads(layout: Layout, outputs: list[Path]) -> None:
    """Put back the site's copy of an output that was up to date (the site may have been removed since)."""
    for made in outputs:
        if not (layout.downloads / made.name).is_file():
            promote(made, layout.downloads / made.name)


def _where(layout: Layout) -> latex.WhereFn:
    """Map a line of a generated .tex file to the page it came from (``book/<docname>.md``)."""
    def where(tex: Path, line: int) -> str:
        doc = latex.doc_at(tex, line)
        return f"{layout.config.book_dir}/{doc}.md" if doc else ""

    return where


def _glyph_pages(layout: Layout, glyphs: list[str]) -> list[str]:
    """Where the characters the fonts lack are written: ``book/x.md:12`` (sources and stored outputs)."""
    found = []
    for path in sorted([*layout.book.rglob("*.md"), *layout.book.rglob("*.ipynb")]):
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
            if any(g in line for g in glyphs):
                found.append(f"{path.relative_to(layout.root).as_posix()}:{n}")
    return found


def _finish(layout: Layout, stem: str, proc: subprocess.Popen) -> Path:
    """latexmk's result; characters the fonts lack are reported at the page and line that hold them."""
    try:
        return latex.finish(layout.outdir("latex"), stem, proc, _where(layout))
    except BuildError as exc:
        glyphs = latex.missing_glyphs(layout.outdir("latex") / f"{stem}.log")
        where = _glyph_pages(layout, glyphs) if glyphs else []
        if not where:
            raise
        more = f" (also at {', '.join(where[1:4])})" if len(where) > 1 else ""
        raise BuildError(f"{where[0]}: {exc}{more}") from None


@dataclass
class Typesetting:
    """latexmk runs going on in the background, and what to do with their PDFs once all have ended."""

    runs: dict[str, subprocess.Popen]  # edition key -> latexmk
    done: Callable[[dict[str, subprocess.Popen]], None]  # check the results and promote the PDFs
    waiter: threading.Thread | None = None  # starts the quick review once the book is typeset

    def finish(self) -> None:
        """Wait for every run, then check and promote (raises ``BuildError``)."""
        if self.waiter is not None:
            self.waiter.join()
        for proc in list(self.runs.values()):
            proc.wait()
        self.done(self.runs)

    def stop(self) -> None:
        """End every run (another stage failed); nothing is promoted."""
        for proc in list(self.runs.values()):
            latex.stop(proc)
        if self.waiter is not None:
            self.waiter.join()  # the book's run has ended, so the quick review is not started now
        for proc in list(self.runs.values()):
            latex.stop(proc)


def _results(layout: Layout, stems: dict[str, str], runs: dict[str, subprocess.Popen]) -> dict[str, Path]:
    """Every run's PDF; the first failure is raised once all were read (each run's marks are cleared)."""
    built, failures = {}, []
    for key, proc in runs.items():
        try:
            built[key] = _finish(layout, stems[key], proc)
        except BuildError as exc:
            failures.append(exc)
    if failures:
        raise failures[0]
    return built


def prepare_pdf(layout: Layout, book: Book | None = None) -> Callable[[], Typesetting] | None:
    """Sphinx LaTeX for every PDF edition of a plain run (the registry's); then a function that starts latexmk.

    The quick review starts when the book is done (it prints the book's page numbers). All PDFs are built
    before any is promoted, and only without missing glyphs. None when the PDFs are up to date.
    """
    programs.require("PDF", programs.PDF + programs.MATH, programs.TEX_FILES)
    wanted = editions.latex_editions()
    if outputs_up_to_date(layout, [layout.output(e, "pdf") for e in wanted]):
        _keep_downloads(layout, [layout.output(e, "pdf") for e in wanted])
        return None
    run_sphinx(layout, "latex", book=book)
    folder, env, base = layout.outdir("latex"), _env(layout), dict(os.environ)
    stems = {e.key: layout.output(e, "pdf").stem for e in wanted}
    runs: dict[str, subprocess.Popen] = {}

    def quick() -> None:
        if runs[editions.BOOK.key].wait() == 0:
            runs[editions.QUICK.key] = latex.start(folder, stems[editions.QUICK.key], env, base)

    def done(runs: dict[str, subprocess.Popen]) -> None:
        built = _results(layout, stems, runs)
        for edition in wanted:
            dest = layout.output(edition, "pdf")
            promote(built[edition.key], dest, layout.downloads / dest.name)

    def launch() -> Typesetting:
        runs.update({k: latex.start(folder, stems[k], env) for k in stems if k != editions.QUICK.key})  # one per core
        waiter = threading.Thread(target=quick, daemon=True) if editions.QUICK.key in stems else None
        if waiter is not None:
            waiter.start()
        return Typesetting(runs, done, waiter)

    return launch


def prepare_ereader(layout: Layout, book: Book | None = None) -> Callable[[], Typesetting] | None:
    """Sphinx LaTeX with the e-reader settings; then a function that starts its latexmk. None when it is up to date."""
    programs.require("e-reader PDF", programs.PDF + programs.MATH, programs.TEX_FILES)
    if outputs_up_to_date(layout, [layout.ereader]):
        _keep_downloads(layout, [layout.ereader])
        return None
    run_sphinx(layout, "latex", settings={"studyguide_latex": editions.EREADER.key}, book=book)
    stem = layout.ereader.stem

    def done(runs: dict[str, subprocess.Popen]) -> None:
        built = _results(layout, {editions.EREADER.key: stem}, runs)
        promote(built[editions.EREADER.key], layout.ereader, layout.downloads / layout.ereader.name)

    return lambda: Typesetting({editions.EREADER.key: latex.start(layout.outdir("latex"), stem, _env(layout))}, done)


def build_pdf(layout: Layout, book: Book | None = None) -> Path:
    """Every PDF edition of a plain run, typeset and promoted."""
    launch = prepare_pdf(layout, book)
    if launch is not None:
        _finish_or_stop(launch())
    return layout.pdf


def build_ereader(layout: Layout, book: Book | None = None) -> Path:
    """The e-reader PDF, typeset and promoted only on success."""
    launch = prepare_ereader(layout, book)
    if launch is not None:
        _finish_or_stop(launch())
    return layout.ereader


def _finish_or_stop(job: Typesetting) -> None:
    """Finish ``job``; when this process is interrupted meanwhile, stop its runs first."""
    try:
        job.finish()
    except BaseException:
        job.stop()
        raise


def build_epub(layout: Layout, book: Book | None = None) -> Path:
    """Sphinx EPUB of every EPUB edition; each promoted only if Sphinx succeeded."""
    programs.require("EPUB math", programs.MATH)
    for edition in editions.epub_editions():
        key = "" if edition is editions.BOOK else edition.key
        dest = layout.output(edition, "epub")
        if outputs_up_to_date(layout, [dest]):
            _keep_downloads(layout, [dest])
            continue  # Sphinx would package the same pages again
        run_sphinx(layout, "epub", edition=key, book=book)
        built = layout.outdir("epub", key) / dest.name
        if not built.is_file():
            raise BuildError(f"EPUB: Sphinx wrote no {built}; the last good EPUB was kept")
        promote(built, dest, layout.downloads / dest.name)
    return layout.epub


def build_html(layout: Layout, jobs: int = 1, book: Book | None = None, coming: tuple[str, ...] = (), publish: bool = True) -> Path:
    """The website, built in its own working folder and copied over the site only when Sphinx succeeded (by
    :func:`publish_html`, left to the caller when ``publish`` is False). ``coming``: keys of the on-request
    editions this build is making, which the site links already."""
    programs.require("website math", programs.MATH)
    run_sphinx(layout, "html", jobs, settings={"studyguide_coming": ",".join(coming)} if coming else None, book=book)
    if publish:
        publish_html(layout)
    return layout.html / "index.html"


def publish_html(layout: Layout) -> None:
    """Copy the built website over the site (the downloads stay)."""
    sync_tree(layout.outdir("html"), layout.html, keep=("downloads",))


def sync_tree(src: Path, dest: Path, keep: tuple[str, ...] = ()) -> None:
    """Make ``dest`` equal to ``src``, writing only changed files; top-level entries in ``keep`` stay."""
    dest.mkdir(parents=True, exist_ok=True)
    wanted = {p.relative_to(src) for p in src.rglob("*")}
    for path in sorted(dest.rglob("*"), reverse=True):  # files before their folders
        rel = path.relative_to(dest)
        if rel.parts[0] in keep or rel in wanted:
            continue
        if not path.is_dir() or path.is_symlink():
            path.unlink()
        elif not any(path.iterdir()):
            path.rmdir()
    for rel in sorted(wanted):
        s, d = src / rel, dest / rel
        if s.is_dir():
            d.mkdir(exist_ok=True)
        elif not d.is_file() or not filecmp.cmp(s, d, shallow=False):
            tmp = d.with_name(d.name + ".tmp")
            shutil.copy2(s, tmp)
            os.replace(tmp, d)


def build_sheets(layout: Layout, book: Book) -> Path:
    """Typeset the cheat sheets (Typst) into _build/cheatsheets/ and the site's downloads."""
    programs.require("cheat sheets", programs.SHEETS)
    config = layout.config
    dates = {qid: str(entry.provenance.get("date", "")) for qid, entry in notebook.read_store(layout.book / notebook.STORE_DIR).items()}
    sheets.build_sheets(book, layout.sheets, config.title, config.edition_text, dates, config.locale, layout.blocks,
                        sheets.frequent_groups(config), layout.downloads / "cheatsheets")
    return layout.sheets


def build_deck(layout: Layout, book: Book) -> Path:
    """The Anki deck (.apkg), also copied to the site's downloads."""
    from .deck import build_deck as write_deck

    config = layout.config
    namespace = config.basename if config.deck_namespace == "-" else config.deck_namespace
    write_deck(book, layout.deck, config.title, config.basename, config.locale, config.edition_text, namespace)
    promote(layout.deck, layout.downloads / layout.deck.name)
    return layout.deck


def build_practice(layout: Layout, book: Book) -> Path:
    """The practice pack of the exercises (written only when changed), also copied to the site's downloads."""
    from . import practice

    config = layout.config
    practice.write(book, layout.practice, config.title, config.locale, config.book_dir)
    copy = layout.downloads / layout.practice.name
    if layout.practice.is_file() and not (copy.is_file() and filecmp.cmp(layout.practice, copy, shallow=False)):
        promote(layout.practice, copy)
    elif not layout.practice.is_file():
        copy.unlink(missing_ok=True)
    return layout.practice


def build(layout: Layout, book: Book, formats: tuple[str, ...] = editions.DEFAULT_FORMATS, jobs: int = 1) -> BuildReport:
    """Build the requested formats; each is timed from its start to its end.

    The PDFs' Sphinx runs come first (they share a folder); then their xelatex runs go on in the background while
    the other formats build (they take the most time, one core each). The site, which links the PDFs, is published
    when they are done. Should any stage fail, the runs are stopped and the site is not published.
    """
    _edition_stamp(layout)  # before any output is made: a first build's outputs are newer than it
    pending: list[tuple[str, float, Typesetting]] = []
    coming = () if "ereader" not in formats else (editions.EREADER.key,)
    steps = {"sheets": lambda: build_sheets(layout, book), "deck": lambda: build_deck(layout, book), "practice": lambda: build_practice(layout, book),
             "html": lambda: build_html(layout, jobs, book, coming, publish=not pending), "epub": lambda: build_epub(layout, book)}
    prepares = {"pdf": prepare_pdf, "ereader": prepare_ereader}
    seconds: dict[str, float] = {}
    try:
        launches = []
        for fmt in ("pdf", "ereader"):
            if fmt in formats:
                began = time.monotonic()
                launch = prepares[fmt](layout, book)
                if launch is None:
                    seconds[fmt] = round(time.monotonic() - began, 2)
                else:
                    launches.append((fmt, began, launch))
        for fmt, began, launch in launches:
            pending.append((fmt, began, launch()))
        for fmt in FORMATS:
            if fmt in formats and fmt in steps:
                began = time.monotonic()
                steps[fmt]()
                seconds[fmt] = round(time.monotonic() - began, 2)
        for fmt, began, job in pending:
            job.finish()
            seconds[fmt] = round(time.monotonic() - began, 2)
        if pending and "html" in formats:
            publish_html(layout)
    except BaseException:
        for _, _, job in pending:
            job.stop()
        raise
    return BuildReport({fmt: seconds[fmt] for fmt in FORMATS if fmt in seconds})
