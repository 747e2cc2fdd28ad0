"""A page's code cells, read by myst-nb's own reader, and the rules their Python must follow (``ast``)."""

from __future__ import annotations

import ast
import builtins
import functools
import re
from dataclasses import dataclass
from typing import Any

from .errors import Problem

CHEATSHEET_TAG = "cheatsheet"  # a code cell with this tag is the page's snippet on the cheat sheets
SNIPPET_MAX_LINES = 8
SNIPPET_MAX_WIDTH = 64
LABEL_KEY = "label"  # the code-cell option that names a cell, for {proof}`name`
LABEL_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
FALLBACK_MARK = "# fallback"  # on a `try:` line: the except branch is a real fallback, not an expected error
# Calls and imports that mark a page as one that times code: it runs alone, after the parallel batch.
TIMING_NAMES = frozenset({
    "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "process_time", "timeit",
    "blocked_autorange", "adaptive_autorange", "elapsed_time",
})
TIMING_MODULES = ("torch.utils.benchmark", "timeit")


@dataclass(frozen=True)
class Cell:
    """One code cell: the page line of its first code line, its tags and its source."""

    line: int
    tags: tuple[str, ...]
    source: str
    label: str = ""  # ``:label:``: the name a {proof} role cites

    @property
    def is_snippet(self) -> bool:
        """True for the cell printed on the cheat sheets."""
        return CHEATSHEET_TAG in self.tags


def notebook_of(text: str, path: str = "") -> Any:
    """A MyST page as the notebook myst-nb reads (raises ``ValueError`` on bad MyST)."""
    from .notebook import parse_page

    try:
        return parse_page(text, path)
    except Exception as exc:  # myst-nb raises MystMetadataParsingError and others
        raise ValueError(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__) from None


def read(text: str, path: str = "") -> list[Cell]:
    """The code cells of a MyST page, exactly as myst-nb reads them (raises ``ValueError`` on bad MyST)."""
    return from_notebook(notebook_of(text, path), text)


def from_notebook(nb: Any, text: str) -> list[Cell]:
    """The code cells of a page already read by myst-nb, with their lines in ``text``."""
    lines = text.splitlines()
    source_map = nb.metadata.get("source_map", [])
    cells = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        fence = source_map[i] if i < len(source_map) else 1  # 1-based line of the opening fence
        label = cell.metadata.get(LABEL_KEY, "")
        cells.append(Cell(_first_code_line(lines, fence, cell.source), tuple(cell.metadata.get("tags", ())), cell.source,
                          label if isinstance(label, str) else repr(label)))
    return cells


def _first_code_line(lines: list[str], fence: int, source: str) -> int:
    """1-based page line of the cell's first code line (after the fence and its options)."""
    first = source.splitlines()[0] if source.strip() else None
    for n in range(fence, min(len(lines), fence + 40)):  # lines[fence] is the line after the fence
        if lines[n] == first:
            return n + 1
    return fence


@functools.lru_cache(maxsize=8192)
def python(source: str) -> str:
    """The cell as plain Python: IPython magics (``%%writefile``, ``!cmd``) become function calls (memoised: the
    page checks, the timing survey and the exercises each ask for every cell, and IPython's tokenizer is slow)."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def parse(cell: Cell) -> ast.Module:
    """The cell's syntax tree (raises ``SyntaxError`` with a line relative to the cell)."""
    return ast.parse(python(cell.source))


def _silent_trys(tree: ast.Module, source: str) -> list[int]:
    """Lines (in the cell) of ``try`` statements whose handlers pass silently when nothing is raised."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try) or not node.handlers:
            continue
        if any(isinstance(n, ast.Raise) for stmt in node.orelse for n in ast.walk(stmt)):
            continue  # else: raise AssertionError(...)
        if all(h.body and isinstance(h.body[-1], ast.Raise) for h in node.handlers):
            continue  # every handler re-raises: nothing is swallowed
        if node.lineno <= len(lines) and FALLBACK_MARK in lines[node.lineno - 1]:
            continue
        found.append(node.lineno)
    return found


def is_timing(sources: list[str]) -> bool:
    """True when code cells time code: they use torch.utils.benchmark, timeit, perf_counter or CUDA events."""
    for source in sources:
        try:
            tree = ast.parse(python(source))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in TIMING_NAMES:
                return True
            if isinstance(node, ast.Attribute) and (node.attr in TIMING_NAMES or _is_time_time(node)):
                return True
            if isinstance(node, ast.Import) and any(a.name.startswith(TIMING_MODULES) for a in node.names):
                return True
            if isinstance(node, ast.ImportFrom) and node.module:
                names = {f"{node.module}.{a.name}" for a in node.names} | {node.module}
                if any(n.startswith(TIMING_MODULES) for n in names):
                    return True
    return False


def _is_time_time(node: ast.Attribute) -> bool:
    return node.attr == "time" and isinstance(node.value, ast.Name) and node.value.id == "time"


def check(cells: list[Cell], path: str, title_line: int, details: str = "详解") -> list[Problem]:
    """Check the cells: valid Python, loud expected-error demos, one self-checking cheat-sheet cell."""
    problems: list[Problem] = []
    for cell in cells:
        try:
            tree = parse(cell)
        except SyntaxError as exc:
            line = cell.line + (exc.lineno or 1) - 1
            problems.append(Problem(path, line, "code", f"not valid Python: {exc.msg}", "fix the syntax; magics like %%writefile are allowed"))
            continue
        for lineno in _silent_trys(tree, cell.source):
            hint = f"add 'else: raise AssertionError(\"... 应当报错\")', or mark a real fallback with '{FALLBACK_MARK}' on the try line"
            problems.append(Problem(path, cell.line + lineno - 1, "try", "try/except passes silently when nothing is raised", hint))
    snippets = [c for c in cells if c.is_snippet]
    if cells and not snippets:  # a page with no cell at all gets the page-shape error instead
        hint = f"tag one self-contained cell at the end of {details} ':tags: [cheatsheet]', with its own imports and an assert"
        problems.append(Problem(path, title_line, CHEATSHEET_TAG, "no cell tagged cheatsheet", hint))
    for extra in snippets[1:]:
        problems.append(Problem(path, extra.line, CHEATSHEET_TAG, "more than one cell tagged cheatsheet", "tag only the cell that best sums up the answer"))
    if snippets:
        problems += _check_snippet(snippets[0], path)
    return problems


def _check_snippet(cell: Cell, path: str) -> list[Problem]:
    lines = cell.source.strip("\n").splitlines()
    width = max(map(len, lines), default=0)
    problems = []
    if len(lines) > SNIPPET_MAX_LINES or width > SNIPPET_MAX_WIDTH:
        hint = f"keep the cheat-sheet cell within {SNIPPET_MAX_LINES} lines of {SNIPPET_MAX_WIDTH} characters"
        problems.append(Problem(path, cell.line, CHEATSHEET_TAG, f"snippet is {len(lines)} lines, {width} wide", hint))
    try:
        tree = parse(cell)
    except SyntaxError:
        return problems  # reported by check()
    if not any(isinstance(n, ast.Assert) for n in ast.walk(tree)):
        hint = "state the fact the sheet teaches as an assert, so the sheet cannot print a wrong claim"
        problems.append(Problem(path, cell.line, CHEATSHEET_TAG, "cheat-sheet cell has no assert", hint))
    for lineno in constant_asserts(cell):
        hint = "assert on a value the API on the sheet computed (e.g. assert x.t().stride() == (1, 3)), not on constants"
        problems.append(Problem(path, cell.line + lineno - 1, CHEATSHEET_TAG, "cheat-sheet assert checks only constants or arithmetic", hint))
    return problems


def asserts(cell: Cell) -> bool:
    """True when the cell checks a fact: an ``assert``, ``raise AssertionError`` or an ``assert_*`` call."""
    try:
        tree = parse(cell)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Raise) and node.exc is not None and "AssertionError" in ast.unparse(node.exc):
            return True
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name.startswith("assert"):
                return True
    return False


_BUILTINS = frozenset(dir(builtins))


def _imported(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _computed(expr: ast.AST, derived: set[str], modules: set[str], bound: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
    """True when ``expr`` uses a value an API computed: a non-builtin call, a module attribute or such a name.

    A name the cell never binds (from another cell) counts too: running the cell alone reports it.
    """
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _BUILTINS and node.func.id not in derived):
            return True
        if isinstance(node, ast.Name) and (node.id in derived or node.id in modules or (node.id not in bound and node.id not in _BUILTINS)):
            return True
    return False


def _targets(node: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]


def constant_asserts(cell: Cell) -> list[int]:
    """Lines (in the cell) of asserts that check only constants or Python arithmetic, no value an API computed."""
    try:
        tree = parse(cell)
    except SyntaxError:
        return []
    modules = _imported(tree)
    derived: set[str] = set()
    bindings: list[tuple[list[str], ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            bindings += [(_targets(t), node.value) for t in node.targets]
        elif isinstance(node, ast.NamedExpr):  # (x := value)
            bindings.append((_targets(node.target), node.value))
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
            bindings.append((_targets(node.target), node.value))
        elif isinstance(node, ast.For | ast.comprehension):
            bindings.append((_targets(node.target), node.iter))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            bindings.append((_targets(node.optional_vars), node.context_expr))
        elif isinstance(node, ast.FunctionDef | ast.ClassDef | ast.Lambda):
            derived |= {node.name} if not isinstance(node, ast.Lambda) else set()
    changed = True
    while changed:  # names bound to computed values, to a fixed point
        changed = False
        for names, value in bindings:
            if not set(names) <= derived and _computed(value, derived, modules):
                derived |= set(names)
                changed = True
    bound = {name for names, _ in bindings for name in names} | derived | {
        a.arg for n in ast.walk(tree) if isinstance(n, ast.Lambda | ast.FunctionDef) for a in n.args.args}
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Assert) and not _computed(n.test, derived, modules, bound)]


def check_labels(cells: list[Cell], path: str) -> list[Problem]:
    """Cell labels are kebab-case and unique on the page."""
    problems, seen = [], set()
    for cell in cells:
        if not cell.label:
            continue
        if not LABEL_RE.match(cell.label):
            problems.append(Problem(path, cell.line, LABEL_KEY, f"invalid cell label {cell.label!r}", "use lowercase kebab-case, e.g. ':label: view-needs-contiguous'"))
        elif cell.label in seen:
            problems.append(Problem(path, cell.line, LABEL_KEY, f"duplicate cell label {cell.label!r}", "give each cell its own label"))
        seen.add(cell.label)
    return problems


def snippet(cells: list[Cell]) -> Cell | None:
    """The page's cheat-sheet cell, if any."""
    return next((c for c in cells if c.is_snippet), None)
