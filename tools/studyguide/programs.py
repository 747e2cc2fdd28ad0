"""Find the external programs and fonts the build needs, or say which Debian packages provide them."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

from .errors import ToolMissingError


@dataclass(frozen=True)
class Requirement:
    """A program (or font) one output format needs, and the Debian package that provides it."""

    name: str
    package: str
    kind: str = "program"  # or "font"


PDF = (
    Requirement("xelatex", "texlive-xetex"),
    Requirement("latexmk", "latexmk"),
    Requirement("makeindex", "texlive-binaries"),
    Requirement("kpsewhich", "texlive-binaries"),
    Requirement("Noto Serif CJK SC", "fonts-noto-cjk", "font"),
    Requirement("Noto Sans CJK SC", "fonts-noto-cjk", "font"),
    Requirement("Noto Sans Mono CJK SC", "fonts-noto-cjk", "font"),
)
SHEETS = (Requirement("Noto Sans CJK SC", "fonts-noto-cjk", "font"), Requirement("Noto Sans Mono CJK SC", "fonts-noto-cjk", "font"))
MATH = (Requirement("latex", "texlive-latex-base"), Requirement("dvisvgm", "dvisvgm"))
TEX_FILES = (("ctex.sty", "texlive-lang-chinese"), ("pzdr.tfm", "texlive-fonts-recommended"), ("tabulary.sty", "texlive-latex-extra"))
EPUBCHECK = (Requirement("epubcheck", "epubcheck"), Requirement("java", "default-jre-headless"))
PDF_TOOLS = (Requirement("pdffonts", "poppler-utils"), Requirement("pdftotext", "poppler-utils"))
READERS = (Requirement("ebook-convert", "calibre"), Requirement("chromium", "chromium"))  # the e-reader tests


def _has_font(family: str) -> bool:
    if not shutil.which("fc-list"):
        return False
    out = subprocess.run(["fc-list", family, "family"], capture_output=True, text=True, check=False).stdout
    return any(family in line for line in out.splitlines())


def _has_tex_file(name: str) -> bool:
    if not shutil.which("kpsewhich"):
        return False
    return bool(subprocess.run(["kpsewhich", name], capture_output=True, text=True, check=False).stdout.strip())


def missing(requirements: tuple[Requirement, ...], tex_files: tuple[tuple[str, str], ...] = ()) -> list[Requirement]:
    """The requirements that are not installed."""
    out = [r for r in requirements if not (_has_font(r.name) if r.kind == "font" else shutil.which(r.name))]
    out += [Requirement(name, package, "TeX file") for name, package in tex_files if not _has_tex_file(name)]
    return out


def require(what: str, requirements: tuple[Requirement, ...], tex_files: tuple[tuple[str, str], ...] = ()) -> None:
    """Raise a one-line ``ToolMissingError`` naming what is missing and the command that installs it."""
    gone = missing(requirements, tex_files)
    if gone:
        names = ", ".join(f"{r.kind} '{r.name}'" for r in gone)
        packages = " ".join(sorted({r.package for r in gone}))
        raise ToolMissingError(f"{what}: missing {names} (install with: sudo apt-get install -y {packages}, or run `make deps`)")
