"""手撕代码 exercise pages: their labelled cells by role, and the rules their Python must follow (``ast``).

An exercise page (``kind: exercise``) has three cells by label: ``stub`` in 题目 (the signature, a docstring
and ``raise NotImplementedError``), ``solution`` in 参考实现 (the same function, implemented) and ``tests`` in
测试 (``test_*`` functions that reach the function through a default argument, ``def test_x(impl=softmax)``,
and call it only inside ``expect_close(lambda: impl(...), ...)``). A later cell of 测试 runs them with
``run_tests(globals())``; each cell of 易错点 runs one test on a buggy variant and fails when it passes.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass

from . import cells, page
from .cells import Cell
from .errors import Problem

STUB, SOLUTION, TESTS = "stub", "solution", "tests"
ROLES = (STUB, SOLUTION, TESTS)
ROLE_SECTIONS = {STUB: page.QUESTION, SOLUTION: page.SOLUTION, TESTS: page.TESTS}
HELPER = "practice_check"  # the grading helper, importable by the book's kernels and shipped in the practice pack
RUNNER = "run_tests"  # the helper function a cell of 测试 calls to run the tests in the book
ROLE_HINTS = {
    STUB: "the signature, a docstring stating shapes, dtypes and the interviewer's constraints, and 'raise NotImplementedError'",
    SOLUTION: "the reference solution: the stub's function, implemented, with its own imports",
    TESTS: f"'from {HELPER} import expect_close' and test_* functions such as def test_matches_torch(impl=<the stub's function>)",
}


@dataclass(frozen=True)
class Exercise:
    """An exercise's cells by role and the function they define."""

    function: str
    signature: str  # the stub's def line(s), up to the colon
    stub: Cell
    solution: Cell
    tests: Cell

    def module(self, question_id: str) -> str:
        """The stub's module name in the practice pack (the page id in snake_case)."""
        return module_name(question_id)


def module_name(question_id: str) -> str:
    """The Python module an exercise's stub is written to: its id with '-' as '_'."""
    return question_id.replace("-", "_")


def _tree(cell: Cell) -> ast.Module | None:
    try:
        return cells.parse(cell)
    except SyntaxError:
        return None  # reported by cells.check


def _functions(tree: ast.Module) -> list[ast.FunctionDef]:
    return [n for n in tree.body if isinstance(n, ast.FunctionDef)]


def _signature(cell: Cell, fn: ast.FunctionDef) -> str:
    lines = cells.python(cell.source).splitlines()
    body = fn.body[0].lineno
    text = "\n".join(lines[fn.lineno - 1 : body - 1]).rstrip()
    return text if text.endswith(":") else lines[fn.lineno - 1].rstrip()


def read(code: list[Cell] | tuple[Cell, ...]) -> Exercise | None:
    """The exercise of a page that ``check`` passed (None when a role cell is missing or not valid)."""
    by_label = {c.label: c for c in code if c.label in ROLES}
    if set(by_label) != set(ROLES):
        return None
    tree = _tree(by_label[STUB])
    fns = _functions(tree) if tree else []
    if len(fns) != 1:
        return None
    return Exercise(fns[0].name, _signature(by_label[STUB], fns[0]), by_label[STUB], by_label[SOLUTION], by_label[TESTS])


def _line(cell: Cell, node: ast.AST) -> int:
    return cell.line + getattr(node, "lineno", 1) - 1


def _check_stub(cell: Cell, tree: ast.Module, path: str) -> tuple[ast.FunctionDef | None, list[Problem]]:
    key = f"cell '{STUB}'"
    fns = _functions(tree)
    if len(fns) != 1:
        return None, [Problem(path, cell.line, key, f"defines {len(fns)} functions", "define exactly one: the function to implement")]
    fn, problems = fns[0], []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.Import | ast.ImportFrom):
            problems.append(Problem(path, _line(cell, node), key, "holds code besides imports and the function", "keep only imports and the stub's def"))
    body = fn.body
    if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
        problems.append(Problem(path, _line(cell, fn), key, f"{fn.name} has no docstring", "state the shapes, dtypes and the interviewer's constraints (no loop over the batch, memory O(...))"))
        return fn, problems
    rest = body[1:]
    raises = len(rest) == 1 and isinstance(rest[0], ast.Raise) and rest[0].exc is not None and "NotImplementedError" in ast.unparse(rest[0].exc)
    if not raises:
        line = _line(cell, rest[0]) if rest else _line(cell, fn)
        problems.append(Problem(path, line, key, f"the body of {fn.name} is not just 'raise NotImplementedError'", "the stub is what the reader starts from: the implementation goes in the cell labelled 'solution'"))
    return fn, problems


def _check_solution(cell: Cell, tree: ast.Module, stub: ast.FunctionDef, path: str) -> list[Problem]:
    key = f"cell '{SOLUTION}'"
    fn = next((f for f in _functions(tree) if f.name == stub.name), None)
    if fn is None:
        return [Problem(path, cell.line, key, f"does not define {stub.name}", f"define the stub's function, def {stub.name}(...), implemented")]
    want, got = [a.arg for a in stub.args.args + stub.args.kwonlyargs], [a.arg for a in fn.args.args + fn.args.kwonlyargs]
    if want != got:
        return [Problem(path, _line(cell, fn), key, f"{stub.name} takes ({', '.join(got)}), the stub ({', '.join(want)})", "give the solution the stub's signature")]
    return []


def _impl_param(fn: ast.FunctionDef, target: str) -> str:
    """The parameter of a test whose default is the function under test ('' when none)."""
    args = fn.args.args[len(fn.args.args) - len(fn.args.defaults):] if fn.args.defaults else []
    pairs = [*zip(args, fn.args.defaults, strict=True), *zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True)]
    return next((a.arg for a, d in pairs if isinstance(d, ast.Name) and d.id == target), "")


def _bare_calls(node: ast.AST, name: str, in_lambda: bool = False) -> list[ast.Call]:
    """Calls of ``name`` that are not inside a lambda."""
    found = []
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name and not in_lambda:
        found.append(node)
    for child in ast.iter_child_nodes(node):
        found += _bare_calls(child, name, in_lambda or isinstance(node, ast.Lambda))
    return found


def _helper_names(tree: ast.Module) -> set[str]:
    return {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == HELPER for a in n.names}


def _check_tests(cell: Cell, tree: ast.Module, target: str, path: str) -> tuple[list[str], list[Problem]]:
    key = f"cell '{TESTS}'"
    problems = []
    helpers = _helper_names(tree)
    if "expect_close" not in helpers:
        problems.append(Problem(path, cell.line, key, f"does not import expect_close from {HELPER}", f"start it with 'from {HELPER} import expect_close': the pack ships the same helper"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == target:
            problems.append(Problem(path, _line(cell, node), key, f"redefines {target}", "the tests take the function from the cell before them (the stub module in the pack)"))
        elif not isinstance(node, ast.FunctionDef | ast.Import | ast.ImportFrom | ast.Assign | ast.AnnAssign) and not _is_docstring(node):
            hint = f"keep imports, constants and test functions: pytest runs this cell at import; run the tests in the next cell with {RUNNER}(globals())"
            problems.append(Problem(path, _line(cell, node), key, "runs code at the top level", hint))
    tests = [n for n in _functions(tree) if n.name.startswith("test_")]
    if not tests:
        problems.append(Problem(path, cell.line, key, "defines no test_ function", f"write e.g. def test_matches_torch(impl={target}): expect_close(lambda: impl(x), ...)"))
    for fn in tests:
        impl = _impl_param(fn, target)
        if not impl:
            problems.append(Problem(path, _line(cell, fn), key, f"{fn.name} has no default-argument impl",
                                    f"write def {fn.name}(impl={target}): and call impl, so pytest runs it on the stub module and the book on any variant"))
            continue
        for call in _bare_calls(fn, impl):
            problems.append(Problem(path, _line(cell, call), key, f"{fn.name} calls {impl}(...) outside a lambda",
                                    f"write expect_close(lambda: {impl}(...), expected, like=...): on the stub the failure then says what was expected"))
        if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in helpers for n in ast.walk(fn)):
            problems.append(Problem(path, _line(cell, fn), key, f"{fn.name} checks nothing with expect_close", f"compare with expect_close(lambda: {impl}(...), expected, like=...)"))
    return [t.name for t in tests], problems


def _is_docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _calls(tree: ast.AST, names: set[str]) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names]


def _check_mistake(cell: Cell, tree: ast.Module, tests: list[str], target: str, path: str, title: str) -> list[Problem]:
    key = title
    hint = (f"define the buggy variant, then: try: {tests[0] if tests else 'test_x'}(impl=buggy) / except AssertionError as err: print(..., err) / "
            "else: raise AssertionError('... should fail')")
    trys = [t for t in ast.walk(tree) if isinstance(t, ast.Try) and any(_calls(s, set(tests)) for s in t.body)]
    if not trys:
        return [Problem(path, cell.line, key, "code cell runs no test of the tests cell", hint)]
    problems = []
    for t in trys:
        for call in (c for s in t.body for c in _calls(s, set(tests))):
            args = [*call.args, *(k.value for k in call.keywords)]
            if not args or any(isinstance(a, ast.Name) and a.id == target for a in args):
                problems.append(Problem(path, _line(cell, call), key, f"{call.func.id} runs on {target}, not on a buggy variant", f"pass the variant: {call.func.id}(impl=buggy)"))  # type: ignore[attr-defined]
        caught = [h for h in t.handlers if h.type is not None and "AssertionError" in ast.unparse(h.type)]
        if not caught or not any(_calls(h, {"print"}) for h in caught):
            problems.append(Problem(path, _line(cell, t), key, "the test's failure is not caught and printed", hint))
    return problems


def _check_module(question_id: str, id_line: int, path: str, imported: set[str]) -> list[Problem]:
    name = module_name(question_id)
    if not name.isidentifier() or name in sys.stdlib_module_names or name in imported or name == HELPER:
        why = "is not a Python identifier" if not name.isidentifier() else "would shadow a module the code imports"
        return [Problem(path, id_line, "studyguide.id", f"the practice pack's module {name!r} {why}", "choose an id that starts with a letter and names no module, e.g. stable-softmax")]
    return []


def check(outline: page.Outline, code: list[Cell], path: str, shape: page.Shape, question_id: str, id_line: int, body_line: int) -> list[Problem]:
    """Check an exercise page's role cells, tests and 易错点 cells; every problem names the cell and the fix."""
    problems: list[Problem] = []
    by_label = {c.label: c for c in code if c.label in ROLES}
    headings = {shape.key(text): line for line, level, text in outline.headings if level == 2}
    for role in ROLES:
        want = ROLE_SECTIONS[role]
        if role not in by_label:
            problems.append(Problem(path, headings.get(want, body_line), f"cell '{role}'", f"no code cell labelled '{role}'",
                                    f"add one in '## {shape.title(want)}' with ':label: {role}': {ROLE_HINTS[role]}"))
        elif page.section_of(outline, by_label[role].line, shape) != want:
            problems.append(Problem(path, by_label[role].line, f"cell '{role}'", "is in the wrong section", f"move it into '## {shape.title(want)}'"))
    trees = {role: _tree(cell) for role, cell in by_label.items()}
    if problems or None in trees.values():
        return problems
    stub, found = _check_stub(by_label[STUB], trees[STUB], path)  # type: ignore[arg-type]
    problems += found
    if stub is None:
        return problems
    problems += _check_solution(by_label[SOLUTION], trees[SOLUTION], stub, path)  # type: ignore[arg-type]
    tests, found = _check_tests(by_label[TESTS], trees[TESTS], stub.name, path)  # type: ignore[arg-type]
    problems += found
    if by_label[TESTS].line < by_label[SOLUTION].line:
        problems.append(Problem(path, by_label[TESTS].line, f"cell '{TESTS}'", "comes before the solution", "its impl defaults bind the function defined before it: put the solution first"))
    after = [c for c in code if c.line > by_label[TESTS].line and page.section_of(outline, c.line, shape) == page.TESTS]
    if not any(_calls(t, {RUNNER}) for c in after if (t := _tree(c)) is not None):
        problems.append(Problem(path, by_label[TESTS].line, f"cell '{TESTS}'", "the tests never run in the book",
                                f"add a cell after it in '## {shape.title(page.TESTS)}': from {HELPER} import {RUNNER}; {RUNNER}(globals())"))
    mistakes = [c for c in code if page.section_of(outline, c.line, shape) == page.PITFALLS]
    title = shape.title(page.PITFALLS)
    if not mistakes:
        problems.append(Problem(path, headings.get(page.PITFALLS, body_line), title, "no code cell shows a classic bug",
                                "add a cell per bug: the buggy variant, one test run on it, its one-line failure printed"))
    for cell in mistakes:
        tree = _tree(cell)
        if tree is not None:
            problems += _check_mistake(cell, tree, tests, stub.name, path, title)
    imported = {name for t in trees.values() if t is not None for name in _imports(t)}
    return problems + _check_module(question_id, id_line, path, imported)


def _imports(tree: ast.Module) -> set[str]:
    return {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} | {
        n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}


def requirements(exercises: list[Exercise]) -> list[str]:
    """The packages the exercises' code imports (the stdlib and the helper left out), for the pack's install line."""
    found = set()
    for ex in exercises:
        for cell in (ex.stub, ex.solution, ex.tests):
            tree = _tree(cell)
            found |= _imports(tree) if tree else set()
    return sorted(found - set(sys.stdlib_module_names) - {HELPER})
