"""The LaTeX settings of editions built on request (the e-reader PDF), selected by ``-D studyguide_latex=<key>``."""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.config import Config as SphinxConfig

from .. import editions
from . import state


def configure(app: Sphinx, config: SphinxConfig) -> None:
    """For an on-request edition, write only its .tex, with its settings over the A4 ones."""
    if not config.studyguide_latex:
        return
    edition = editions.by_key(config.studyguide_latex)
    layout = state.of_app(app).layout
    main = config.latex_documents[0]
    config.latex_documents = [(edition.root_doc, f"{layout.output(edition, 'pdf').stem}.tex", *main[2:])]
    config.latex_elements = {**config.latex_elements, **config.studyguide_ereader_latex_elements}


def setup(app: Sphinx) -> None:
    """Register the two settings; configure after the project settings (priority 100)."""
    app.add_config_value("studyguide_latex", "", "", types=frozenset({str}))  # "" (the plain run) or an on-request edition's key
    app.add_config_value("studyguide_ereader_latex_elements", {}, "", types=frozenset({dict}))
    app.connect("config-inited", configure, priority=110)
