"""Front matter: splitting, YAML errors with their line, and a line for every key."""

from studyguide import frontmatter

PAGE = """---
file_format: mystnb
studyguide:
  id: x
  topics:
    - tensor
    - precison
---
# Title
"""


def test_key_lines_cover_nested_keys_and_list_items() -> None:
    fm, problems = frontmatter.parse(PAGE, "p.md")
    assert problems == []
    assert fm.line("file_format") == 2
    assert fm.line("studyguide.id") == 4
    assert fm.line("studyguide.topics[1]") == 7
    assert fm.body_line == 9


def test_unknown_key_falls_back_to_nearest_parent() -> None:
    fm, _ = frontmatter.parse(PAGE, "p.md")
    assert fm.line("studyguide.answer") == 3
    assert fm.line("nothing.at.all") == 1


def test_bad_yaml_reports_its_line() -> None:
    fm, problems = frontmatter.parse("---\na: 1\nb: [1, 2\nc: 3\n---\n", "p.md")
    assert fm is None
    assert len(problems) == 1
    assert problems[0].path == "p.md" and problems[0].key == "front matter"
    assert problems[0].line == 4
    assert problems[0].message.startswith("invalid YAML: ")


def test_missing_or_unterminated_front_matter() -> None:
    for text in ("# no front matter\n", "---\na: 1\n"):
        fm, problems = frontmatter.parse(text, "p.md")
        assert fm is None
        assert str(problems[0]).startswith("p.md:1: front matter: missing or unterminated front matter (")


def test_front_matter_must_be_a_mapping() -> None:
    _, problems = frontmatter.parse("---\n- a\n- b\n---\n", "p.md")
    assert problems[0].message == "not a YAML mapping"
