"""The edition: from a release tag on HEAD (``v2026.12`` → ``2026.12``), else from ``[tool.studyguide] edition``."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

TAG_RE = re.compile(r"v(\d+(?:\.\d+)+)")  # release tags: v2026.12, v2026.12.1


def git(root: Path, *args: str) -> str | None:
    """Stdout of ``git -C root ARGS``; None when ``root`` is not the top of a git work tree, git is missing or fails."""
    if not (root / ".git").exists():  # only the project's own repository, never one that merely contains it
        return None
    try:
        proc = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
    except OSError:
        return None
    return proc.stdout if proc.returncode == 0 else None


def of_tag(tag: str) -> str | None:
    """The edition a release tag names (``v2026.12`` → ``2026.12``); None for other tags."""
    m = TAG_RE.fullmatch(tag)
    return m.group(1) if m else None


def _newest(tags: list[str]) -> str | None:
    """The release tag with the highest edition number among ``tags``."""
    numbers = {t: tuple(int(n) for n in e.split(".")) for t in tags if (e := of_tag(t))}
    return max(numbers, key=lambda t: numbers[t], default=None)


def tagged(root: Path) -> str | None:
    """The edition of the release tag on HEAD (the newest, when several); None without one."""
    out = git(root, "tag", "--points-at", "HEAD")
    tag = _newest(out.split()) if out else None
    return of_tag(tag) if tag else None


def previous_tag(root: Path, edition: str) -> str | None:
    """The newest release tag in HEAD's history that names another edition than ``edition``."""
    out = git(root, "tag", "--merged", "HEAD")
    return _newest([t for t in out.split() if of_tag(t) != edition]) if out else None


def show_files(root: Path, tag: str, folder: str) -> dict[str, str] | None:
    """Text of every file under ``folder`` at ``tag`` (one ``git cat-file --batch``); None without git."""
    names = git(root, "ls-tree", "-r", "--name-only", tag, "--", folder)
    if names is None:
        return None
    paths = [n for n in names.splitlines() if n]
    proc = subprocess.run(["git", "-C", str(root), "cat-file", "--batch"], input="".join(f"{tag}:{p}\n" for p in paths).encode(),
                          capture_output=True, check=True)
    out, data, pos = {}, proc.stdout, 0
    for path in paths:
        end = data.index(b"\n", pos)
        header = data[pos:end].split()
        size = int(header[2])
        out[path] = data[end + 1:end + 1 + size].decode("utf-8", errors="replace")
        pos = end + 1 + size + 1
    return out


def latex_footer(text: str) -> str:
    """LaTeX preamble that prints ``text`` (the edition) once per page, before the page number in the footer.

    Sphinx's own ``normal`` and ``plain`` styles (one-sided), with the edition in the footer; the header holds the
    title alone, and the cover prints the edition once (its date line), not also Sphinx's release line.
    """
    foot = rf"\fancyfoot[R]{{{{\py@HeaderFamily {text}\quad\thepage}}}}"
    return "\n".join([
        r"\makeatletter",
        r"\fancypagestyle{normal}{\fancyhf{}" + foot + r"\fancyfoot[L]{{\py@HeaderFamily\nouppercase{\rightmark}}}"
        r"\fancyhead[R]{{\py@HeaderFamily \@title}}"
        r"\renewcommand{\headrulewidth}{0.4pt}\renewcommand{\footrulewidth}{0.4pt}}",
        r"\fancypagestyle{plain}{\fancyhf{}" + foot + r"\renewcommand{\headrulewidth}{0pt}\renewcommand{\footrulewidth}{0.4pt}}",
        r"\AtBeginDocument{\def\py@release{}}",
        r"\makeatother", "",
    ])
