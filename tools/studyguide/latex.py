"""xelatex through latexmk: start and finish a run, and read its log for the first error or missing glyphs."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

from .errors import BuildError

_MISSING_RE = re.compile(r"Missing character: There is no (\S+) \(U\+([0-9A-Fa-f]+)\)")  # log lines wrap
_TEX_ERROR_RE = re.compile(r"^(?:\./)?([^\s:]+\.tex):(\d+): (.*)$|^! (.*)$")
_DOC_LABEL_RE = re.compile(r"\\label\{\\detokenize\{([^{}]+?)::doc\}\}")
# latexmk: a change of LaTeX's page count alone is no reason for another pass (sphinxext/latexpasses.py says why)
LATEXMK_RC = r"$hash_calc_ignore_pattern{'aux'} = '^\\\\gdef ?\\\\@abspage@last\\{';"  # the line '\gdef \@abspage@last{1150}'
_UNDEFINED = "LaTeX Warning: There were undefined references."
LATEXMK_LOG = ".latexmk.log"  # suffix of latexmk's own report next to the .tex
RUNNING = ".running"  # suffix of the mark a run leaves until it is finished: still there, the run was killed
_STALE = {".fdb_latexmk", ".aux", ".xdv", ".pdf"}  # removed after a failed run: latexmk may otherwise claim "nothing to do"
WhereFn = Callable[[Path, int], str]  # (.tex file, line) -> "book/x.md" or ""


def tex_error(log: Path) -> tuple[str, int, str]:
    """The first error of a LaTeX log: (file, line, message); file and line are empty when the log names none."""
    if not log.is_file():
        return "", 0, "no log was written"
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        m = _TEX_ERROR_RE.match(line)
        if m:
            return (m.group(1), int(m.group(2)), m.group(3)) if m.group(1) else ("", 0, m.group(4))
    return "", 0, "see the log"


def missing_glyphs(log: Path) -> list[str]:
    """Characters the fonts lacked, as reported by XeTeX ("Missing character" lines)."""
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    return sorted({m.group(1) for m in _MISSING_RE.finditer(text)})


def start(folder: Path, stem: str, env: Mapping[str, str], base: Mapping[str, str] | None = None) -> subprocess.Popen:
    """Start latexmk (xelatex) on ``folder/stem.tex`` in a process group of its own, with ``env`` over ``base``
    (default: this process's environment); its own report (rules run, seconds) goes to ``stem.latexmk.log``."""
    cmd = ["latexmk", "-pdfxe", "-time", "-e", LATEXMK_RC, "-interaction=nonstopmode", "-halt-on-error", "-file-line-error", f"{stem}.tex"]
    mark = folder / f"{stem}{RUNNING}"
    if mark.exists():  # the last run was killed: its .aux may end inside a line, which the next xelatex cannot read
        for left in folder.glob(f"{stem}.*"):
            if left.suffix != ".tex":
                left.unlink()  # latexmk trusts the .log and .fls it finds: nothing half-written may stay
    mark.touch()
    with open(folder / f"{stem}{LATEXMK_LOG}", "wb") as out:
        return subprocess.Popen(cmd, cwd=folder, stdout=out, stderr=subprocess.STDOUT, env={**(os.environ if base is None else base), **env},
                                start_new_session=True)


def stop(proc: subprocess.Popen) -> None:
    """End a run that :func:`start` began, xelatex included, and wait for it (its ``.running`` mark stays)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
    proc.wait()


def doc_at(tex: Path, line: int) -> str:
    """The Sphinx document a line of a generated .tex file belongs to ('' when none): the last document
    label (``\\label{\\detokenize{<docname>::doc}}``, which Sphinx writes at the start of each page) above it."""
    if not tex.is_file() or line < 1:
        return ""
    lines = tex.read_text(encoding="utf-8", errors="replace").splitlines()[:line]
    for text in reversed(lines):
        found = _DOC_LABEL_RE.findall(text)
        if found:
            return found[-1]
    return ""


def finish(folder: Path, stem: str, proc: subprocess.Popen, where: WhereFn | None = None) -> Path:
    """Wait for latexmk; return the PDF, or raise ``BuildError`` with the first error (mapped to its page) or missing glyphs."""
    log = folder / f"{stem}.log"
    code = proc.wait()
    (folder / f"{stem}{RUNNING}").unlink(missing_ok=True)
    if code != 0:
        for aux in folder.glob(f"{stem}.*"):
            if aux.suffix in _STALE:
                aux.unlink()
        name, line, message = tex_error(log)
        page = where(folder / name, line) if where and name else ""
        at = f"{page}: " if page else ""
        raise BuildError(f"{at}PDF: xelatex failed: {message} (the last good PDF was kept; full log: {log})")
    glyphs = missing_glyphs(log)
    if glyphs:
        raise BuildError(f"PDF: the fonts lack {len(glyphs)} character(s): {' '.join(glyphs)} (write them differently or add a font with fallback; the last good PDF was kept; log: {log})")
    if _UNDEFINED in log.read_text(encoding="utf-8", errors="replace"):
        raise BuildError(f"PDF: LaTeX left page references undefined after its last pass (they would print another page's number; log: {log})")
    return folder / f"{stem}.pdf"

