"""Text alternatives for plots: a ``{plot-alt}`` directive right after a code cell says in one sentence what the
cell's plot shows; the site and the EPUB give it as the image's ``alt`` (sphinxext/plotalt.py).

``check`` asks for one after every cell whose stored output holds an image (and that each follows a code cell).
"""

from __future__ import annotations

from typing import Any

from .errors import Problem
from .page import PLOT_ALT, Outline

IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml")
HINT = f"right after the cell that draws it, add a {{{PLOT_ALT}}} block holding one sentence on what the plot shows"


def check_source(outline: Outline, path: str) -> list[Problem]:
    """Problems of the page alone: an alternative that does not directly follow a code cell, or says nothing."""
    problems = []
    for line, cell, text in outline.plot_alts:
        if cell is None:
            problems.append(Problem(path, line, PLOT_ALT, "follows no code cell", HINT))
        if not text:
            problems.append(Problem(path, line, PLOT_ALT, "is empty", HINT))
    return problems


def drawing_cells(nb: Any) -> list[int]:
    """The indexes (among code cells) of a stored notebook's cells whose outputs hold an image."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    return [i for i, c in enumerate(code) if any(t in o.get("data", {}) for o in c.get("outputs", []) for t in IMAGE_TYPES)]


def page_cells(nb: Any, sources: list[str], stored: list[int]) -> list[int]:
    """The page's code cells (indexes) that the stored cells ``stored`` are: found by their source, so that cells
    added or edited since the page last ran do not move a plot onto another cell (an edited one is left out)."""
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    if code == sources:
        return stored
    taken: set[int] = set()
    found = []
    for i in stored:
        same = [j for j, source in enumerate(sources) if source == code[i] and j not in taken]
        if same:
            taken.add(same[0])
            found.append(same[0])
    return found


def problems(book: Any, prefix: str, stored: dict[str, Any]) -> list[Problem]:
    """Cells whose stored output holds a plot with no text alternative after them."""
    found = []
    for q in book.questions:
        parsed = book.pages.get(q.id)
        if parsed is None or q.id not in stored:
            continue
        nb = stored[q.id]
        drawing = set(page_cells(nb, [c.source for c in parsed.cells], drawing_cells(nb)))
        alts = {cell for _, cell, _ in parsed.outline.plot_alts if cell is not None}
        lines = [c.line for c in parsed.cells]
        where = f"{prefix}/{q.path}"
        for i in sorted(drawing - alts):
            found.append(Problem(where, lines[i], PLOT_ALT, f"code cell {i + 1} draws a plot with no text alternative", HINT))
    return found
