"""Parsing a whole book from in-memory sources: locations, duplicate ids, page shape, ordering."""

from __future__ import annotations

import pytest
from pages import BODY, TOPICS_YML, page
from studyguide.book import parse_book
from studyguide.errors import BookError


def problems(sources: dict[str, str]) -> list[str]:
    with pytest.raises(BookError) as err:
        parse_book({"topics.yml": TOPICS_YML, **sources})
    return [str(p) for p in err.value.problems]


def test_valid_book_orders_by_tier_then_vocabulary_then_file() -> None:
    book = parse_book({
        "topics.yml": TOPICS_YML,
        "2-intermediate/tensor/a.md": page(id="c", tier="intermediate", ref="a"),
        "1-basics/autograd/a.md": page(id="b", topics=["autograd"], ref="a"),
        "1-basics/tensor/b.md": page(id="a2", ref="a"),
        "1-basics/tensor/a.md": page(id="a", ref="b"),
    })
    assert [q.id for q in book.questions] == ["a", "a2", "b", "c"]
    assert [(t.id, [q.id for q in qs]) for t, qs in book.chapters("basics")] == [("tensor", ["a", "a2"]), ("autograd", ["b"])]
    assert book.chapters("advanced") == []


def test_duplicate_id_points_to_the_first_use() -> None:
    assert problems({"1-basics/tensor/a.md": page(), "1-basics/tensor/b.md": page()}) == [
        "book/1-basics/tensor/b.md:7: studyguide.id: duplicate id 'q1' (already used by book/1-basics/tensor/a.md; ids must be unique)"
    ]


def test_all_problems_are_listed_at_once_sorted_by_file_and_line() -> None:
    found = problems({
        "1-basics/tensor/b.md": page(id="b", tier="basic", frequent="no"),
        "1-basics/tensor/a.md": page(id="a", topics=["tensr"]),
    })
    assert [line.split(": ")[1] for line in found] == ["studyguide.topics[0]", "studyguide.tier", "studyguide.frequent"]
    assert found[0].startswith("book/1-basics/tensor/a.md:")


def test_pages_must_sit_in_a_known_chapter_folder() -> None:
    found = problems({"1-basics/q.md": page(), "1-basics/tensr/q.md": page(id="q2")})
    assert "book/1-basics/q.md:1: path: question pages live in a chapter folder (move it to 1-basics/<topic>/q.md, where <topic> is its first topic)" in found
    assert "book/1-basics/tensr/q.md:1: path: unknown chapter folder 'tensr' (did you mean 'tensor'?)" in found


def test_file_names_are_kebab_case_and_index_is_reserved() -> None:
    found = problems({"1-basics/tensor/Bad_Name.md": page(), "1-basics/tensor/index.md": page(id="q2")})
    assert any("Bad_Name.md:1: path: file name is not kebab-case" in p for p in found)
    assert any("index.md:1: path: index.md is reserved for the generated chapter page" in p for p in found)


def test_page_must_be_a_notebook_with_python3_kernel() -> None:
    text = page().replace("file_format: mystnb\n", "").replace("name: python3", "name: julia")
    found = problems({"1-basics/tensor/q.md": text})
    assert any(": file_format: page is not a notebook (set file_format: mystnb so its code cells execute)" in p for p in found)
    assert any(": kernelspec: kernelspec.name must be python3" in p for p in found)


@pytest.mark.parametrize("edit, expected", [
    (lambda b: b.replace("## 易错点\n\n- 错误说法。{{proof}}`sum`\n\n", ""), "sections: missing section(s) '## 易错点'"),
    (lambda b: b.replace("## 考点", "## 重点"), "sections: missing section(s) '## 考点'"),
    (lambda b: b.replace("## 题目\n\n问法。\n\n## 考点\n\n为什么问。", "## 考点\n\n为什么问。\n\n## 题目\n\n问法。"), "sections: sections are out of order"),
    (lambda b: b.replace("```{{code-cell}} python", "```python"), "详解: no executed code cell"),
    (lambda b: b.replace("```{{index}} torch.Tensor\n```", ""), "index: no {index} entries"),
    (lambda b: b.replace("{{ref}}`{ref}`", "无"), "关联: no cross-reference"),
    (lambda b: b.replace("# 标题", "# 标题\n\n# 第二个标题"), "title: found 2 level-1 headings"),
])
def test_page_shape(edit, expected: str) -> None:
    found = problems({"1-basics/tensor/q.md": page(body=edit(BODY).format(ref="q1"))})
    assert len(found) == 1 and expected in found[0], found


def test_math_must_be_ascii_for_latex() -> None:
    body = BODY.replace("问法。", "问法 $a：b$ 与 `$不是数学$`。\n\n$$\n\\text{{中}}\n$$")
    found = problems({"1-basics/tensor/q.md": page(body=body.format(ref="q1"))})
    assert [p.split(": ", 1)[1] for p in found] == [
        "math: non-ASCII character '：' inside math (formulas are typeset by LaTeX without CJK fonts: move Chinese text and full-width punctuation out of $...$)",
        "math: non-ASCII character '中' inside math (formulas are typeset by LaTeX without CJK fonts: move Chinese text and full-width punctuation out of $...$)",
    ]


def test_code_fences_hide_headings() -> None:
    body = BODY.replace("x = math.fsum([1, 1])", "x = math.fsum([1, 1])\n# 这是注释，不是标题")
    book = parse_book({"topics.yml": TOPICS_YML, "1-basics/tensor/q.md": page(body=body.format(ref="q1"))})
    assert book.questions[0].title == "标题"


def test_missing_vocabulary() -> None:
    with pytest.raises(BookError) as err:
        parse_book({})
    assert str(err.value) == "book/topics.yml:1: topics: topic vocabulary not found (create book/topics.yml)"
