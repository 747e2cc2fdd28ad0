"""Each kind of bad input gives exactly one line naming the file, line, field and fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, studyguide

pytestmark = pytest.mark.build  # executes kernels or builds: not in `make unit`

CASES = sorted(p.name for p in (FIXTURES / "bad-pages").iterdir() if p.is_dir() and not p.name.startswith("_"))


@pytest.mark.parametrize("case", CASES)
def test_bad_page_gives_its_exact_one_line_error(case: str, tmp_path: Path) -> None:
    folder = FIXTURES / "bad-pages" / case
    shutil.copytree(FIXTURES / "bad-pages" / "_base", tmp_path, dirs_exist_ok=True)
    shutil.copytree(folder, tmp_path, dirs_exist_ok=True)
    command = (folder / "command.txt").read_text().split() if (folder / "command.txt").exists() else ["check"]
    proc = studyguide(tmp_path, *command, check=False)
    expected = (folder / "expected.txt").read_text(encoding="utf-8")
    assert proc.returncode == 1
    assert proc.stderr == expected
    assert len(expected.splitlines()) == 1 and "Traceback" not in proc.stderr + proc.stdout


def test_the_cases_cover_the_issue_list() -> None:
    assert {"bad-yaml", "unknown-tier", "unknown-topic", "duplicate-id", "missing-field", "raising-cell"} <= set(CASES)


def test_base_book_is_valid(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "bad-pages" / "_base", tmp_path, dirs_exist_ok=True)
    studyguide(tmp_path, "sync")
    assert studyguide(tmp_path, "check").stdout.startswith("ok: 1 questions")


def test_checking_and_executing_named_pages_ignores_other_broken_pages(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "bad-pages" / "_base", tmp_path, dirs_exist_ok=True)
    shutil.copytree(FIXTURES / "bad-pages" / "unknown-topic", tmp_path, dirs_exist_ok=True)
    good = "book/1-basics/tensor/good.md"
    assert studyguide(tmp_path, "check", check=False).returncode == 1
    assert studyguide(tmp_path, "check", good).stdout == "ok: 1 page(s) valid\n"
    (tmp_path / "book/_executed").mkdir()
    other = tmp_path / "book/_executed/someone-elses-page.ipynb"
    other.write_text("{}", encoding="utf-8")
    proc = studyguide(tmp_path, "execute", good, check=False)
    assert proc.stderr == f"{other}: not a valid executed notebook: Notebook could not be converted from version 1 to version 2 because it's missing a key: cells (delete it and run `make execute`)\n"
    other.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', encoding="utf-8")
    studyguide(tmp_path, "execute", good)
    assert (tmp_path / "book/_executed/good.ipynb").is_file()
    assert (tmp_path / "book/_executed/someone-elses-page.ipynb").is_file()  # not pruned by a partial run


def test_new_creates_a_page_that_checks_and_runs(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "bad-pages" / "_base", tmp_path, dirs_exist_ok=True)
    out = studyguide(tmp_path, "new", "fresh-question", "--tier", "intermediate", "--topic", "precision", "--title", "新题？").stdout
    assert out == "created book/2-intermediate/precision/fresh-question.md; fill it in, then run `make`\n"
    page = "book/2-intermediate/precision/fresh-question.md"
    assert studyguide(tmp_path, "check", page).stdout == "ok: 1 page(s) valid\n"
    studyguide(tmp_path, "execute", page)
    assert (tmp_path / "book/_executed/fresh-question.ipynb").is_file()
    bad = studyguide(tmp_path, "new", "other", "--tier", "basics", "--topic", "precison", check=False)
    assert bad.stderr == "studyguide new: --topic: unknown topic 'precison' (did you mean 'precision'?)\n"
