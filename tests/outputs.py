"""Read built outputs with real tools: pypdf, poppler (pdftotext, pdffonts), epubcheck, the EPUB zip."""

from __future__ import annotations

import re
import subprocess
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

from conftest import require_program
from PIL import Image
from pypdf import PdfReader

CM = 72 / 2.54


def pdf_text(pdf: Path) -> str:
    """All text of the PDF, extracted by pdftotext."""
    return subprocess.run([require_program("pdftotext"), "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


def pdf_fonts(pdf: Path) -> list[dict[str, str]]:
    """pdffonts rows as dicts (name, type, emb, sub, ...)."""
    out = subprocess.run([require_program("pdffonts"), str(pdf)], capture_output=True, text=True, check=True).stdout.splitlines()
    rows = []
    for line in out[2:]:
        parts = line.split()
        # name type [type2] encoding emb sub uni object ID
        rows.append({"name": parts[0], "emb": parts[-5], "sub": parts[-4], "uni": parts[-3]})
    return rows


def font_sizes(pdf: Path, page: int = 0) -> dict[tuple[str, float], int]:
    """How many characters of a page are set in each (font, size in pt), from the PDF's text operators (pypdf)."""
    sizes: dict[tuple[str, float], int] = {}

    def visit(text: str, cm: list[float], tm: list[float], font: dict | None, size: float) -> None:
        if text.strip():
            scale = abs(tm[0] * tm[3] - tm[1] * tm[2]) ** 0.5 * abs(cm[0] * cm[3] - cm[1] * cm[2]) ** 0.5
            key = (str(font.get("/BaseFont", "?")).split("+")[-1] if font else "?", round(size * scale, 2))
            sizes[key] = sizes.get(key, 0) + len(text.strip())
    PdfReader(str(pdf)).pages[page].extract_text(visitor_text=visit)
    return sizes


def outline_titles(pdf: Path) -> list[str]:
    """Bookmark titles, depth first."""
    def walk(items: list) -> list[str]:
        out = []
        for item in items:
            out += walk(item) if isinstance(item, list) else [item.title]
        return out
    return walk(PdfReader(str(pdf)).outline)


def words_outside(pdf: Path, margin: float = 1.5 * CM) -> list[tuple[int, str]]:
    """(page, word) for every word closer than ``margin`` to a page edge: text that ran into the margin."""
    xml = subprocess.run([require_program("pdftotext"), "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    bad = []
    for n, (width, body) in enumerate(re.findall(r'<page width="([\d.]+)" height="[\d.]+">(.*?)</page>', xml, re.S), start=1):
        for x0, x1, word in re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">(.*?)</word>', body):
            if float(x0) < margin or float(x1) > float(width) - margin:
                bad.append((n, word))
    return bad


def ink_outside(pdf: Path, margin: float, dpi: int = 40) -> list[int]:
    """Pages with ink closer than ``margin`` to the left or right page edge, found by rendering them (pdftoppm).

    Stricter than ``words_outside`` where margins are narrow: pdftotext's box of a full-width CJK comma or
    full stop at a line end reaches up to 3 mm past its ink, which sits in the left half of the box.
    """
    band = int(margin / 72 * dpi)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([require_program("pdftoppm"), "-r", str(dpi), "-gray", str(pdf), f"{tmp}/p"], check=True)
        bad = []
        for n, page in enumerate(sorted(Path(tmp).glob("p-*.pgm")), start=1):
            with Image.open(page) as img:
                width, height = img.size
                edges = (img.crop((0, 0, band, height)), img.crop((width - band, 0, width, height)))
                if min(edge.getextrema()[0] for edge in edges) < 128:  # a dark pixel in either band
                    bad.append(n)
    return bad


def link_annotations(pdf: Path) -> int:
    """Number of internal link annotations (clickable cross-references and TOC entries)."""
    count = 0
    for page in PdfReader(str(pdf)).pages:
        for annot in page.get("/Annots") or []:
            obj = annot.get_object()
            if obj.get("/Subtype") == "/Link" and ("/Dest" in obj or "/A" in obj and obj["/A"].get("/S") == "/GoTo"):
                count += 1
    return count


def epubcheck(epub: Path) -> subprocess.CompletedProcess:
    """Run the real epubcheck (through java, which works even without binfmt_misc)."""
    require_program("java")
    return subprocess.run(["java", "-jar", require_program("epubcheck"), str(epub)], capture_output=True, text=True, check=False)


def epub_files(epub: Path) -> dict[str, str]:
    """Text files of the EPUB (xhtml, opf, ncx, css), by name."""
    with zipfile.ZipFile(epub) as z:
        return {n: z.read(n).decode("utf-8") for n in z.namelist() if n.endswith((".xhtml", ".opf", ".ncx", ".css"))}


def opf_metadata(epub: Path) -> dict[str, list[str]]:
    """Dublin Core metadata and meta properties of content.opf."""
    root = ElementTree.fromstring(epub_files(epub)["content.opf"])
    out: dict[str, list[str]] = {}
    for el in root.iter():
        tag = el.tag.split("}")[-1]
        if el.text and el.text.strip():
            out.setdefault(tag, []).append(el.text.strip())
        if tag == "meta" and el.get("name") == "cover":
            out.setdefault("cover", []).append(el.get("content", ""))
        if tag == "item" and "cover-image" in (el.get("properties") or ""):
            out.setdefault("cover-image", []).append(el.get("href", ""))
    return out


def visible_text(html: str) -> str:
    """Text of an HTML page with tags, scripts and styles removed."""
    html = re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def word_boxes(pdf: Path) -> list[tuple[int, float, float, float, float, str]]:
    """(page, xMin, yMin, xMax, yMax, word) of every word, in PDF points, from pdftotext -bbox."""
    xml = subprocess.run([require_program("pdftotext"), "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    out = []
    for n, body in enumerate(re.findall(r'<page width="[\d.]+" height="[\d.]+">(.*?)</page>', xml, re.S), start=1):
        for x0, y0, x1, y1, word in re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">(.*?)</word>', body):
            out.append((n, float(x0), float(y0), float(x1), float(y1), word))
    return out


def grey_page(pdf: Path, page: int, dpi: int = 144) -> Callable[[float, float], int]:
    """The grey level (0 black … 255 white) at a point (in PDF points) of a page rendered by pdftoppm."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([require_program("pdftoppm"), "-f", str(page), "-l", str(page), "-r", str(dpi), "-gray", "-png", str(pdf), f"{tmp}/p"], check=True)
        image = Image.open(next(Path(tmp).glob("p*.png"))).convert("L")
        image.load()
    return lambda x, y: int(image.getpixel((int(x * dpi / 72), int(y * dpi / 72))))


def page_texts(pdf: Path) -> list[str]:
    """The text of each page, in reading layout (pdftotext -layout), page 1 first."""
    out = subprocess.run([require_program("pdftotext"), "-layout", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return out.split("\f")[: len(PdfReader(str(pdf)).pages)]


def print_furniture_problems(pdf: Path, title: str, edition: str, release_word: str, cover_word: str, part_word: str) -> list[str]:
    """What is wrong with the cover, running heads, part openers and '·' of a PDF (empty: nothing).

    The cover names the edition once and is labelled ``cover_word``; headers hold the title alone (no release, no
    ASCII comma); a part opener has no footer; '·' reads U+00B7 in the text layer (not U+30FB) and keeps a space
    on both sides.
    """
    pages, labels = page_texts(pdf), PdfReader(str(pdf)).page_labels
    bad = []
    if labels[0] != cover_word or labels.count("1") != 1:
        bad.append(f"page labels start {labels[:3]}: the cover should be '{cover_word}' and only the text's first page '1'")
    if pages[0].count(edition) != 1:
        bad.append(f"the cover names the edition {pages[0].count(edition)} times")
    heads = [p.strip().splitlines()[0].strip() for p in pages[2:] if p.strip()]
    bad += [f"header '{h}'" for h in sorted(set(heads)) if h.startswith(title) and "," in h][:3]
    if any(release_word in p for p in pages):
        bad.append(f"'{release_word}' is printed")
    for n, p in enumerate(pages, start=1):
        lines = [line.strip() for line in p.splitlines() if line.strip()]
        if lines and lines[0] == part_word and len(lines) <= 3 and any(edition in line for line in lines):
            bad.append(f"part opener on page {n} has a footer")
    text = "".join(pages)
    if "\u30fb" in text:
        bad.append(f"'·' reads U+30FB {text.count(chr(0x30FB))} times")
    glued = re.findall(r"[^\s）」』】》]· |[^\S\n]·\S|[\u4e00-\u9fff]·[\u4e00-\u9fff]", text)
    # a separator lost a space ("lr·λ" is math; a full-width "）" carries its own space)
    if glued:
        bad.append(f"'·' as a separator lost a space {len(glued)} times, e.g. {glued[:3]}")
    return bad
