"""Proof links on the site (in-process Sphinx, no kernels): a small 证据 link to the labelled cell's anchor."""

from __future__ import annotations

from pathlib import Path

import pytest
from sphinxroot import build, make_root
from studyguide import page


def test_each_cited_bullet_links_to_its_cell(tmp_path: Path) -> None:
    app, _ = build(make_root(tmp_path))
    html = (Path(app.outdir) / "1-basics/tensor/shape-demo.html").read_text(encoding="utf-8")
    assert html.count('<a class="studyguide-proof reference internal" href="#proof-demo" title="证明这一条的代码单元格">证据</a>') == 2
    assert '<div class="cell docutils container" id="proof-demo">' in html


def test_a_citation_of_a_missing_label_fails_the_build_with_its_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(page, "check_proofs", lambda *args, **kwargs: [])  # as if `check` had let it through
    root = make_root(tmp_path)
    shape = root / "book/1-basics/tensor/shape-demo.md"
    shape.write_text(shape.read_text(encoding="utf-8").replace("{proof}`demo`", "{proof}`nosuch`", 1), encoding="utf-8")
    _, warnings = build(root)
    assert "shape-demo.md:27: WARNING: proof 'nosuch' is not a cell label of this page" in warnings
