"""Formulas that LaTeX cannot typeset, found at ``check`` time with the page and line (the site renders every
formula with LaTeX, and a typo would otherwise stop the build with no page named).

The new formulas go into one LaTeX run with the preamble Sphinx's imgmath uses; when it fails, the batch is
halved until each failing formula stands alone. Formulas that compiled once are remembered in the build folder.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from .errors import Problem

PREAMBLE = "\\documentclass[12pt]{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage{amsmath,amsthm,amssymb,amsfonts,bm}\n\\pagestyle{empty}\n"
Formula = tuple[str, int, str, bool]  # (page, line, TeX, display)


def _digest(tex: str, display: bool) -> str:
    return hashlib.sha256(f"{display}:{tex}".encode()).hexdigest()[:20]


def _compile(formulas: list[Formula]) -> str:
    """'' when LaTeX typesets all the formulas, else its first error message."""
    body = "\n".join((f"\\[{f[2]}\\]" if f[3] else f"${f[2]}$") + "\\par" for f in formulas)
    with tempfile.TemporaryDirectory(prefix="studyguide-math-") as tmp:
        (Path(tmp) / "math.tex").write_text(PREAMBLE + "\\begin{document}\n" + body + "\n\\end{document}\n", encoding="utf-8")
        proc = subprocess.run(["latex", "-interaction=batchmode", "-halt-on-error", "math.tex"], cwd=tmp, capture_output=True, text=True, check=False)
        log = (Path(tmp) / "math.log").read_text(encoding="utf-8", errors="replace") if (Path(tmp) / "math.log").is_file() else ""
    if proc.returncode == 0:
        return ""
    m = re.search(r"^! (.*)$", log, re.M)
    return m.group(1).strip() if m else "latex failed"


def _failing(formulas: list[Formula]) -> dict[Formula, str]:
    """The formulas that fail, each with LaTeX's message, by halving the batch."""
    why = _compile(formulas)
    if not why:
        return {}
    if len(formulas) == 1:
        return {formulas[0]: why}
    half = len(formulas) // 2
    return {**_failing(formulas[:half]), **_failing(formulas[half:])}


def problems(formulas: list[Formula], cache: Path) -> list[Problem]:
    """One problem per formula that LaTeX rejects; an empty list when ``latex`` is not installed (the build says so)."""
    good = set(json.loads(cache.read_text(encoding="utf-8"))) if cache.is_file() else set()
    todo = list(dict.fromkeys(f for f in formulas if _digest(f[2], f[3]) not in good))
    if not todo or not shutil.which("latex"):
        return []
    bad = _failing(todo)
    good |= {_digest(f[2], f[3]) for f in todo if f not in bad}
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(sorted(good)), encoding="utf-8")
    return [Problem(page, line, "math", f"LaTeX cannot typeset ${tex}$: {why}", "fix the formula (LaTeX renders every formula, for the site, the EPUB and the PDF)")
            for (page, line, tex, _), why in sorted(bad.items())]
