"""The e-reader PDF's LaTeX settings, and the site's link to it when it exists."""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.config import Config as SphinxConfig

from ..build import Layout
from ..ereader import EDITION
from . import state


def configure(app: Sphinx, config: SphinxConfig) -> None:
    """With ``studyguide_latex=ereader``, write only the e-reader .tex, with its settings over the A4 ones."""
    st = state.of_app(app)
    layout = Layout(st.root, st.config)
    config.html_context = {**config.html_context, "studyguide_ereader": layout.ereader.is_file()}
    if config.studyguide_latex != EDITION:
        return
    main = config.latex_documents[0]
    config.latex_documents = [(main[0], f"{layout.ereader.stem}.tex", *main[2:])]
    config.latex_elements = {**config.latex_elements, **config.studyguide_ereader_latex_elements}


def setup(app: Sphinx) -> None:
    """Register the two settings; configure after the project settings (priority 100)."""
    app.add_config_value("studyguide_latex", "", "", types=frozenset({str}))  # "" (A4 and self-test) or "ereader"
    app.add_config_value("studyguide_ereader_latex_elements", {}, "", types=frozenset({dict}))
    app.connect("config-inited", configure, priority=110)
