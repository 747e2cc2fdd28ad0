"""The metadata schema: each field's validator, unknown and missing fields, the topic vocabulary."""

from __future__ import annotations

import pytest
from pages import meta, page
from studyguide import frontmatter, schema
from studyguide.book import DEFAULT_TIERS
from studyguide.schema import Context, Topic

TOPICS = {t: Topic(t, t) for t in ("tensor", "autograd", "precision")}
TIERS = {t.id: t for t in DEFAULT_TIERS}


def validate(**changes: object) -> list[str]:
    text = page(**changes)
    fm, problems = frontmatter.parse(text, "book/1-basics/tensor/q.md")
    assert problems == []
    question, problems = schema.validate(fm, "book/1-basics/tensor/q.md", Context(TOPICS, "basics", "tensor", TIERS), "标题")
    assert (question is None) == bool(problems)
    return [str(p) for p in problems]


def test_valid_metadata_builds_a_question() -> None:
    fm, _ = frontmatter.parse(page(frequent=True), "p.md")
    q, problems = schema.validate(fm, "1-basics/tensor/q.md", Context(TOPICS, "basics", "tensor", TIERS), "标题")
    assert problems == []
    assert (q.id, q.tier, q.topics, q.frequent, q.needs_gpu, q.chapter) == ("q1", "basics", ("tensor",), True, False, "tensor")
    assert q.docname == "1-basics/tensor/q"


def test_unknown_topic_names_the_item_and_suggests() -> None:
    assert validate(topics=["tensor", "precison"]) == [
        "book/1-basics/tensor/q.md:11: studyguide.topics[1]: unknown topic 'precison' (did you mean 'precision'?)"
    ]


def test_unknown_tier_suggests_the_closest() -> None:
    assert validate(tier="basic") == ["book/1-basics/tensor/q.md:8: studyguide.tier: unknown tier 'basic' (did you mean 'basics'?)"]


def test_tier_must_match_folder() -> None:
    [line] = validate(tier="advanced")
    assert line.endswith("studyguide.tier: tier 'advanced' does not match the folder (the file is in 1-basics/: set tier: basics, or move the file)")


def test_first_topic_must_be_the_chapter_folder() -> None:
    [line] = validate(topics=["autograd", "tensor"])
    assert "studyguide.topics[0]: first topic 'autograd' does not match the folder" in line


def test_duplicate_topic() -> None:
    [line] = validate(topics=["tensor", "tensor"])
    assert "studyguide.topics[1]: duplicate topic 'tensor'" in line


@pytest.mark.parametrize("field", [f for f in schema.FIELD_NAMES if f not in schema.OPTIONAL])
def test_every_field_is_required(field: str) -> None:
    [line] = validate(**{field: None})
    assert f": studyguide.{field}: missing field (add '{field}:' — " in line


def test_needs_gpu_is_optional_and_false_by_default() -> None:
    fm, _ = frontmatter.parse(page(needs_gpu=None), "p.md")
    q, problems = schema.validate(fm, "1-basics/tensor/q.md", Context(TOPICS, "basics", "tensor", TIERS), "标题")
    assert problems == [] and q is not None and q.needs_gpu is False


def test_an_english_answer_may_hold_dots_but_not_two_sentences() -> None:
    rule = schema.AnswerRule(200, ".!?", "end it with '.'")
    ctx = Context(TOPICS, None, None, TIERS, rule)
    assert schema._check_answer("Use np.asarray(x) or x.view(), e.g. for float32 data.", ctx) == []
    assert [m for _, m, _ in schema._check_answer("Two sentences. The second one.", ctx)] == ["answer must be exactly one sentence"]


def test_unknown_field_suggests_the_real_name() -> None:
    problems = validate(**{"needs-gpu": True})
    assert any("studyguide.needs-gpu: unknown field (did you mean 'needs_gpu'?)" in p for p in problems)


@pytest.mark.parametrize("answer, message", [
    ("两句话。第二句。", "answer must be exactly one sentence"),
    ("没有句号", "answer must be exactly one sentence"),
    ("长" * 130 + "。", "answer is 131 characters long"),
    ("", "answer must be a non-empty string"),
])
def test_answer_is_one_short_sentence(answer: str, message: str) -> None:
    [line] = validate(answer=answer)
    assert f"studyguide.answer: {message}" in line


@pytest.mark.parametrize("value", ["yes", 1, "true"])
def test_flags_are_booleans(value: object) -> None:
    [line] = validate(frequent=value)
    assert "studyguide.frequent: expected true or false" in line


@pytest.mark.parametrize("value", ["View_Reshape", "a b", "", "x--y"])
def test_ids_are_kebab_case(value: str) -> None:
    [line] = validate(id=value)
    assert "studyguide.id: invalid id" in line


def test_missing_table() -> None:
    fm, _ = frontmatter.parse("---\nfile_format: mystnb\n---\n", "p.md")
    _, problems = schema.validate(fm, "p.md", Context(TOPICS, None, None, TIERS), "")
    assert [str(p) for p in problems] == [
        "p.md:1: studyguide: missing metadata table (add a 'studyguide:' table with: id, tier, topics, frequent, answer, needs_gpu, kind)"
    ]


def test_topic_vocabulary_problems() -> None:
    topics, problems = schema.parse_topics({"tensor": {"label": "张量"}, "Bad Id": {"label": "x"}, "nolabel": {}}, {"Bad Id": 3, "nolabel": 4}, "t.yml")
    assert [t.id for t in topics] == ["tensor"]
    assert [str(p) for p in problems] == [
        "t.yml:3: Bad Id: invalid topic id (use lowercase kebab-case)",
        "t.yml:4: nolabel.label: missing label (add label: the topic's name as printed)",
    ]


def test_shared_sheets_and_reference_blocks_are_validated() -> None:
    data = {
        "tensor": {"label": "张量", "reference": ["dtypes", "strides"]},
        "autograd": {"label": "求导", "sheet": "tensor"},
        "optim": {"label": "优化", "sheet": "autograd"},  # autograd has no sheet of its own
        "precision": {"label": "精度", "sheet": "compile", "reference": ["dtype-table"]},
    }
    topics, problems = schema.parse_topics(data, {"optim": 5, "precision": 7}, "t.yml", frozenset({"dtypes", "broadcasting", "strides"}))
    assert [(t.id, t.sheet, t.reference) for t in topics] == [
        ("tensor", "", ("dtypes", "strides")), ("autograd", "tensor", ()), ("optim", "", ()), ("precision", "", ()),
    ]
    assert [str(p) for p in problems] == [
        "t.yml:5: optim.sheet: cannot share the sheet of 'autograd' (name an earlier topic with its own sheet: tensor)",
        "t.yml:7: precision.sheet: cannot share the sheet of 'compile' (name an earlier topic with its own sheet: tensor, optim)",
        "t.yml:7: precision.reference: unknown reference block(s) dtype-table (use some of: broadcasting, dtypes, strides)",
    ]


def test_meta_helper_is_valid() -> None:
    assert set(meta()) | {"kind"} == set(schema.FIELD_NAMES)  # kind left out: a question


def test_reference_blocks_are_not_checked_when_the_book_names_none() -> None:
    topics, problems = schema.parse_topics({"tensor": {"label": "张量", "reference": ["dtypes"]}}, {}, "t.yml")
    assert problems == [] and topics[0].reference == ("dtypes",)
