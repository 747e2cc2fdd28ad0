"""The shape every question page must have, read from the MyST parser's own tokens.

One title, seven sections, code, index entries, links; every bullet of 先给结论 and 易错点 cites the cell that
proves it (``{proof}`label```, the cell carrying ``:label: label``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .errors import Problem

# The seven sections of a question page by stable key (also their HTML anchors); titles come from the locale.
SECTION_KEYS: tuple[str, ...] = ("question", "why-asked", "short-answer", "details", "pitfalls", "follow-ups", "related")
QUESTION, SHORT, DETAILS, PITFALLS, RELATED = "question", "short-answer", "details", "pitfalls", "related"
# The seven sections of an exercise page (``kind: exercise``): the reference solution runs before its tests.
EXERCISE_KEYS: tuple[str, ...] = ("question", "why-asked", "solution", "tests", "pitfalls", "follow-ups", "related")
SOLUTION, TESTS = "solution", "tests"
PROOF_SECTIONS = (SHORT, PITFALLS)  # each bullet here cites the cell that proves it
PROOF_ROLE = "proof"
PLOT_ALT = "plot-alt"  # the directive right after a code cell: one sentence saying what its plot shows
SHORT_MAX_BULLETS = 3
SHORT_MAX_CHARS = 60  # per bullet, as read: code identifiers count, Markdown marks and proof marks do not


@dataclass(frozen=True)
class Shape:
    """The section titles of a book's question pages, by key, and the length of a short-answer bullet (from its locale)."""

    titles: tuple[tuple[str, str], ...]  # (key, title) in page order
    bullet_max_chars: int = SHORT_MAX_CHARS
    code_section: str = DETAILS  # the section that must hold an executed code cell (and the cheat-sheet cell)
    answer_section: str = SHORT  # the section the front matter's answer line opens

    @property
    def names(self) -> tuple[str, ...]:
        """The titles in page order."""
        return tuple(title for _, title in self.titles)

    def title(self, key: str) -> str:
        """The title of a section."""
        return dict(self.titles)[key]

    def key(self, title: str) -> str:
        """The key of a section title ('' for a title that is not one of the seven)."""
        return next((k for k, t in self.titles if t == title), "")


ZH_SHAPE = Shape(tuple(zip(SECTION_KEYS, ("题目", "考点", "先给结论", "详解", "易错点", "追问", "关联"), strict=True)))
ZH_EXERCISE_SHAPE = Shape(tuple(zip(EXERCISE_KEYS, ("题目", "考点", "参考实现", "测试", "易错点", "追问", "关联"), strict=True)),
                          code_section=SOLUTION, answer_section=SOLUTION)
REF_ROLES = frozenset({"ref", "doc", "numref"})
_ROLE_RE = re.compile(r"\{([a-z-]+)\}`([^`]*)`")
_DUNDER_RE = re.compile(r"__[A-Za-z0-9]\w*__")


@dataclass(frozen=True)
class Bullet:
    """One top-level bullet of a section: its first line, its Markdown and the proofs it cites."""

    line: int
    section: str
    markdown: str
    proofs: tuple[str, ...]


@dataclass(frozen=True)
class Directive:
    """A fenced directive (``{name} argument`` plus its body), with its opening line."""

    line: int
    name: str
    argument: str
    body: str


@dataclass
class Outline:
    """What the MyST tokens of a page hold, with 1-based page line numbers."""

    headings: list[tuple[int, int, str]] = field(default_factory=list)  # (line, level, plain text)
    index_entries: int = 0
    refs_by_section: dict[str, int] = field(default_factory=dict)
    math_problems: list[tuple[int, str]] = field(default_factory=list)  # (line, char): non-ASCII inside math
    prompt: str = ""  # the Markdown of the 题目 section
    prompt_prose: str = ""  # the same without its code cells (an exercise's stub is printed from the cell itself)
    bullets: list[Bullet] = field(default_factory=list)  # top-level bullets of the PROOF_SECTIONS
    short_prose: list[int] = field(default_factory=list)  # lines of 先给结论 that are not in a bullet
    dunders: list[tuple[int, str]] = field(default_factory=list)  # (line, name) written outside a code span
    directives: list[Directive] = field(default_factory=list)  # every fenced directive but code cells
    html: list[tuple[int, str]] = field(default_factory=list)  # (line, raw HTML) blocks and inline tags
    links: list[tuple[int, str]] = field(default_factory=list)  # (line, target) of Markdown links
    images: list[tuple[int, str]] = field(default_factory=list)  # (line, source) of Markdown images
    code_loads: list[tuple[int, str]] = field(default_factory=list)  # (line, file) of code cells with :load:
    formulas: list[tuple[int, str, bool]] = field(default_factory=list)  # (line, TeX, display) of every formula
    roles: list[tuple[int, str, str]] = field(default_factory=list)  # (line, role name, content)
    code_cells: int = 0  # code-cell fences, in page order
    plot_alts: list[tuple[int, int | None, str]] = field(default_factory=list)  # (line, index of the code cell it follows or None, text)
    pieces: list[tuple[int, str, str]] = field(default_factory=list)  # (line, "text" or "code", what the PDF sets there)

    @property
    def title(self) -> str:
        """The text of the first level-1 heading as plain text, or ''."""
        return next((text for _, level, text in self.headings if level == 1), "")

    @property
    def short_bullets(self) -> list[Bullet]:
        """The bullets of 先给结论."""
        return [b for b in self.bullets if b.section == SHORT]


@cache
def _parser() -> Any:
    """The MyST Markdown parser with the book's syntax extensions (the one Sphinx uses)."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    from .notebook import MYST_EXTENSIONS

    return create_md_parser(MdParserConfig(enable_extensions=set(MYST_EXTENSIONS)), RendererHTML)


def tokens(text: str) -> list[Any]:
    """The MyST block tokens of a page (front matter included; ``map`` lines are 0-based)."""
    return _parser().parse(text)


def _plain(inline: Any) -> str:
    """What a reader sees of an inline token: code and role texts kept, marks and proof marks dropped."""
    out = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline", "math_inline"):
            out.append(child.content)
        elif child.type == "myst_role" and child.meta.get("name") != PROOF_ROLE:
            out.append(_role_text(child.content))
        elif child.type == "softbreak":
            out.append("")
    return "".join(out)


def _role_text(content: str) -> str:
    """The shown text of a role's content: ``title <target>`` shows ``title``."""
    m = re.match(r"^(.*?)\s*<[^<>]+>$", content, re.S)
    return m.group(1) if m and m.group(1) else content


def plain_length(markdown: str) -> int:
    """Characters a reader sees in one line of Markdown: roles and code marks dropped, code kept."""
    def shown(m: re.Match[str]) -> str:
        return "" if m.group(1) == PROOF_ROLE else _role_text(m.group(2))

    return len(_ROLE_RE.sub(shown, markdown).replace("`", "").replace("**", "").strip())


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>$|~])")


def escape_markdown(text: str) -> str:
    """Plain text (an ``answer``) made safe to place inside generated Markdown: marks are escaped."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def _dunders(inline: Any) -> list[str]:
    """Dunder names outside code spans: turned into bold by ``__x__``, or left as plain text."""
    found = []
    children = inline.children or []
    for i, child in enumerate(children):
        if child.type == "text":
            found += _DUNDER_RE.findall(child.content)
        if child.type == "strong_open" and child.markup == "__" and i + 2 < len(children):
            inner, close = children[i + 1], children[i + 2]
            if inner.type == "text" and close.type == "strong_close" and re.fullmatch(r"\w+", inner.content):
                found.append(f"__{inner.content}__")
    return found


def _scan_inline(out: Outline, inline: Any, line: int, section: str) -> None:
    for child in inline.children or []:
        if child.type == "myst_role":
            name = child.meta.get("name", "")
            out.roles.append((line, name, child.content))
            if name == "index":
                out.index_entries += 1
            if name in REF_ROLES:
                out.refs_by_section[section] = out.refs_by_section.get(section, 0) + 1
        elif child.type == "math_inline":
            _check_math(out, line, child.content)
            out.formulas.append((line, child.content, False))
        elif child.type == "html_inline":
            out.html.append((line, child.content))
        elif child.type == "image":
            out.images.append((line, str(child.attrs.get("src", ""))))
        elif child.type == "link_open":
            href = str(child.attrs.get("href", ""))
            out.links.append((line, href))
            if href.startswith("#") or href.startswith("project:"):
                out.refs_by_section[section] = out.refs_by_section.get(section, 0) + 1
    for name in _dunders(inline):
        out.dunders.append((line, name))


def parse(text: str, shape: Shape = ZH_SHAPE) -> Outline:
    """Read a whole page (front matter included) into its outline, from the MyST tokens; sections by key."""
    out = Outline()
    lines = text.splitlines()
    toks = tokens(text)
    section, depth, item_start = "", 0, -1
    prompt_from: int | None = None
    prompt_to = len(lines)
    prompt_cells: set[int] = set()  # 0-based lines of the code cells in 题目
    for i, tok in enumerate(toks):
        line = tok.map[0] + 1 if tok.map else 0
        if tok.type == "heading_open":
            inline = toks[i + 1]
            level = int(tok.tag[1])
            out.headings.append((line, level, _plain(inline)))
            if level <= 2:
                if prompt_from is not None and not out.prompt:
                    out.prompt = "\n".join(lines[prompt_from : line - 1]).strip()
                    prompt_to = line - 1
                section = (shape.key(_plain(inline)) or f"?{_plain(inline)}") if level == 2 else ""
                prompt_from = line if section == QUESTION else prompt_from
            _scan_inline(out, inline, line, section)
            continue
        if tok.type == "inline":
            if toks[i - 1].type != "heading_open":
                _scan_inline(out, tok, line or _last_line(toks, i), section)
            continue
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        if tok.type == "list_item_open" and depth == 1 and section in PROOF_SECTIONS:
            item_start = i
        if tok.type == "list_item_close" and depth == 1 and item_start >= 0:
            out.bullets.append(_bullet(toks[item_start:i], section))
            item_start = -1
        if section == SHORT and depth == 0 and tok.map and tok.type not in ("bullet_list_open",) and tok.level == 0:
            out.short_prose.append(line)
        if tok.type == "fence":
            _scan_fence(out, tok, line)
            if _fence_name(tok) == PLOT_ALT:
                after = i > 0 and toks[i - 1].type == "fence" and _fence_name(toks[i - 1]) == "code-cell"
                out.plot_alts.append((line, out.code_cells - 1 if after else None, " ".join(tok.content.split())))
            elif _fence_name(tok) == "code-cell":
                out.code_cells += 1
                if section == QUESTION:
                    prompt_cells.update(range(tok.map[0], tok.map[1]))
        elif tok.type in ("math_block", "math_block_label"):
            out.formulas.append((line, tok.content, True))
            for n, math_line in enumerate(tok.content.splitlines()):
                _check_math(out, line + n + 1, math_line)
        elif tok.type == "html_block":
            out.html.append((line, tok.content))
    if prompt_from is not None and not out.prompt:
        out.prompt = "\n".join(lines[prompt_from:]).strip()
    if prompt_from is not None:
        kept = [text for n, text in enumerate(lines[prompt_from:prompt_to], prompt_from) if n not in prompt_cells]
        out.prompt_prose = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
    out.pieces = _pieces(toks)
    return out


def _pieces(toks: list[Any]) -> list[tuple[int, str, str]]:
    """The page's text by line, as prose or code (fences and inline code); math is left to mathcheck."""
    out: list[tuple[int, str, str]] = []
    for tok in toks:
        if tok.map is None:
            continue
        if tok.type in ("fence", "code_block", "front_matter"):
            kind = "text" if tok.type == "front_matter" else "code"
            out += [(tok.map[0] + 2 + i, kind, line) for i, line in enumerate(tok.content.splitlines())]
        elif tok.type == "inline":
            line = tok.map[0] + 1
            for child in tok.children or []:
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                elif child.type != "math_inline":
                    out.append((line, "code" if child.type == "code_inline" else "text", child.content))
    return out


def _last_line(toks: list[Any], i: int) -> int:
    """The line of the nearest earlier token that has one (inline tokens of list items have none)."""
    return next((t.map[0] + 1 for t in reversed(toks[:i]) if t.map), 1)


def _bullet(item: list[Any], section: str) -> Bullet:
    first = next(t for t in item if t.type == "inline")
    proofs = tuple(c.content.strip() for t in item if t.type == "inline" for c in t.children or []
                   if c.type == "myst_role" and c.meta.get("name") == PROOF_ROLE)
    markdown = " ".join(part.strip() for part in first.content.splitlines())
    return Bullet(item[0].map[0] + 1, section, markdown, proofs)


def _fence_name(tok: Any) -> str:
    m = re.match(r"^\{([\w:-]+)\}", tok.info.strip())
    return m.group(1) if m else ""


def _scan_fence(out: Outline, tok: Any, line: int) -> None:
    m = re.match(r"^\{([\w:-]+)\}\s*(.*)$", tok.info.strip())
    if not m:
        return
    name, argument = m.group(1), m.group(2).strip()
    if name == "code-cell":
        from .safety import options

        load = options(tok.content).get("load")
        if load:
            out.code_loads.append((line, load))
        return
    out.directives.append(Directive(line, name, argument, tok.content))
    if name == "index":
        out.index_entries += 1
    if name in ("math",):
        _check_math(out, line, tok.content)


def _check_math(out: Outline, line_no: int, math: str) -> None:
    bad = next((c for c in math if ord(c) > 127), None)
    if bad:
        out.math_problems.append((line_no, bad))


def section_of(outline: Outline, line: int, shape: Shape = ZH_SHAPE) -> str:
    """The key of the ``##`` section that holds a page line ('' before the first one or in an unknown one)."""
    found = ""
    for n, level, text in outline.headings:
        if n > line:
            break
        if level <= 2:
            found = shape.key(text) if level == 2 else ""
    return found


def _check_short(outline: Outline, path: str, shape: Shape) -> list[Problem]:
    problems: list[Problem] = []
    if SHORT not in dict(shape.titles):  # an exercise page has no short answer
        return problems
    bullets = outline.short_bullets
    key = shape.title(SHORT)
    hint = f"at most {SHORT_MAX_BULLETS} bullets of at most {shape.bullet_max_chars} characters; move nuance into {shape.title(DETAILS)}; the answer line comes from the front matter"
    for line in outline.short_prose[:1]:
        problems.append(Problem(path, line, key, "text outside the bullets", hint))
    for bullet in bullets[SHORT_MAX_BULLETS:SHORT_MAX_BULLETS + 1]:
        problems.append(Problem(path, bullet.line, key, f"{len(bullets)} bullets", hint))
    for bullet in bullets:
        if plain_length(bullet.markdown) > shape.bullet_max_chars:
            problems.append(Problem(path, bullet.line, key, f"bullet is {plain_length(bullet.markdown)} characters long", hint))
    return problems


def _check_dunders(outline: Outline, path: str) -> list[Problem]:
    return [Problem(path, line, "dunder", f"{name} outside a code span prints as bold '{name.strip('_')}'", f"write `{name}` in backticks")
            for line, name in outline.dunders]


INDEX_TYPES = ("single", "pair", "triple", "see", "seealso")


def _check_index(outline: Outline, path: str) -> list[Problem]:
    """A typed entry (``see: a; b``) must be its directive's whole argument: in a comma list it is read as a term."""
    problems = []
    for d in (d for d in outline.directives if d.name == "index"):
        for line in d.argument.splitlines():
            items = [item.strip() for item in line.split(",")] if not line.lstrip().startswith(tuple(f"{t}:" for t in INDEX_TYPES)) else []
            for item in items:
                kind = item.split(":", 1)[0].strip()
                if ":" in item and kind in INDEX_TYPES:
                    problems.append(Problem(path, d.line, "index", f"'{item}' sits in a comma list, so it is indexed as the literal term '{item}'",
                                            f"give it its own directive: ```{{index}} {item}```"))
    return problems


def check(outline: Outline, path: str, body_line: int, cell_lines: list[int], shape: Shape = ZH_SHAPE) -> list[Problem]:
    """Check the outline, and where the code cells (as myst-nb reads them) sit, against the page shape."""
    problems: list[Problem] = []
    sections = list(shape.names)
    top = [h for h in outline.headings if h[1] == 1]
    if len(top) != 1:
        line = top[1][0] if len(top) > 1 else body_line
        problems.append(Problem(path, line, "title", f"found {len(top)} level-1 headings", "write exactly one '# title'"))
    found = [(line, text) for line, level, text in outline.headings if level == 2]
    names = [text for _, text in found]
    if names != sections:
        missing = [s for s in sections if s not in names]
        extra = [s for s in names if s not in sections]
        if missing:
            msg = "missing section(s) " + ", ".join(f"'## {s}'" for s in missing)
        elif extra:
            msg = "unexpected section(s) " + ", ".join(f"'## {s}'" for s in extra)
        else:
            msg = "sections are out of order"
        line = found[0][0] if found else body_line
        problems.append(Problem(path, line, "sections", msg, "use, in order: " + " / ".join(sections)))
    details = shape.title(shape.code_section)
    if not any(section_of(outline, line, shape) == shape.code_section for line in cell_lines):
        line = next((n for n, t in found if t == details), body_line)
        problems.append(Problem(path, line, details, "no executed code cell", "add a ```{code-cell} python block that shows the claim"))
    problems += _check_short(outline, path, shape)
    problems += _check_dunders(outline, path)
    problems += _check_index(outline, path)
    if outline.index_entries == 0:
        problems.append(Problem(path, body_line, "index", "no {index} entries", "add e.g. {index}`torch.Tensor.view` for the APIs discussed"))
    for line, char in outline.math_problems:
        hint = "formulas are typeset by LaTeX without CJK fonts: move Chinese text and full-width punctuation out of $...$"
        problems.append(Problem(path, line, "math", f"non-ASCII character {char!r} inside math", hint))
    related = shape.title(RELATED)
    if not outline.refs_by_section.get(RELATED):
        line = next((n for n, t in found if t == related), body_line)
        problems.append(Problem(path, line, related, "no cross-reference", "link related questions with {ref}`question-id`"))
    return problems


def check_proofs(outline: Outline, path: str, labelled: dict[str, tuple[int, bool]], shape: Shape = ZH_SHAPE) -> list[Problem]:
    """Every bullet of the short answer and the pitfalls cites a labelled cell of this page that asserts (``labelled``: label -> (line, asserts))."""
    problems = []
    hint = "end the bullet with {proof}`label`, and give the code cell that proves it ':label: label' and an assert"
    for bullet in outline.bullets:
        key = shape.title(bullet.section)
        if not bullet.proofs:
            problems.append(Problem(path, bullet.line, key, "bullet cites no proof", hint))
        for label in bullet.proofs:
            if label not in labelled:
                known = ", ".join(sorted(labelled)) or "none"
                problems.append(Problem(path, bullet.line, key, f"proof {label!r} is not a cell label of this page", f"labels here: {known}"))
            elif not labelled[label][1]:
                problems.append(Problem(path, labelled[label][0], "proof", f"cell {label!r} is cited as proof but holds no assert", "assert the fact the bullet states"))
    for line, name, content in outline.roles:
        if name == PROOF_ROLE and section_of(outline, line, shape) not in PROOF_SECTIONS and content.strip() not in labelled:
            problems.append(Problem(path, line, "proof", f"proof {content.strip()!r} is not a cell label of this page", "label the cell with ':label: ...'"))
    return problems
