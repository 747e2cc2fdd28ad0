"""Side by side with Jupyter Book 1 (issue #27): the same question pages, HTML only, clean, warm cache, twice each.

Usage: ``.venv/bin/python tools/jb1_compare.py [--pages N] [--runs 2] [--workdir _build/jb1]``

- JB1 (``jupyter-book==1.0.4.post1``) gets a venv of its own under the workdir, made once and reused.
- Its book is written from our folders: the question pages (the first N with ``--pages``), an intro page, a
  ``_toc.yml`` with a part per tier folder and a chapter per page, and a ``_config.yml`` with our MyST syntax.
- Both builders use the same executed outputs, and neither executes anything: JB1 runs with
  ``execute_notebooks: cache`` on a jupyter-cache into which its own venv imports our stored notebooks
  (``book/_executed/*.ipynb``: the code cells and kernelspec that key a cache record, with our outputs);
  ``execute_notebooks: off`` would show no outputs at all, since the pages are Markdown. Ours imports the same
  files (``studyguide execute --frozen``), and gets the project's rendered formulas, as the bench does (JB1 renders
  none: MathJax does it in the browser). A JB1 run that added a cache record executed a page, and stops the script.
- With ``--pages`` a reference to a page left out points to a kept page instead, in both copies alike (our
  build treats a dangling reference as an error; JB1 only warns).
- Each build starts clean (outputs and doctrees removed, caches kept); the times and ours/JB1 are printed.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

JB1 = "jupyter-book==1.0.4.post1"
REF = re.compile(r"\{ref\}`(?:([^`<]*?)\s*<([^`>]+)>|([^`<>]+))`")
IMPORT = """import sys, nbformat
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
cache = get_cache(sys.argv[1])
for path in sys.argv[2:]:
    bundle = CacheBundleIn(nbformat.read(path, as_version=4), path)
    cache.cache_notebook_bundle(bundle, check_validity=False, overwrite=True)
print(len(cache.list_cache_records()))
"""
COUNT = "import sys; from jupyter_cache import get_cache; print(len(get_cache(sys.argv[1]).list_cache_records()))"


def toc_yaml(pages: list[str], root: str = "intro") -> str:
    """A JB1 ``_toc.yml``: one part per top folder (tier), one chapter per page, in the order given."""
    lines = ["format: jb-book", f"root: {root}", "parts:"]
    for tier in dict.fromkeys(p.split("/")[0] for p in pages):
        lines += [f"  - caption: {tier}", "    chapters:"]
        lines += [f"      - file: {p.removesuffix('.md')}" for p in pages if p.split("/")[0] == tier]
    return "\n".join(lines) + "\n"


def retarget_missing(text: str, kept: list[str], own: str = "") -> str:
    """``{ref}`` roles to labels not in ``kept`` point to the first kept page other than ``own`` instead (the
    text stays; our checker wants each related-questions list to hold a reference)."""
    other = next((k for k in kept if k != own), own)

    def retarget(m: re.Match[str]) -> str:
        label = (m.group(2) or m.group(3)).strip()
        if label in kept:
            return m.group(0)
        return f"{{ref}}`{(m.group(1) or label).strip()} <{other}>`"

    return REF.sub(retarget, text)


def question_pages(root: Path, limit: int | None = None) -> dict[str, str]:
    """Question id -> page path under the book folder, in book order (the first ``limit``)."""
    from studyguide.book import load_book
    from studyguide.config import load_config
    from studyguide.project import Layout

    config = load_config(root)
    questions = load_book(root / config.book_dir, rules=Layout(root, config).rules).questions
    return {q.id: q.path for q in questions[:limit]}


def _run(cmd: list[str], cwd: Path | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])}... failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc.stdout


def jb1_venv(work: Path) -> Path:
    """The venv with JB1 (made on first use); returns its python."""
    python = work / "venv" / "bin" / "python"
    if not (work / "venv" / ".jb1-installed").is_file():
        _run([sys.executable, "-m", "venv", str(work / "venv")])
        _run([str(python), "-m", "pip", "install", "-q", JB1])
        (work / "venv" / ".jb1-installed").write_text(JB1 + "\n")
    return python


def write_jb1_book(root: Path, dest: Path, pages: dict[str, str], title: str) -> None:
    """The JB1 book: the pages (references outside them retargeted), intro, ``_toc.yml`` and ``_config.yml``."""
    from studyguide.config import load_config

    book = root / load_config(root).book_dir
    shutil.rmtree(dest, ignore_errors=True)
    for path in pages.values():
        (dest / path).parent.mkdir(parents=True, exist_ok=True)
        text = retarget_missing((book / path).read_text(encoding="utf-8"), list(pages), Path(path).stem)
        (dest / path).write_text(text, encoding="utf-8")
    (dest / "intro.md").write_text(f"# {title}\n", encoding="utf-8")
    (dest / "_toc.yml").write_text(toc_yaml(list(pages.values())), encoding="utf-8")
    (dest / "_config.yml").write_text(
        f"title: {title}\nonly_build_toc_files: true\nexecute:\n  execute_notebooks: cache\n  cache: {dest.parent / 'jupyter_cache'}\n"
        "parse:\n  myst_enable_extensions: [colon_fence, dollarmath, deflist]\nsphinx:\n  config:\n    language: zh_CN\n",
        encoding="utf-8")


def write_our_book(root: Path, dest: Path, pages: dict[str, str]) -> None:
    """Our project with only these question pages (and their stored outputs); references outside them retargeted."""
    from studyguide.bench import copy_project
    from studyguide.notebook import STORE_DIR

    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    book = copy_project(root, dest)
    for qid, path in question_pages(root).items():
        if qid not in pages:
            (book / path).unlink()
            (book / STORE_DIR / f"{qid}.ipynb").unlink(missing_ok=True)
    for md in book.rglob("*.md"):
        md.write_text(retarget_missing(md.read_text(encoding="utf-8"), list(pages), md.stem), encoding="utf-8")


def time_jb1(python: Path, book: Path, stored: list[Path]) -> float:
    """One clean JB1 HTML build, in seconds; raises when JB1 executed a page (a new cache record)."""
    cache = book.parent / "jupyter_cache"
    before = int(_run([str(python), "-c", IMPORT, str(cache), *map(str, stored)]))
    shutil.rmtree(book / "_build", ignore_errors=True)
    start = time.monotonic()
    _run([str(python.parent / "jb"), "build", "--builder", "html", str(book)])
    seconds = time.monotonic() - start
    after = int(_run([str(python), "-c", COUNT, str(cache)]))
    if after != before:
        raise RuntimeError(f"JB1 executed {after - before} page(s): its cache missed our outputs; the times would not compare")
    return seconds


def time_ours(project: Path) -> float:
    """One clean ``studyguide build html`` of the project (outputs and doctrees removed, caches kept), in seconds."""
    from studyguide import bench

    for stale in ("doctrees", "html", "html-build"):
        shutil.rmtree(project / "_build" / stale, ignore_errors=True)
    return bench.timed(project, "build", "--frozen", "html")


def main(argv: list[str] | None = None) -> int:
    """Build both, ``--runs`` times each, and print the times and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the project (default: here)")
    parser.add_argument("--workdir", type=Path, default=None, help="where JB1's venv and both books go (default: <root>/_build/jb1)")
    parser.add_argument("--pages", type=int, default=None, help="only the first N question pages (a trial)")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args(argv)
    from studyguide import bench
    from studyguide.config import load_config

    root = args.root.resolve()
    work = (args.workdir or root / "_build" / "jb1").resolve()
    work.mkdir(parents=True, exist_ok=True)
    pages = question_pages(root, args.pages)
    title = load_config(root).title
    print(f"jb1_compare: {len(pages)} question pages; JB1 venv in {work / 'venv'}", flush=True)
    python = jb1_venv(work)
    write_jb1_book(root, work / "jb1-book", pages, title)
    write_our_book(root, work / "ours", pages)
    stored = [root / load_config(root).book_dir / "_executed" / f"{qid}.ipynb" for qid in pages]
    bench.timed(work / "ours", "execute", "--frozen")  # imports the stored outputs: a warm cache
    bench.warm_formulas(root, work / "ours")  # and the rendered formulas (JB1 leaves them to MathJax in the browser)
    try:
        jb1 = [time_jb1(python, work / "jb1-book", stored) for _ in range(args.runs)]
        ours = [time_ours(work / "ours") for _ in range(args.runs)]
    except RuntimeError as exc:
        print(f"jb1_compare: {exc}", file=sys.stderr)
        return 1
    print("builder         " + "  ".join(f"run {i + 1:>2}" for i in range(args.runs)))
    print("Jupyter Book 1  " + "  ".join(f"{s:6.1f}" for s in jb1) + " s")
    print("studyguide      " + "  ".join(f"{s:6.1f}" for s in ours) + " s")
    print(f"ours / JB1: {sum(ours) / sum(jb1):.2f}x (target <= 0.40x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
