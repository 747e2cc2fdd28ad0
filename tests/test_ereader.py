"""The book as e-readers show it: the real EPUB in calibre and in Chromium at a 6-inch viewport, the e-reader PDF."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from conftest import REPO, require_program, studyguide
from outputs import ink_outside, outline_titles, pdf_fonts, pdf_text
from pypdf import PdfReader
from studyguide.book import load_book
from studyguide.config import load_config

pytestmark = pytest.mark.build  # needs the built book (`make test` builds it): not in `make unit`

CONFIG = load_config(REPO)
BUILD = REPO / CONFIG.build_dir
EPUB, EREADER = BUILD / f"{CONFIG.basename}.epub", BUILD / f"{CONFIG.basename}-ereader.pdf"
VIEWPORT = {"width": 600, "height": 800}  # CSS px of a 6-inch e-ink screen
MM = 72 / 25.4
PAGE_MM = (90, 120)  # the e-reader PDF's page
STYLESHEETS = {"studyguide-epub.css", "pygments.css"}
# calibre logs what its CSS parser (css_parser) rejects as "<Class>: <message>", e.g.
# "CSSStyleDeclaration: Syntax Error in Property: color: var(--pst-color-text-muted)".
CSS_WARNING_RE = re.compile(r"^(CSS\w*|Property\w*|Selector\w*|Media\w*|\w*Value|\w*Rule): ", re.M)
# Every element whose content is wider than its box: what a reader that cannot scroll sideways would clip.
OVERFLOW_JS = """() => [...document.querySelectorAll('body, body *')]
  .filter(el => el.clientWidth > 0 && el.scrollWidth > el.clientWidth)
  .map(el => `${el.tagName}.${el.className} ${el.scrollWidth}>${el.clientWidth}: ${el.textContent.trim().slice(0, 60)}`)"""


def _require(path: Path) -> Path:
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `make test` (it builds every format)")
    return path


@pytest.fixture(scope="module")
def epub_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real EPUB, unpacked."""
    out = tmp_path_factory.mktemp("epub")
    with zipfile.ZipFile(_require(EPUB)) as z:
        z.extractall(out)
    return out


# --- EPUB --------------------------------------------------------------------------------------------

def _rule(css: str, selector: str) -> str:
    m = re.search(rf"(?:^|}})\s*{re.escape(selector)}\s*{{([^}}]*)}}", css, re.M)
    assert m, f"no rule for {selector}"
    return m.group(1)


def test_epub_has_one_lean_stylesheet_for_e_readers(epub_dir: Path) -> None:
    css = {p.name: p.read_text(encoding="utf-8") for p in epub_dir.rglob("*.css")}
    assert set(css) == STYLESHEETS
    for name, text in css.items():
        assert "var(" not in text and not re.search(r"--[\w-]+\s*:", text), name  # no CSS variables
    own = css["studyguide-epub.css"]
    sizes = re.findall(r"font-size:\s*([^;}]+)", own)
    assert sizes and all(s.strip().endswith("em") for s in sizes), sizes  # relative sizes only
    assert not re.search(r"font-family|font-size|color", _rule(own, "body"))  # the reader's font and size apply
    assert re.search(r"white-space:\s*pre-wrap", _rule(own, "pre")) and "overflow-wrap: anywhere" in _rule(own, "pre")
    assert "border" in _rule(own, "div.highlight") and "border-left" in _rule(own, "div.cell_output")
    # highlighting survives greyscale: keywords and definitions bold, comments italic
    for token, style in ((".k", "font-weight: bold"), (".kn", "font-weight: bold"), (".nf", "font-weight: bold"), (".c1", "font-style: italic")):
        assert style in _rule(css["pygments.css"], f".highlight {token}"), token


def test_epub_pages_use_only_that_stylesheet_and_label_every_output(epub_dir: Path) -> None:
    pages = sorted(epub_dir.rglob("*.xhtml"))
    outputs = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        links = set(re.findall(r'<link rel="stylesheet" type="text/css" href="(?:\.\./)*_static/([^"]+)"', text))
        assert links <= STYLESHEETS, page
        cells = text.count('<div class="cell_output')
        outputs += cells
        assert len(re.findall(r'<div class="cell_output[^"]*">\s*<p class="studyguide-output-label">输出</p>', text)) == cells, page
    assert outputs > 100


def test_calibre_converts_the_epub_to_azw3_without_css_warnings(tmp_path: Path) -> None:
    out = tmp_path / "book.azw3"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}  # no display needed (EPUB to AZW3 renders nothing)
    proc = subprocess.run([require_program("ebook-convert"), str(_require(EPUB)), str(out)], capture_output=True, text=True, env=env, check=False)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0 and out.stat().st_size > 100_000, log[-3000:]
    assert "Parsing all content" in log  # the log is calibre's conversion log, read in full
    assert CSS_WARNING_RE.findall(log) == [], "\n".join(line for line in log.splitlines() if CSS_WARNING_RE.match(line))


def test_no_element_overflows_sideways_at_a_6_inch_viewport(epub_dir: Path) -> None:
    from playwright.sync_api import sync_playwright
    from test_browser import ARGS

    pages = sorted(epub_dir.rglob("*.xhtml"))
    overflowing: dict[str, list[str]] = {}
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=require_program("chromium"), args=ARGS)
        page = chromium.new_page(viewport=VIEWPORT)
        measured = 0
        for xhtml in pages:
            page.goto(xhtml.as_uri())  # .xhtml: parsed as XML, as e-readers do
            measured += page.locator("pre").count()
            bad = page.evaluate(OVERFLOW_JS)
            if bad:
                overflowing[xhtml.relative_to(epub_dir).as_posix()] = bad
        chromium.close()
    assert len(pages) > 100 and measured > 500  # every page of the book, with its code
    assert overflowing == {}, f"{sum(map(len, overflowing.values()))} overflowing elements: {dict(list(overflowing.items())[:5])}"


# --- The e-reader PDF ----------------------------------------------------------------------------------

def test_ereader_pdf_is_the_whole_book_on_a_6_inch_page() -> None:
    reader = PdfReader(str(_require(EREADER)))
    sizes = {(round(float(p.mediabox.width) / MM), round(float(p.mediabox.height) / MM)) for p in reader.pages}
    assert sizes == {PAGE_MM}
    text = re.sub(r"\s+", "", pdf_text(EREADER))
    book = load_book(REPO / CONFIG.book_dir)
    for q in book.questions:
        assert re.sub(r"\s+", "", q.title) in text, q.id
    assert "输出来源：" in text and "回到自测题" not in text
    assert {"第一部分 入门", "第二部分 中级", "第三部分 高阶", "索引"} <= set(outline_titles(EREADER))
    assert len(reader.pages) > len(PdfReader(str(_require(BUILD / f"{CONFIG.basename}.pdf"))).pages)  # small pages: more of them
    assert all(f["emb"] == "yes" for f in pdf_fonts(EREADER))
    log = (BUILD / "latex" / f"{EREADER.stem}.log").read_text(encoding="utf-8", errors="replace")
    assert "Missing character" not in log
    # margins are 4 mm: no ink goes more than 1 mm into them. (The A4 check, words_outside, cannot be this close:
    # pdftotext's boxes of a line-end CJK comma or of a math glyph reach up to 5 mm past the ink.)
    assert ink_outside(EREADER, margin=3 * MM) == []


@pytest.fixture(scope="module")
def ereader_minibook(built_minibook: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the built mini-book, then `studyguide build ereader html`."""
    root = tmp_path_factory.mktemp("ereader") / "minibook"
    shutil.copytree(built_minibook, root, symlinks=True)
    assert not (root / "_build/minibook-ereader.pdf").exists()
    assert "-ereader.pdf" not in (root / "_build/html/index.html").read_text(encoding="utf-8")  # no link before it exists
    studyguide(root, "build", "ereader", "html")
    return root


def test_ereader_build_makes_the_small_pdf_and_the_site_links_it(ereader_minibook: Path) -> None:
    build = ereader_minibook / "_build"
    pdf = build / "minibook-ereader.pdf"
    page = PdfReader(str(pdf)).pages[0]
    assert (round(float(page.mediabox.width) / MM), round(float(page.mediabox.height) / MM)) == PAGE_MM
    assert "转置之后为什么不连续" in pdf_text(pdf).replace(" ", "")
    assert ink_outside(pdf, margin=3 * MM) == []
    site = (build / "html/1-basics/tensor/shape-demo.html").read_text(encoding="utf-8")
    assert 'href="../../downloads/minibook-ereader.pdf"' in site
    assert (build / "html/downloads/minibook-ereader.pdf").read_bytes() == pdf.read_bytes()
