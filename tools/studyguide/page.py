"""The shape every question page must have: one title, seven sections, code, index entries, links."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import Problem

SECTIONS: tuple[str, ...] = ("题目", "考点", "先给结论", "详解", "易错点", "追问", "关联")
# Stable HTML anchors of the seven sections (Chinese titles would otherwise get id1, id2, ...).
SECTION_IDS: dict[str, str] = {
    "题目": "question", "考点": "why-asked", "先给结论": "short-answer", "详解": "details",
    "易错点": "pitfalls", "追问": "follow-ups", "关联": "related",
}
CODE_SECTION = "详解"
SHORT_SECTION = "先给结论"  # opened on every page by the front matter's answer line, then these bullets
SHORT_MAX_BULLETS = 3
SHORT_MAX_CHARS = 60  # per bullet, as read: code identifiers count, Markdown marks do not
_ROLE_RE = re.compile(r"\{[a-z]+\}`([^`]*)`")
LINK_SECTION = "关联"
_FENCE_RE = re.compile(r"^(\s*)(`{3,}|~{3,}|:{3,})(.*)$")
_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_REF_RE = re.compile(r"\{(ref|doc|numref)\}`|\]\(#|<project:")
_CODE_SPAN_RE = re.compile(r"(`+).*?\1")
_INLINE_MATH_RE = re.compile(r"\$([^$\n]+?)\$")


@dataclass
class Outline:
    """What a scan of a page body finds, with 1-based line numbers."""

    headings: list[tuple[int, int, str]] = field(default_factory=list)  # (line, level, text)
    index_entries: int = 0
    refs_by_section: dict[str, int] = field(default_factory=dict)
    math_problems: list[tuple[int, str]] = field(default_factory=list)  # (line, char): non-ASCII inside math
    prompt_lines: list[str] = field(default_factory=list)  # the body of the 题目 section
    short_bullets: list[tuple[int, str]] = field(default_factory=list)  # (line, text) of the 先给结论 bullets
    short_prose: list[int] = field(default_factory=list)  # lines of 先给结论 that are not in a bullet

    @property
    def prompt(self) -> str:
        """The question as asked: the Markdown of the 题目 section."""
        return "\n".join(self.prompt_lines).strip()

    @property
    def title(self) -> str:
        """The text of the first level-1 heading as plain text (inline-code backticks removed), or ''."""
        return next((text.replace("`", "") for _, level, text in self.headings if level == 1), "")


def scan(text: str, first_line: int = 1) -> Outline:
    """Scan a page body (text after the front matter) for headings, cells, index entries and links."""
    out = Outline()
    fence: tuple[str, int] | None = None
    in_cell = False  # inside a code cell (its lines are read by cells.read, not here)
    in_math = False  # inside a $$ ... $$ block
    section = ""
    for n, line in enumerate(text.splitlines(), start=first_line):
        m = _FENCE_RE.match(line)
        if section == SECTIONS[0] and not _HEADING_RE.match(line):
            out.prompt_lines.append(line)
        if fence:
            if m and m.group(2)[0] == fence[0] and len(m.group(2)) >= fence[1] and not m.group(3).strip():
                fence, in_cell = None, False
            elif in_cell:
                continue
            elif "{index}" in line:
                out.index_entries += 1
            continue
        if m:
            fence = (m.group(2)[0], len(m.group(2)))
            info = m.group(3).strip()
            if info.startswith("{code-cell}"):
                in_cell = True
            elif info.startswith("{index}"):
                out.index_entries += 1
            continue
        if line.strip() == "$$":
            in_math = not in_math
            continue
        _check_math(out, n, line if in_math else " ".join(_INLINE_MATH_RE.findall(_CODE_SPAN_RE.sub("", line))))
        if in_math:
            continue
        h = _HEADING_RE.match(line)
        if h:
            level, title = len(h.group(1)), h.group(2)
            out.headings.append((n, level, title))
            if level <= 2:
                section = title if level == 2 else ""
            continue
        if section == SHORT_SECTION:
            _note_short(out, n, line)
        out.index_entries += line.count("{index}")
        refs = len(_REF_RE.findall(line))
        if refs:
            out.refs_by_section[section] = out.refs_by_section.get(section, 0) + refs
    return out


def _note_short(out: Outline, n: int, line: str) -> None:
    if line.startswith(("- ", "* ")):
        out.short_bullets.append((n, line[2:].strip()))
    elif line.strip() and line[:1].isspace() and out.short_bullets:
        last_n, text = out.short_bullets[-1]
        out.short_bullets[-1] = (last_n, f"{text}{line.strip()}")
    elif line.strip():
        out.short_prose.append(n)


def plain_length(markdown: str) -> int:
    """Characters a reader sees in one line of Markdown: roles and code marks dropped, code kept."""
    return len(_ROLE_RE.sub(r"\1", markdown).replace("`", "").replace("**", ""))


def _check_short(outline: Outline, path: str) -> list[Problem]:
    problems = []
    hint = f"at most {SHORT_MAX_BULLETS} bullets of at most {SHORT_MAX_CHARS} characters; move nuance into 详解; the answer line comes from the front matter"
    for line in outline.short_prose[:1]:
        problems.append(Problem(path, line, SHORT_SECTION, "text outside the bullets", hint))
    for line, _ in outline.short_bullets[SHORT_MAX_BULLETS:SHORT_MAX_BULLETS + 1]:
        problems.append(Problem(path, line, SHORT_SECTION, f"{len(outline.short_bullets)} bullets", hint))
    for line, text in outline.short_bullets:
        if plain_length(text) > SHORT_MAX_CHARS:
            problems.append(Problem(path, line, SHORT_SECTION, f"bullet is {plain_length(text)} characters long", hint))
    return problems


def _check_math(out: Outline, line_no: int, math: str) -> None:
    bad = next((c for c in math if ord(c) > 127), None)
    if bad:
        out.math_problems.append((line_no, bad))


def section_of(outline: Outline, line: int) -> str:
    """The ``##`` section that holds a page line ('' before the first one)."""
    found = ""
    for n, level, text in outline.headings:
        if n > line:
            break
        if level <= 2:
            found = text if level == 2 else ""
    return found


def check(outline: Outline, path: str, body_line: int, cell_lines: list[int]) -> list[Problem]:
    """Check the outline, and where the code cells (as myst-nb reads them) sit, against the page shape."""
    problems: list[Problem] = []
    top = [h for h in outline.headings if h[1] == 1]
    if len(top) != 1:
        line = top[1][0] if len(top) > 1 else body_line
        problems.append(Problem(path, line, "title", f"found {len(top)} level-1 headings", "write exactly one '# 标题'"))
    found = [(line, text) for line, level, text in outline.headings if level == 2]
    names = [text for _, text in found]
    if names != list(SECTIONS):
        missing = [s for s in SECTIONS if s not in names]
        extra = [s for s in names if s not in SECTIONS]
        if missing:
            msg = "missing section(s) " + ", ".join(f"'## {s}'" for s in missing)
        elif extra:
            msg = "unexpected section(s) " + ", ".join(f"'## {s}'" for s in extra)
        else:
            msg = "sections are out of order"
        line = found[0][0] if found else body_line
        problems.append(Problem(path, line, "sections", msg, "use, in order: " + " / ".join(SECTIONS)))
    if not any(section_of(outline, line) == CODE_SECTION for line in cell_lines):
        line = next((n for n, t in found if t == CODE_SECTION), body_line)
        problems.append(Problem(path, line, CODE_SECTION, "no executed code cell", "add a ```{code-cell} python block that shows the claim"))
    problems += _check_short(outline, path)
    if outline.index_entries == 0:
        problems.append(Problem(path, body_line, "index", "no {index} entries", "add e.g. {index}`torch.Tensor.view` for the APIs discussed"))
    for line, char in outline.math_problems:
        hint = "formulas are typeset by LaTeX without CJK fonts: move Chinese text and full-width punctuation out of $...$"
        problems.append(Problem(path, line, "math", f"non-ASCII character {char!r} inside math", hint))
    if not outline.refs_by_section.get(LINK_SECTION):
        line = next((n for n, t in found if t == LINK_SECTION), body_line)
        problems.append(Problem(path, line, LINK_SECTION, "no cross-reference", "link related questions with {ref}`question-id`"))
    return problems
