"""Keep rendered formulas between builds and between the HTML and EPUB builders; render new ones side by side.

imgmath renders each formula with latex + dvisvgm into ``<outdir>/_images/math/<sha1>.svg`` and, with
embedding on, deletes that folder at the end of the build; every build would render every formula again
(about 0.2 s each). This keeps the SVGs in ``_build/.math_cache`` and puts them back before a build.
The formulas no file holds yet (a first build) are rendered before writing, one per core, by imgmath's
own two steps, so each gives the bytes imgmath would write; one that fails is left to imgmath, which
reports it at its page as before.

dvisvgm may list a formula's glyphs in a different order, under different font numbers, in another
process or on another machine; every SVG is rewritten in a canonical form (glyphs renamed and listed
in order of first use), so the same formula gives the same bytes everywhere.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Set as AbstractSet
from concurrent.futures import ThreadPoolExecutor
from hashlib import sha1
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment.collectors import EnvironmentCollector
from sphinx.ext import imgmath
from sphinx.util.math import wrap_displaymath

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


CACHE_DIR = ".math_cache"  # beside the jupyter-cache, in the build folder


def _dirs(app: Sphinx) -> tuple[Path, Path]:
    cache = Path(app.config.nb_execution_cache_path).parent / CACHE_DIR
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

    For another edition of the EPUB only when formulas are embedded: the EPUB then packages none of the files.
    """
    if app.builder.format == "html" and (not app.config.studyguide_edition or app.config.imgmath_embed):
        cache, out = _dirs(app)
        _copy_new(cache, out)


def save(app: Sphinx, exc: Any) -> None:
    """Keep newly rendered formulas (runs before imgmath removes its folder)."""
    if not exc and app.builder.format == "html":
        cache, out = _dirs(app)
        _copy_new(out, cache)


FORMULAS = "studyguide_formulas"  # env attribute: docname -> the LaTeX imgmath is given for each formula


def latex_of(node: nodes.math | nodes.math_block) -> str:
    """What imgmath's HTML visitors hand to ``render_math`` for this node."""
    if isinstance(node, nodes.math_block):
        return node.astext() if node.get("no-wrap", node.get("nowrap", False)) else wrap_displaymath(node.astext(), None, False)
    return "$" + node.astext() + "$"


class FormulaCollector(EnvironmentCollector):
    """The formulas of each page, noted while it is read (purged when it is read again, merged after parallel reads)."""

    def clear_doc(self, app: Sphinx, env: Any, docname: str) -> None:
        """Forget a re-read page's formulas."""
        getattr(env, FORMULAS, {}).pop(docname, None)

    def merge_other(self, app: Sphinx, env: Any, docnames: AbstractSet[str], other: Any) -> None:
        """Take what parallel readers noted."""
        theirs = getattr(other, FORMULAS, {})
        _formulas(env).update({d: theirs[d] for d in docnames if d in theirs})

    def process_doc(self, app: Sphinx, doctree: nodes.document) -> None:
        """Note the page's formulas."""
        found = {latex_of(n) for n in doctree.findall(nodes.math)} | {latex_of(n) for n in doctree.findall(nodes.math_block)}
        _formulas(app.env)[app.env.docname] = tuple(sorted(found))


def _formulas(env: Any) -> dict[str, tuple[str, ...]]:
    if not hasattr(env, FORMULAS):
        setattr(env, FORMULAS, {})
    return getattr(env, FORMULAS)


def missing(app: Sphinx) -> dict[Path, str]:
    """The SVG files imgmath would look for and not find, with the LaTeX document of each."""
    config, folder = app.config, _dirs(app)[1]
    formulas = sorted({f for found in _formulas(app.env).values() for f in found})
    if not formulas:
        return {}
    mark = "\\studyguideformula"
    template = imgmath.generate_latex_macro("svg", mark, config, app.confdir)
    def macro(formula: str) -> str:
        return template.replace(mark, formula)
    if template.count(mark) != 1 or macro(formulas[0]) != imgmath.generate_latex_macro("svg", formulas[0], config, app.confdir):
        def macro(formula: str) -> str:  # a template that does more than insert the formula
            return imgmath.generate_latex_macro("svg", formula, config, app.confdir)
    docs = {folder / f"{sha1(tex.encode(), usedforsecurity=False).hexdigest()}.svg": tex for tex in map(macro, formulas)}
    return {path: tex for path, tex in docs.items() if not path.is_file()}


def _render(latex: str, dest: Path, config: Any) -> None:
    """imgmath's latex and dvisvgm steps for one formula; the file appears only when both succeed.

    A formula that fails is left to imgmath, which reports it at its page; a missing program stops the others.
    """
    try:
        dvi = imgmath.compile_math(latex, config=config)
    except imgmath.InvokeError:
        raise
    except Exception:  # imgmath renders it again and reports it at its page
        return
    part = dest.with_name(dest.name + ".part")  # not *.svg: never taken for a formula or kept
    try:
        _convert_dvi_to_svg(dvi, part, config=config)
        os.replace(part, dest)
    except imgmath.InvokeError:
        raise
    except Exception:  # as above
        part.unlink(missing_ok=True)
    finally:
        shutil.rmtree(dvi.parent, ignore_errors=True)


def prerender(app: Sphinx, builder: Any) -> None:
    """Before writing: render the formulas no file holds yet, one per core (a first build)."""
    if getattr(builder, "math_renderer_name", None) != "imgmath" or app.config.imgmath_image_format.lower() != "svg":
        return
    if not (shutil.which(app.config.imgmath_latex) and shutil.which(app.config.imgmath_dvisvgm)):
        return  # imgmath says so, once
    todo = missing(app)
    if not todo:
        return
    next(iter(todo)).parent.mkdir(parents=True, exist_ok=True)
    pool = ThreadPoolExecutor(max_workers=len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    try:
        for job in [pool.submit(_render, tex, path, app.config) for path, tex in todo.items()]:
            job.result()
    except imgmath.InvokeError:
        pass  # latex or dvisvgm cannot be run: imgmath warns once, as it does without this
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # Ctrl-C or a missing program: the queued formulas do not start


def setup(app: Sphinx) -> None:
    """Make imgmath's SVGs canonical, note each page's formulas and register the hooks."""
    imgmath.convert_dvi_to_svg = _convert_dvi_to_svg
    app.add_env_collector(FormulaCollector)
    app.connect("builder-inited", restore)
    app.connect("write-started", prerender)
    app.connect("build-finished", save, priority=100)
