"""The practice pack grades itself: on the stubs every test fails with one line saying what was expected; with the
reference solutions dropped in, all pass. Run against the fixture book and the real book, in a subprocess."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import FIXTURES, REPO, copy_project
from studyguide import build, exercises, practice
from studyguide.book import Book, load_book
from studyguide.project import Layout, open_project

BOOKS = {"minibook": FIXTURES / "minibook", "real": REPO}


def _book(root: Path) -> tuple[Layout, Book]:
    layout = open_project(root)
    return layout, load_book(layout.book, prefix=layout.config.book_dir, rules=layout.rules)


@pytest.fixture(scope="module", params=sorted(BOOKS))
def unpacked(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Book, Path]:
    """A book's pack, written to a zip and unpacked into a fresh folder."""
    layout, book = _book(BOOKS[request.param])
    folder = tmp_path_factory.mktemp(f"pack-{request.param}")
    data = practice.zip_bytes(practice.files(book, layout.config.title, layout.config.locale, layout.config.book_dir))
    (folder / "pack.zip").write_bytes(data)
    with zipfile.ZipFile(folder / "pack.zip") as z:
        z.extractall(folder / "pack")
    return book, folder / "pack"


def _pytest(folder: Path) -> subprocess.CompletedProcess:
    """``pytest`` in the pack's folder, as its README says: nothing of this repository on the path."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", "pytest"], cwd=folder, capture_output=True, text=True, env=env, check=False, timeout=300)


def _tests(book: Book) -> list[tuple[str, str, str]]:
    """(folder, module, test name) of every test the pack holds."""
    out = []
    for q, ex in practice.exercise_list(book):
        names = re.findall(r"^def (test_\w+)\(", ex.tests.source, re.M)
        out += [(q.id, exercises.module_name(q.id), name) for name in names]
    return out


def test_on_the_stubs_every_test_fails_with_one_line_saying_what_was_expected(unpacked: tuple[Book, Path]) -> None:
    book, folder = unpacked
    proc = _pytest(folder)
    failed = [line for line in proc.stdout.splitlines() if line.startswith("FAILED ")]
    wanted = {f"{d}/test_{m}.py::{t}" for d, m, t in _tests(book)}
    assert proc.returncode == 1 and wanted, proc.stdout + proc.stderr
    assert {line.split(": ", 1)[0].removeprefix("FAILED ") for line in failed} == wanted, proc.stdout
    assert len(failed) == len(wanted)  # one line per failure, and nothing but these lines names a test
    for line in failed:
        assert re.search(r": AssertionError: \w+ is not implemented yet: expected a tensor of shape \(.*\), dtype torch\.\w+ \(like .+\)$", line), line
    assert "Traceback" not in proc.stdout and f"{len(wanted)} failed" in proc.stdout


def test_with_the_reference_solutions_dropped_in_every_test_passes(unpacked: tuple[Book, Path], tmp_path: Path) -> None:
    book, folder = unpacked
    solved = tmp_path / "solved"
    subprocess.run(["cp", "-r", str(folder), str(solved)], check=True)
    for q, ex in practice.exercise_list(book):
        (solved / q.id / f"{ex.module(q.id)}.py").write_text(ex.solution.source, encoding="utf-8")
    proc = _pytest(solved)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(_tests(book))} passed" in proc.stdout


def test_the_pack_ships_the_books_own_helper_and_the_two_commands(unpacked: tuple[Book, Path]) -> None:
    _, folder = unpacked
    assert (folder / "practice_check.py").read_bytes() == (REPO / "tools" / "practice_check.py").read_bytes()
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "```sh\npip install torch pytest\npytest\n```" in readme


def test_the_pack_is_deterministic_written_only_when_changed_and_linked(tmp_path: Path) -> None:
    root = copy_project("minibook", tmp_path / "minibook")
    layout, book = _book(root)
    assert layout.practice.name not in dict(layout.downloads_list())
    build.build_practice(layout, book)
    first, stamp = layout.practice.read_bytes(), layout.practice.stat().st_mtime_ns
    build.build_practice(layout, book)
    assert layout.practice.read_bytes() == first and layout.practice.stat().st_mtime_ns == stamp
    assert (layout.downloads / layout.practice.name).read_bytes() == first
    assert dict(layout.downloads_list())[layout.practice.name] == "site.download_practice"
    with zipfile.ZipFile(layout.practice) as z:
        names = z.namelist()
        assert names == sorted(names) and {i.date_time for i in z.infolist()} == {practice.STAMP}
    assert names == ["README.md", "conftest.py", "practice_check.py", "pytest.ini",
                     "relu-from-scratch/relu_from_scratch.py", "relu-from-scratch/test_relu_from_scratch.py"]
