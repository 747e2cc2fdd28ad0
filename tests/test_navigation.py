"""The sidebar is rendered once per build; every page's copy equals what the theme renders for that page."""

from __future__ import annotations

import re
from pathlib import Path

from sphinxroot import build, make_root

NAV_RE = re.compile(r'<nav class="bd-links bd-docs-nav".*?</nav>', re.S)


def navs(outdir: Path) -> dict[str, str]:
    return {str(p.relative_to(outdir)): NAV_RE.search(p.read_text(encoding="utf-8")).group(0)
            for p in sorted(outdir.rglob("*.html")) if NAV_RE.search(p.read_text(encoding="utf-8"))}


def test_the_cached_sidebar_is_the_themes_own_on_every_page(tmp_path: Path) -> None:
    theirs_app, _ = build(make_root(tmp_path / "a"), studyguide_cached_nav=False)
    ours_app, _ = build(make_root(tmp_path / "b"))
    theirs, ours = navs(Path(theirs_app.outdir)), navs(Path(ours_app.outdir))
    assert len(ours) >= 20 and set(ours) == set(theirs)
    assert {page: nav for page, nav in ours.items() if nav != theirs[page]} == {}
    assert 'class="current reference internal" href="#"' in ours["1-basics/tensor/shape-demo.html"]
