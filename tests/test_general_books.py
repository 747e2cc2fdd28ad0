"""The generator is not the PyTorch book: an English two-tier NumPy book and a book from `studyguide init` build
every format, print no Chinese interface text and no word of torch, and their kernels never import torch."""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path

import nbformat
import pytest
from conftest import copy_project, studyguide
from outputs import pdf_text

pytestmark = pytest.mark.build  # executes kernels or builds: not in `make unit`

CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
TORCH = re.compile(r"torch", re.I)


@pytest.fixture(scope="module")
def built_numpybook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The NumPy book built in every format, with a `torch` that cannot be imported on the kernels' path."""
    root = copy_project("numpybook", tmp_path_factory.mktemp("numpy") / "numpybook")
    trap = root.parent / "no-torch" / "torch"
    trap.mkdir(parents=True)
    (trap / "__init__.py").write_text("raise ImportError('this book must never import torch')\n", encoding="utf-8")
    saved = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(trap.parent), saved) if p)
    try:
        studyguide(root, "build", "all")
    finally:
        os.environ["PYTHONPATH"] = saved
    return root


def texts(root: Path, basename: str) -> dict[str, str]:
    """The text a reader meets, per output: every PDF (cheat sheets too), every EPUB page, every site page."""
    build = root / "_build"
    out = {p.name: pdf_text(p) for p in [*build.glob("*.pdf"), *(build / "cheatsheets").glob("*.pdf")]}
    for epub in build.glob("*.epub"):
        with zipfile.ZipFile(epub) as z:
            out[epub.name] = "".join(z.read(n).decode("utf-8") for n in z.namelist() if n.endswith((".xhtml", ".opf", ".ncx")))
    for page in (build / "html").rglob("*.html"):
        out[str(page.relative_to(build))] = page.read_text(encoding="utf-8")
    assert len([k for k in out if k.endswith(".pdf")]) >= 5 and any(k.endswith(".epub") for k in out), sorted(out)
    return out


def test_the_english_book_prints_no_chinese_and_no_torch(built_numpybook: Path) -> None:
    for name, text in texts(built_numpybook, "numpybook").items():
        assert not CJK.findall(text), (name, sorted(set(CJK.findall(text)))[:10])
        assert not TORCH.findall(text), name


def test_the_english_book_has_its_own_tiers_sections_and_provenance(built_numpybook: Path) -> None:
    book = pdf_text(built_numpybook / "_build/numpybook.pdf")
    for words in ("Core", "Deep dives", "Short answer", "Pitfalls", "Where the outputs ran", "numpy 2."):
        assert words in book, words
    assert not (built_numpybook / "_build/html/3-advanced").exists()  # two tiers only
    for path in (built_numpybook / "book/_executed").glob("*.ipynb"):
        prov = nbformat.read(path, as_version=4).metadata["studyguide"]
        assert "numpy" in prov and "torch" not in prov and prov["device_type"] == "cpu"


def test_the_english_book_passes_its_own_verify(built_numpybook: Path) -> None:
    assert studyguide(built_numpybook, "verify").stdout.startswith("ok: every output of NumPy Interview Questions")


@pytest.mark.parametrize("language, title", [("en", "Pandas Interview Questions"), ("zh", "Go 语言面试题")])
def test_a_new_book_from_init_builds_every_format_and_passes_its_tests(tmp_path: Path, language: str, title: str) -> None:
    out = studyguide(tmp_path, "init", "guide", "--title", title, "--language", language).stdout
    root = tmp_path / "guide"
    assert out.startswith("created ") and (root / "README.md").is_file() and (root / "Makefile").is_file()
    assert "make test" in (root / "README.md").read_text(encoding="utf-8")
    studyguide(root, "build", "all")
    studyguide(root, "verify")
    every = texts(root, "")
    assert not any(TORCH.findall(t) for t in every.values())
    if language == "en":
        assert not [n for n, t in every.items() if CJK.findall(t)]


def test_init_refuses_a_folder_that_is_not_empty_and_an_unknown_language(tmp_path: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("x", encoding="utf-8")
    busy = studyguide(tmp_path, "init", "busy", "--title", "T", check=False)
    assert busy.returncode == 1 and busy.stderr == f"studyguide init: {tmp_path / 'busy'} is not empty (give a new folder)\n"
    french = studyguide(tmp_path, "init", "fr", "--title", "T", "--language", "fr", check=False)
    assert french.stderr == "studyguide init: --language: unknown language 'fr' (choose one of: en, zh)\n"
