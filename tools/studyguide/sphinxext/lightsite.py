"""A light website: no icon script, deferred scripts, the search index only on the search page, each style
sheet cut to the rules the site can use, icon fonts cut to the icons it shows, and a meta description per page.

Pages link ``<name>.light.css`` instead of each local style sheet (template ``layout.html`` does the same for the
theme's own two). Those files are written when every page is: a rule stays if each class its selector needs
occurs in some page's ``class`` attribute or anywhere in a script of the site (scripts add classes by name).
"""

from __future__ import annotations

import html
import io
import re
from pathlib import Path
from typing import Any

import tinycss2
from sphinx.application import Sphinx

from . import state

LIGHT = ".light"
EAGER = {"_static/documentation_options.js"}  # the inline DOCUMENTATION_OPTIONS lines need it at once
SKIP_SCRIPTS = ("fontawesome.js",)  # not loaded by the light pages: its icon names are not the site's words
_CLASS_ATTR = re.compile(r'class="([^"]*)"')
_WORD = re.compile(r"[A-Za-z_][\w-]*")
_CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
_FONT_URL = re.compile(r"url\(([^)]*?\.woff2)\)")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def light_name(filename: str) -> str:
    """The light copy of a local style sheet: ``a/b.css`` -> ``a/b.light.css``."""
    return filename[: -len(".css")] + LIGHT + ".css"


def _is_local_css(filename: str) -> bool:
    return filename.endswith(".css") and "://" not in filename and not filename.endswith(LIGHT + ".css")


def description(app: Sphinx, pagename: str) -> str:
    """The page's meta description: a question's one-sentence answer, else the book's lead line."""
    st = state.of_app(app)
    question = st.book.by_docname().get(pagename) if st.book else None
    text = question.answer if question else st.config.description
    return " ".join(text.replace("`", "").split())


def on_page_context(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """Describe the page, defer its scripts and point its style sheets at the light copies (website only)."""
    if app.builder.name != "html":
        return
    context["metatags"] = context.get("metatags", "") + f'\n<meta name="description" content="{html.escape(description(app, pagename))}" />'
    context["studyguide_light"] = True
    scripts = []
    defer = pagename != "search"  # search.html's own script tags run at once and call doctools.js's _ready
    for js in context.get("script_files", []):
        name = getattr(js, "filename", "")
        if name.endswith(SKIP_SCRIPTS):
            continue
        if defer and name and name not in EAGER and "://" not in name and not js.attributes.get("body") and "async" not in js.attributes:
            js = type(js)(name, priority=js.priority, **{**js.attributes, "defer": "defer"})
        scripts.append(js)
    context["script_files"] = scripts
    context["css_files"] = [type(c)(light_name(c.filename), priority=c.priority, **c.attributes) if _is_local_css(c.filename) else c
                            for c in context.get("css_files", [])]
    context["css_tag"] = _plain_tag(context["css_tag"])


def _plain_tag(css_tag: Any) -> Any:
    """Sphinx's css_tag, minus the ``?v=`` checksum on light copies (written after the pages, so unknown then)."""
    def tag(css: Any) -> str:
        out = css_tag(css)
        return re.sub(r"\?v=[0-9a-f]+", "", out) if LIGHT + ".css" in out else out
    return tag


def used_words(site: Path) -> set[str]:
    """Every class a page names, and every word in the site's scripts."""
    words: set[str] = set()
    for page in site.rglob("*.html"):
        for value in _CLASS_ATTR.findall(page.read_text(encoding="utf-8", errors="replace")):
            words.update(value.split())
    for script in (site / "_static").rglob("*.js"):
        if not script.name.endswith(SKIP_SCRIPTS):
            words.update(_WORD.findall(script.read_text(encoding="utf-8", errors="replace")))
    return words


def _split(selectors: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in selectors:
        depth += (ch in "([") - (ch in ")]")
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    return [*parts, "".join(cur).strip()]


def _needed(selector: str) -> list[str]:
    """The classes an element must have for the selector to match (inside :not(), :is() and the like: none)."""
    depth, kept = 0, []
    for ch in selector:
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and ch != ")":
            kept.append(ch)
    return _CLASS.findall("".join(kept))


def _purge(rules: list[Any], used: set[str]) -> list[str]:
    out = []
    for rule in rules:
        if rule.type == "qualified-rule":
            keep = [s for s in _split(tinycss2.serialize(rule.prelude)) if all(c in used for c in _needed(s))]
            if keep:
                out.append(",".join(keep) + "{" + tinycss2.serialize(rule.content) + "}")
        elif rule.type == "at-rule" and rule.content is not None and rule.lower_at_keyword in ("media", "supports", "layer", "container"):
            inner = _purge(tinycss2.parse_rule_list(rule.content, skip_comments=True, skip_whitespace=True), used)
            if inner:
                out.append(f"@{rule.at_keyword}{tinycss2.serialize(rule.prelude)}{{{''.join(inner)}}}")
        elif rule.type == "at-rule":
            out.append(tinycss2.serialize([rule]))
    return out


def purge_css(text: str, used: set[str]) -> str:
    """The style sheet without the rules no element of the site can match."""
    rules = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
    return "\n".join(_purge(rules, used)) + "\n"


def _inline_imports(text: str, folder: Path) -> str:
    """Replace ``@import "x.css";`` by x.css itself (a chained import costs the phone a round trip)."""
    def inline(match: re.Match[str]) -> str:
        target = (folder / match.group(1)).resolve()
        return _inline_imports(target.read_text(encoding="utf-8"), target.parent) if target.is_file() else match.group(0)
    return re.sub(r'@import\s+(?:url\()?"([^"]+\.css)"\)?\s*;', inline, text)


def subset_font(font: Path, css: str, dest: Path) -> None:
    """Write the icon font cut to the characters the style sheet's strings hold (``--fa: "\\f002"``)."""
    import logging

    from fontTools import subset

    logging.getLogger("fontTools").setLevel(logging.WARNING)

    codes = {ord(ch) for value in _STRING.findall(css) for ch in value} - {ord("\\")}
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = []
    buf = io.BytesIO()
    with subset.load_font(str(font), options) as ft:
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=codes or {0x20})
        subsetter.subset(ft)
        subset.save_font(ft, buf, options)
    write_if_changed(dest, buf.getvalue())


def write_if_changed(path: Path, data: bytes) -> None:
    """Write data unless the file already holds it."""
    if not path.is_file() or path.read_bytes() != data:
        path.write_bytes(data)


def write_light(site: Path) -> list[Path]:
    """Write the light copy of every style sheet under ``_static`` and of the icon fonts they load."""
    used = used_words(site)
    written = []
    for sheet in sorted((site / "_static").rglob("*.css")):
        if sheet.name.endswith(LIGHT + ".css"):
            continue
        text = purge_css(_inline_imports(sheet.read_text(encoding="utf-8"), sheet.parent), used)
        for url in sorted(set(_FONT_URL.findall(text))):
            font = (sheet.parent / url.strip("\"'")).resolve()
            if font.is_file() and font.is_relative_to(site.resolve()):
                light_font = font.with_name(font.stem + LIGHT + font.suffix)
                subset_font(font, text, light_font)
                text = text.replace(f"url({url})", f"url({url.strip(chr(34) + chr(39))[: -len('.woff2')]}{LIGHT}.woff2)")
        dest = sheet.with_name(sheet.stem + LIGHT + ".css")
        write_if_changed(dest, text.encode("utf-8"))
        written.append(dest)
    return written


def on_build_finished(app: Sphinx, exc: BaseException | None) -> None:
    """After every page and asset is written: the light style sheets and fonts."""
    if exc is None and app.builder.name == "html":
        write_light(Path(app.builder.outdir))


def setup(app: Sphinx) -> None:
    """Register the page hook and the last step of the website build."""
    app.connect("html-page-context", on_page_context, priority=900)
    app.connect("build-finished", on_build_finished, priority=900)
