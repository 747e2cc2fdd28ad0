"""Sphinx extension of the book: project settings, question pages, the environment page, EPUB fixes."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config as SphinxConfig
from sphinx.errors import ExtensionError

from .. import __version__, cover, editions
from ..book import load_book
from ..build_state import PRELOADED
from ..config import load_config
from ..edition import latex_footer
from ..errors import StudyguideError
from ..project import Layout
from . import (
    conceptindex,
    environment,
    epub,
    ereader,
    fresh,
    highlight,
    latexpasses,
    latexrefs,
    lightsite,
    mathcache,
    navigation,
    pages,
    plotalt,
    proofs,
    quickreview,
    safety,
    search,
    selftest,
    state,
)

TEMPLATES = str(Path(__file__).parent / "templates")


def project_root(app: Sphinx) -> Path:
    """The project root: given by ``studyguide build``, else the nearest folder above the book with pyproject.toml."""
    if app.config.studyguide_root:
        return Path(app.config.studyguide_root)
    src = Path(app.srcdir).resolve()
    return next((p for p in src.parents if (p / "pyproject.toml").is_file()), src.parent)


def configure(app: Sphinx, config: SphinxConfig) -> None:
    """Derive title, author, language, output names and the cache path from the project (``[tool.studyguide]``)."""
    root = project_root(app)
    try:
        layout = Layout(root, load_config(root))
        blocks = frozenset(layout.blocks)
    except StudyguideError as exc:
        raise ExtensionError(str(exc)) from None
    sg, words = layout.config, layout.config.locale
    state.attach(app, state.State(root, sg, blocks=blocks, layout=layout))
    config.project = config.html_title = config.epub_title = sg.title
    config.author = config.epub_author = config.epub_publisher = sg.author
    config.copyright = f"2026, {sg.author}"
    config.latex_documents = [
        (e.root_doc, f"{layout.output(e, 'pdf').stem}.tex", words.t(e.title, title=sg.title) if e.title else sg.title, sg.author, "manual")
        for e in editions.latex_editions()
    ]
    quick = layout.output(editions.QUICK, "pdf").stem
    latex = dict(config.latex_elements)
    latex["extrapackages"] = latex.get("extrapackages", "") + "\\usepackage{xr-hyper}\n"  # before hyperref
    latex["preamble"] = latex.get("preamble", "") + quickreview.latex_external(quick, sg.basename) + latex_footer(sg.edition_text) + latexpasses.PREAMBLE
    config.latex_elements = latex
    config.epub_basename = sg.basename
    config.epub_uid = config.epub_identifier = f"studyguide-{sg.basename}"  # an XML name: epubcheck RSC-005
    config.version = config.release = sg.edition
    config.today = sg.edition_text
    config.epub_description = f"{sg.title} · {sg.edition_text}"
    config.epub_language = words.html_lang
    if not (root / "_static" / "cover.png").is_file():  # no cover of its own: one made from the title
        made = cover.render(sg.title, sg.description, [t.label for t in sg.tier_list], sg.edition_text, layout.build / "cover" / "cover.png")
        config.html_static_path = [*config.html_static_path[:1], str(made.parent), *config.html_static_path[1:]]
    config.epub_cover = ("_static/cover.png", "")
    config.nb_execution_cache_path = str(layout.cache)
    config.nb_execution_timeout = sg.cell_timeout
    config.templates_path = [*config.templates_path, TEMPLATES]
    coming = frozenset(config.studyguide_coming.split(",")) - {""}  # on-request editions this build is typesetting
    downloads = [(name, words.t(key)) for name, key in layout.downloads_list(coming)]
    config.html_context = {**config.html_context, "studyguide_downloads": downloads, "studyguide_words": {
        k.removeprefix("site."): v for k, v in words.strings.items() if k.startswith("site.")}, "studyguide_lang": words.html_lang}


def load_metadata(app: Sphinx, env: Any, docnames: list[str]) -> None:
    """Take the book `studyguide build` already parsed and checked, or parse it (a plain sphinx-build)."""
    srcdir = Path(app.srcdir)
    st = state.of_app(app)
    state.bind(app, env)
    preloaded = PRELOADED.get(str(srcdir.resolve()))
    if preloaded is not None:
        st.book = preloaded
    else:
        try:
            rules = dataclasses.replace(st.config.rules, blocks=st.blocks)
            st.book = load_book(srcdir, prefix=srcdir.name, rules=rules)
        except StudyguideError as exc:
            raise ExtensionError(f"the book has problems (run `make check`):\n{exc}") from None
    st.reading = set(docnames)


def add_site_script(app: Sphinx) -> None:
    """The self-test switch's script, for the website only (EPUB pages stay script-free)."""
    st = state.of_app(app)
    st.builder = app.builder
    state.bind(app, app.env)
    if app.builder.name == "html":
        app.add_js_file("studyguide.js")


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the extension's events, directive, nodes and transforms."""
    app.add_config_value("studyguide_root", "", "env", types=frozenset({str}))
    app.add_config_value("studyguide_coming", "", "", types=frozenset({str}))  # keys of on-request editions being built
    app.connect("config-inited", configure, priority=100)
    app.connect("env-before-read-docs", load_metadata)
    app.connect("builder-inited", add_site_script)
    app.add_transform(pages.QuestionPage)
    fresh.setup(app)
    mathcache.setup(app)
    environment.setup(app)
    selftest.setup(app)
    proofs.setup(app)
    plotalt.setup(app)
    quickreview.setup(app)
    search.setup(app)
    highlight.setup(app)
    safety.setup(app)
    navigation.setup(app)
    lightsite.setup(app)
    latexrefs.setup(app)
    conceptindex.setup(app)
    epub.setup(app)
    ereader.setup(app)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 6}  # bump when a read-time transform changes
