"""The e-reader PDF: the whole book again, typeset for a 6-inch screen from the same doctrees.

A second Sphinx LaTeX run with ``studyguide_latex=ereader`` writes only ``<basename>-ereader.tex`` into the
LaTeX folder, with conf.py's ``studyguide_ereader_latex_elements`` (page size, margins) over the A4 ones.
"""

from __future__ import annotations

from pathlib import Path

from . import programs
from .build import Layout, _latexmk_finish, _latexmk_start, outputs_up_to_date, promote, run_sphinx

EDITION = "ereader"  # the value of Sphinx's ``studyguide_latex`` that selects the e-reader settings


def build_ereader(layout: Layout) -> Path:
    """Sphinx LaTeX with the e-reader settings, then xelatex; promoted (and copied to the site) only on success."""
    programs.require("e-reader PDF", programs.PDF + programs.MATH, programs.TEX_FILES)
    if outputs_up_to_date(layout, [layout.ereader]):
        return layout.ereader
    run_sphinx(layout, "latex", settings={"studyguide_latex": EDITION})
    stem = layout.ereader.stem
    built = _latexmk_finish(layout, stem, _latexmk_start(layout, stem))
    promote(built, layout.ereader, layout.html / "downloads" / layout.ereader.name)
    return layout.ereader
