"""Property: any mutation of a real page's front matter or cell options gives a valid page or one-line errors."""

from __future__ import annotations

import re

from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from studyguide.book import decode_sources, parse_book
from studyguide.errors import BookError

PAGES = sorted(p for p in (REPO / "book").glob("[123]-*/*/*.md") if p.name != "index.md")
TOPICS = (REPO / "book/topics.yml").read_bytes()
FIELDS = ["id", "tier", "topics", "frequent", "answer", "needs_gpu", "file_format", "kernelspec", "name"]

yaml_values = st.one_of(
    st.sampled_from(["[basics]", "[[tensor]]", "{a: 1}", "1", "-1.5", "true", "null", "''", "[]", "{}", "[tensor, 3]",
                     "'unterminated", "a: b: c", "!!binary aGk=", "&a [*a]", "*missing", "2026-12-01", "[1, [2, [3]]]"]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12).map(lambda t: t.replace("\n", " ")),
)


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    path = draw(st.sampled_from(PAGES))
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    end = lines.index("---", 1)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["value", "drop", "duplicate", "key", "truncate", "option", "yaml-options", "encoding"]))
        end = lines.index("---", 1) if "---" in lines[1:] else len(lines) - 1
        if kind == "value" and end > 1:
            i = draw(st.integers(1, end - 1))
            key = lines[i].split(":", 1)[0]
            lines[i] = f"{key}: {draw(yaml_values)}"
        elif kind == "drop" and end > 1:
            del lines[draw(st.integers(1, end - 1))]
        elif kind == "duplicate" and end > 1:
            i = draw(st.integers(1, end - 1))
            lines.insert(i, lines[i])
        elif kind == "key" and end > 1:
            i = draw(st.integers(1, end - 1))
            indent = re.match(r"\s*", lines[i]).group(0)
            lines.insert(i, f"{indent}{draw(st.sampled_from(['1', '[a]', '? [x]', 'null', draw(st.sampled_from(FIELDS))]))}: {draw(yaml_values)}")
        elif kind == "truncate":
            cut = draw(st.integers(0, len("\n".join(lines))))
            lines = "\n".join(lines)[:cut].split("\n")
        elif kind == "option":
            opts = [i for i, line in enumerate(lines) if line.startswith(":tags:")] or [0]
            lines[draw(st.sampled_from(opts))] = f":{draw(st.sampled_from(['tags', 'tag', '', 'tags:']))}: {draw(yaml_values)}"
        elif kind == "yaml-options":
            cells = [i for i, line in enumerate(lines) if line.startswith("```{code-cell}")] or [0]
            i = draw(st.sampled_from(cells))
            lines[i + 1:i + 1] = ["---", f"tags: {draw(yaml_values)}", "---"]
    data = "\n".join(lines).encode("utf-8")
    if draw(st.booleans()) and draw(st.booleans()):
        where = draw(st.integers(0, len(data)))
        data = data[:where] + draw(st.sampled_from([b"\xff", b"\xc3", b"\x80\x80", "中文".encode("gbk")])) + data[where:]
    return path.relative_to(REPO / "book").as_posix(), data


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(mutated())
def test_mutated_pages_give_a_book_or_one_line_errors(case: tuple[str, bytes]) -> None:
    rel, data = case
    try:
        parse_book(decode_sources({"topics.yml": TOPICS, rel: data}))
    except BookError as err:
        assert err.problems
        for problem in err.problems:
            line = str(problem)
            assert "\n" not in line and line.startswith(f"book/{rel}:{problem.line}: ") and problem.line >= 1, line
