"""Benchmark (``make bench``): build times of a ~150-page book made from the real pages; prints figures."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from . import generate, page, parsememo, safety
from .book import load_book, read_sources
from .config import load_config
from .notebook import STORE_DIR, cache_key, read_page
from .project import Layout
from .schema import Question
from .sphinxext.mathcache import CACHE_DIR as MATH_CACHE


def copy_project(src: Path, dest: Path) -> Path:
    """Copy the project's config, cover, plugins and book (without its generated pages) to ``dest``; the book's folder."""
    config = load_config(src)
    shutil.copy(src / "pyproject.toml", dest / "pyproject.toml")
    for extra_dir in ("_static", *{Path(p).parts[0] for p in config.plugins}):  # the book's cover and plugins
        if (src / extra_dir).is_dir():
            shutil.copytree(src / extra_dir, dest / extra_dir)
    shutil.copytree(src / config.book_dir, dest / config.book_dir)
    book_dir = dest / config.book_dir
    for generated in generate.existing_generated(book_dir):  # made again at build time
        (book_dir / generated).unlink()
    return book_dir


def make_book(src: Path, dest: Path, pages: int) -> int:
    """Copy the project to ``dest`` and replicate its question pages (new ids, same code) up to ``pages``."""
    config = load_config(src)
    book_dir = copy_project(src, dest)
    rules = Layout(dest, config).rules
    questions = load_book(book_dir, rules=rules).questions
    if len(questions) > pages:
        for q in _dropped(book_dir, questions, pages, rules.shape):
            (book_dir / q.path).unlink()
            (book_dir / STORE_DIR / f"{q.id}.ipynb").unlink(missing_ok=True)
        questions = load_book(book_dir, rules=rules).questions
    total, copies = len(questions), 0
    extra: list[str] = []
    while total < pages:
        copies += 1
        for q in questions[: pages - total]:
            topic = f"bench-{len(extra) // 8}"  # copies go to chapters of their own: real cheat sheets stay one page
            text = (book_dir / q.path).read_text(encoding="utf-8")
            text = re.sub(r"^(  id: )(\S+)$", rf"\g<1>\g<2>-copy{copies}", text, count=1, flags=re.M)
            text = re.sub(r"^(  topics: )\[.*\]$", rf"\g<1>[{topic}]", text, count=1, flags=re.M)
            text = re.sub(r"^  frequent: true$", "  frequent: false", text, count=1, flags=re.M)  # the 高频 sheets stay one page
            text = re.sub(r"^(# .*)$", rf"\g<1>（副本 {copies}）", text, count=1, flags=re.M)
            target = book_dir / Path(q.path).parts[0] / topic / f"{Path(q.path).stem}-copy{copies}.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            mark = f"# 基准测试副本 {copies}"  # code of its own: the copy gets its own cache key, like a real page
            target.write_text(_mark_first_cell(text, mark), encoding="utf-8")
            stored = nbformat.read(book_dir / STORE_DIR / f"{q.id}.ipynb", as_version=4)
            stored.cells[0].source += "\n" + mark
            copy = book_dir / STORE_DIR / f"{q.id}-copy{copies}.ipynb"
            nbformat.write(stored, copy)
            if cache_key(read_page(target)) != cache_key(stored):
                raise SystemExit(f"bench: the copy {target} and its stored outputs {copy} have different code")
            extra.append(topic)
        total += min(len(questions), pages - total)
    with open(book_dir / "topics.yml", "a", encoding="utf-8") as vocab:
        for topic in sorted(set(extra)):
            vocab.write(f"{topic}:\n  label: 基准测试副本 {topic[6:]}\n")
    return total


def _dropped(book_dir: Path, questions: tuple[Question, ...], pages: int, shape: page.Shape) -> list[Question]:
    """Questions to remove, last first, so that ``pages`` remain, no kept page links to a removed one and no chapter empties."""
    links = {rel: {safety.role_target(c) for _, name, c in page.parse(text, shape).roles if name in page.REF_ROLES}
             for rel, text in read_sources(book_dir).items() if rel.endswith(".md")}
    kept, dropped = list(questions), list[Question]()
    for q in reversed(questions):
        if len(kept) == pages:
            return dropped
        chapter_left = sum(k.chapter == q.chapter for k in kept) > 1
        linked = any(q.id in targets or q.path in targets for rel, targets in links.items() if rel != q.path)
        if chapter_left and not linked:
            kept.remove(q)
            dropped.append(q)
            links.pop(q.path, None)
    raise SystemExit(f"bench: cannot cut the book to {pages} pages (every other page is linked to or alone in its chapter)")


def _mark_first_cell(text: str, mark: str) -> str:
    """Add ``mark`` as the last line of the page's first code cell."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("```{code-cell}"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i] == "```")
    return "\n".join(lines[:end] + [mark] + lines[end:])


def warm_formulas(src: Path, dest: Path) -> None:
    """Copy the project's rendered formulas (named by their LaTeX) into the copy's build folder: a warm cache, like the outputs'."""
    formulas = Layout(src, load_config(src)).build / MATH_CACHE
    if formulas.is_dir():
        shutil.copytree(formulas, Layout(dest, load_config(dest)).build / MATH_CACHE, dirs_exist_ok=True)


def timed(root: Path, *args: str) -> float:
    """Seconds one ``studyguide`` command takes, in a fresh process as a user would run it."""
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "studyguide.cli", "--root", str(root), *args], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"bench: studyguide {' '.join(args)} failed:\n{proc.stderr}")
    return time.monotonic() - start


def executed(root: Path) -> int:
    """Pages the last execute step ran."""
    return len(json.loads((root / "_build/execute-report.json").read_text())["executed"])


def imported(root: Path) -> int:
    """Stored notebooks the last execute step imported into the cache."""
    return int(json.loads((root / "_build/execute-report.json").read_text())["imported"])


def run(src: Path, pages: int) -> dict[str, float]:
    """Measure every figure of issue #2's benchmark and return them."""
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="studyguide-bench-") as tmp:
        root = Path(tmp)
        figures["pages"] = make_book(src, root, pages)
        figures["warm_cache_import"] = timed(root, "execute", "--frozen")  # imports the store: a warm cache
        figures["notebooks_imported"] = imported(root)
        if figures["notebooks_imported"] != figures["pages"]:
            raise SystemExit(f"bench: {figures['notebooks_imported']:.0f} of {figures['pages']:.0f} stored notebooks were imported")
        build = root / "_build"
        warm_formulas(src, root)
        for fmt in ("sheets", "html", "epub", "pdf"):
            _clean(build)
            before = _count(build / MATH_CACHE)
            figures[f"clean_{fmt}"] = timed(root, "build", "--frozen", fmt)
            if fmt == "html":
                figures["formulas_rendered"] = _count(build / MATH_CACHE) - before
        _clean(build)
        figures["clean_all"] = timed(root, "build", "--frozen")
        figures["noop"] = timed(root, "build")
        figures["cells_executed_second_build"] = executed(root)
        page = next((root / "book").glob("1-basics/*/*.md"))
        text = page.read_text(encoding="utf-8")
        page.write_text(text.replace("## 考点\n\n", "## 考点\n\n（基准测试改动的一句话。）", 1), encoding="utf-8")
        figures["prose_html"] = timed(root, "build", "html")
        figures["cells_executed_prose_edit"] = executed(root)
    return figures


def _count(folder: Path) -> int:
    """Rendered formulas in the formula cache ``folder``."""
    return sum(1 for _ in folder.glob("*.svg")) if folder.is_dir() else 0


def _clean(build: Path) -> None:
    """Remove every output of a build, Sphinx's doctrees and the parsed pages; the caches stay warm (.jupyter_cache, .math_cache
    and .highlight_cache, whose tokens the clean HTML build, the first to highlight, writes)."""
    for stale in ("doctrees", "html", "html-build", "epub", "latex", "cheatsheets"):
        shutil.rmtree(build / stale, ignore_errors=True)
    (build / parsememo.FILE).unlink(missing_ok=True)  # a clean build parses every page
    for made in (*build.glob("*.pdf"), *build.glob("*.epub")):  # a PDF newer than its sources was kept, not rebuilt
        made.unlink()


# (figure, label, target in seconds at the first page count, or None)
ROWS: tuple[tuple[str, str, float | None], ...] = (
    ("pages", "question pages", None),
    ("notebooks_imported", "stored notebooks imported into the cache", None),
    ("warm_cache_import", "import stored outputs into the cache", None),
    ("clean_sheets", "clean build, cheat sheets", None),
    ("clean_html", "clean build, HTML (warm cache)", 60.0),
    ("formulas_rendered", "formulas the clean HTML build rendered (not in the warm cache)", None),
    ("clean_epub", "clean build, EPUB (warm cache)", 20.0),
    ("clean_pdf", "clean build, PDF + self-test + quick review (warm cache)", 120.0),
    ("clean_all", "clean build, all formats (warm cache)", 180.0),
    ("noop", "no-op rebuild, all formats", 8.0),
    ("prose_html", "one-page prose edit, HTML", 8.0),
    ("cells_executed_second_build", "pages executed on the second build", 0.0),
    ("cells_executed_prose_edit", "pages executed after a prose edit", 0.0),
)
STAGES = ("clean_sheets", "clean_html", "clean_epub", "clean_pdf", "clean_all", "noop", "prose_html")
LINEAR = 2.2  # a stage at twice the pages may take at most this many times as long


def report(runs: dict[int, dict[str, float]]) -> tuple[list[str], list[str]]:
    """The table (one column per page count, then the target and, with two counts, the ratio) and what was missed (pure)."""
    counts = sorted(runs)
    first = runs[counts[0]]
    head = ["measure", *[f"{n} pages" for n in counts], "target"] + (["ratio"] if len(counts) > 1 else [])
    rows, missed = [head], []
    for key, label, target in ROWS:
        cells = [label]
        for n in counts:
            value = runs[n][key]
            cells.append(f"{value:.1f} s" if key in STAGES or key == "warm_cache_import" else f"{value:.0f}")
        cells.append("" if target is None else (f"<= {target:.0f} s" if key in STAGES else f"{target:.0f}"))
        if len(counts) > 1:
            ratio = runs[counts[-1]][key] / first[key] if key in STAGES and first[key] else None
            cells.append(f"{ratio:.2f}x" if ratio is not None else "")
            if ratio is not None and ratio > LINEAR * counts[-1] / counts[0] / 2:
                missed.append(f"{key} grows {ratio:.2f}x from {counts[0]} to {counts[-1]} pages (at most {LINEAR * counts[-1] / counts[0] / 2:.1f}x)")
        if target is not None and first[key] > target:
            missed.append(f"{key} {first[key]:.1f} over its target {target:.0f} at {counts[0]} pages")
        rows.append(cells)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))) for r in rows], missed


def main(argv: list[str] | None = None) -> int:
    """Print the benchmark table for each page count side by side; exit 1 when a target is missed."""
    p = argparse.ArgumentParser(prog="python -m studyguide.bench", description=__doc__)
    p.add_argument("--root", type=Path, default=Path.cwd())
    p.add_argument("--pages", type=int, nargs="+", default=[150, 300], help="question pages of each synthetic book (the first is held to the targets)")
    args = p.parse_args(argv)
    runs = {}
    for n in args.pages:
        runs[n] = run(args.root.resolve(), n)
        print(f"bench: {n} pages: " + json.dumps(runs[n]), flush=True)  # kept should a later count fail
    lines, missed = report(runs)
    print("\n".join(lines))
    if missed:
        print("missed: " + "; ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
