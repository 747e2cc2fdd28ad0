"""The PDF's xelatex passes: the cut build (sphinxext/latexpasses.py) stops after two passes, and its page
references, contents, index, page labels and bookmarks equal those of a full build of the same .tex without it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import fitz
import pytest
from outputs import outline_titles, page_texts
from studyguide import editions, latex
from studyguide.config import load_config
from studyguide.errors import BuildError
from studyguide.sphinxext import latexpasses

LABEL = re.compile(r"\\newlabel\{([^{}]+)\}\{\{[^{}]*\}\{(\d+)\}")


def passes(folder: Path, stem: str) -> int:
    """xelatex passes latexmk ran for ``stem`` (its report)."""
    runs = re.findall(r"^Run number (\d+) of rule 'xelatex'", (folder / f"{stem}{latex.LATEXMK_LOG}").read_text(), re.M)
    return max(map(int, runs))


def full_build(src: Path, dest: Path, stem: str) -> Path:
    """The same .tex without the cut, built from scratch by latexmk: the reference the cut must equal."""
    shutil.copytree(src, dest)
    for aux in dest.glob(f"{stem}.*"):
        if aux.suffix != ".tex":
            aux.unlink()
    tex = dest / f"{stem}.tex"
    text = tex.read_text(encoding="utf-8")
    assert latexpasses.PREAMBLE in text
    tex.write_text(text.replace(latexpasses.PREAMBLE, ""), encoding="utf-8")
    env = {"TEXMFVAR": str(src.parent / "cache-home" / "texmf-var")}
    return latex.finish(dest, stem, latex.start(dest, stem, env))


@pytest.mark.build
def test_the_cut_build_has_the_page_numbers_of_a_full_build(built_minibook: Path, tmp_path: Path) -> None:
    folder = built_minibook / "_build" / "latex"
    stem = load_config(built_minibook).basename
    assert passes(folder, stem) == 2
    full = full_build(folder, tmp_path / "full", stem)
    assert passes(full.parent, stem) == 3
    cut = folder / f"{stem}.pdf"
    labels = [LABEL.findall((f / f"{stem}.aux").read_text(encoding="utf-8")) for f in (folder, full.parent)]
    assert labels[0] == labels[1] and len(labels[0]) > 20
    for suffix in (".toc", ".ind"):
        assert (folder / f"{stem}{suffix}").read_text(encoding="utf-8") == (full.parent / f"{stem}{suffix}").read_text(encoding="utf-8")
    assert page_texts(cut) == page_texts(full)  # "（第 N 页）" and the contents' and index's numbers as printed
    assert any(re.search(r"第\s*\d+\s*页", text) for text in page_texts(cut))
    assert [p.get_label() for p in fitz.open(cut)] == [p.get_label() for p in fitz.open(full)]
    assert {"i", "1"} <= {p.get_label() for p in fitz.open(cut)}
    assert outline_titles(cut) == outline_titles(full)


@pytest.mark.build
def test_an_edition_without_index_entries_takes_two_passes_and_prints_no_index(built_minibook: Path, tmp_path: Path) -> None:
    """Issue #27: the first pass's stand-in index (a heading and a contents line) made the quick review, which has
    no index entries and so an empty .ind, change its contents in the second pass and run a third."""
    folder = built_minibook / "_build" / "latex"
    stem = load_config(built_minibook).basename + editions.QUICK.suffix
    assert passes(folder, stem) == 2 and (folder / f"{stem}.idx").read_text(encoding="utf-8") == ""
    full = full_build(folder, tmp_path / "full", stem)
    cut = folder / f"{stem}.pdf"
    assert page_texts(cut) == page_texts(full) and outline_titles(cut) == outline_titles(full)
    assert (folder / f"{stem}.toc").read_text(encoding="utf-8") == (full.parent / f"{stem}.toc").read_text(encoding="utf-8")
    assert "索引" not in (folder / f"{stem}.toc").read_text(encoding="utf-8")


def test_a_page_reference_left_undefined_after_the_last_pass_fails_the_build(tmp_path: Path) -> None:
    log = tmp_path / "b.log"
    log.write_text("Output written on b.xdv (3 pages).\n", encoding="utf-8")
    assert latex.finish(tmp_path, "b", subprocess.Popen(["true"])) == tmp_path / "b.pdf"
    log.write_text("LaTeX Warning: There were undefined references.\n", encoding="utf-8")
    with pytest.raises(BuildError, match="undefined after its last pass"):
        latex.finish(tmp_path, "b", subprocess.Popen(["true"]))


def test_a_build_after_a_killed_run_starts_from_a_clean_aux(tmp_path: Path) -> None:
    (tmp_path / "k.tex").write_text("\\documentclass{article}\\begin{document}\\section{A}\\label{a}"
                                    "See page \\pageref{a}.\\end{document}\n", encoding="utf-8")
    env = {"TEXMFVAR": str(tmp_path / "texmf-var")}
    assert latex.start(tmp_path, "k", env).wait() == 0  # the build was killed before it read latexmk's result
    aux = tmp_path / "k.aux"
    text = aux.read_text(encoding="utf-8")
    aux.write_text(text[: text.index("\\newlabel{a}") + 15], encoding="utf-8")  # a kill cut it inside a line
    assert latex.finish(tmp_path, "k", latex.start(tmp_path, "k", env)).is_file()
    assert "\\newlabel{a}{{1}{1}" in aux.read_text(encoding="utf-8")
    assert not (tmp_path / f"k{latex.RUNNING}").exists()
