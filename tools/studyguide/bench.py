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

from . import generate
from .book import load_book
from .config import load_config
from .notebook import STORE_DIR, cache_key, read_page
from .project import Layout

TARGETS = {"noop": 15.0, "prose_html": 10.0, "clean_all": 180.0}


def make_book(src: Path, dest: Path, pages: int) -> int:
    """Copy the project to ``dest`` and replicate its question pages (new ids, same code) up to ``pages``."""
    config = load_config(src)
    shutil.copy(src / "pyproject.toml", dest / "pyproject.toml")
    for extra_dir in ("_static", *{Path(p).parts[0] for p in config.plugins}):  # the book's cover and plugins
        if (src / extra_dir).is_dir():
            shutil.copytree(src / extra_dir, dest / extra_dir)
    shutil.copytree(src / config.book_dir, dest / config.book_dir)
    book_dir = dest / config.book_dir
    for generated in generate.existing_generated(book_dir):  # made again at build time
        (book_dir / generated).unlink()
    questions = load_book(book_dir, rules=Layout(dest, config).rules).questions
    total, copies = len(questions), 0
    extra: list[str] = []
    while total < pages:
        copies += 1
        for q in questions[: pages - total]:
            topic = f"bench-{len(extra) // 8}"  # copies go to chapters of their own: real cheat sheets stay one page
            text = (book_dir / q.path).read_text(encoding="utf-8")
            text = re.sub(r"^(  id: )(\S+)$", rf"\g<1>\g<2>-copy{copies}", text, count=1, flags=re.M)
            text = re.sub(r"^(  topics: )\[.*\]$", rf"\g<1>[{topic}]", text, count=1, flags=re.M)
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


def _mark_first_cell(text: str, mark: str) -> str:
    """Add ``mark`` as the last line of the page's first code cell."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("```{code-cell}"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i] == "```")
    return "\n".join(lines[:end] + [mark] + lines[end:])


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
        outputs = ("doctrees", "html", "html-build", "epub", "latex", "cheatsheets")  # the caches (.jupyter_cache, .math_cache) stay warm
        for fmt in ("sheets", "html", "epub", "pdf"):
            for stale in outputs:
                shutil.rmtree(build / stale, ignore_errors=True)
            figures[f"clean_{fmt}"] = timed(root, "build", "--frozen", fmt)
        for stale in outputs:
            shutil.rmtree(build / stale, ignore_errors=True)
        figures["clean_all"] = timed(root, "build", "--frozen")
        figures["noop"] = timed(root, "build")
        figures["cells_executed_second_build"] = executed(root)
        page = next((root / "book").glob("1-basics/*/*.md"))
        text = page.read_text(encoding="utf-8")
        page.write_text(text.replace("## 考点\n\n", "## 考点\n\n（基准测试改动的一句话。）", 1), encoding="utf-8")
        figures["prose_html"] = timed(root, "build", "html")
        figures["cells_executed_prose_edit"] = executed(root)
    return figures


def main(argv: list[str] | None = None) -> int:
    """Print the benchmark table; exit 1 when a target is missed."""
    p = argparse.ArgumentParser(prog="python -m studyguide.bench", description=__doc__)
    p.add_argument("--root", type=Path, default=Path.cwd())
    p.add_argument("--pages", type=int, default=150, help="question pages in the synthetic book")
    args = p.parse_args(argv)
    f = run(args.root.resolve(), args.pages)
    rows = [
        ("question pages", f"{f['pages']:.0f}", ""),
        ("stored notebooks imported into the cache", f"{f['notebooks_imported']:.0f}", "= pages"),
        ("import stored outputs into the cache", f"{f['warm_cache_import']:.1f} s", ""),
        ("clean build, cheat sheets", f"{f['clean_sheets']:.1f} s", ""),
        ("clean build, HTML (warm cache)", f"{f['clean_html']:.1f} s", ""),
        ("clean build, EPUB (warm cache)", f"{f['clean_epub']:.1f} s", ""),
        ("clean build, PDF + self-test PDF (warm cache)", f"{f['clean_pdf']:.1f} s", ""),
        ("clean build, all formats (warm cache)", f"{f['clean_all']:.1f} s", f"<= {TARGETS['clean_all']:.0f} s"),
        ("no-op rebuild, all formats", f"{f['noop']:.1f} s", f"<= {TARGETS['noop']:.0f} s"),
        ("one-page prose edit, HTML", f"{f['prose_html']:.1f} s", f"<= {TARGETS['prose_html']:.0f} s"),
        ("pages executed on the second build", f"{f['cells_executed_second_build']:.0f}", "0"),
        ("pages executed after a prose edit", f"{f['cells_executed_prose_edit']:.0f}", "0"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':{width}}  {'figure':>9}  target")
    for name, value, target in rows:
        print(f"{name:{width}}  {value:>9}  {target}")
    missed = [k for k, limit in TARGETS.items() if f[k] > limit]
    missed += [k for k in ("cells_executed_second_build", "cells_executed_prose_edit") if f[k]]
    if missed:
        print("missed: " + ", ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
