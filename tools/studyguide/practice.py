"""The practice pack: every exercise's stub and tests, the grading helper and a README, in one deterministic zip.

``<basename>-practice.zip`` holds ``<id>/<module>.py`` (the stub cell), ``<id>/test_<module>.py`` (the tests
cell, after one generated import of the stub's function), ``practice_check.py`` (the helper the book's cells
import, copied unchanged), ``pytest.ini`` and ``conftest.py`` (one line per failing test) and ``README.md``.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from . import exercises
from .book import Book
from .locale import Locale
from .schema import Question

HELPER_FILE = Path(__file__).resolve().parent.parent / f"{exercises.HELPER}.py"
STAMP = (1980, 1, 1, 0, 0, 0)  # every entry's time: the same book gives the same bytes
PYTEST_INI = "[pytest]\naddopts = -q --tb=no -rN -p no:cacheprovider\npythonpath = .\n"
CONFTEST = '''"""One line per failing test: which test, and what it expected."""


def pytest_terminal_summary(terminalreporter):
    for kind in ("failed", "error"):
        for report in terminalreporter.stats.get(kind, []):
            crash = getattr(report.longrepr, "reprcrash", None)
            message = crash.message if crash is not None else str(report.longrepr).strip().splitlines()[-1]
            terminalreporter.write_line(f"{kind.upper()} {report.nodeid}: {message.splitlines()[0]}")
'''


def exercise_list(book: Book) -> list[tuple[Question, exercises.Exercise]]:
    """The book's exercises in reading order, with their role cells."""
    found = []
    for q in book.questions:
        ex = exercises.read(book.pages[q.id].cells) if q.is_exercise else None
        if ex is not None:
            found.append((q, ex))
    return found


def test_file(q: Question, ex: exercises.Exercise, page: str, words: Locale) -> str:
    """``test_<module>.py``: the generated import of the function under test, then the tests cell unchanged."""
    head = f"# {words.t('practice.generated', page=page)}\nfrom {ex.module(q.id)} import {ex.function}  # noqa: F401\n\n"
    return head + ex.tests.source.strip("\n") + "\n"


def readme(book: Book, title: str, words: Locale) -> str:
    """The pack's README: what it holds, and the two commands."""
    found = exercise_list(book)
    install = " ".join([*exercises.requirements([ex for _, ex in found]), "pytest"])
    lines = [f"# {words.t('practice.readme_title', title=title)}", "", words.t("practice.readme_intro"), "",
             words.t("practice.readme_run"), "", "```sh", f"pip install {install}", "pytest", "```", "",
             words.t("practice.readme_one", folder=found[0][0].id if found else "<folder>"), ""]
    lines += [f"- `{q.id}/{ex.module(q.id)}.py` · `{ex.function}` · {q.title}" for q, ex in found]
    return "\n".join(lines) + "\n"


def files(book: Book, title: str, words: Locale, prefix: str = "book") -> dict[str, str]:
    """Every file of the pack by its path in the zip."""
    out = {"README.md": readme(book, title, words), "pytest.ini": PYTEST_INI, "conftest.py": CONFTEST,
           f"{exercises.HELPER}.py": HELPER_FILE.read_text(encoding="utf-8")}
    for q, ex in exercise_list(book):
        module = ex.module(q.id)
        out[f"{q.id}/{module}.py"] = ex.stub.source.strip("\n") + "\n"
        out[f"{q.id}/test_{module}.py"] = test_file(q, ex, f"{prefix}/{q.path}", words)
    return out


def zip_bytes(contents: dict[str, str]) -> bytes:
    """A zip of ``contents`` with sorted entries, fixed times and modes: equal contents, equal bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name in sorted(contents):
            info = zipfile.ZipInfo(name, STAMP)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, contents[name].encode("utf-8"))
    return buffer.getvalue()


def write(book: Book, out: Path, title: str, words: Locale, prefix: str = "book") -> bool:
    """Write the pack to ``out`` when its bytes changed (removed when the book has no exercise); True when written."""
    if not exercise_list(book):
        out.unlink(missing_ok=True)
        return False
    data = zip_bytes(files(book, title, words, prefix))
    if out.is_file() and out.read_bytes() == data:
        return False
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(out)
    return True
