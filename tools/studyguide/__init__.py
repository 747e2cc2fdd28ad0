"""Studyguide: the machine that turns MyST question pages into a website, a PDF and an EPUB."""

__version__ = "0.1.0"
