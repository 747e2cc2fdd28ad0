"""Tiny roots for in-process Sphinx tests (``sphinx.testing``): no kernels, no TeX, seconds each."""

from __future__ import annotations

import shutil
from io import StringIO
from pathlib import Path
from typing import Any

from conftest import FIXTURES
from sphinx.testing.util import SphinxTestApp
from studyguide import generate
from studyguide.book import load_book
from studyguide.build import SPHINX_PROJECT
from studyguide.config import load_config


def make_root(tmp: Path, pages: dict[str, str] | None = None, config: str = "") -> Path:
    """The mini-book copied to ``tmp/root`` with extra or replaced files, its generated pages synced."""
    root = tmp / "root"
    shutil.copytree(FIXTURES / "minibook", root, ignore=shutil.ignore_patterns("_build", "__pycache__", "_executed"))
    for rel, text in (pages or {}).items():
        (root / "book" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "book" / rel).write_text(text, encoding="utf-8")
    if config:
        with (root / "pyproject.toml").open("a", encoding="utf-8") as f:
            f.write(config)
    sg = load_config(root)
    book = load_book(root / "book", rules=sg.rules)
    generate.sync(root / "book", generate.plan(book, sg, ("preface",)))
    conf = SPHINX_PROJECT / "conf.py"  # the tool's configuration, as `studyguide build` passes it with -c
    shim = (f"import os\nfrom pathlib import Path\nos.environ['STUDYGUIDE_ROOT'] = {str(root)!r}\n__file__ = {str(conf)!r}\n"
            f"exec(compile(Path(__file__).read_text(encoding='utf-8'), __file__, 'exec'))\n")
    (root / "book" / "conf.py").write_text(shim, encoding="utf-8")
    return root


def build(root: Path, builder: str = "html", **overrides: Any) -> tuple[SphinxTestApp, str]:
    """Build ``root`` in this process with execution off; return the app and its warnings."""
    warnings = StringIO()
    app = SphinxTestApp(builder, srcdir=root / "book", builddir=root / "_build" / "sphinx", status=StringIO(), warning=warnings,
                        confoverrides={"studyguide_root": str(root), "nb_execution_mode": "off", **overrides})
    try:
        app.build()
    finally:
        app.cleanup()
    return app, warnings.getvalue()
