"""Page-break and spacing defects measured on a built PDF with PyMuPDF (characters with their fonts, and drawings).

- A code block is a grey box, an output a white box with a rule on its left (conf.py); both hold code lines
  (monospaced, or starting with a CJK comment or a wrap's continuation mark). A box that ends a page's body over
  LaTeX's "continues on next page" label, and the box of the same kind that starts the next page's, are one split
  block: it is a defect when it has 12 lines or fewer, or leaves fewer than 3 lines on one side.
- A title (bold sans, larger than the page's text) is a defect when it sits in the last 4 lines of the text area.
- A line of text (not code: its CJK glyphs are narrower than their two columns) is stretched when the median gap
  between its neighbouring Chinese characters exceeds a tenth of its type size.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

SHORT_BLOCK, MIN_SIDE, TITLE_LINES = 12, 3, 4
STRETCH = 0.10  # gap between two CJK glyphs, in type sizes
BOX_FILLS = ((0.949, 0.949, 0.949), (1.0, 1.0, 1.0))  # code, output (conf.py's sphinxsetup)


@dataclass(frozen=True)
class Line:
    """One printed line: its characters (text, x0, x1), font, size and vertical extent."""

    chars: tuple[tuple[str, float, float], ...]
    font: str
    size: float
    top: float
    bottom: float

    @property
    def text(self) -> str:
        """The line's text."""
        return "".join(c for c, _, _ in self.chars)


@dataclass
class Report:
    """The defects found, each with its PDF page (1-based)."""

    pages: int = 0
    split_blocks: int = 0
    bad_splits: list[tuple[int, int, int]] = field(default_factory=list)  # (page, lines before, lines after)
    titles_at_foot: list[tuple[int, str]] = field(default_factory=list)
    stretched: list[tuple[int, str]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """The figures a note reports."""
        return {"pages": self.pages, "split blocks": self.split_blocks, "bad splits": len(self.bad_splits),
                "titles at foot": len(self.titles_at_foot), "stretched lines": len(self.stretched),
                "pages with stretched lines": len({p for p, _ in self.stretched})}


def _is_cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


def _lines(page: pymupdf.Page) -> list[Line]:
    """The page's lines, top to bottom; a line's font and size are those of its first character."""
    rows: dict[int, list[tuple[str, float, float, str, float, float, float]]] = {}
    for block in page.get_text("rawdict")["blocks"]:
        for line in block.get("lines", []):
            for span in line["spans"]:
                for ch in span["chars"]:
                    if ch["c"].strip():
                        x0, y0, x1, y1 = ch["bbox"]
                        key = round(span["origin"][1])
                        row = rows.get(key) or rows.get(key - 1) or rows.get(key + 1)
                        (row if row is not None else rows.setdefault(key, [])).append((ch["c"], x0, x1, span["font"], span["size"], y0, y1))
    out = []
    for _, row in sorted(rows.items()):
        row.sort(key=lambda c: c[1])
        out.append(Line(tuple((c, a, b) for c, a, b, *_ in row), row[0][3], row[0][4], min(c[5] for c in row), max(c[6] for c in row)))
    return out


@dataclass(frozen=True)
class Box:
    """A code or output box on one page: the span of its text lines, their pitch, and the gaps from its drawn
    rectangle to its first and last text line (a blank code line at an edge widens a gap)."""

    top: float
    bottom: float
    kind: int  # BOX_FILLS index
    pitch: float
    span: float  # from the first text line's bottom to the last's
    gap_top: float
    gap_bottom: float


def _boxes(page: pymupdf.Page, lines: list[Line]) -> list[Box]:
    """The page's verbatim boxes, top to bottom."""
    found = set()
    for d in page.get_drawings():
        fill, rect = d.get("fill"), d["rect"]
        colour = tuple(round(v, 3) for v in fill) if fill else None
        if colour in BOX_FILLS and rect.width > 200:
            inside = [ln for ln in lines if _in_box(ln, rect)]
            if inside:
                found.add(Box(inside[0].top, inside[-1].bottom, BOX_FILLS.index(colour), _pitch(inside),
                              inside[-1].bottom - inside[0].bottom,
                              round(inside[0].top - rect.y0, 1), round(rect.y1 - inside[-1].bottom, 1)))
    merged: list[Box] = []
    for box in sorted(found, key=lambda x: (x.top, x.bottom)):
        if not (merged and box.top < merged[-1].bottom):  # one box drawn as several shapes
            merged.append(box)
    return merged


def _edge_lines(box: Box, pads: dict[int, tuple[float, float, float]]) -> int:
    """A box's printed lines, blank code lines included: its text lines' span over the document's pitch for its
    kind (a box's own gaps can all be blank lines wide), and a pitch for each blank line at an edge (a gap wider
    than the smallest of the document's boxes of its kind)."""
    top, bottom, pitch = pads[box.kind]
    return 1 + round(box.span / pitch) + round((box.gap_top - top) / pitch) + round((box.gap_bottom - bottom) / pitch)


def _pads(boxes: list[Box]) -> dict[int, tuple[float, float, float]]:
    """Per kind of box: its smallest top and bottom gaps (no blank line there) and its median line pitch."""
    pads = {}
    for kind in range(len(BOX_FILLS)):
        same = [b for b in boxes if b.kind == kind]
        pitches = [b.pitch for b in same if b.pitch]  # the median: a box whose only gap is a blank line is rare
        pads[kind] = (min((b.gap_top for b in same), default=0.0), min((b.gap_bottom for b in same), default=0.0),
                      statistics.median(pitches) if pitches else 1.0)
    return pads


def _in_box(line: Line, rect: pymupdf.Rect) -> bool:
    """A printed line of a code or output box: inside its rectangle. Any font: a line may start with a CJK comment
    (the CJK font) or a wrap's continuation mark, so "monospaced lines only" undercounts a block."""
    return rect.y0 - 1 <= line.top and line.bottom <= rect.y1 + 1 and rect.x0 - 1 <= line.chars[0][1] <= rect.x1


def _pitch(lines: list[Line]) -> float:
    """The distance between a box's neighbouring text lines (0 for one line); a blank code line doubles a gap."""
    gaps = [b.bottom - a.bottom for a, b in itertools.pairwise(lines)]
    return statistics.median([g for g in gaps if g <= 1.5 * min(gaps)]) if gaps else 0.0


def _text_area(pages: list[list[Line]]) -> tuple[float, float]:
    """Top and bottom of the body text: the extremes reached on most full pages, header and footer lines left out."""
    full = [ls for ls in pages if len(ls) > 6]
    tops = [ls[1].top for ls in full]
    bottoms = [ls[-2].bottom for ls in full]
    return min(tops), statistics.quantiles(bottoms, n=20)[-1]


def _is_title(line: Line, size: float) -> bool:
    """A heading line: bold sans type larger than the page's text."""
    font = line.font
    return "Bold" in font and "Mono" not in font and ("Sans" in font or "Heros" in font) and line.size > size * 1.05


def measure(pdf_path: Path, continues: str = "续下页", continued: str = "接上页") -> Report:
    """Measure split blocks, titles at a page's foot and stretched lines in one PDF.

    ``continues`` and ``continued`` are the labels LaTeX prints under and over the parts of a split box
    (Sphinx's words for the book's language).
    """
    report = Report()
    with pymupdf.open(str(pdf_path)) as doc:
        pages = [_lines(page) for page in doc]
        top, bottom = _text_area(pages)
        report.pages = len(pages)
        bodies = [[ln for ln in lines if top - 2 <= ln.top and ln.bottom <= bottom + 2] for lines in pages]
        boxes_of = [_boxes(page, body) for page, body in zip(doc, bodies, strict=True)]
        pads = _pads([box for boxes in boxes_of for box in boxes])
        tail: tuple[int, int, int] | None = None  # (page, lines, kind) of a box that ends the previous page's body
        for n, (body, boxes) in enumerate(zip(bodies, boxes_of, strict=True), start=1):
            if tail and boxes and boxes[0].kind == tail[2] and not any(ln.bottom <= boxes[0].top and continued not in ln.text for ln in body):
                report.split_blocks += 1
                before, after = tail[1], _edge_lines(boxes[0], pads)
                if before + after <= SHORT_BLOCK or min(before, after) < MIN_SIDE:
                    report.bad_splits.append((tail[0], before, after))
            below = [ln for ln in body if boxes and ln.top >= boxes[-1].bottom]
            tail = (n, _edge_lines(boxes[-1], pads), boxes[-1].kind) if boxes and below and all(continues in ln.text for ln in below) else None
            size = statistics.median([ln.size for ln in body]) if body else 10.0
            for ln in body:
                if _is_title(ln, size) and ln.bottom > bottom - TITLE_LINES * 1.2 * size:
                    report.titles_at_foot.append((n, ln.text))
                gaps = [b[1] - a[2] for a, b in itertools.pairwise(ln.chars) if _is_cjk(a[0]) and _is_cjk(b[0])]
                in_box = any(box.top - 1 <= ln.top and ln.bottom <= box.bottom + 1 for box in boxes)  # code: CJK in two columns
                if not in_box and "Mono" not in ln.font and len(gaps) >= 4 and statistics.median(gaps) > STRETCH * ln.size:
                    report.stretched.append((n, ln.text[:40]))
    return report


def describe(report: Report) -> Iterator[str]:
    """One line per defect, for an assertion message."""
    yield from (f"p.{p}: a code/output block split {b}+{a} lines" for p, b, a in report.bad_splits)
    yield from (f"p.{p}: title at the page foot: {t}" for p, t in report.titles_at_foot)
    yield from (f"p.{p}: stretched line: {t}" for p, t in report.stretched)


def _ruled_pages(doc: pymupdf.Document) -> Iterator[int]:
    """Pages that draw a stroked horizontal rule at least half the page wide (a table's rules; code boxes are fills)."""
    for n, page in enumerate(doc):
        width = page.rect.width
        for drawing in page.get_drawings():
            if drawing.get("fill") is None and any(item[0] == "l" and abs(item[1].y - item[2].y) < 0.5
                                                    and abs(item[2].x - item[1].x) > width / 2 for item in drawing["items"]):
                yield n
                break


def split_table_words(pdf_path: Path) -> list[tuple[int, str]]:
    """Table cells (page, text) whose printed lines include a lone Chinese character broken off a longer cell."""
    doc = pymupdf.open(pdf_path)
    found = []
    for n in _ruled_pages(doc):
        for table in doc[n].find_tables().tables:
            for row in table.extract():
                for cell in row:
                    lines = [ln.strip() for ln in (cell or "").splitlines() if ln.strip()]
                    if len(lines) > 1 and any(len(ln) == 1 and _is_cjk(ln) for ln in lines):
                        found.append((n + 1, " / ".join(lines)[:40]))
    return found


def widest_code_line(pdf_path: Path) -> int:
    """The most monospaced columns any printed line of code or output fills (a wrapped line's first part fills
    the whole measure)."""
    widest = 0
    with pymupdf.open(str(pdf_path)) as doc:
        for page in doc:
            for block in page.get_text("rawdict")["blocks"]:
                for line in block.get("lines", []):
                    spans = line["spans"]
                    chars = [c for span in spans for c in span["chars"]]
                    if chars and all("Mono" in span["font"] for span in spans):
                        column = chars[0]["bbox"][2] - chars[0]["bbox"][0]
                        widest = max(widest, round((chars[-1]["bbox"][2] - chars[0]["bbox"][0]) / column))
    return widest

