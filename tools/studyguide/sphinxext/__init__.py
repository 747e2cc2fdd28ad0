"""Sphinx extension of the book: project settings, question pages, the environment page, EPUB fixes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.config import Config as SphinxConfig
from sphinx.errors import ExtensionError

from .. import __version__
from ..book import load_book
from ..config import load_config
from ..edition import latex_footer
from ..errors import StudyguideError
from ..generate import QUICK_DIR, SELFTEST_DIR
from . import environment, epub, ereader, fresh, mathcache, pages, proofs, quickreview, safety, search, selftest, state

TEMPLATES = str(Path(__file__).parent / "templates")


def project_root(app: Sphinx) -> Path:
    """The project root: given by ``studyguide build``, else the nearest folder above the book with pyproject.toml."""
    if app.config.studyguide_root:
        return Path(app.config.studyguide_root)
    src = Path(app.srcdir).resolve()
    return next((p for p in src.parents if (p / "pyproject.toml").is_file()), src.parent)


def configure(app: Sphinx, config: SphinxConfig) -> None:
    """Derive title, author, output names and the cache path from ``[tool.studyguide]``."""
    root = project_root(app)
    try:
        sg = load_config(root)
    except StudyguideError as exc:
        raise ExtensionError(str(exc)) from None
    state.attach(app, state.State(root, sg))
    config.project = config.html_title = config.epub_title = sg.title
    config.author = config.epub_author = config.epub_publisher = sg.author
    config.copyright = f"2026, {sg.author}"
    config.latex_documents = [
        ("index", f"{sg.basename}.tex", sg.title, sg.author, "manual"),
        (f"{SELFTEST_DIR}/index", f"{sg.basename}-selftest.tex", f"{sg.title} · 自测版", sg.author, "manual"),
        (f"{QUICK_DIR}/index", f"{sg.basename}-quickreview.tex", f"{sg.title} · 速览版", sg.author, "manual"),
    ]
    latex = dict(config.latex_elements)
    latex["extrapackages"] = latex.get("extrapackages", "") + "\\usepackage{xr-hyper}\n"  # before hyperref
    latex["preamble"] = latex.get("preamble", "") + quickreview.latex_external(f"{sg.basename}-quickreview", sg.basename)
    config.latex_elements = latex
    config.epub_basename = sg.basename
    config.epub_uid = config.epub_identifier = f"studyguide-{sg.basename}"  # an XML name: epubcheck RSC-005
    config.version = config.release = sg.edition
    config.today = sg.edition_text
    config.epub_description = f"{sg.title} · {sg.edition_text}"
    config.latex_elements = {**config.latex_elements, "preamble": config.latex_elements.get("preamble", "") + latex_footer(sg.edition_text)}
    config.epub_language = "zh-CN"
    config.epub_cover = ("_static/cover.png", "")
    config.nb_execution_cache_path = str(root / sg.build_dir / ".jupyter_cache")
    config.nb_execution_timeout = sg.cell_timeout
    config.templates_path = [*config.templates_path, TEMPLATES]
    config.html_context = {**config.html_context, "studyguide_basename": sg.basename}


def load_metadata(app: Sphinx, env: Any, docnames: list[str]) -> None:
    """Load and validate every question's metadata before Sphinx reads pages."""
    srcdir = Path(app.srcdir)
    st = state.of_app(app)
    state.bind(app, env)
    try:
        st.book = load_book(srcdir, prefix=srcdir.name, rules=st.config.rules)
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
    app.connect("config-inited", configure, priority=100)
    app.connect("env-before-read-docs", load_metadata)
    app.connect("builder-inited", add_site_script)
    app.add_transform(pages.QuestionPage)
    fresh.setup(app)
    mathcache.setup(app)
    environment.setup(app)
    selftest.setup(app)
    proofs.setup(app)
    quickreview.setup(app)
    search.setup(app)
    safety.setup(app)
    epub.setup(app)
    ereader.setup(app)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 3}  # bump when a read-time transform changes
