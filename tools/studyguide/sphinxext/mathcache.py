"""Keep rendered formulas between builds and between the HTML and EPUB builders.

imgmath renders each formula with latex + dvisvgm into ``<outdir>/_images/math/<sha1>.svg`` and, with
embedding on, deletes that folder at the end of the build; every build would render every formula again
(about 0.12 s each). This keeps the SVGs in ``_build/.math_cache`` and puts them back before a build.

dvisvgm may list a formula's glyphs in a different order, under different font numbers, in another
process or on another machine; every SVG is rewritten in a canonical form (glyphs renamed and listed
in order of first use), so the same formula gives the same bytes everywhere.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.ext import imgmath

_DEFS_RE = re.compile(r"<defs>\n?(.*?)</defs>", re.S)
_PATH_RE = re.compile(r"<path id='([^']+)'( d='[^']*'/>)")
_USE_RE = re.compile(r"xlink:href='#([^']+)'")


def canonical_svg(text: str) -> str:
    """The SVG with its glyph definitions renamed ``g1, g2, …`` and listed in order of first use (pure)."""
    defs = _DEFS_RE.search(text)
    if not defs:
        return text
    shapes = dict(_PATH_RE.findall(defs.group(1)))
    if len(_PATH_RE.findall(defs.group(1))) != len(shapes) or _PATH_RE.sub("", defs.group(1)).strip():
        return text  # not the plain glyph list dvisvgm writes: leave it alone
    order = list(dict.fromkeys(u for u in _USE_RE.findall(text) if u in shapes))
    order += sorted((k for k in shapes if k not in order), key=lambda k: shapes[k])
    names = {old: f"g{i}" for i, old in enumerate(order, start=1)}
    body = "".join(f"<path id='{names[k]}'{shapes[k]}\n" for k in order)
    head, tail = text[: defs.start()], text[defs.end():]
    tail = _USE_RE.sub(lambda m: f"xlink:href='#{names.get(m.group(1), m.group(1))}'", tail)
    return f"{head}<defs>\n{body}</defs>{tail}"


def _canonical_file(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    fixed = canonical_svg(text)
    if fixed != text:
        path.write_text(fixed, encoding="utf-8")


def _convert_dvi_to_svg(dvipath: Path, out_path: Path, *, config: Any) -> int | None:
    """imgmath's dvisvgm step, followed by the canonical rewrite."""
    depth = _ORIGINAL_CONVERT(dvipath, out_path, config=config)
    _canonical_file(Path(out_path))
    return depth


_ORIGINAL_CONVERT = getattr(imgmath.convert_dvi_to_svg, "__wrapped_original__", imgmath.convert_dvi_to_svg)
_convert_dvi_to_svg.__wrapped_original__ = _ORIGINAL_CONVERT  # type: ignore[attr-defined]


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
                _canonical_file(dst / svg.name)


def restore(app: Sphinx) -> None:
    """Copy cached formulas into the output folder, where imgmath looks for them.

    Not for another edition of the EPUB: it holds a few formulas, and every file in its folder is packaged.
    """
    if app.builder.format == "html" and not app.config.studyguide_edition:
        cache, out = _dirs(app)
        _copy_new(cache, out)


def save(app: Sphinx, exc: Any) -> None:
    """Keep newly rendered formulas (runs before imgmath removes its folder)."""
    if not exc and app.builder.format == "html":
        cache, out = _dirs(app)
        _copy_new(out, cache)


def setup(app: Sphinx) -> None:
    """Make imgmath's SVGs canonical and register the two hooks."""
    imgmath.convert_dvi_to_svg = _convert_dvi_to_svg
    app.connect("builder-inited", restore)
    app.connect("build-finished", save, priority=100)
