"""Formulas are canonical SVG: the same formula gives the same bytes in any process, on any machine."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import require_program
from studyguide.sphinxext.mathcache import canonical_svg

FORMULAS = [r"\text{lr}\cdot\lambda\cdot w", r"\frac{m}{\sqrt{\hat v}+\epsilon}", r"p_i/p_j = \exp((z_i-z_j)/T)"]
RENDER = r'''
import subprocess, sys
from pathlib import Path
from studyguide.sphinxext.mathcache import canonical_svg
out = Path(sys.argv[1]); out.mkdir()
for n, formula in enumerate(sys.argv[2:]):
    tex = out / f"f{n}.tex"
    tex.write_text("\\documentclass[12pt]{article}\\usepackage{amsmath}\\pagestyle{empty}"
                   "\\begin{document}$" + formula + "$\\end{document}\n")
    subprocess.run(["latex", "-interaction=nonstopmode", tex.name], cwd=out, check=True, capture_output=True)
    subprocess.run(["dvisvgm", "--no-fonts", "--cache=none", "-o", f"f{n}.svg", f"f{n}.dvi"], cwd=out, check=True, capture_output=True)
    svg = out / f"f{n}.svg"
    svg.write_text(canonical_svg(svg.read_text()))
'''


def sample() -> str:
    uses = "\n".join(f"<use x='{i}' y='0' xlink:href='#g{f}-{c}'/>" for i, (f, c) in enumerate([(5, 108), (1, 1), (3, 21), (1, 1)]))
    defs = "\n".join(f"<path id='g{f}-{c}' d='M{f}.{c}Z'/>" for f, c in [(1, 1), (3, 21), (5, 108)])
    return f"<svg>\n<defs>\n{defs}\n</defs>\n<g id='page1'>\n{uses}\n</g>\n</svg>\n"


def test_glyph_order_and_font_numbers_do_not_change_the_bytes() -> None:
    text = sample()
    lines = text.splitlines(keepends=True)
    shuffled = "".join(lines[:2] + lines[2:5][::-1] + lines[5:]).replace("g5-", "g0-").replace("g3-", "g7-")
    assert shuffled != text
    assert canonical_svg(shuffled) == canonical_svg(text)
    assert canonical_svg(canonical_svg(text)) == canonical_svg(text)
    first = canonical_svg(text)
    assert first.index("id='g1' d='M5.108Z'") < first.index("id='g2' d='M1.1Z'")  # order of first use
    assert "xlink:href='#g1'" in first and "g5-108" not in first


def test_svg_that_is_not_a_plain_glyph_list_is_left_alone() -> None:
    odd = "<svg><defs><clipPath id='c'><rect/></clipPath></defs><use xlink:href='#c'/></svg>"
    assert canonical_svg(odd) == odd


def test_the_same_formulas_give_the_same_bytes_in_separate_processes(tmp_path: Path) -> None:
    require_program("latex")
    require_program("dvisvgm")
    for n in range(3):
        subprocess.run([sys.executable, "-c", RENDER, str(tmp_path / f"p{n}"), *FORMULAS], check=True)
    for n in range(len(FORMULAS)):
        svgs = {(tmp_path / f"p{p}" / f"f{n}.svg").read_bytes() for p in range(3)}
        assert len(svgs) == 1 and b"<path id='g1'" in svgs.pop()


def _site_math(tmp: Path, formulas: str, monkeypatch: pytest.MonkeyPatch, prerender: bool) -> tuple[dict[str, bytes], str, int]:
    """Build the mini-book with ``formulas`` added to a page: the cached SVGs, the warnings about LaTeX, the formulas imgmath compiled while writing."""
    from sphinx.ext import imgmath
    from sphinxroot import build, make_root
    from studyguide.sphinxext import mathcache

    root = make_root(tmp)
    shape = root / "book/1-basics/tensor/shape-demo.md"
    shape.write_text(shape.read_text(encoding="utf-8").replace("## 详解\n", f"## 详解\n\n{formulas}\n", 1), encoding="utf-8")
    if not prerender:
        monkeypatch.setattr(mathcache, "missing", lambda app: {})
    compiled = []
    original = imgmath.compile_math
    def counting(latex: str, *, config: object) -> Path:
        if threading.current_thread() is threading.main_thread():
            compiled.append(latex)
        return original(latex, config=config)
    monkeypatch.setattr(imgmath, "compile_math", counting)
    app, warnings = build(root)
    cache = Path(app.config.nb_execution_cache_path).parent / ".math_cache"
    about_math = "\n".join(line for line in warnings.splitlines() if "latex" in line)
    return {p.name: p.read_bytes() for p in cache.glob("*")}, about_math, len(compiled)


def test_new_formulas_are_rendered_before_writing_with_the_bytes_imgmath_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_program("latex")
    require_program("dvisvgm")
    formulas = "$a^2+b^2$、$\\sum_i x_i$\n\n$$\n\\frac{m}{\\sqrt{\\hat v}+\\epsilon}\n$$"
    ahead, warned, compiled = _site_math(tmp_path / "a", formulas, monkeypatch, prerender=True)
    assert compiled == 0 and not warned  # nothing was left for imgmath to render one by one
    monkeypatch.undo()
    alone, warned, compiled = _site_math(tmp_path / "b", formulas, monkeypatch, prerender=False)
    assert compiled == len(alone) == 4 and not warned
    assert ahead == alone  # same names, same bytes


def test_a_formula_latex_rejects_is_left_to_imgmath_and_reported_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_program("latex")
    require_program("dvisvgm")
    formulas = "$x_1$ 与 $\\frac{1}{$"
    ahead, warned, compiled = _site_math(tmp_path / "a", formulas, monkeypatch, prerender=True)
    assert compiled == 1 and "latex exited with error" in warned and len(ahead) == 2  # $x_1$ and the page's own formula
    monkeypatch.undo()
    alone, warned_alone, _ = _site_math(tmp_path / "b", formulas, monkeypatch, prerender=False)
    assert ahead == alone and warned.count("latex exited with error") == warned_alone.count("latex exited with error") == 1


def test_a_formula_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from sphinx.ext import imgmath
    from studyguide.sphinxext import mathcache

    require_program("latex")
    require_program("dvisvgm")
    config = SimpleNamespace(imgmath_latex="latex", imgmath_latex_args=[], imgmath_dvisvgm="dvisvgm", imgmath_use_preview=False,
                             imgmath_dvisvgm_args=["--no-fonts", "--cache=none"], imgmath_font_size=14, imgmath_latex_preamble="", templates_path=[])
    for name, formula in (("good.svg", "$x^2$"), ("bad.svg", "$\\frac{1}{$")):
        mathcache._render(imgmath.generate_latex_macro("svg", formula, config, tmp_path), tmp_path / name, config)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.svg"]  # no .part left, nothing for the bad one
    assert "<path id='g1'" in (tmp_path / "good.svg").read_text(encoding="utf-8")


def test_without_latex_the_build_warns_once_as_imgmath_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sphinxroot import build, make_root

    root = make_root(tmp_path)
    shape = root / "book/1-basics/tensor/shape-demo.md"
    shape.write_text(shape.read_text(encoding="utf-8").replace("## 详解\n", "## 详解\n\n$a$、$b$、$c$\n", 1), encoding="utf-8")
    _, warnings = build(root, imgmath_latex="no-such-latex")
    assert warnings.count("cannot be run") == 1
