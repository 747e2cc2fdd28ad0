"""The question metadata schema, defined once: the topic vocabulary and the fields (tiers come from the config)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import Problem, did_you_mean
from .frontmatter import FrontMatter

NAMESPACE = "studyguide"
QUESTION, EXERCISE = "question", "exercise"
KINDS = (QUESTION, EXERCISE)  # page kinds: a question, or a 手撕代码 exercise (stub, tests, reference solution)
ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Tier:
    """A difficulty tier: its id, label and source folder (``[[tool.studyguide.tiers]]``, or the locale's)."""

    id: str
    label: str
    folder: str

    @property
    def part(self) -> str:
        """The LaTeX part title."""
        return self.label


@dataclass(frozen=True)
class AnswerRule:
    """What makes an ``answer`` one sentence: its length and the marks that end a sentence (from the locale)."""

    max_chars: int = 120
    sentence_ends: str = "。！？"
    end_hint: str = "end it with '。' and use no other '。！？'"


@dataclass(frozen=True)
class Topic:
    """A topic from the controlled vocabulary (``book/topics.yml``)."""

    id: str
    label: str
    description: str = ""
    sheet: str = ""  # another topic whose cheat sheet this topic shares; empty: its own sheet
    reference: tuple[str, ...] = ()  # reference blocks (refblocks.BLOCKS) printed on the topic's sheet


@dataclass(frozen=True)
class Question:
    """One question page's metadata, validated."""

    id: str
    tier: str
    topics: tuple[str, ...]
    frequent: bool
    answer: str
    needs_gpu: bool
    path: str  # relative to the book folder, POSIX
    title: str = ""  # derived from the page: its level-1 heading
    snippet: str = ""  # derived from the page: the code cell tagged ``cheatsheet``
    prompt: str = ""  # derived from the page: the 题目 section (Markdown; an exercise's without its stub cell)
    kind: str = QUESTION
    stub: str = ""  # derived from an exercise page: the cell labelled ``stub`` (signature, docstring, raise NotImplementedError)
    signature: str = ""  # derived from an exercise page: the stub's ``def`` line(s)

    @property
    def is_exercise(self) -> bool:
        """True for a 手撕代码 exercise page."""
        return self.kind == EXERCISE

    @property
    def sheet_code(self) -> str:
        """The code a cheat sheet prints: an exercise's signature, then the cheat-sheet cell."""
        return "\n".join(p for p in (self.signature, self.snippet) if p) if self.is_exercise else self.snippet

    @property
    def docname(self) -> str:
        """Sphinx document name (path without ``.md``)."""
        return self.path[: -len(".md")]

    @property
    def chapter(self) -> str:
        """The chapter this question sits in: its first topic."""
        return self.topics[0]


@dataclass(frozen=True)
class Context:
    """What a field validator may consult: the vocabulary and where the file lives."""

    topics: Mapping[str, Topic]
    folder_tier: str | None
    folder_topic: str | None
    tiers: Mapping[str, Tier]  # by id
    answer: AnswerRule = AnswerRule()


Issue = tuple[str, str, str]  # (key suffix, message, hint)


def _check_id(value: Any, ctx: Context) -> list[Issue]:
    if not isinstance(value, str) or not ID_RE.match(value):
        return [("", f"invalid id {value!r}", "use lowercase kebab-case, e.g. 'view-vs-reshape'")]
    return []


def _check_tier(value: Any, ctx: Context) -> list[Issue]:
    if not isinstance(value, str):
        return [("", f"expected one tier id, got {value!r}", "write it plain, e.g. tier: basics")]
    if value not in ctx.tiers:
        return [("", f"unknown tier {value!r}", did_you_mean(str(value), ctx.tiers))]
    if ctx.folder_tier and value != ctx.folder_tier:
        folder = ctx.tiers[ctx.folder_tier].folder
        hint = f"the file is in {folder}/: set tier: {ctx.folder_tier}, or move the file"
        return [("", f"tier {value!r} does not match the folder", hint)]
    return []


def _check_topics(value: Any, ctx: Context) -> list[Issue]:
    if not isinstance(value, list) or not value:
        return [("", "topics must be a non-empty list", "e.g. topics: [tensor, autograd]")]
    issues: list[Issue] = []
    for i, topic in enumerate(value):
        if not isinstance(topic, str):
            issues.append((f"[{i}]", f"topic {topic!r} is not a topic id", "write plain ids: topics: [tensor, autograd]"))
        elif topic not in ctx.topics:
            hint = did_you_mean(str(topic), ctx.topics)
            issues.append((f"[{i}]", f"unknown topic {topic!r}", hint))
        elif topic in value[:i]:
            issues.append((f"[{i}]", f"duplicate topic {topic!r}", "list each topic once"))
    if not issues and ctx.folder_topic and value[0] != ctx.folder_topic:
        hint = f"the chapter folder is '{ctx.folder_topic}': list it first, or move the file"
        issues.append(("[0]", f"first topic {value[0]!r} does not match the folder", hint))
    return issues


def _check_bool(value: Any, ctx: Context) -> list[Issue]:
    if not isinstance(value, bool):
        return [("", f"expected true or false, got {value!r}", "write true or false, unquoted")]
    return []


def _check_kind(value: Any, ctx: Context) -> list[Issue]:
    if value not in KINDS:
        return [("", f"unknown page kind {value!r}", f"{did_you_mean(str(value), KINDS)}; leave it out for a question")]
    return []


def _check_answer(value: Any, ctx: Context) -> list[Issue]:
    if not isinstance(value, str) or not value.strip():
        return [("", "answer must be a non-empty string", "write the answer in one sentence")]
    text, rule = value.strip(), ctx.answer
    if len(text) > rule.max_chars:
        hint = f"shorten it to at most {rule.max_chars} characters; details go in the page"
        return [("", f"answer is {len(text)} characters long", hint)]
    if text[-1] not in rule.sentence_ends or _second_sentence(text[:-1], rule.sentence_ends):
        return [("", "answer must be exactly one sentence", rule.end_hint)]
    return []


def _second_sentence(text: str, ends: str) -> bool:
    """True when ``text`` holds a sentence end: a full-width mark anywhere, or ``.!?`` followed by a new sentence."""
    wide = [c for c in ends if ord(c) > 127]
    narrow = [c for c in ends if ord(c) <= 127]
    return any(c in text for c in wide) or bool(narrow and re.search(f"[{re.escape(''.join(narrow))}]\\s+[A-Z]", text))


@dataclass(frozen=True)
class Field:
    """One metadata field: its name, help text and validator."""

    name: str
    help: str
    check: Callable[[Any, Context], list[Issue]]


FIELDS: tuple[Field, ...] = (
    Field("id", "stable kebab-case id; labels, links and deck guids derive from it", _check_id),
    Field("tier", "difficulty tier: one of the tier ids of the book's config", _check_tier),
    Field("topics", "topic ids from book/topics.yml; the first is the chapter", _check_topics),
    Field("frequent", "高频: true when two or more interview collections ask it", _check_bool),
    Field("answer", "the short answer in one sentence, used by cheat sheets", _check_answer),
    Field("needs_gpu", "true when the real output needs a GPU (CPU runs are a fallback); optional, default false", _check_bool),
    Field("kind", "question (default) or exercise: a 手撕代码 page with stub, tests and reference solution cells; optional", _check_kind),
)
FIELD_NAMES = tuple(f.name for f in FIELDS)
OPTIONAL: dict[str, Any] = {"needs_gpu": False, "kind": QUESTION}  # fields a page may leave out, with their value then


def validate(fm: FrontMatter, path: str, ctx: Context, title: str) -> tuple[Question | None, list[Problem]]:
    """Validate the ``studyguide`` table of a page's front matter."""
    raw = fm.data.get(NAMESPACE)
    if not isinstance(raw, dict):
        hint = f"add a '{NAMESPACE}:' table with: " + ", ".join(FIELD_NAMES)
        return None, [Problem(path, fm.line(NAMESPACE), NAMESPACE, "missing metadata table", hint)]
    problems = []
    for key in sorted({str(k) for k in raw} - set(FIELD_NAMES)):
        full = f"{NAMESPACE}.{key}"
        problems.append(Problem(path, fm.line(full), full, "unknown field", did_you_mean(key, FIELD_NAMES)))
    for field in FIELDS:
        full = f"{NAMESPACE}.{field.name}"
        if field.name not in raw and field.name in OPTIONAL:
            continue
        if field.name not in raw:
            hint = f"add '{field.name}:' — {field.help}"
            problems.append(Problem(path, fm.line(NAMESPACE), full, "missing field", hint))
            continue
        for suffix, message, hint in field.check(raw[field.name], ctx):
            problems.append(Problem(path, fm.line(full + suffix), full + suffix, message, hint))
    if problems:
        return None, problems
    question = Question(
        id=raw["id"],
        tier=raw["tier"],
        topics=tuple(raw["topics"]),
        frequent=raw["frequent"],
        answer=raw["answer"].strip(),
        needs_gpu=raw.get("needs_gpu", OPTIONAL["needs_gpu"]),
        kind=raw.get("kind", OPTIONAL["kind"]),
        path=path,
        title=title,
    )
    return question, []


def parse_topics(data: Any, lines: Mapping[str, int], path: str, blocks: frozenset[str] | None = None) -> tuple[list[Topic], list[Problem]]:
    """Build the topic vocabulary from the parsed ``topics.yml`` mapping ``id: {label, description}``."""
    if not isinstance(data, dict) or not data:
        return [], [Problem(path, 1, "topics", "expected a mapping of topic ids", "e.g. tensor: {label: 张量}")]
    topics: list[Topic] = []
    problems: list[Problem] = []
    for key, value in data.items():
        line = lines.get(str(key), 1)
        if not isinstance(key, str) or not ID_RE.match(key):
            problems.append(Problem(path, line, str(key), "invalid topic id", "use lowercase kebab-case"))
            continue
        if not isinstance(value, dict) or not isinstance(value.get("label"), str) or not value["label"]:
            problems.append(Problem(path, line, f"{key}.label", "missing label", "add label: the topic's name as printed"))
            continue
        extra = sorted(set(value) - {"label", "description", "sheet", "reference"})
        for name in extra:
            problems.append(Problem(path, line, f"{key}.{name}", "unknown field", "use label, description, sheet, reference"))
        sheet, sheet_problem = _sheet_field(value.get("sheet", ""), topics, key, line, path)
        reference, ref_problems = _reference_field(value.get("reference", []), key, line, path, blocks)
        problems += [*sheet_problem, *ref_problems]
        topics.append(Topic(key, value["label"], str(value.get("description", "")), sheet, reference))
    return topics, problems


def _sheet_field(value: Any, before: list[Topic], key: str, line: int, path: str) -> tuple[str, list[Problem]]:
    """``sheet``: an earlier topic that has a sheet of its own."""
    own = [t.id for t in before if not t.sheet]
    if value == "" or value in own:
        return str(value), []
    hint = f"name an earlier topic with its own sheet: {', '.join(own) or '(none yet)'}"
    return "", [Problem(path, line, f"{key}.sheet", f"cannot share the sheet of {value!r}", hint)]


def _reference_field(value: Any, key: str, line: int, path: str, blocks: frozenset[str] | None) -> tuple[tuple[str, ...], list[Problem]]:
    """``reference``: a list of reference blocks the book's plugins define (not checked when ``blocks`` is None)."""
    names = value if isinstance(value, list) else [value]
    bad = [str(n) for n in names if blocks is not None and n not in blocks]
    if bad:
        known = ", ".join(sorted(blocks or ())) or "none: name a plugin in [tool.studyguide] plugins"
        return (), [Problem(path, line, f"{key}.reference", f"unknown reference block(s) {', '.join(bad)}", f"use some of: {known}")]
    return tuple(str(n) for n in names), []
