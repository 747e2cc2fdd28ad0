"""Failed builds keep the last good outputs; missing tools get a one-line install hint; builds repeat exactly."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, REPO, copy_project, studyguide
from outputs import epub_files, pdf_text

pytestmark = pytest.mark.build  # executes kernels or builds: not in `make unit`

SHAPE = "book/1-basics/tensor/shape-demo.md"


def clone_built(built: Path, dest: Path) -> Path:
    shutil.copytree(built, dest, symlinks=True)
    return dest


def test_failed_pdf_build_keeps_the_last_good_pdf(built_minibook: Path, tmp_path: Path) -> None:
    root = clone_built(built_minibook, tmp_path / "mb")
    pdf = root / "_build/minibook.pdf"
    before = pdf.read_bytes()
    page = root / SHAPE
    page.write_text(page.read_text(encoding="utf-8").replace("## 易错点", "```{raw} latex\n\\undefinedmacroxyz\n```\n\n## 易错点"), encoding="utf-8")
    with (root / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write("allow_raw_latex = true\n")  # a trusted author's raw LaTeX, with a typo
    proc = studyguide(root, "build", "pdf", check=False)
    assert proc.returncode == 1
    [line] = proc.stderr.splitlines()
    assert line.startswith(f"{SHAPE}: PDF: xelatex failed: ") and "Undefined control sequence" in line  # the page, not the .tex
    assert "the last good PDF was kept" in line
    assert pdf.read_bytes() == before
    assert (root / "_build/html/downloads/minibook.pdf").read_bytes() == before


def test_failed_epub_build_keeps_the_last_good_epub(built_minibook: Path, tmp_path: Path) -> None:
    root = clone_built(built_minibook, tmp_path / "mb")
    epub = root / "_build/minibook.epub"
    before = epub.read_bytes()
    page = root / SHAPE
    page.write_text(page.read_text(encoding="utf-8").replace("{ref}`grad-demo`", "{ref}`no-such-question`"), encoding="utf-8")
    proc = studyguide(root, "build", "epub", check=False)
    assert proc.returncode == 1
    assert "undefined label: 'no-such-question'" in proc.stderr
    assert proc.stderr.splitlines()[-1] == "epub: Sphinx stopped with the warnings or errors above; the last good output was kept"
    assert epub.read_bytes() == before


def test_missing_tex_and_fonts_name_the_install_command(built_minibook: Path, tmp_path: Path) -> None:
    root = clone_built(built_minibook, tmp_path / "mb")
    empty = tmp_path / "empty-path"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty)}
    proc = subprocess.run([sys.executable, "-m", "studyguide.cli", "--root", str(root), "build", "pdf"], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1
    [line] = proc.stderr.splitlines()
    assert line.startswith("PDF: missing program 'xelatex', program 'latexmk'")
    assert "font 'Noto Serif CJK SC'" in line
    assert "(install with: sudo apt-get install -y " in line and "texlive-xetex" in line and "fonts-noto-cjk" in line


def test_doctor_reports_everything_present() -> None:
    proc = studyguide(REPO, "doctor")
    assert proc.stdout.splitlines() == ["ok: PDF", "ok: EPUB check", "ok: PDF checks", "ok: e-reader checks"]


def test_two_builds_from_the_same_sources_give_the_same_text(built_minibook: Path, tmp_path: Path) -> None:
    again = copy_project("minibook", tmp_path / "again")
    shutil.copytree(built_minibook / "book/_executed", again / "book/_executed")  # same outputs, no re-execution
    studyguide(again, "build", "--frozen")
    assert pdf_text(again / "_build/minibook.pdf") == pdf_text(built_minibook / "_build/minibook.pdf")
    first, second = epub_files(built_minibook / "_build/minibook.epub"), epub_files(again / "_build/minibook.epub")
    assert sorted(first) == sorted(second)
    for name in first:
        if name != "content.opf":  # it carries the build time (dcterms:modified)
            assert first[name] == second[name], name
    for page in sorted((built_minibook / "_build/html").rglob("*.html")):
        rel = page.relative_to(built_minibook / "_build/html")
        assert page.read_text(encoding="utf-8") == (again / "_build/html" / rel).read_text(encoding="utf-8"), rel


def test_missing_glyph_lines_are_found_even_when_the_log_wraps(tmp_path: Path) -> None:
    from studyguide.latex import missing_glyphs

    log = tmp_path / "book.log"
    log.write_text("Missing character: There is no ᵀ (U+1D40) in font Noto Serif CJK SC/OT:script=l\natn;language=dflt;!\n"
                   "Missing character: There is no ★ (U+2605) in font x!\n", encoding="utf-8")
    assert missing_glyphs(log) == ["ᵀ", "★"]


def test_pdf_is_skipped_when_nothing_changed_and_rebuilt_after_a_prose_edit(built_minibook: Path, tmp_path: Path) -> None:
    root = clone_built(built_minibook, tmp_path / "mb")
    pdf = root / "_build/minibook.pdf"
    stamp = pdf.stat().st_mtime_ns
    studyguide(root, "build", "pdf")
    assert pdf.stat().st_mtime_ns == stamp  # nothing changed: the LaTeX builder did not run
    page = root / SHAPE
    page.write_text(page.read_text(encoding="utf-8").replace("stride 的含义。", "stride 的含义，新写的一句。"), encoding="utf-8")
    studyguide(root, "build", "pdf")
    assert "新写的一句" in pdf_text(pdf).replace(" ", "")


def test_epubs_are_skipped_when_nothing_changed_and_rebuilt_after_a_prose_edit(built_minibook: Path, tmp_path: Path) -> None:
    root = clone_built(built_minibook, tmp_path / "mb")
    epubs = sorted((root / "_build").glob("*.epub"))
    stamps = [p.stat().st_mtime_ns for p in epubs]
    assert len(epubs) == 2  # the book and the quick review
    studyguide(root, "build", "epub")
    assert [p.stat().st_mtime_ns for p in epubs] == stamps  # nothing changed: Sphinx did not package them again
    page = root / SHAPE
    page.write_text(page.read_text(encoding="utf-8").replace("stride 的含义。", "stride 的含义，新写的一句。"), encoding="utf-8")
    studyguide(root, "build", "epub")
    assert all(p.stat().st_mtime_ns > s for p, s in zip(epubs, stamps, strict=True))
    assert any("新写的一句" in text for text in epub_files(root / "_build/minibook.epub").values())


def test_failed_html_build_keeps_the_last_good_site(built_minibook: Path, tmp_path: Path) -> None:
    root = clone_built(built_minibook, tmp_path / "mb")
    site = root / "_build/html"
    page_html = site / "1-basics/tensor/shape-demo.html"
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    page = root / SHAPE
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("{ref}`grad-demo`", "{ref}`no-such-question`").replace("## 易错点", "新的一句话。\n\n## 易错点"), encoding="utf-8")
    proc = studyguide(root, "build", "html", check=False)
    assert proc.returncode == 1 and "the last good output was kept" in proc.stderr
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before
    page.write_text(text.replace("## 易错点", "新的一句话。\n\n## 易错点"), encoding="utf-8")
    studyguide(root, "build", "html")
    assert "新的一句话" in page_html.read_text(encoding="utf-8")
    assert (site / "downloads/minibook.pdf").is_file()  # the downloads stay with the promoted site


def test_changing_the_project_config_rebuilds_the_pdfs(built_minibook: Path, tmp_path: Path) -> None:
    root = clone_built(built_minibook, tmp_path / "mb")
    pdf = root / "_build/minibook.pdf"
    assert "迷你测试书" in pdf_text(pdf)
    config = root / "pyproject.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('title = "迷你测试书"', 'title = "改名后的测试书"'), encoding="utf-8")
    studyguide(root, "build", "pdf")
    assert "改名后的测试书" in pdf_text(pdf) and "迷你测试书" not in pdf_text(pdf)


def test_a_nested_book_folder_builds_with_the_project_config(tmp_path: Path) -> None:
    root = copy_project("minibook", tmp_path / "mb")
    (root / "content").mkdir()
    shutil.move(root / "book", root / "content/book")
    config = root / "pyproject.toml"
    config.write_text(config.read_text(encoding="utf-8") + 'book_dir = "content/book"\n', encoding="utf-8")
    studyguide(root, "build", "html")
    index = (root / "_build/html/index.html").read_text(encoding="utf-8")
    assert "迷你测试书" in index
    assert (root / "_build/.jupyter_cache").is_dir() and not (root / "content/_build").exists()


def test_control_characters_in_outputs_are_dropped_so_every_format_can_print_them(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "bad-pages" / "_base", tmp_path, dirs_exist_ok=True)
    page = tmp_path / "book/1-basics/tensor/good.md"
    page.write_text(page.read_text(encoding="utf-8").replace("assert x == 2\n", "assert x == 2\nprint('a\\x00b\\x07c\\x1b[1md\\te')\n", 1), encoding="utf-8")
    studyguide(tmp_path, "execute")
    stored = (tmp_path / "book/_executed/good.ipynb").read_text(encoding="utf-8")
    assert "abc\\u001b[1md\\te" in stored and "\\u0000" not in stored and "\\u0007" not in stored  # colours and tabs stay


@pytest.mark.build  # runs xelatex once
def test_check_names_characters_the_pdf_cannot_print_where_the_pdf_sets_them(tmp_path: Path) -> None:
    import nbformat

    root = copy_project("minibook", tmp_path / "mini")
    page = root / "book/1-basics/tensor/shape-demo.md"
    text = page.read_text(encoding="utf-8")
    # xeCJK sets U+2194 in the Latin serif, which lacks it, although Noto CJK has it; the mono font has it and ∝
    text = text.replace("二维张量的 stride", "CPU↔CUDA 与 `k∝ᵀ` 不同。\n\n二维张量的 stride", 1)
    text = text.replace("m = torch.arange(6)", "m = torch.arange(6)  # ∝ L²", 1)
    page.write_text(text, encoding="utf-8")
    line = text.splitlines().index("CPU↔CUDA 与 `k∝ᵀ` 不同。") + 1
    store = root / "book/_executed/shape-demo.ipynb"  # what the first cell printed: in the mono font, which lacks 🙂
    store.parent.mkdir(exist_ok=True)
    printed = nbformat.v4.new_code_cell("print()", outputs=[nbformat.v4.new_output("stream", name="stdout", text="🙂\n")])
    nbformat.write(nbformat.v4.new_notebook(cells=[printed]), store)
    proc = studyguide(root, "check", check=False)
    code_line = text.splitlines().index(":label: demo") + 2  # the cell's first line of code
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        f"book/1-basics/tensor/shape-demo.md:{line}: glyph: the PDF's fonts cannot print '↔' (U+2194) (write it another way (a word, or a character the fonts have))",
        f"book/1-basics/tensor/shape-demo.md:{code_line}: glyph: the PDF's fonts cannot print '🙂' (U+1F642) (write it another way (a word, or a character the fonts have))",
    ], proc.stderr


def _latex_processes(folder: Path) -> list[str]:
    """Processes (latexmk, xelatex) whose working folder is ``folder``."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if Path(os.readlink(proc / "cwd")) == folder:
                found.append((proc / "comm").read_text().strip())
        except OSError:
            continue
    return found


def test_the_pdfs_typeset_while_the_site_builds_and_stop_when_it_fails(built_minibook: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from studyguide import build
    from studyguide.book import load_book
    from studyguide.errors import BuildError
    from studyguide.project import open_project

    root = clone_built(built_minibook, tmp_path / "mb")
    page = root / SHAPE
    page.write_text(page.read_text(encoding="utf-8").replace("stride 的含义。", "stride 的含义，新写的一句。"), encoding="utf-8")
    pdf, folder = root / "_build/minibook.pdf", (root / "_build/latex").resolve()
    before = pdf.read_bytes()
    seen = []

    def failing_html(*args: object, **kwargs: object) -> Path:
        seen.append(_latex_processes(folder))
        raise BuildError("html: a failure of the test")

    monkeypatch.setattr(build, "build_html", failing_html)
    layout = open_project(root)
    book = load_book(layout.book, prefix=layout.config.book_dir, rules=layout.rules)
    with pytest.raises(BuildError, match="a failure of the test"):
        build.build(layout, book, ("html", "pdf"))
    assert seen and "latexmk" in seen[0]  # xelatex was already at work while the site was being built
    assert _latex_processes(folder) == []  # the failure stopped it
    assert pdf.read_bytes() == before  # and nothing half-done was promoted
    assert "新写的一句" in pdf_text(build.build_pdf(layout, book)).replace(" ", "")  # the next build starts clean


def test_the_site_is_published_only_when_the_pdfs_it_links_are_built(built_minibook: Path, tmp_path: Path) -> None:
    root = clone_built(built_minibook, tmp_path / "mb")
    site = root / "_build/html/1-basics/tensor/shape-demo.html"
    before = site.read_bytes()
    page = root / SHAPE
    text = page.read_text(encoding="utf-8").replace("stride 的含义。", "stride 的含义，新写的一句。")
    page.write_text(text.replace("## 易错点", "```{raw} latex\n\\undefinedmacroxyz\n```\n\n## 易错点"), encoding="utf-8")
    with (root / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write("allow_raw_latex = true\n")
    proc = studyguide(root, "build", "html", "pdf", check=False)
    assert proc.returncode == 1 and "Undefined control sequence" in proc.stderr
    assert site.read_bytes() == before  # the site built, but the PDF it links failed: the last good site stays
    page.write_text(text, encoding="utf-8")
    studyguide(root, "build", "html", "pdf")
    assert "新写的一句" in site.read_text(encoding="utf-8")


def test_a_pdf_is_rebuilt_when_the_doctrees_are_gone(built_minibook: Path, tmp_path: Path) -> None:
    root = clone_built(built_minibook, tmp_path / "mb")
    pdf = root / "_build/minibook.pdf"
    stamp = pdf.stat().st_mtime_ns
    shutil.rmtree(root / "_build/doctrees")  # the next Sphinx run writes them anew, newer than the PDF
    studyguide(root, "build", "pdf")
    assert pdf.stat().st_mtime_ns != stamp
    stamp = pdf.stat().st_mtime_ns
    studyguide(root, "build", "pdf")
    assert pdf.stat().st_mtime_ns == stamp  # and then a rebuild is a no-op again
