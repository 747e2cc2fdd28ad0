"""What a page may not do: read files outside the book, run script on the site, or pass raw LaTeX (pure rules).

The same rules serve ``studyguide check`` (on the MyST tokens), the Sphinx build (a second line, on the
doctree) and the import of stored notebooks (their outputs).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import Problem

# Directives that read a file, and where they name it: the argument, or an option.
FILE_ARGUMENT = frozenset({"include", "literalinclude", "image", "figure", "bibliography"})
FILE_OPTIONS = {"csv-table": ("file",), "raw": ("file",), "code-cell": ("load",), "include": (), "table": ()}
FILE_ROLES = frozenset({"download"})
URL_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, project:, ...
_SCRIPT_RE = re.compile(r"<\s*(script|iframe|object|embed)\b|\bon[a-z]+\s*=|javascript\s*:|vbscript\s*:|data\s*:\s*text/html", re.I)
RAW_LATEX_FORMATS = frozenset({"latex", "tex"})
TRUSTED_ONLY = frozenset({"eval-rst"})  # embed reStructuredText, which no MyST rule reads


@dataclass(frozen=True)
class Allow:
    """What a book allows its authors (``[tool.studyguide] allow_raw_html / allow_raw_latex``)."""

    raw_html: bool = False
    raw_latex: bool = False


def unsafe_html(html: str) -> str:
    """The first thing in ``html`` that would run script in a reader's browser, or ''."""
    m = _SCRIPT_RE.search(html)
    return m.group(0).strip() if m else ""


def options(body: str) -> dict[str, str]:
    """The ``:key: value`` (or leading ``---`` YAML) options of a directive's body."""
    out: dict[str, str] = {}
    lines = body.splitlines()
    if lines and lines[0].strip() == "---":
        import yaml

        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), len(lines))
        try:
            data = yaml.safe_load("\n".join(lines[1:end])) or {}
        except yaml.YAMLError:
            data = {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
    for line in lines:
        m = re.match(r"^:([\w-]+):\s*(.*)$", line)
        if not m:
            break
        out[m.group(1)] = m.group(2).strip()
    return out


def candidates(page: PurePosixPath, target: str) -> list[PurePosixPath]:
    """The paths in the book a page's file reference may mean: relative to the page, or ``/x`` to the book."""
    target = target.split("#", 1)[0].strip()
    if target.startswith("path:"):
        target = target[len("path:"):]
    if target.startswith("/"):
        return [PurePosixPath(target.lstrip("/")), PurePosixPath("/" + target.lstrip("/"))]
    return [page.parent / target]


def escapes(path: PurePosixPath) -> bool:
    """True when a path in the book climbs out of it (absolute, or more ``..`` than folders)."""
    if path.is_absolute():
        return True
    depth = 0
    for part in path.parts:
        depth += -1 if part == ".." else (0 if part == "." else 1)
        if depth < 0:
            return True
    return False


def file_target(name: str, argument: str, body: str) -> list[str]:
    """The files a fenced directive reads (raw paths as written)."""
    found = [argument.split()[0]] if name in FILE_ARGUMENT and argument.split() else []
    opts = options(body)
    found += [opts[key] for key in FILE_OPTIONS.get(name, ()) if opts.get(key)]
    return found


def role_target(content: str) -> str:
    """The file a role such as ``{download}`text <path>``` names."""
    m = re.match(r"^.*<([^<>]+)>\s*$", content, re.S)
    return (m.group(1) if m else content).strip()


def is_local(target: str) -> bool:
    """True for a link or image target that names a file (not a URL, an anchor or a project link)."""
    target = target.strip()
    return bool(target) and not target.startswith("#") and (target.startswith("path:") or not URL_RE.match(target))


@dataclass(frozen=True)
class FileRef:
    """One file a page reads or publishes: where it is named, by what, and the paths it may mean."""

    line: int
    key: str
    target: str
    paths: tuple[PurePosixPath, ...]


def file_refs(outline: Any, rel: str) -> list[FileRef]:
    """Every file a page's directives, roles, links and images name (``outline``: ``page.Outline``)."""
    page = PurePosixPath(rel)
    refs = []
    for d in outline.directives:
        for target in file_target(d.name, d.argument, d.body):
            refs.append(FileRef(d.line, d.name, target, tuple(candidates(page, target))))
    for line, target in outline.code_loads:
        refs.append(FileRef(line, "code-cell", target, tuple(candidates(page, target))))
    for line, name, content in outline.roles:
        if name in FILE_ROLES:
            target = role_target(content)
            refs.append(FileRef(line, name, target, tuple(candidates(page, target))))
    for line, target in [*outline.links, *outline.images]:
        if is_local(target):
            refs.append(FileRef(line, "link", target, tuple(candidates(page, target))))
    return refs


def check(outline: Any, path: str, rel: str, allow: Allow, book_dir: str = "book") -> list[Problem]:
    """Problems of one page: files from outside the book, script in HTML, raw LaTeX, reStructuredText blocks."""
    problems = []
    inside = f"only files under {book_dir}/ may be read or linked"
    for ref in file_refs(outline, rel):
        if any(escapes(p) for p in ref.paths):
            problems.append(Problem(path, ref.line, ref.key, f"path {ref.target!r} resolves outside the book folder", inside))
    if not allow.raw_html:
        hint = "pages may hold plain HTML markup but no script, event handlers or javascript: URLs (a book may set allow_raw_html = true for trusted authors)"
        for line, html in outline.html:
            bad = unsafe_html(html)
            if bad:
                problems.append(Problem(path, line, "html", f"raw HTML runs script ({bad!r})", hint))
        for line, target in outline.links:
            if unsafe_html(target):
                problems.append(Problem(path, line, "link", f"link target {target!r} runs script", hint))
    for d in outline.directives:
        if d.name == "raw":
            formats = set(d.argument.lower().split())
            if formats & RAW_LATEX_FORMATS and not allow.raw_latex:
                hint = "raw LaTeX can read files of the build machine; write Markdown, or set allow_raw_latex = true for trusted authors"
                problems.append(Problem(path, d.line, "raw", "raw LaTeX is not allowed in question pages", hint))
            if "html" in formats and not allow.raw_html and unsafe_html(d.body):
                hint = "raw HTML may not hold script, event handlers or javascript: URLs"
                problems.append(Problem(path, d.line, "raw", f"raw HTML runs script ({unsafe_html(d.body)!r})", hint))
        if d.name in TRUSTED_ONLY and not (allow.raw_latex and allow.raw_html):
            hint = "embedded reStructuredText escapes the page rules; write MyST Markdown"
            problems.append(Problem(path, d.line, d.name, f"{{{d.name}}} is not allowed in question pages", hint))
    return problems


def outside(book_dir: Path, refs: Iterable[FileRef]) -> list[FileRef]:
    """The references whose existing file resolves outside ``book_dir`` once symlinks are followed (I/O)."""
    root = book_dir.resolve()
    bad = []
    for ref in refs:
        for p in ref.paths:
            full = Path(p) if p.is_absolute() else book_dir / p
            if (full.exists() or full.is_symlink()) and not full.resolve().is_relative_to(root):
                bad.append(ref)
                break
    return bad


def unsafe_outputs(nb: Any) -> list[tuple[int, str]]:
    """(code cell number, what) for each output of a notebook that would run script on the site."""
    found = []
    code = [c for c in nb.cells if c.cell_type == "code"]
    for n, cell in enumerate(code, start=1):
        for output in cell.get("outputs", []):
            data = output.get("data", {}) if isinstance(output, dict) else {}
            for mime, value in data.items():
                text = "".join(value) if isinstance(value, list) else str(value)
                if "javascript" in mime or mime.startswith("application/vnd.jupyter.widget"):
                    found.append((n, f"a {mime} output"))
                elif mime in ("text/html", "image/svg+xml", "text/markdown") and unsafe_html(text):
                    found.append((n, f"a {mime} output with {unsafe_html(text)!r}"))
    return found
