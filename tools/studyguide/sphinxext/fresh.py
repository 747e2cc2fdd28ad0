"""Builders that share one doctree folder: rewrite a page when another builder re-read it.

HTML, EPUB and LaTeX share ``_build/doctrees`` so the book is read once. Sphinx's HTML-family builders
decide what to write by comparing the *source* file with the output, so a page re-read by another
builder (its stored outputs changed, or an extension changed) would keep a stale output. This mixin also
compares the time the page was read with the output.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from sphinx.application import Sphinx
from sphinx.builders.html import StandaloneHTMLBuilder


def modified_us(path: str) -> int:
    """A file's modification time in integer microseconds, the unit of Sphinx's ``env.all_docs`` read times."""
    return os.stat(path).st_mtime_ns // 1_000


class FreshFromDoctrees:
    """Mixin for HTML-family builders: a page read after its output was written is outdated too."""

    def get_outdated_docs(self) -> Iterator[str]:  # type: ignore[override]
        """Sphinx's outdated pages, then pages whose doctree is newer than their output."""
        seen = set()
        for docname in super().get_outdated_docs():  # type: ignore[misc]
            seen.add(docname)
            yield docname
        for docname in sorted(self.env.found_docs - seen):  # type: ignore[attr-defined]
            read_at = self.env.all_docs.get(docname)  # type: ignore[attr-defined]
            try:
                written_at = modified_us(self.get_output_path(docname))  # type: ignore[attr-defined]
            except OSError:
                continue
            if read_at and read_at > written_at:
                yield docname


class StudyguideHTMLBuilder(FreshFromDoctrees, StandaloneHTMLBuilder):
    """The website builder."""

    name = "html"


def setup(app: Sphinx) -> None:
    """Replace the html builder (the EPUB builder in epub.py uses the same mixin)."""
    app.add_builder(StudyguideHTMLBuilder, override=True)
