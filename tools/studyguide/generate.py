"""Generate the home page, chapter pages and the environment page from the metadata (pure functions)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import changes, indexes, sheets
from .book import GENERATED_MARK, Book, is_generated
from .config import Config
from .locale import Locale
from .schema import Question, Tier, Topic

HEADER = f"% {GENERATED_MARK} from the question front matter — do not edit; run `make sync`\n"
CHANGES_HEADER = f"% {GENERATED_MARK} from the git history of the question pages — do not edit; run `make sync`\n"
FRONT_DOCS = ("preface",)  # hand-written pages listed before the tiers, when present
ENVIRONMENT_DOC = "environment"


def part_title(index: int, tier: Tier, words: Locale) -> str:
    """Caption of a tier in the website navigation, e.g. ``第一部分 入门``."""
    return words.part(index, tier.label)


def chapter_label(tier: Tier, topic: Topic) -> str:
    """Stable label of a chapter page, e.g. ``chapter-basics-tensor``."""
    return f"chapter-{tier.id}-{topic.id}"


def render_root(book: Book, config: Config, front: tuple[str, ...]) -> str:
    """The home page: title, lead, and one toctree for the front pages and one per tier."""
    words = config.locale
    out = [HEADER, f"# {config.title}\n", "```{only} html", config.description, "```\n"]
    front_entries = [*front, ENVIRONMENT_DOC, changes.CHANGES_DOC]
    out += ["(front-matter)=", "```{toctree}", ":maxdepth: 1", f":caption: {words.t('home.front_caption')}", "", *front_entries, "```\n"]
    for i, tier in enumerate(book.tiers):
        chapters = book.chapters(tier.id)
        if not chapters:
            continue
        entries = [f"{tier.folder}/{topic.id}/index" for topic, _ in chapters]
        out += [f"(part-{tier.id})=", "```{toctree}", ":maxdepth: 2", ":numbered: 2", f":caption: {part_title(i, tier, words)}", "", *entries, "```\n"]
    if book.questions:  # website only: the PDF has its index, the sheets are PDFs of their own
        out += ["````{only} builder_html", "```{toctree}", ":maxdepth: 1", f":caption: {words.t('home.indexes_caption')}", "",
                f"{indexes.TOPICS_DIR}/index", f"{indexes.SHEETS_DIR}/index", "```", "````\n"]
    return "\n".join(out)


def render_chapter(tier: Tier, topic: Topic, questions: list[Question], opens_part: bool) -> str:
    """A chapter page: the topic in one tier, listing its questions in file-name order."""
    out = [HEADER]
    if opens_part:
        out += ["```{raw} latex", f"\\studyguidepart{{{tier.part}}}", "```\n"]
    out += [f"({chapter_label(tier, topic)})=", f"# {topic.label}\n"]
    if topic.description:
        out += [topic.description + "\n"]
    entries = [q.path.rsplit("/", 1)[-1][: -len(".md")] for q in questions]
    out += ["```{toctree}", ":maxdepth: 1", "", *entries, "```\n"]
    return "\n".join(out)


def render_environment(words: Locale) -> str:
    """The page that sums up where the printed outputs were produced."""
    return "\n".join([HEADER, f"({ENVIRONMENT_DOC})=", f"# {words.t('environment.title')}\n", "```{studyguide-environment}", "```\n"])


SELFTEST_DIR = "selftest"
WRITE_BOX = "\\par\\noindent\\fbox{\\parbox[t][14\\baselineskip]{\\dimexpr\\linewidth-2\\fboxsep-2\\fboxrule\\relax}{~}}\\par"  # an exercise's room to write


def selftest_label(question_id: str) -> str:
    """LaTeX label of a question in the self-test list (the answer links back to it)."""
    return f"sgq:{question_id}"


def render_selftest_root(book: Book, config: Config) -> str:
    """Root of the self-test PDF: tiers of bare questions, each followed by its answers."""
    words = config.locale
    return "\n".join([
        "---", "orphan: true", "nosearch: true", "---", HEADER, f"# {words.t('selftest.title', title=config.title)}\n",
        "```{raw} latex", "\\def\\studyguideselftest{}",
        "\\renewcommand{\\studyguidepart}[1]{\\studyguideopenpart{" + words.t("selftest.answers_part", label="#1") + "}}", "```\n",
        "```{only} html", words.t("selftest.html_note"), "```\n",
        "```{studyguide-selftest}", *_selftest_groups(book), "```\n",
    ])


def _selftest_groups(book: Book) -> list[str]:
    lines: list[str] = []
    for tier in book.tiers:
        chapters = book.chapters(tier.id)
        if chapters:
            lines += [""] if lines else []
            lines += [f"{SELFTEST_DIR}/{tier.id}", *[f"{tier.folder}/{t.id}/index" for t, _ in chapters]]
    return lines


def render_selftest_tier(i: int, tier: Tier, questions: list[Question], words: Locale) -> str:
    """The bare questions of one tier, with room to think and a link to each answer."""
    out = ["---", "orphan: true", "nosearch: true", "---", HEADER, "```{raw} latex",
           f"\\studyguideopenpart{{{words.t('selftest.questions_part', label=tier.label)}}}", "```\n",
           f"(selftest-{tier.id})=", f"# {words.t('selftest.heading', label=tier.label)}\n", words.t("selftest.intro") + "\n"]
    frequent = f" · {words.t('frequent')}"
    for n, q in enumerate(questions, start=1):
        target = f"\\detokenize{{{q.docname}:{q.id}}}"
        answer_at = words.t("selftest.answer_at", section=f"\\ref{{{target}}}", page=f"\\pageref{{{target}}}")
        out += ["```{raw} latex", f"\\phantomsection\\label{{{selftest_label(q.id)}}}", "```\n",
                f"**{n}.** {{ref}}`{q.id}`" + (frequent if q.frequent else "") + "\n", q.prompt + "\n"]
        if q.is_exercise:  # the task and the stub, never the solution, and room to write the implementation
            out += ["```python", q.stub, "```\n", words.t("selftest.write_here") + "\n", "```{raw} latex", WRITE_BOX, "```\n"]
        out += ["```{raw} latex", f"\\par\\noindent{{\\small {answer_at}}}\\par\\vspace{{3\\baselineskip}}", "```\n"]
    return "\n".join(out)


QUICK_DIR = "quickreview"
MARKDOWN_SPECIAL = re.compile(r"[\\`*_\[\]<>#$]")


def quick_label(question_id: str) -> str:
    """Label of a question's entry in the quick-review edition."""
    return f"qr-{question_id}"


def render_quick_root(book: Book, config: Config) -> str:
    """Root of the quick-review edition (速览版): one page per tier."""
    tiers = [t.id for t in book.tiers if any(q.tier == t.id for q in book.questions)]
    words = config.locale
    return "\n".join([
        "---", "orphan: true", "nosearch: true", "---", HEADER, f"# {words.t('quick.title', title=config.title)}\n", words.t("quick.intro") + "\n",
        "```{raw} latex", "\\bookmarksetup{depth=2}% every question is a bookmark, not only its chapter", "```\n",
        "```{toctree}", ":hidden:", ":maxdepth: 2", "", *tiers, "```\n",
    ])


def render_quick_tier(tier: Tier, chapters: list[tuple[Topic, list[Question]]], words: Locale) -> str:
    """One tier of the quick-review edition: chapters by topic, one entry per question, frequent ones marked."""
    out = ["---", "orphan: true", "nosearch: true", "---", HEADER, f"(quick-{tier.id})=", f"# {tier.label}\n"]
    for topic, questions in chapters:
        out += [f"## {topic.label}\n"]
        for q in questions:
            plain = MARKDOWN_SPECIAL.sub(r"\\\g<0>", q.title)  # the title is plain text: __init__ must not turn bold
            title = words.t("quick.frequent_title", title=plain) if q.frequent else plain
            out += [f"({quick_label(q.id)})=", f"### {title}\n", "```{studyguide-quick} " + q.id, "```\n"]
    return "\n".join(out)


def plan(book: Book, config: Config, front: tuple[str, ...] = (), history: changes.History | None = None) -> dict[str, str]:
    """Every generated file, keyed by its POSIX path in the book folder, sorted; ``history`` feeds 本版更新."""
    words = config.locale
    files = {"index.md": render_root(book, config, front), f"{ENVIRONMENT_DOC}.md": render_environment(words),
             f"{changes.CHANGES_DOC}.md": changes.render(book, history or changes.History(), config.edition_text, CHANGES_HEADER, words)}
    for tier in book.tiers:
        for i, (topic, questions) in enumerate(book.chapters(tier.id)):
            files[f"{tier.folder}/{topic.id}/index.md"] = render_chapter(tier, topic, questions, i == 0)
    if book.questions:
        files[f"{SELFTEST_DIR}/index.md"] = render_selftest_root(book, config)
        for i, tier in enumerate(book.tiers):
            qs = [q for q in book.questions if q.tier == tier.id]
            if qs:
                files[f"{SELFTEST_DIR}/{tier.id}.md"] = render_selftest_tier(i, tier, qs, words)
                files[f"{QUICK_DIR}/{tier.id}.md"] = render_quick_tier(tier, book.chapters(tier.id), words)
        files[f"{QUICK_DIR}/index.md"] = render_quick_root(book, config)
        sheet_list = sheets.plan(book, words, sheets.frequent_groups(config))
        names = {s.name for s in sheet_list}
        files[f"{indexes.TOPICS_DIR}/index.md"] = indexes.render_overview(book, HEADER, words)
        for topic in book.topics:
            if any(topic.id in q.topics for q in book.questions):
                files[f"{indexes.TOPICS_DIR}/{topic.id}.md"] = indexes.render_topic(book, topic, HEADER, sheets.sheet_name(topic) if sheets.sheet_name(topic) in names else None, words)
        files[f"{indexes.SHEETS_DIR}/index.md"] = indexes.render_sheet_index(sheet_list, HEADER, words)
        for sheet in sheet_list:
            files[f"{indexes.SHEETS_DIR}/{sheet.name}.md"] = indexes.render_sheet_page(sheet, HEADER, words)
    return dict(sorted(files.items()))


@dataclass
class SyncReport:
    """What ``sync`` did (or, in check mode, would do)."""

    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """True when any file was (or would be) written or removed."""
        return bool(self.created or self.updated or self.removed)

    def problems(self, prefix: str) -> list[str]:
        """One line per file that check mode finds out of date."""
        why = {"created": "is missing", "updated": "is stale or was edited by hand", "removed": "is no longer produced"}
        return [f"{prefix}/{rel}: generated file {why[kind]} (run `make sync`)"
                for kind in why for rel in getattr(self, kind)]


def existing_generated(book_dir: Path) -> dict[str, str]:
    """Generated files now on disk (those whose first line carries the mark)."""
    found = {}
    for path in sorted(book_dir.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        if is_generated(text):
            found[path.relative_to(book_dir).as_posix()] = text
    return found


def sync(book_dir: Path, files: Mapping[str, str], check: bool = False) -> SyncReport:
    """Write changed files only, remove stale generated ones; with ``check`` touch nothing."""
    report = SyncReport()
    on_disk = existing_generated(book_dir)
    for rel, content in files.items():
        path = book_dir / rel
        exists = path.is_file()
        if exists and path.read_text(encoding="utf-8") == content:
            continue
        (report.updated if exists else report.created).append(rel)
        if not check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
    for rel in sorted(set(on_disk) - set(files)):
        report.removed.append(rel)
        if not check:
            (book_dir / rel).unlink()
    return report
