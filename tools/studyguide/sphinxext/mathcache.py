"""Keep rendered formulas between builds and between the HTML and EPUB builders.

imgmath renders each formula with latex + dvisvgm into ``<outdir>/_images/math/<sha1>.svg`` and, with
embedding on, deletes that folder at the end of the build; every build would render every formula again
(about 0.12 s each). This keeps the SVGs in ``_build/.math_cache`` and puts them back before a build.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx


def _dirs(app: Sphinx) -> tuple[Path, Path]:
    cache = Path(app.config.nb_execution_cache_path).parent / ".math_cache"
    return cache, Path(app.builder.outdir) / app.builder.imagedir / "math"


def _copy_new(src: Path, dst: Path) -> None:
    """Copy the SVGs of ``src`` that ``dst`` lacks."""
    if src.is_dir():
        dst.mkdir(parents=True, exist_ok=True)
        for svg in src.glob("*.svg"):
            if not (dst / svg.name).exists():
                shutil.copy2(svg, dst / svg.name)


def restore(app: Sphinx) -> None:
    """Copy cached formulas into the output folder, where imgmath looks for them."""
    if app.builder.format == "html":
        cache, out = _dirs(app)
        _copy_new(cache, out)


def save(app: Sphinx, exc: Any) -> None:
    """Keep newly rendered formulas (runs before imgmath removes its folder)."""
    if not exc and app.builder.format == "html":
        cache, out = _dirs(app)
        _copy_new(out, cache)


def setup(app: Sphinx) -> None:
    """Register the two hooks."""
    app.connect("builder-inited", restore)
    app.connect("build-finished", save, priority=100)
