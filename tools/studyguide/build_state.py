"""What a `studyguide build` hands to the Sphinx extension in the same process: the book it already parsed."""

from __future__ import annotations

from .book import Book

PRELOADED: dict[str, Book] = {}  # by the resolved path of the book's source folder; emptied after each Sphinx run
