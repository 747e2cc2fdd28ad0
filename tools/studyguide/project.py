"""A project on disk: its root, its config, and every path of its build (the one place that names them)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from . import editions, refblocks
from .config import Config, load_config


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
        """Doctrees shared by all builders (one read serves all)."""
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
    def downloads(self) -> Path:
        """The site's copies of every download."""
        return self.html / "downloads"

    def output(self, edition: editions.Edition, fmt: str) -> Path:
        """The promoted file of an edition's format."""
        return self.build / editions.file_name(self.config.basename, edition, fmt)

    @property
    def pdf(self) -> Path:
        """The book's PDF."""
        return self.output(editions.BOOK, "pdf")

    @property
    def epub(self) -> Path:
        """The book's EPUB."""
        return self.output(editions.BOOK, "epub")

    @property
    def ereader(self) -> Path:
        """The e-reader PDF."""
        return self.output(editions.EREADER, "pdf")

    @property
    def deck(self) -> Path:
        """The Anki deck."""
        return self.build / f"{self.config.basename}.apkg"

    @property
    def practice(self) -> Path:
        """The practice pack of the exercises (a zip)."""
        return self.build / f"{self.config.basename}-practice.zip"

    @property
    def sheets(self) -> Path:
        """The cheat-sheet PDFs."""
        return self.build / "cheatsheets"

    def outdir(self, builder: str, edition: str = "") -> Path:
        """Sphinx's working output folder for a builder (the site is promoted from ``html-build``)."""
        return self.build / ("html-build" if builder == "html" else f"{edition}-{builder}" if edition else builder)

    @cached_property
    def blocks(self) -> dict[str, refblocks.Block]:
        """The reference blocks of the book's plugins."""
        return refblocks.load(self.root, self.config.plugins)

    @property
    def rules(self) -> Any:
        """The page rules (``book.Rules``), with the reference blocks the plugins define."""
        import dataclasses

        return dataclasses.replace(self.config.rules, blocks=frozenset(self.blocks))

    def downloads_list(self, coming: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
        """(file name, locale key) of every download, in the order the site lists them; on-request ones once built
        (or ``coming``: being built), the practice pack once built."""
        out = []
        for key, fmt in editions.DOWNLOAD_ORDER:
            edition = editions.by_key(key)
            if edition.on_request and key not in coming and not self.output(edition, fmt).is_file():
                continue
            out.append((self.output(edition, fmt).name, dict(edition.downloads)[fmt]))
        pack = [(self.practice.name, "site.download_practice")] if self.practice.is_file() else []  # a book with exercises
        return [*out, (self.deck.name, "site.download_deck"), *pack]


def open_project(root: Path) -> Layout:
    """The project at ``root`` (its config read from ``pyproject.toml``)."""
    return Layout(root, load_config(root))
