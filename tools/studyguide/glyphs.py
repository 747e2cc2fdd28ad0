"""Characters the book's PDF fonts cannot print, found in the sources before LaTeX does (an emoji, a rare symbol).

The fonts are found with fontconfig (``fc-match``) and TeX's own search (``kpsewhich``); their character maps
are read with fontTools once and kept in the build folder, keyed by the font files and their times.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import Problem

TEX_FONT_FILES = {"TeX Gyre Termes": "texgyretermes-regular.otf", "TeX Gyre Heros": "texgyreheros-regular.otf"}


def font_file(family: str) -> Path | None:
    """The file of a font family: TeX's copy for the TeX Gyre fonts, fontconfig's match otherwise."""
    if family in TEX_FONT_FILES and shutil.which("kpsewhich"):
        found = subprocess.run(["kpsewhich", TEX_FONT_FILES[family]], capture_output=True, text=True, check=False).stdout.strip()
        if found:
            return Path(found)
    if not shutil.which("fc-match"):
        return None
    out = subprocess.run(["fc-match", "-f", "%{family}\n%{file}", family], capture_output=True, text=True, check=False).stdout.splitlines()
    return Path(out[1]) if len(out) == 2 and family.lower() in out[0].lower() else None  # no silent substitute


def _cmap(path: Path) -> set[int]:
    from fontTools.ttLib import TTFont

    font = TTFont(path, fontNumber=0, lazy=True) if path.suffix.lower() in (".ttc", ".otc") else TTFont(path, lazy=True)
    try:
        return set(font.getBestCmap() or {})
    finally:
        font.close()


def coverage(families: Iterable[str], cache: Path) -> frozenset[int] | None:
    """Every code point one of the fonts has; None when no font file could be found (nothing is checked then)."""
    files = [f for f in (font_file(name) for name in families) if f is not None and f.is_file()]
    if not files:
        return None
    key = [[str(f), f.stat().st_mtime_ns] for f in files]
    if cache.is_file():
        saved = json.loads(cache.read_text(encoding="utf-8"))
        if saved.get("fonts") == key:
            return frozenset(saved["points"])
    points = set().union(*(_cmap(f) for f in files))
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"fonts": key, "points": sorted(points)}), encoding="utf-8")
    return frozenset(points)


def missing(path: str, text: str, covered: frozenset[int], first_line: int = 1) -> list[Problem]:
    """One problem per line of ``text`` holding characters the fonts lack (printable ASCII is always there)."""
    problems = []
    for n, line in enumerate(text.splitlines(), start=first_line):
        bad = sorted({c for c in line if ord(c) > 127 and ord(c) not in covered and not c.isspace()})
        if bad:
            shown = " ".join(f"{c!r} (U+{ord(c):04X})" for c in bad)
            problems.append(Problem(path, n, "glyph", f"the book's fonts have no glyph for {shown}", "write it another way (a word, or a character the fonts have); the PDF could not print it"))
    return problems


def in_outputs(book: Any, store: Path, prefix: str, covered: frozenset[int]) -> list[Problem]:
    """Characters the fonts lack in the stored outputs, reported at the line of the cell that printed them."""
    import nbformat

    problems = []
    for q in book.questions:
        path = store / f"{q.id}.ipynb"
        if not path.is_file():
            continue
        nb = nbformat.read(path, as_version=4)
        lines = [c.line for c in book.pages[q.id].cells] if q.id in book.pages else []
        for i, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
            text = "".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for o in cell.get("outputs", []))
            for p in missing(f"{prefix}/{q.path}", text, covered):
                line = lines[i] if i < len(lines) else 1
                problems.append(Problem(p.path, line, "glyph", p.message.replace("have no glyph", f"have no glyph in the output of cell {i + 1}", 1), p.hint))
    return sorted(set(problems))
