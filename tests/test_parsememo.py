"""Parsed pages are kept between commands: a second load parses nothing, an edit re-parses that page alone."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, copy_project, studyguide
from studyguide import book as book_mod
from studyguide import parsememo
from studyguide.config import load_config
from studyguide.project import Layout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project("minibook", tmp_path / "mini")


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The pages ``parse_page`` really parses, in order."""
    calls: list[str] = []
    real = book_mod.parse_page

    def counting(rel: str, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        calls.append(rel)
        return real(rel, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(book_mod, "parse_page", counting)
    return calls


def load(root: Path, memo: bool = True, **rules: object) -> book_mod.Book:
    layout = Layout(root, load_config(root))
    return book_mod.load_book(root / "book", rules=dataclasses.replace(layout.rules, **rules),
                              memo_file=root / "_build" / "memo.pickle" if memo else None)


def test_a_second_load_parses_no_page_and_gives_the_same_book(project: Path, parsed: list[str]) -> None:
    first = load(project)
    assert len(parsed) == 4
    parsed.clear()
    again = load(project)
    assert parsed == []
    fresh = load(project, memo=False)
    assert again.questions == first.questions == fresh.questions
    assert again.pages == fresh.pages  # outlines and cells, field by field


def test_an_edited_page_alone_is_parsed_again(project: Path, parsed: list[str]) -> None:
    load(project)
    page = project / "book/1-basics/tensor/shape-demo.md"
    page.write_text(page.read_text(encoding="utf-8").replace("## 考点\n\n", "## 考点\n\n改过的一句话。", 1), encoding="utf-8")
    parsed.clear()
    book = load(project)
    assert parsed == ["1-basics/tensor/shape-demo.md"]
    assert any("改过的一句话" in text for _, _, text in book.pages["shape-demo"].outline.pieces)


def test_other_rules_or_other_code_parse_every_page_again(project: Path, parsed: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    load(project)
    parsed.clear()
    load(project, require_proofs=False)
    assert len(parsed) == 4
    parsed.clear()
    monkeypatch.setattr(parsememo, "code_version", lambda: "another version of the code")
    load(project)
    assert len(parsed) == 4


def test_a_damaged_memo_costs_a_full_parse_and_nothing_else(project: Path, parsed: list[str]) -> None:
    memo = project / "_build" / "memo.pickle"
    memo.parent.mkdir(parents=True)
    memo.write_bytes(b"not a pickle")
    assert len(load(project).questions) == 4 and len(parsed) == 4
    parsed.clear()
    load(project)
    assert parsed == []


def test_the_key_does_not_depend_on_the_hash_seed() -> None:
    code = ("from studyguide import book, parsememo\n"
            "rules = book.Rules(blocks=frozenset(f'block{i}' for i in range(50)))\n"
            "print(parsememo.key('a.md', 'text', {}, 'book', rules))")
    keys = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO / "tools")}).stdout
            for seed in ("1", "2", "3")}
    assert len(keys) == 1 and len(keys.pop().strip()) == 64


def test_check_keeps_the_memo_in_the_build_folder_and_reports_a_page_problem_again(project: Path) -> None:
    studyguide(project, "check")
    assert (project / "_build" / ".parsed-pages.pickle").is_file()
    page = project / "book/1-basics/tensor/shape-demo.md"
    page.write_text(page.read_text(encoding="utf-8").replace("## 考点", "## 考 点", 1), encoding="utf-8")
    first, again = (studyguide(project, "check", check=False) for _ in range(2))  # the second from the memo
    assert first.returncode == again.returncode != 0 and "shape-demo.md" in first.stderr
    assert again.stderr == first.stderr


def test_whether_a_page_times_code_is_kept_with_its_parse(project: Path) -> None:
    from studyguide import cells, execute

    shape = project / "book/1-basics/tensor/shape-demo.md"
    text = shape.read_text(encoding="utf-8")
    shape.write_text(text.replace(":label: demo\nimport torch\n", ":label: demo\nimport timeit\nimport torch\n", 1), encoding="utf-8")  # it times code
    book = book_mod.load_book(project / "book", rules=Layout(project, load_config(project)).rules)
    found = {qid: p.timing for qid, p in book.pages.items()}
    assert found == {qid: cells.is_timing([c.source for c in p.cells]) for qid, p in book.pages.items()}
    assert any(found.values()) and not all(found.values())  # one page times code, the others do not
    states = execute.survey(book, project / "book", "book", {})
    assert {s.question.id: s.timing for s in states} == found
