"""The site's sidebar navigation, rendered once per build instead of once per page.

pydata-sphinx-theme's ``generate_toctree_html("sidebar", startdepth=0, ...)`` resolves and parses the whole
book's toctree for every page, so a build costs pages × pages. The tree is the same on every page but for
the current entry: it is rendered once (by the theme itself, on the first page), made canonical (links from the
site root, no current marks), and each page gets a copy with its own entry and ancestors marked, exactly as the
theme marks them, and its links made relative again.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from sphinx.application import Sphinx

_HREF_RE = re.compile(r'href="([^"#:]*?\.html)(#[^"]*)?"|href="#"')
_MARKS = (("current active ", ""), (" current active", ""), ('<ul class="current">', "<ul>"), ('<ul class="current nav ', '<ul class="nav '),
          ('<details open="open">', "<details>"), ('<a class="current reference internal"', '<a class="reference internal"'))
CACHE: dict[tuple[int, str], str] = {}  # (id of the builder, arguments) -> canonical sidebar


def canonical(html: str, pagename: str, suffix: str) -> str:
    """The sidebar as rendered on ``pagename``, with links from the site root and no entry marked current."""
    here = posixpath.dirname(pagename)

    def absolute(m: re.Match[str]) -> str:
        if m.group(0) == 'href="#"':
            return f'href="{pagename}{suffix}"'
        return f'href="{posixpath.normpath(posixpath.join(here, m.group(1)))}{m.group(2) or ""}"'

    out = _HREF_RE.sub(absolute, html)
    for old, new in _MARKS:
        out = out.replace(old, new)
    return out


def _li_pattern(target: str) -> re.Pattern[str]:
    return re.compile(r'<li class="(toctree-l\d+)([^"]*)"><a class="reference internal" href="' + re.escape(target) + r'">(.*?)</a>(<details>(<summary>.*?</summary>)<ul>)?', re.S)


def for_page(html: str, pagename: str, chain: list[str], suffix: str) -> str:
    """The canonical sidebar marked for ``pagename`` (``chain``: it and its ancestors in the toctree), links relative to it."""
    out = html
    first_li = None
    for doc in chain:
        target = f"{doc}{suffix}"
        m = _li_pattern(target).search(out)
        if m is None:
            continue
        link = '<a class="current reference internal" href="#">' if doc == pagename else f'<a class="reference internal" href="{target}">'
        inner = "<ul>" if doc == pagename else '<ul class="current">'  # a list holds the current entry only below the page
        details = f'<details open="open">{m.group(5)}{inner}' if m.group(4) else ""
        out = out[: m.start()] + f'<li class="{m.group(1)} current active{m.group(2)}">{link}{m.group(3)}</a>{details}' + out[m.end():]
        first_li = m.start() if first_li is None or m.start() < first_li else first_li
    if first_li is not None:
        top = out.rfind('<ul class="nav bd-sidenav">', 0, first_li)
        if top >= 0:
            out = out[:top] + '<ul class="current nav bd-sidenav">' + out[top + len('<ul class="nav bd-sidenav">'):]
    here = posixpath.dirname(pagename) or "."

    def relative(m: re.Match[str]) -> str:
        if m.group(0) == 'href="#"':
            return m.group(0)
        return f'href="{posixpath.relpath(m.group(1), here)}{m.group(2) or ""}"'

    return _HREF_RE.sub(relative, out)


def ancestors(env: Any, docname: str) -> list[str]:
    """``docname`` and the pages whose toctrees lead to it, nearest first (the root document left out)."""
    parents: dict[str, str] = {}
    for parent, children in env.toctree_includes.items():
        for child in children:
            parents.setdefault(child, parent)
    chain, doc = [docname], docname
    while doc in parents and parents[doc] != env.config.root_doc and parents[doc] not in chain:
        doc = parents[doc]
        chain.append(doc)
    return chain


def install(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Give the page's context ``studyguide_sidebar``: the theme's navigation, rendered on the first page only.

    The theme's function is looked up when the template calls ours: it is added to the context after this
    handler, and the theme also renders every sidebar template once to see whether it is empty.
    """
    if app.builder.name != "html":
        return
    suffix: str = getattr(app.builder, "link_suffix", ".html")  # StandaloneHTMLBuilder's

    def sidebar(kind: str, startdepth: int = 1, show_nav_level: int = 1, **kwargs: Any) -> Any:
        original = context["generate_toctree_html"]
        if kind != "sidebar" or startdepth != 0 or not app.config.studyguide_cached_nav:
            return original(kind, startdepth=startdepth, show_nav_level=show_nav_level, **kwargs)
        key = (id(app.builder), repr((show_nav_level, sorted(kwargs.items()))))
        if key not in CACHE:
            CACHE[key] = canonical(str(original(kind, startdepth=startdepth, show_nav_level=show_nav_level, **kwargs)), pagename, suffix)
        return for_page(CACHE[key], pagename, ancestors(app.env, pagename), suffix)

    context["studyguide_sidebar"] = sidebar


def forget(app: Sphinx, exc: Any) -> None:
    """Drop this build's rendering (the next build may have other pages)."""
    for key in [k for k in CACHE if k[0] == id(app.builder)]:
        del CACHE[key]


def setup(app: Sphinx) -> None:
    """Add the function to every page's context (before the theme's handlers, which run at the same priority later)."""
    app.add_config_value("studyguide_cached_nav", True, "html", types=frozenset({bool}))  # False: the theme's own, per page
    app.connect("html-page-context", install)
    app.connect("build-finished", forget)
