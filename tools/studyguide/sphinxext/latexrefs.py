"""The book's LaTeX translator: cross-references give their page in the book's words, and page breaks are kept
away from titles and short code blocks.

- Sphinx's ``latex_show_pagerefs`` writes `` (\\autopageref*{id})`` after each internal link; here it is the
  locale's form (``pdf.pageref``: “……（第 233 页）”).
- A title asks for room for itself and the first lines after it (``\\Needspace*``), so that no title ends a page.
- A code block of up to 12 lines asks for room for all of it, a longer one for its first 3 lines; and it tells
  LaTeX which of its logical lines hold its first and last 3 printed lines (read by the preamble's
  ``VERBATIM_BREAKS``), so that a split block leaves at least 3 lines on each side.
- Inline code may break after '.', '(' and '/', and at a cost inside a long name, so that it does not stretch
  the spacing of its line.
- A code block whose widest line fits the measure skips Sphinx's per-line forced-wrap test (``bound_rule``): the
  same pages, a third less xelatex time for the A4 book.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.writers.latex import LaTeXTranslator

from . import conceptindex, state

# a break point after these in inline code, not before a space, ')' or another one; and between "][" (x[i][j])
CODE_BREAK = re.compile(r"[.(/=](?=[^\s.(/)=])|\](?=\[)")
WORD_BREAK = re.compile(r"(?<=[A-Za-z0-9]{3})(?=[A-Za-z0-9]{3})")  # inside a name, 3 letters or digits from either side
BREAK, SOFT_BREAK = "\ue000", "\ue001"  # placeholders (private use) for the two kinds, set before the text is escaped
WORD_PENALTY = 50  # \studyguidewordbreak: as TeX's \hyphenpenalty (a line stretched 0.1 em costs more than a break)
CODE_WORD = re.compile(r"[A-Za-z0-9_.()\[\]=]*[._()\[=][A-Za-z0-9_.()\[\]=]*")  # a name in plain text: it holds . _ ( [ or =
MIN_SIDE = 3  # printed lines a split block keeps on each side
WRAP_EREADER = 47  # monospaced columns per printed code line on the 6-inch page (a CJK character takes two)
MAX_BOUND = 1000  # columns: \studyguidecodecols when no bound is known (times a character's width, within TeX's dimensions)
BOUND = r"\def\studyguidecodecols{%d}"  # the widest line of the next block, in columns (bound_rule)
NO_BOUND = BOUND % MAX_BOUND  # after each block: a block without rules has no bound
SHORT_BLOCK = 12  # lines: a block this short is never split across pages
WRAP = 96  # monospaced columns per printed code line on the A4 page (longer lines wrap; test_real_book measures it)
TITLE_ROOM = {"section": 9, "subsection": 6, "subsubsection": 5}  # lines kept with a question title (and its meta lines), a section title


class PageRefTranslator(LaTeXTranslator):
    """Sphinx's LaTeX translator; internal references end with the page in the book's words."""

    def visit_title(self, node: nodes.Element) -> None:
        """A section title first asks for room for itself and what follows it."""
        if isinstance(node.parent, nodes.section) and not self.in_title:
            names = self.sectionnames
            room = TITLE_ROOM.get(names[min(self.sectionlevel, len(names) - 1)])
            if room:
                self.body.append(f"\n\\Needspace*{{{room}\\baselineskip}}")
        super().visit_title(node)

    def visit_Text(self, node: nodes.Text) -> None:
        """Inline code, and a name in the answer line, may break after '.', '(', '/', '=' and '][' (after '_' through the
        preamble's \\_), and, at a cost, inside a long name, so that it need not stretch the CJK spacing of its line."""
        if isinstance(node.parent, nodes.literal):
            self.body.append(code_breaks(self.encode(mark_breaks(node.astext()))))
        elif isinstance(node.parent, nodes.strong) and "studyguide-answer" in node.parent.parent.get("classes", []):  # the answer line names APIs as plain text
            self.body.append(code_breaks(self.encode(CODE_WORD.sub(lambda m: mark_breaks(m.group()), node.astext()))))
        elif ends_a_cell(node):  # a narrow cell never leaves its last Chinese character alone on a line (随机深/度)
            text = node.astext()
            self.body.append(self.encode(text[:-1]) + r"\nobreak " + self.encode(text[-1]))
        else:
            super().visit_Text(node)

    def visit_index(self, node: nodes.Element) -> None:
        """Index entries; a concept (广播) is sorted by pinyin and set upright (conceptindex)."""
        conceptindex.visit_index(self, node, LaTeXTranslator.visit_index)

    def visit_literal_block(self, node: nodes.Element) -> None:
        """A code block first asks for room for all of it (up to 12 lines) or for its first 3 lines."""
        if not self.in_footnote and not self.in_parsed_literal:
            self.body.append(block_rules(node.astext(), WRAP_EREADER if self.config.studyguide_latex else WRAP))
        if node.rawsource != node.astext() or self.in_footnote:  # a parsed literal (alltt), a footnote's block: no bound
            super().visit_literal_block(node)
            return
        self.body.append(bound_rule(node.astext()))
        try:
            super().visit_literal_block(node)  # writes the whole verbatim, then skips the node
        finally:
            self.body.append(NO_BOUND)

    def visit_math_block(self, node: nodes.math_block) -> None:
        """On the e-reader's page an unnumbered display formula is scaled down to the measure when it is wider (a
        formula of the A4 width ran past the 6-inch page's edge)."""
        if self.config.studyguide_latex and not node.get("label") and not node.get("nowrap") and not node.get("no-wrap"):
            self.body.append(fit_display_math(node.astext()))
            raise nodes.SkipNode
        super().visit_math_block(node)

    def visit_table(self, node: nodes.Element) -> None:
        """On the e-reader's page a table is a longtable (it may break across pages) whose columns are as wide as
        their content allows (tabulary's narrow first column held one character per line)."""
        super().visit_table(node)
        if self.config.studyguide_latex and self.table is not None:
            self.table.classes.append("longtable")

    def depart_table(self, node: nodes.Element) -> None:
        """The e-reader table's column widths, from its cells (column_widths)."""
        if self.config.studyguide_latex and self.table is not None:
            widths = column_widths(node, WRAP_EREADER)
            if widths:
                self.table.colwidths = widths
                self.table.classes.append("colwidths-given")
        super().depart_table(node)

    def visit_entry(self, node: nodes.Element) -> None:
        """On the e-reader's narrow page a table cell is ragged right: justified cells of a few characters gape."""
        super().visit_entry(node)
        if self.config.studyguide_latex:
            self.body.append(r"\raggedright ")

    def visit_reference(self, node: nodes.Element) -> None:
        """Sphinx's reference, with its ``(page)`` suffix rewritten."""
        super().visit_reference(node)
        tail = self.context[-1] if self.context else ""
        if isinstance(tail, str) and tail.startswith("}}} (\\autopageref*{") and tail.endswith("})"):
            target = tail[len("}}} (\\autopageref*{"):-2]
            words = state.of(self.builder.env).config.locale  # type: ignore[union-attr]
            self.context[-1] = "}}}" + words.t("pdf.pageref", page=f"\\pageref*{{{target}}}")


VERBATIM_BREAKS = r"""
% a long name in inline code may break inside, at a cost (latexrefs.WORD_PENALTY); PDF bookmarks drop the mark
\newcommand{\studyguidewordbreak}{\penalty""" + str(WORD_PENALTY) + r"""\relax}
\pdfstringdefDisableCommands{\let\studyguidewordbreak\empty}
% A line narrower than the measure is never force-wrapped (verbatimforcewraps), so Sphinx's test of each line,
% which typesets it once more to measure it, is left out where the block's widest line (\studyguidecodecols, an
% upper bound in columns from the translator) is narrower than \linewidth: the line is then set on one line, as
% after the test. The translator resets the bound after each block (latexrefs.NO_BOUND).
\newcommand{\studyguidecodecols}{""" + str(MAX_BOUND) + r"""}
\makeatletter\let\studyguide@decideforcewrap\spx@verb@DecideIfWillDoForceWrap
\def\spx@verb@DecideIfWillDoForceWrap{\ifdim\studyguidecodecols\fontcharwd\font`X<\linewidth\else\studyguide@decideforcewrap\fi}\makeatother
% No page break inside a code or output block's first or last 3 printed lines. The translator sets, before each
% block, \studyguideverbatimhead and \studyguideverbatimtail: the logical lines that hold them are 1..head and
% tail..last. A break before a printed line of logical line k is forbidden when k <= head, or when k > tail (its
% first printed line) or k >= tail (a later one: a wrapped line breaks inside). fancyvrb puts the penalty before
% the box it holds from its previous call, so the rule reads that box's line (\studyguideheldline), not the counter
% (Sphinx feeds each printed part of a wrapped line as a line of its own).
\newcommand{\studyguideverbatimhead}{0}
\newcommand{\studyguideverbatimtail}{100000}
\newcommand{\studyguideverbatimclub}{150}  % fancyvrb's \clubpenalty after line 1, \widowpenalty before the last
\newcommand{\studyguideverbatimwidow}{150}
\newcount\studyguideheldline
\newif\ifstudyguideheldcont
\makeatletter
\newcommand{\studyguideverbatimprinted}{100000}  % the block's printed lines, as the translator counts them (set before each block)
\newcount\studyguideheldindex  % the held box's place among the block's printed lines
\def\studyguidehold{%
  \ifnum\value{FancyVerbLine}=\studyguideheldline\global\studyguideheldconttrue\else\global\studyguideheldcontfalse\fi
  \global\studyguideheldline=\value{FancyVerbLine}\global\advance\studyguideheldindex\@ne}
% and, whatever the logical lines, never before the 2nd or 3rd printed line or the last 2 (a logical line that
% wraps to more than 8 printed lines gives up the logical rule, not this one)
\def\studyguidebreakpenalty{%
  \ifnum\studyguideheldindex<4 \penalty\@M
  \else\ifnum\studyguideheldindex>\numexpr\studyguideverbatimprinted-2\relax\penalty\@M
  \else\ifnum\studyguideheldline>\studyguideverbatimhead\relax
    \ifnum\studyguideheldline>\numexpr\studyguideverbatimtail\ifstudyguideheldcont-1\fi\relax\penalty\@M
    \else\penalty\interlinepenalty\fi
  \else\penalty\@M\fi\fi\fi}
\let\studyguide@ListProcessLine@i\FV@ListProcessLine@i
\def\FV@ListProcessLine@i#1{\global\studyguideheldline=\value{FancyVerbLine}\global\studyguideheldindex=\@ne
  \studyguide@ListProcessLine@i{#1}}
\def\FV@ListProcessLine@ii#1{%
  \setbox\@tempboxa=\FV@ListProcessLine{#1}\studyguidehold
  \let\FV@ProcessLine\FV@ListProcessLine@iii}
\def\FV@ListProcessLine@iii#1{%
  {\advance\interlinepenalty\clubpenalty\studyguidebreakpenalty}%
  \box\@tempboxa
  \setbox\@tempboxa=\FV@ListProcessLine{#1}\studyguidehold
  \let\FV@ProcessLine\FV@ListProcessLine@iv}
\def\FV@ListProcessLine@iv#1{%
  \studyguidebreakpenalty
  \box\@tempboxa
  \setbox\@tempboxa=\FV@ListProcessLine{#1}\studyguidehold}
\makeatother
"""


def block_rules(code: str, wrap: int) -> str:
    """The LaTeX set before a code block of ``wrap`` columns: the room it asks for and the lines that hold its first
    and last 3 printed lines (read by VERBATIM_BREAKS)."""
    printed = [max(1, -(-_width(line) // wrap)) for line in code.splitlines() or [""]]
    lines = sum(printed)
    room = lines + 2.5 if lines <= SHORT_BLOCK else 5.5  # the box's padding and rules, the output's label
    head, tail = _edge(printed), _edge(printed[::-1])
    return (f"\n\\Needspace*{{{room}\\baselineskip}}"
            f"\\def\\studyguideverbatimhead{{{head}}}\\def\\studyguideverbatimtail{{{len(printed) - tail + 1}}}"
            f"\\def\\studyguideverbatimclub{{10000}}\\def\\studyguideverbatimwidow{{10000}}\\def\\studyguideverbatimprinted{{{lines}}}")


def fit_display_math(tex: str) -> str:
    """An unnumbered display formula (paragraphs of it as lines) set at its width, or at the line's when wider."""
    lines = r" \\ ".join(part.strip() for part in tex.split("\n\n") if part.strip())
    return ("\n\\begin{center}\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}"
            f"{{$\\displaystyle\\begin{{aligned}}{lines}\\end{{aligned}}$}}\\end{{center}}\n")


def mark_breaks(code: str) -> str:
    """Inline code with its break points marked: after '.', '(', '/' and '=', between '][', and (softer) inside a long name."""
    return WORD_BREAK.sub(SOFT_BREAK, CODE_BREAK.sub(lambda m: m.group() + BREAK, code))


def code_breaks(latex: str) -> str:
    """Escaped inline code with its marked break points as LaTeX."""
    return latex.replace(BREAK, r"\allowbreak{}").replace(SOFT_BREAK, r"\studyguidewordbreak{}")


def column_widths(table: nodes.Element, line: int) -> list[int]:
    """Widths (in columns of ``line``) for a table's columns: a column whose widest cell fits its equal share gets
    that width, the others share the rest equally; [] when a cell spans columns."""
    rows = [[_width(entry.astext()) for entry in row.findall(nodes.entry)] for row in table.findall(nodes.row)]
    if not rows or any(entry.get("morecols") for entry in table.findall(nodes.entry)) or len({len(r) for r in rows}) != 1:
        return []
    need = [max(col) + 2 for col in zip(*rows, strict=True)]  # one CJK character of slack: the cell padding
    room = max(line - 2 * len(need), len(need))
    widths = [0] * len(need)
    while True:
        left = [i for i, w in enumerate(widths) if not w]
        share = (room - sum(widths)) / len(left)
        fits = [i for i in left if need[i] <= share]
        if not fits or len(fits) == len(left):
            for i in left:
                widths[i] = max(1, round(need[i] if need[i] <= share else share))
            return _keep_headers(widths, table)
        for i in fits:
            widths[i] = need[i]


def _keep_headers(widths: list[int], table: nodes.Element) -> list[int]:
    """Widen a column to hold its header on one line ("PyTorch 中的写/法" left a character alone on every page the
    table spans), taking the room from the widest columns, when the headers fit side by side at all."""
    heads = [[_width(entry.astext()) + 2 for entry in row.findall(nodes.entry)]
             for thead in table.findall(nodes.thead) for row in thead.findall(nodes.row)]
    if len(heads) != 1 or len(heads[0]) != len(widths) or sum(heads[0]) > sum(widths):
        return widths
    head, widths = heads[0], list(widths)
    for i, want in enumerate(head):
        while widths[i] < want:
            donor = max((j for j in range(len(widths)) if widths[j] > head[j]), key=lambda j: widths[j] - head[j])
            widths[donor] -= 1
            widths[i] += 1
    return widths


def _edge(printed: list[int]) -> int:
    """How many logical lines from a block's edge hold its first 3 printed lines (0 when they are too tall to
    keep together: a page break there is then allowed, rather than a box no page can hold)."""
    total = 0
    for n, count in enumerate(printed, start=1):
        total += count
        if total >= MIN_SIDE:
            return n if total <= 2 * MIN_SIDE + 2 and n < len(printed) else 0
    return 0


def ends_a_cell(node: nodes.Text) -> bool:
    """True for the text that ends a table cell's paragraph with two Chinese characters."""
    text, para = node.astext(), node.parent
    return (len(text) >= 2 and all(unicodedata.east_asian_width(ch) == "W" and ch.isalpha() for ch in text[-2:])
            and isinstance(para, nodes.paragraph) and para.children[-1] is node and isinstance(para.parent, nodes.entry))


def bound_rule(code: str) -> str:
    """The LaTeX set before a code block's verbatim: an upper bound of its widest line, in monospaced columns
    (read by the forced-wrap shortcut of VERBATIM_BREAKS)."""
    return BOUND % _bound(code)


def _bound(code: str) -> int:
    """At least the widest printed line, in columns of the code font (DejaVu Sans Mono: all its faces have one
    advance): a tab is fancyvrb's box of 8 spaces, a CJK character takes two (xeCJKVerbAddon), and any other
    character outside ASCII is counted as two (it may come from another font); one more for rounding."""
    widths = (sum(8 if ch == "\t" else 1 if ch.isascii() else 2 for ch in line) for line in code.split("\n"))
    return min(max(widths, default=0) + 1, MAX_BOUND)


def _width(line: str) -> int:
    """A code line's printed width in monospaced columns: a CJK character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


def use_translator(app: Sphinx) -> None:
    """Register the translator for a LaTeX build only: the HTML theme adds its own (table classes, heading
    levels) only when no translator is registered at all (pydata_sphinx_theme.translator.setup_translators)."""
    if app.builder.name == "latex":
        app.set_translator("latex", PageRefTranslator, override=True)


def setup(app: Sphinx) -> dict[str, Any]:
    """Use the translator for the LaTeX builder, and show page references."""
    app.connect("builder-inited", use_translator, priority=100)
    return {}
