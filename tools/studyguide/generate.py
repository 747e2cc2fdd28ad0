"""Generate the home page, chapter pages and the environment page from the metadata (pure functions)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import changes, indexes, sheets
from .book import GENERATED_MARK, Book, is_generated
from .config import Config
from .schema import TIERS, Question, Tier, Topic

HEADER = f"% {GENERATED_MARK} from the question front matter — do not edit; run `make sync`\n"
CHANGES_HEADER = f"% {GENERATED_MARK} from the git history of the question pages — do not edit; run `make sync`\n"
FRONT_DOCS = ("preface",)  # hand-written pages listed before the tiers, when present
ENVIRONMENT_DOC = "environment"


def part_title(index: int, tier: Tier) -> str:
    """Caption of a tier in the website navigation, e.g. ``第一部分 入门``."""
    return f"第{'一二三四五六七八九'[index]}部分 {tier.label}"


def chapter_label(tier: Tier, topic: Topic) -> str:
    """Stable label of a chapter page, e.g. ``chapter-basics-tensor``."""
    return f"chapter-{tier.id}-{topic.id}"


def render_root(book: Book, config: Config, front: tuple[str, ...]) -> str:
    """The home page: title, lead, and one toctree for the front pages and one per tier."""
    out = [HEADER, f"# {config.title}\n", "```{only} html", config.description, "```\n"]
    front_entries = [*front, ENVIRONMENT_DOC, changes.CHANGES_DOC]
    out += ["(front-matter)=", "```{toctree}", ":maxdepth: 1", ":caption: 开始之前", "", *front_entries, "```\n"]
    for i, tier in enumerate(TIERS):
        chapters = book.chapters(tier.id)
        if not chapters:
            continue
        entries = [f"{tier.folder}/{topic.id}/index" for topic, _ in chapters]
        out += [f"(part-{tier.id})=", "```{toctree}", ":maxdepth: 2", ":numbered: 2", f":caption: {part_title(i, tier)}", "", *entries, "```\n"]
    if book.questions:  # website only: the PDF has its index, the sheets are PDFs of their own
        out += ["````{only} builder_html", "```{toctree}", ":maxdepth: 1", ":caption: 索引与速查", "",
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


def render_environment() -> str:
    """The page that sums up where the printed outputs were produced."""
    return "\n".join([HEADER, f"({ENVIRONMENT_DOC})=", "# 执行环境\n", "```{studyguide-environment}", "```\n"])


SELFTEST_DIR = "selftest"


def selftest_label(question_id: str) -> str:
    """LaTeX label of a question in the self-test list (the answer links back to it)."""
    return f"sgq:{question_id}"


def render_selftest_root(book: Book, config: Config) -> str:
    """Root of the self-test PDF: tiers of bare questions, each followed by its answers."""
    return "\n".join([
        "---", "orphan: true", "---", HEADER, f"# {config.title} · 自测版\n",
        "```{raw} latex", "\\def\\studyguideselftest{}",
        "\\renewcommand{\\studyguidepart}[1]{\\setcounter{secnumdepth}{1}\\part{#1 · 答案}}", "```\n",
        "```{only} html", "这一页是自测版 PDF 的源文件：每个层级先列出题目，再给出答案。", "```\n",
        "```{studyguide-selftest}", *_selftest_groups(book), "```\n",
    ])


def _selftest_groups(book: Book) -> list[str]:
    lines: list[str] = []
    for tier in TIERS:
        chapters = book.chapters(tier.id)
        if chapters:
            lines += [""] if lines else []
            lines += [f"{SELFTEST_DIR}/{tier.id}", *[f"{tier.folder}/{t.id}/index" for t, _ in chapters]]
    return lines


def render_selftest_tier(i: int, tier: Tier, questions: list[Question]) -> str:
    """The bare questions of one tier, with room to think and a link to each answer."""
    out = ["---", "orphan: true", "---", HEADER, "```{raw} latex",
           f"\\setcounter{{secnumdepth}}{{1}}\\part{{{tier.label} · 自测题}}", "```\n",
           f"(selftest-{tier.id})=", f"# {tier.label}自测题\n",
           "先独立作答，再对照本部分后面的答案。题目标题链接到答案，答案页的“回到自测题”链接回到这里。\n"]
    for n, q in enumerate(questions, start=1):
        target = f"\\detokenize{{{q.docname}:{q.id}}}"
        out += ["```{raw} latex", f"\\phantomsection\\label{{{selftest_label(q.id)}}}", "```\n",
                f"**{n}.** {{ref}}`{q.id}`" + (" · 高频" if q.frequent else "") + "\n", q.prompt + "\n",
                "```{raw} latex", f"\\par\\noindent{{\\small 答案：第~\\ref{{{target}}}~节，第~\\pageref{{{target}}}~页}}\\par\\vspace{{3\\baselineskip}}", "```\n"]
    return "\n".join(out)


QUICK_DIR = "quickreview"


def quick_label(question_id: str) -> str:
    """Label of a question's entry in the quick-review edition."""
    return f"qr-{question_id}"


def render_quick_root(book: Book, config: Config) -> str:
    """Root of the quick-review edition (速览版): one page per tier."""
    tiers = [t.id for t in TIERS if any(q.tier == t.id for q in book.questions)]
    return "\n".join([
        "---", "orphan: true", "---", HEADER, f"# {config.title} · 速览版\n",
        "每道题只留面试前最该复习的部分：一句话答案、先给结论、易错点和速查代码（含真实输出）。"
        "每题末尾注明它在全书中的位置，需要细节时回到全书。\n",
        "```{toctree}", ":hidden:", ":maxdepth: 2", "", *tiers, "```\n",
    ])


def render_quick_tier(tier: Tier, chapters: list[tuple[Topic, list[Question]]]) -> str:
    """One tier of the quick-review edition: chapters by topic, one entry per question."""
    out = ["---", "orphan: true", "---", HEADER, f"(quick-{tier.id})=", f"# {tier.label}\n"]
    for topic, questions in chapters:
        out += [f"## {topic.label}\n"]
        for q in questions:
            out += [f"({quick_label(q.id)})=", f"### {q.title}\n", "```{studyguide-quick} " + q.id, "```\n"]
    return "\n".join(out)


def plan(book: Book, config: Config, front: tuple[str, ...] = (), history: changes.History | None = None) -> dict[str, str]:
    """Every generated file, keyed by its POSIX path in the book folder, sorted; ``history`` feeds 本版更新."""
    files = {"index.md": render_root(book, config, front), f"{ENVIRONMENT_DOC}.md": render_environment(),
             f"{changes.CHANGES_DOC}.md": changes.render(book, history or changes.History(), config.edition, CHANGES_HEADER)}
    for tier in TIERS:
        for i, (topic, questions) in enumerate(book.chapters(tier.id)):
            files[f"{tier.folder}/{topic.id}/index.md"] = render_chapter(tier, topic, questions, i == 0)
    if book.questions:
        files[f"{SELFTEST_DIR}/index.md"] = render_selftest_root(book, config)
        for i, tier in enumerate(TIERS):
            qs = [q for q in book.questions if q.tier == tier.id]
            if qs:
                files[f"{SELFTEST_DIR}/{tier.id}.md"] = render_selftest_tier(i, tier, qs)
                files[f"{QUICK_DIR}/{tier.id}.md"] = render_quick_tier(tier, book.chapters(tier.id))
        files[f"{QUICK_DIR}/index.md"] = render_quick_root(book, config)
        sheet_list = sheets.plan(book)
        names = {s.name for s in sheet_list}
        files[f"{indexes.TOPICS_DIR}/index.md"] = indexes.render_overview(book, HEADER)
        for topic in book.topics:
            if any(topic.id in q.topics for q in book.questions):
                files[f"{indexes.TOPICS_DIR}/{topic.id}.md"] = indexes.render_topic(book, topic, HEADER, sheets.sheet_name(topic) if sheets.sheet_name(topic) in names else None)
        files[f"{indexes.SHEETS_DIR}/index.md"] = indexes.render_sheet_index(sheet_list, HEADER)
        for sheet in sheet_list:
            files[f"{indexes.SHEETS_DIR}/{sheet.name}.md"] = indexes.render_sheet_page(sheet, HEADER)
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
