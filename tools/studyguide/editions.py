"""One registry of what a build makes: the editions of the book and the other downloads (pure data).

It drives Sphinx's LaTeX documents and EPUB builds, the file names, the downloads on every page of the
site, the promotion of last-good files and the CLI help. A new edition adds an entry here, its own
transform and its tests.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edition:
    """One edition of the book, built by Sphinx from the shared doctrees."""

    key: str  # also the value of Sphinx's ``studyguide_edition`` (EPUB) / ``studyguide_latex`` (on-request PDF)
    suffix: str  # of the file stem: <basename><suffix>.pdf
    root_doc: str  # the document its LaTeX (and EPUB) starts from
    title: str  # locale key of its title ('' for the book's own title)
    formats: tuple[str, ...]  # "pdf", "epub"
    downloads: tuple[tuple[str, str], ...]  # (format, locale key of the download link)
    on_request: bool = False  # built only when asked for by name (a LaTeX run of its own)


BOOK = Edition("book", "", "index", "", ("pdf", "epub"), (("pdf", "site.download_pdf"), ("epub", "site.download_epub")))
SELFTEST = Edition("selftest", "-selftest", "selftest/index", "selftest.title", ("pdf",), (("pdf", "site.download_selftest"),))
QUICK = Edition("quickreview", "-quickreview", "quickreview/index", "quick.title", ("pdf", "epub"),
                (("pdf", "site.download_quick_pdf"), ("epub", "site.download_quick_epub")))
EREADER = Edition("ereader", "-ereader", "index", "", ("pdf",), (("pdf", "site.download_ereader"),), on_request=True)
EDITIONS: tuple[Edition, ...] = (BOOK, SELFTEST, QUICK, EREADER)
DOWNLOAD_ORDER = (("book", "pdf"), ("selftest", "pdf"), ("quickreview", "pdf"), ("ereader", "pdf"), ("book", "epub"), ("quickreview", "epub"))

# Formats `studyguide build` knows, in build order (sheets, deck and practice pack first: the site links them);
# ``DEFAULT_FORMATS`` is what a plain build makes (on-request editions are left out).
FORMATS = ("sheets", "deck", "practice", "ereader", "html", "epub", "pdf")
DEFAULT_FORMATS = tuple(f for f in FORMATS if f != EREADER.key)
FORMAT_HELP = {
    "sheets": "one-page cheat sheets (Typst)", "deck": "the Anki deck", "practice": "the 手撕代码 practice pack (zip of stubs and tests)", "ereader": "the 6-inch PDF (on request)",
    "html": "the website", "epub": "the EPUBs of the book and the quick review", "pdf": "the A4 PDFs: book, self-test, quick review",
}


def by_key(key: str) -> Edition:
    """The edition with this key."""
    return next(e for e in EDITIONS if e.key == key)


def latex_editions() -> tuple[Edition, ...]:
    """The PDF editions of a plain LaTeX run (the on-request ones get a run of their own)."""
    return tuple(e for e in EDITIONS if "pdf" in e.formats and not e.on_request)


def epub_editions() -> tuple[Edition, ...]:
    """The EPUB editions, each a run of Sphinx's EPUB builder."""
    return tuple(e for e in EDITIONS if "epub" in e.formats)


def file_name(basename: str, edition: Edition, fmt: str) -> str:
    """The file an edition's format is written to, e.g. ``pytorch-interview-guide-selftest.pdf``."""
    return f"{basename}{edition.suffix}.{fmt}"
