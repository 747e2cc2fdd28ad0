"""Build the website, the EPUB and the PDF with Sphinx; promote outputs only when a build succeeds."""

from __future__ import annotations

import filecmp
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import notebook, programs, sheets
from .book import Book
from .config import Config
from .errors import BuildError
from .generate import QUICK_DIR

FORMATS = ("sheets", "deck", "html", "epub", "pdf")  # sheets and deck first: the site links them
ORDER = ("sheets", "deck", "ereader", "html", "epub", "pdf")  # every format; ereader on request (ereader.py)
_MISSING_RE = re.compile(r"Missing character: There is no (\S+) \(U\+[0-9A-Fa-f]+\)")  # log lines wrap
_TEX_ERROR_RE = re.compile(r"^(?:\./)?([^\s:]+\.tex):(\d+): (.*)$|^! (.*)$")


@dataclass(frozen=True)
class Layout:
    """Every path of a project's build, derived from its root and config."""

    root: Path
    config: Config

    @property
    def book(self) -> Path:
        """The MyST sources."""
        return self.root / self.config.book_dir

    @property
    def build(self) -> Path:
        """The build folder."""
        return self.root / self.config.build_dir

    @property
    def doctrees(self) -> Path:
        """Doctrees shared by all three builders (one read serves all)."""
        return self.build / "doctrees"

    @property
    def cache(self) -> Path:
        """The jupyter-cache database."""
        return self.build / ".jupyter_cache"

    @property
    def html(self) -> Path:
        """The website."""
        return self.build / "html"

    @property
    def pdf(self) -> Path:
        """The promoted PDF, under a stable name."""
        return self.build / f"{self.config.basename}.pdf"

    @property
    def selftest(self) -> Path:
        """The self-test edition: bare questions per tier, answers after them."""
        return self.build / f"{self.config.basename}-selftest.pdf"

    @property
    def quick_pdf(self) -> Path:
        """The quick-review edition (速览版) as PDF."""
        return self.build / f"{self.config.basename}-quickreview.pdf"

    @property
    def quick_epub(self) -> Path:
        """The quick-review edition as EPUB."""
        return self.build / f"{self.config.basename}-quickreview.epub"

    @property
    def ereader(self) -> Path:
        """The e-reader PDF: the book on a 6-inch page (ereader.py)."""
        return self.build / f"{self.config.basename}-ereader.pdf"

    @property
    def deck(self) -> Path:
        """The Anki deck."""
        return self.build / f"{self.config.basename}.apkg"

    @property
    def epub(self) -> Path:
        """The promoted EPUB, under a stable name."""
        return self.build / f"{self.config.basename}.epub"

    @property
    def sheets(self) -> Path:
        """The cheat-sheet PDFs, one per topic plus the 高频 sheet."""
        return self.build / "cheatsheets"

    def outdir(self, builder: str, edition: str = "") -> Path:
        """Sphinx's working output folder for a builder (the site is promoted from ``html-build``)."""
        return self.build / ("html-build" if builder == "html" else f"{edition}-{builder}" if edition else builder)


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
               edition: str = "") -> None:
    """Run one Sphinx builder in this process, warnings as errors; raise ``BuildError`` on failure.

    ``edition`` selects another edition of the same doctrees (``quickreview`` for the EPUB builder).
    """
    from sphinx.cmd.build import build_main

    argv = ["-b", builder, "-c", str(Path(__file__).resolve().parents[2]), "-d", str(layout.doctrees), "-W", "--keep-going"]
    extra = {"studyguide_edition": edition} if edition else {}
    for key, value in {"studyguide_root": str(layout.root.resolve()), **extra, **(settings or {})}.items():
        argv += ["-D", f"{key}={value}"]
    argv += ["-j", str(jobs)] if jobs > 1 else []
    argv += ["-q"] if quiet else []
    argv += [str(layout.book), str(layout.outdir(builder, edition))]
    saved, saved_tmp = dict(os.environ), tempfile.tempdir
    os.environ.update(_env(layout))
    tempfile.tempdir = None  # tempfile caches TMPDIR on first use: make it (and jieba, imgmath) read it again
    try:
        code = build_main(argv)
    finally:
        os.environ.clear()
        os.environ.update(saved)
        tempfile.tempdir = saved_tmp
    if code != 0:
        raise BuildError(f"{builder}: Sphinx stopped with the warnings or errors above; the last good output was kept")


def promote(src: Path, dest: Path, mirror: Path | None = None) -> None:
    """Replace ``dest`` atomically with ``src``; also copy it to ``mirror`` (the site's downloads)."""
    for target in filter(None, (dest, mirror)):
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".tmp")
        shutil.copyfile(src, tmp)
        os.replace(tmp, target)


def _tex_error(log: Path) -> str:
    """The first error line of a LaTeX log, with its location."""
    if not log.is_file():
        return "no log was written"
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        m = _TEX_ERROR_RE.match(line)
        if m:
            return f"{m.group(1)}:{m.group(2)}: {m.group(3)}" if m.group(1) else m.group(4)
    return "see the log"


def missing_glyphs(log: Path) -> list[str]:
    """Characters the fonts lacked, as reported by XeTeX ("Missing character" lines)."""
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    return sorted({m.group(1) for m in _MISSING_RE.finditer(text)})


def _latexmk_start(layout: Layout, stem: str) -> subprocess.Popen:
    """Start latexmk (xelatex) on one .tex file."""
    cmd = ["latexmk", "-pdfxe", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error", f"{stem}.tex"]
    return subprocess.Popen(cmd, cwd=layout.outdir("latex"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, **_env(layout)})


def _latexmk_finish(layout: Layout, stem: str, proc: subprocess.Popen) -> Path:
    """Wait for latexmk; return the PDF, or raise ``BuildError`` with the first error or missing glyphs."""
    latex = layout.outdir("latex")
    log = latex / f"{stem}.log"
    if proc.wait() != 0:
        for aux in latex.glob(f"{stem}.*"):  # latexmk may otherwise claim "nothing to do" next time
            if aux.suffix in {".fdb_latexmk", ".aux", ".xdv", ".pdf"}:
                aux.unlink()
        raise BuildError(f"PDF: xelatex failed: {_tex_error(log)} (the last good PDF was kept; full log: {log})")
    glyphs = missing_glyphs(log)
    if glyphs:
        raise BuildError(f"PDF: the fonts lack {len(glyphs)} character(s): {' '.join(glyphs)} (write them differently or add a font with fallback; the last good PDF was kept; log: {log})")
    return latex / f"{stem}.pdf"


def _pdfs_up_to_date(layout: Layout) -> bool:
    """True when nothing changed since the A4 PDFs were made (``outputs_up_to_date``)."""
    return outputs_up_to_date(layout, [layout.pdf, layout.selftest, layout.quick_pdf])


def outputs_up_to_date(layout: Layout, outputs: list[Path]) -> bool:
    """True when no source, stored output, doctree, project config, Sphinx config or tool changed since all ``outputs`` were made.

    Sphinx's LaTeX builder rewrites every page on every run; skipping it keeps a no-op rebuild fast.
    """
    if not all(p.is_file() for p in outputs):
        return False
    repo = Path(__file__).resolve().parents[2]
    inputs = [layout.doctrees / "environment.pickle", repo / "conf.py", layout.root / "pyproject.toml",
              *repo.joinpath("tools", "studyguide").rglob("*.py"),
              *layout.book.rglob("*.md"), *layout.book.rglob("*.ipynb"), *layout.book.rglob("*.yml")]
    newest = max((p.stat().st_mtime for p in inputs if p.is_file()), default=float("inf"))
    return newest < min(p.stat().st_mtime for p in outputs)


def build_pdf(layout: Layout) -> Path:
    """Sphinx LaTeX, then latexmk with xelatex for the book, its self-test and its quick-review editions.

    The quick review starts when the book is done (it prints the book's page numbers). All PDFs are built
    before any is promoted, and only without missing glyphs.
    """
    programs.require("PDF", programs.PDF + programs.MATH, programs.TEX_FILES)
    if _pdfs_up_to_date(layout):
        return layout.pdf
    run_sphinx(layout, "latex")
    book, selftest, quick = layout.config.basename, layout.selftest.stem, layout.quick_pdf.stem
    running = {book: _latexmk_start(layout, book), selftest: _latexmk_start(layout, selftest)}  # one per core
    if running[book].wait() == 0:
        running[quick] = _latexmk_start(layout, quick)
    for proc in running.values():
        proc.wait()  # all finish before any error is raised: no stray xelatex
    built = [_latexmk_finish(layout, stem, proc) for stem, proc in running.items()]
    downloads = layout.html / "downloads"
    for src, dest in zip(built, (layout.pdf, layout.selftest, layout.quick_pdf), strict=True):
        promote(src, dest, downloads / dest.name)
    return layout.pdf


def build_epub(layout: Layout) -> Path:
    """Sphinx EPUB of the book and of its quick-review edition; each promoted only if Sphinx succeeded."""
    programs.require("EPUB math", programs.MATH)
    for edition, dest in (("", layout.epub), (QUICK_DIR, layout.quick_epub)):
        run_sphinx(layout, "epub", edition=edition)
        built = layout.outdir("epub", edition) / dest.name
        if not built.is_file():
            raise BuildError(f"EPUB: Sphinx wrote no {built}; the last good EPUB was kept")
        promote(built, dest, layout.html / "downloads" / dest.name)
    return layout.epub


def build_html(layout: Layout, jobs: int = 1) -> Path:
    """The website, built in its own working folder and copied over the site only when Sphinx succeeded."""
    programs.require("website math", programs.MATH)
    run_sphinx(layout, "html", jobs)
    sync_tree(layout.outdir("html"), layout.html, keep=("downloads",))
    return layout.html / "index.html"


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
    dates = {qid: str(entry.provenance.get("date", "")) for qid, entry in notebook.read_store(layout.book / notebook.STORE_DIR).items()}
    sheets.build_sheets(book, layout.sheets, layout.config.title, layout.config.edition, dates, layout.html / "downloads" / "cheatsheets")
    return layout.sheets


def build_deck(layout: Layout, book: Book) -> Path:
    """The Anki deck (.apkg), also copied to the site's downloads."""
    from .deck import build_deck as write_deck

    write_deck(book, layout.deck, layout.config.title, layout.config.basename, layout.config.edition_text)
    promote(layout.deck, layout.html / "downloads" / layout.deck.name)
    return layout.deck


def build(layout: Layout, book: Book, formats: tuple[str, ...] = FORMATS, jobs: int = 1) -> BuildReport:
    """Build the requested formats in ``ORDER``; each is timed."""
    report = BuildReport()
    from .ereader import build_ereader  # ereader.py builds on this module

    steps = {"sheets": lambda: build_sheets(layout, book), "deck": lambda: build_deck(layout, book), "html": lambda: build_html(layout, jobs),
             "epub": lambda: build_epub(layout), "pdf": lambda: build_pdf(layout), "ereader": lambda: build_ereader(layout)}
    for fmt in ORDER:
        if fmt not in formats:
            continue
        start = time.monotonic()
        steps[fmt]()
        report.seconds[fmt] = round(time.monotonic() - start, 2)
    return report
