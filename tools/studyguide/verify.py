"""``studyguide verify``: check a book's built outputs as a reader would meet them (the book's own tests).

Every edition of the registry exists; each EPUB passes epubcheck; each PDF opens; each cheat sheet is one page;
the site has a page per question; a book with exercises has its practice pack; every question page records where its outputs ran.
"""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

from . import editions, notebook, programs
from .book import Book
from .project import Layout


def _pdf_pages(path: Path) -> int:
    from pypdf import PdfReader

    return len(PdfReader(path).pages)


def problems(layout: Layout, book: Book, epubcheck: bool = True) -> list[str]:
    """One line per defect of the built outputs (empty: all good)."""
    out = []
    for edition in editions.EDITIONS:
        for fmt in edition.formats:
            path = layout.output(edition, fmt)
            if edition.on_request and not path.is_file():
                continue
            if not path.is_file():
                out.append(f"{path}: missing (run `studyguide build all`)")
            elif fmt == "pdf" and _pdf_pages(path) < 1:
                out.append(f"{path}: has no pages")
            elif fmt == "epub":
                if not zipfile.is_zipfile(path):
                    out.append(f"{path}: not an EPUB (zip) file")
                elif epubcheck:
                    programs.require("EPUB check", programs.EPUBCHECK)
                    jar = shutil.which("epubcheck") or "epubcheck"  # a jar: run through java (binfmt_misc is not always set up)
                    proc = subprocess.run(["java", "-jar", jar, "-q", str(path)], capture_output=True, text=True, check=False)
                    if proc.returncode != 0:
                        first = next((line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()), "epubcheck failed")
                        out.append(f"{path}: epubcheck: {first}")
    for sheet in sorted(layout.sheets.glob("*.pdf")):
        if _pdf_pages(sheet) != 1:
            out.append(f"{sheet}: a cheat sheet must be one page, it has {_pdf_pages(sheet)}")
    if not layout.deck.is_file():
        out.append(f"{layout.deck}: missing (run `studyguide build all`)")
    if any(q.is_exercise for q in book.questions) and not zipfile.is_zipfile(layout.practice):
        out.append(f"{layout.practice}: missing (run `studyguide build practice`)")
    store = notebook.read_store(layout.book / notebook.STORE_DIR)
    for q in book.questions:
        page = layout.html / f"{q.docname}.html"
        if not page.is_file():
            out.append(f"{page}: the site has no page for {q.id}")
        if q.id not in store or not store[q.id].provenance.get("date"):
            out.append(f"{layout.config.book_dir}/{q.path}: its outputs are not recorded (run `studyguide execute`)")
    return out
