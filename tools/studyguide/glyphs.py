"""Characters the book's PDF cannot print (an emoji, a rare symbol), found in the sources before the book's LaTeX run.

Which font prints a character is xeCJK's choice (its character classes), not the union of the fonts' maps: a
symbol such as U+2194 goes to TeX Gyre Termes even though Noto CJK has it. So the characters the book uses are
typeset once, in every family the PDF sets text in, with the PDF's own font set-up (``font_preamble``), and
XeTeX's "Missing character" lines are read. Results are kept in the build folder, keyed by that set-up.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from .errors import Problem

LATIN_FONTS = r"""
% Latin text in TeX Gyre / DejaVu: Noto CJK maps '-' to U+2011 in the PDF text layer, which breaks
% search and code copied out of the PDF. A symbol these fonts lack is reported by `check` (glyphs.py).
\setmainfont{TeX Gyre Termes}
\setsansfont{TeX Gyre Heros}
\setmonofont{DejaVu Sans Mono}[Scale=0.9, HyphenChar=None]  % code is never hyphenated (opti-mizer)
"""
MIDDOT_LATIN = r'\xeCJKDeclareCharClass{Default}{"00B7}'  # also after \xeCJKVerbAddon in code blocks (conf.py)
CJK_FONTS = r"""
\usepackage[UTF8,heading=true,fontset=none,zihao=false]{ctex}
\setCJKmainfont{Noto Serif CJK SC}[BoldFont={Noto Serif CJK SC Bold}]
\setCJKsansfont{Noto Sans CJK SC}[BoldFont={Noto Sans CJK SC Bold}]
\setCJKmonofont{Noto Sans Mono CJK SC}
% '·' in the Latin font: as CJK punctuation it loses the space on its CJK side, and Noto CJK's glyph reads
% U+30FB in the PDF text layer, so a search for '·' misses it
""" + MIDDOT_LATIN + "\n"
FAMILIES = {"text": (r"\rmfamily", r"\rmfamily\bfseries", r"\sffamily", r"\sffamily\bfseries"), "code": (r"\ttfamily",)}
Piece = tuple[int, str, str]  # (1-based line, "text" or "code", what the PDF sets there)


def font_preamble(chinese: bool) -> str:
    """The PDF's font set-up (the ``fontpkg`` of conf.py): ctex and Noto CJK for a Chinese book, then the Latin fonts."""
    return (CJK_FONTS if chinese else "\\usepackage{fontspec}\n") + LATIN_FONTS


def _typeset_missing(chars: dict[str, list[str]], preamble: str) -> dict[str, set[str]]:
    """Per kind, the characters XeTeX reports missing when it sets them in every family of that kind."""
    from .latex import missing_glyphs

    found: dict[str, set[str]] = {}
    for kind, todo in chars.items():
        if not todo:
            continue
        body = "\n".join(f"{{{family} {' '.join(todo)}}}\\par" for family in FAMILIES[kind])
        with tempfile.TemporaryDirectory(prefix="studyguide-glyphs-") as tmp:
            tex = Path(tmp) / "glyphs.tex"
            tex.write_text("\\documentclass{article}\n" + preamble + "\\begin{document}\n" + body + "\n\\end{document}\n", encoding="utf-8")
            subprocess.run(["xelatex", "-interaction=batchmode", "-no-pdf", "glyphs.tex"], cwd=tmp, capture_output=True, check=False)
            found[kind] = set(missing_glyphs(Path(tmp) / "glyphs.log"))
    return found


def lacking(chars: dict[str, set[str]], preamble: str, cache: Path) -> dict[str, frozenset[int]] | None:
    """Per kind (text, code), the code points the PDF cannot print; None when xelatex is missing (the build says so)."""
    key = hashlib.sha256(preamble.encode()).hexdigest()[:16]
    saved = json.loads(cache.read_text(encoding="utf-8")) if cache.is_file() else {}
    known = saved.get(key, {})
    todo = {}
    for kind in FAMILIES:
        k = known.setdefault(kind, {"ok": [], "bad": []})
        seen = set(k["ok"]) | set(k["bad"])
        todo[kind] = sorted({c for c in chars.get(kind, ()) if ord(c) > 127 and not c.isspace() and ord(c) not in seen})
    if any(todo.values()):
        if not shutil.which("xelatex"):
            return None
        for kind, bad in _typeset_missing(todo, preamble).items():
            k = known[kind]
            k["ok"] = sorted(set(k["ok"]) | {ord(c) for c in todo[kind] if c not in bad})
            k["bad"] = sorted(set(k["bad"]) | {ord(c) for c in bad})
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps({key: known}), encoding="utf-8")
    return {kind: frozenset(known[kind]["bad"]) for kind in FAMILIES}


def missing(path: str, found: list[Piece], bad: dict[str, frozenset[int]]) -> list[Problem]:
    """One problem per line whose pieces hold characters the PDF cannot print (``bad``, from ``lacking``)."""
    by_line: dict[int, set[str]] = {}
    for line, kind, text in found:
        by_line.setdefault(line, set()).update(c for c in text if ord(c) in bad[kind])
    problems = []
    for line, chars in sorted(by_line.items()):
        if chars:
            shown = " ".join(f"{c!r} (U+{ord(c):04X})" for c in sorted(chars))
            problems.append(Problem(path, line, "glyph", f"the PDF's fonts cannot print {shown}", "write it another way (a word, or a character the fonts have)"))
    return problems


def output_text(cell: Any) -> str:
    """The text a stored code cell printed."""
    return "".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for o in cell.get("outputs", []))


def problems(book: Any, prefix: str, stored: dict[str, Any], preamble: str, cache: Path) -> list[Problem]:
    """Every line of a page, or of a cell's stored output (at the cell's line), holding a character the PDF cannot print."""
    found: dict[str, list[Piece]] = {}
    for q in book.questions:
        parsed = book.pages[q.id]
        found[q.id] = list(parsed.outline.pieces)
        if q.id in stored:
            lines = [c.line for c in parsed.cells]
            code = [c for c in stored[q.id].cells if c.cell_type == "code"]
            found[q.id] += [(lines[i] if i < len(lines) else 1, "code", output_text(c)) for i, c in enumerate(code)]
    chars: dict[str, set[str]] = {kind: set() for kind in FAMILIES}
    for piece_list in found.values():
        for _, kind, text in piece_list:
            chars[kind].update(text)
    bad = lacking(chars, preamble, cache)
    if bad is None or not any(bad.values()):
        return []
    return sorted({p for q in book.questions for p in missing(f"{prefix}/{q.path}", found[q.id], bad)})
