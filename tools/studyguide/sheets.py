"""Cheat sheets: which questions each sheet holds (pure), and typesetting them with Typst on one page."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import columns
from .book import Book
from .errors import BuildError
from .locale import Locale
from .refblocks import Block
from .schema import Question, Topic

TEMPLATE = Path(__file__).parent / "templates" / "cheatsheet.typ"
FONT_DIRS = ("/usr/share/fonts/opentype/noto", "/usr/share/fonts/truetype/noto")
TOP = "top"  # frequent-question sheets are named top-<tier>[-<tier>]: all of them never fit one A4 page at the floor sizes
FrequentSheets = tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]  # (tiers sharing a sheet, its reference blocks)


def frequent_groups(config: Any) -> FrequentSheets:
    """The book's frequent sheets (``[tool.studyguide] frequent_sheets``); by default one per tier."""
    if config.frequent_sheets:
        return tuple((tuple(s["tiers"]), tuple(s.get("reference", ()))) for s in config.frequent_sheets)
    return tuple(((t.id,), ()) for t in config.tier_list)
MIN_FILL = 0.5  # a sheet less than half full is not worth printing: merge it or give it a reference block
# Read on a wall: body 9 pt, code 8 pt at the least (nothing on a sheet is smaller). A4 portrait in two columns, so
# that a snippet line of 64 ASCII characters (the limit) fits a column at 8 pt; three landscape columns would wrap
# it. A line made wider by CJK comments (two cells a character) wraps under a hanging indent.
LAYOUT = {"columns": 2, "landscape": False, "body_pt": 9, "code_pt": 8}
SLACK_PT = 1.0  # a column is filled to at most its height less this, so that rounding never pushes a unit on


@dataclass(frozen=True)
class Group:
    """A headed group of questions on a sheet (a tier, or a topic on the 高频 sheet)."""

    heading: str
    questions: tuple[Question, ...]


@dataclass(frozen=True)
class Sheet:
    """One cheat sheet: a topic's questions by tier, or the 高频 questions by topic."""

    name: str  # file stem: topic id, or "top-<tier>"
    title: str
    groups: tuple[Group, ...]
    references: tuple[str, ...] = ()  # reference blocks (refblocks.BLOCKS) printed after the questions

    @property
    def questions(self) -> tuple[Question, ...]:
        """Every question on the sheet, in order."""
        return tuple(q for g in self.groups for q in g.questions)


def sheet_name(topic: Topic) -> str:
    """The sheet a topic's questions are printed on: its own, or the one it shares (``sheet:`` in topics.yml)."""
    return topic.sheet or topic.id


def plan(book: Book, words: Locale, frequent: FrequentSheets = ()) -> list[Sheet]:
    """One sheet per chapter topic (topics may share one), then the frequent-question sheets.

    A question sits on one topic sheet only, like it sits in one chapter: a sheet's size is then bounded by
    its chapters, and the topic index pages still list every question that merely mentions the topic.
    """
    sheets = []
    for owner in (t for t in book.topics if not t.sheet):
        members = [t for t in book.topics if sheet_name(t) == owner.id]
        groups = tuple(
            Group(tier.label if len(members) == 1 else f"{topic.label} · {tier.label}", qs)
            for topic in members for tier in book.tiers
            if (qs := tuple(q for q in book.questions if q.tier == tier.id and q.chapter == topic.id))
        )
        if groups:
            title = " · ".join(t.label for t in members if any(q.chapter == t.id for q in book.questions))
            refs = tuple(r for t in members for r in t.reference)
            sheets.append(Sheet(owner.id, title, groups, refs))
    known = {t.id: t for t in book.tiers}
    for wanted, refs in frequent:
        tiers = tuple(t for t in wanted if t in known)  # a tier the book does not have is left out
        groups_ = tuple(
            Group(t.label if len(tiers) == 1 else f"{known[tier].label} · {t.label}", qs)
            for tier in tiers for t in book.topics
            if (qs := tuple(q for q in book.questions if q.frequent and q.tier == tier and q.chapter == t.id))
        )
        if groups_:
            label = words.t("and").join(known[t].label for t in tiers)
            sheets.append(Sheet(f"{TOP}-{'-'.join(tiers)}", f"{words.t('sheets.top_title')} · {label}", groups_, refs))
    return sheets


def is_top(sheet: Sheet) -> bool:
    """True for a 高频 sheet: answers only, set compactly, no 高频 marks."""
    return sheet.name.startswith(f"{TOP}-")


def data(sheet: Sheet, title: str, edition: str, dates: Mapping[str, str], words: Locale, blocks: Mapping[str, Block]) -> dict[str, Any]:
    """The JSON the Typst template typesets: header, footer with topic and date, groups of items (``edition`` as printed)."""
    latest = max((dates[q.id] for q in sheet.questions if q.id in dates), default="")
    footer = " · ".join(p for p in (words.t("sheets.footer_sheet", title=sheet.title), words.t("sheets.footer_edition", title=title, edition=edition),
                                    words.t("sheets.footer_date", date=latest) if latest else "") if p)
    groups = [
        {"heading": g.heading, "items": [
            {"title": q.title, "answer": q.answer, "frequent": q.frequent and not is_top(sheet),
             "code": "" if is_top(sheet) else q.sheet_code}
            for q in g.questions
        ]} for g in sheet.groups
    ]
    from .refblocks import render

    return {"title": words.t("sheets.sheet_title", title=sheet.title), "subtitle": title, "author": title, "footer": footer, "groups": groups,
            "references": render(sheet.references, blocks, words.t("sheets.reference_note")),
            "words": {"frequent": words.t("frequent"), "page": words.t("sheets.page", page="\0").split("\0"),
                      "reference": words.t("sheets.reference", title="\0").split("\0"),
                      "trimmed": words.t("sheets.trimmed", n="{n}")},
            "lang": words.html_lang.split("-")[0], "region": (words.html_lang.split("-") + [""])[1].lower(),
            "layout": {"columns": LAYOUT["columns"], "landscape": LAYOUT["landscape"], "body": LAYOUT["body_pt"],
                       "code": LAYOUT["code_pt"], "compact": is_top(sheet)}}


class SheetOverflowError(BuildError):
    """A sheet does not fit on one page."""


@dataclass(frozen=True)
class Measure:
    """What the template's measuring pass reports, in pt: each unit (a question or a reference table) at the column width."""

    heights: tuple[float, ...]  # each unit as printed, without its group's heading
    bare: tuple[float, ...]  # each unit without its snippet (a reference table, or a question without one: as printed)
    headings: tuple[float, ...]  # the extra height of a unit that carries its group's heading
    column: float  # the height of a column below the title
    gap: float  # the space between two units in a column
    columns: int


def _font_paths() -> list[str]:
    return [d for d in FONT_DIRS if Path(d).is_dir()]


def _query(payload: dict[str, Any], label: str) -> Any:
    import typst

    text = json.dumps(payload, ensure_ascii=False, sort_keys=True)
    return json.loads(typst.query(str(TEMPLATE), label, field="value", font_paths=_font_paths(), sys_inputs={"data": text}))


def measure(payload: dict[str, Any]) -> Measure:
    """Each unit's heights and the column height, as the template's measuring pass (no ``column_of``) reports them."""
    found = _query({k: v for k, v in payload.items() if k != "column_of"}, "<sheet-measure>")[0]
    return Measure(tuple(found["heights"]), tuple(found["bare"]), tuple(found["headings"]), found["column"], found["gap"], found["columns"])


def fit(sheet: Sheet, payload: dict[str, Any]) -> dict[str, Any]:
    """The payload as set on one page, its columns level (``columns.arrange``), snippets left out where needed.

    When the units do not fit, questions are printed without their snippet, the tallest snippet first, until they
    do (the footer says how many); the type is never shrunk. Raise ``SheetOverflowError`` when even that is not enough.
    """
    m = measure(payload)
    groups = [g for g, group in enumerate(payload["groups"]) for _ in group["items"]]
    groups += [len(payload["groups"])] * (len(m.heights) - len(groups))  # the reference tables: one group, each its own heading
    heights = list(m.heights)

    def units() -> list[columns.Unit]:
        return [columns.Unit(h, g, e) for h, g, e in zip(heights, groups, m.headings, strict=True)]
    room = m.column - SLACK_PT
    order = sorted((i for i in range(len(heights)) if m.bare[i] < heights[i]), key=lambda i: (m.bare[i] - heights[i], i))
    dropped: list[int] = []
    placed = columns.arrange(units(), m.gap, m.columns)
    while max(columns.heights(units(), m.gap, placed, m.columns)) > room and order:
        dropped.append(order.pop(0))
        heights[dropped[-1]] = m.bare[dropped[-1]]
        placed = columns.arrange(units(), m.gap, m.columns)
    tallest = max(columns.heights(units(), m.gap, placed, m.columns))
    if tallest > room:
        raise SheetOverflowError(_overflow(sheet, (tallest - m.column) / m.column * m.columns, m.columns, len(dropped)))
    return _laid_out(payload, placed, dropped)


def _laid_out(payload: dict[str, Any], placed: Sequence[int], dropped: Sequence[int]) -> dict[str, Any]:
    """The payload with each group's questions and the tables in print order, ``column_of`` each unit, the dropped
    snippets gone."""
    out = json.loads(json.dumps(payload))
    where = [(g, i) for g, group in enumerate(out["groups"]) for i in range(len(group["items"]))]
    for unit in dropped:
        out["groups"][where[unit][0]]["items"][where[unit][1]]["code"] = ""
    order = sorted(range(len(placed)), key=lambda u: (placed[u], u))
    old = [group["items"] for group in out["groups"]]
    for g, group in enumerate(out["groups"]):
        group["items"] = [old[g][where[u][1]] for u in order if u < len(where) and where[u][0] == g]
    out["references"] = [payload["references"][u - len(where)] for u in order if u >= len(where)]
    if dropped:
        out["footer"] += out["words"]["trimmed"].format(n=len(dropped))
    out["column_of"] = [placed[u] for u in order]
    return out


def column_ends(laid_out: dict[str, Any]) -> list[float]:
    """How far down each column of page 1 the set units reach (fractions of the column height), from their end markers."""
    ends = [0.0] * laid_out["layout"]["columns"]
    for mark in _query(laid_out, "<sheet-unit>"):
        if mark["page"] == 1:
            ends[mark["column"]] = max(ends[mark["column"]], mark["fraction"])
    return ends


def _overflow(sheet: Sheet, by: float, of: int, dropped: int) -> str:
    """The overflow error: by how many columns, and the longest items as printed."""
    def printed(q: Question) -> int:
        return len(q.answer) + (0 if is_top(sheet) else len(q.sheet_code))
    longest = sorted(sheet.questions, key=lambda q: -printed(q))[:3]
    names = ", ".join(f"{q.id} ({printed(q)} chars)" for q in longest)
    return (f"cheat sheet '{sheet.name}' ({sheet.title}) overflows its page by {by:.2f} columns "
            f"of {of} ({len(sheet.questions)} questions, {dropped} of them printed without their snippet to make room); longest items: {names} "
            f"(shorten those answers or snippets; the text is never shrunk below {LAYOUT['code_pt']} pt)")


def typeset(sheet: Sheet, payload: dict[str, Any]) -> bytes:
    """Compile one sheet to PDF bytes; raise ``SheetOverflowError`` when it needs more than one page."""
    import typst

    laid_out = fit(sheet, payload)
    text = json.dumps(laid_out, ensure_ascii=False, sort_keys=True)
    pdf = typst.compile(str(TEMPLATE), font_paths=_font_paths(), sys_inputs={"data": text})
    if _pages(pdf) > 1:  # the measuring pass said it fits: the template sets units taller than it measures them
        raise SheetOverflowError(f"cheat sheet '{sheet.name}' ({sheet.title}) was measured to fit one page but is set on "
                                 f"{_pages(pdf)} (the template's measuring pass and its layout disagree)")
    return pdf


def _pages(pdf: bytes) -> int:
    import io

    from pypdf import PdfReader

    return len(PdfReader(io.BytesIO(pdf)).pages)


@dataclass
class SheetReport:
    """What ``build_sheets`` wrote, and how long it took."""

    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    seconds: float = 0.0


INPUTS_FILE = ".inputs.json"  # digest of what each sheet was typeset from: unchanged sheets are not typeset again


def _digest(payload: dict[str, Any]) -> str:
    layout = TEMPLATE.read_text(encoding="utf-8") + Path(columns.__file__).read_text(encoding="utf-8")
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True) + layout
    return hashlib.sha256(text.encode()).hexdigest()


def build_sheets(book: Book, out_dir: Path, title: str, edition: str, dates: Mapping[str, str], words: Locale,
                 blocks: Mapping[str, Block], frequent: FrequentSheets = (), mirror: Path | None = None) -> SheetReport:
    """Typeset every changed sheet into ``out_dir/<name>.pdf`` (and ``mirror``); write only changed files.

    All sheets are typeset before any is written, so one overflowing sheet leaves the old set in place.
    """
    start = time.monotonic()
    report = SheetReport()
    payloads = {s.name: (s, data(s, title, edition, dates, words, blocks)) for s in plan(book, words, frequent)}
    digests = {name: _digest(payload) for name, (_, payload) in payloads.items()}
    inputs = out_dir / INPUTS_FILE
    before = json.loads(inputs.read_text()) if inputs.is_file() else {}
    pdfs = {
        name: (out_dir / f"{name}.pdf").read_bytes()
        if before.get(name) == digests[name] and (out_dir / f"{name}.pdf").is_file()
        else typeset(sheet, payload)
        for name, (sheet, payload) in payloads.items()
    }
    for target in filter(None, (out_dir, mirror)):
        target.mkdir(parents=True, exist_ok=True)
        for stale in sorted({p.stem for p in target.glob("*.pdf")} - set(pdfs)):
            (target / f"{stale}.pdf").unlink()
        for name, pdf in pdfs.items():
            path = target / f"{name}.pdf"
            if path.is_file() and path.read_bytes() == pdf:
                if target == out_dir:
                    report.unchanged.append(name)
                continue
            tmp = path.with_suffix(".pdf.tmp")
            tmp.write_bytes(pdf)
            tmp.replace(path)
            if target == out_dir:
                report.written.append(name)
    inputs.write_text(json.dumps(digests, sort_keys=True, indent=1) + "\n")
    report.seconds = round(time.monotonic() - start, 2)
    return report
