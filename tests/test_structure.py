"""The code's structure: no import circles between the tool's modules, and the Sphinx extension never imports
the build, the CLI or the executor (the registry of editions and paths is what they share)."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "tools" / "studyguide"


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def imports() -> dict[str, set[str]]:
    """Module -> the package's modules it imports at module level or inside functions."""
    names = {module_name(p) for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        name = module_name(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(max(node.level - 1, 0)):
                    base = base.rpartition(".")[0]
                target = f"{base}.{node.module}" if node.level and node.module else (base if node.level else node.module or "")
                subs = {f"{target}.{a.name}" for a in node.names} & names
                found |= subs if node.module is None and subs else {target} | subs  # `from . import x` imports x
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
        graph[name] = {m for m in found if m in names and m != name}
    return graph


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_no_module_imports_itself_through_others() -> None:
    graph = imports()
    circles = sorted(m for m in graph if m in reachable(graph, m))
    assert circles == [], f"import circles through: {circles}"


def test_the_sphinx_extension_never_reaches_the_build_the_cli_or_the_executor() -> None:
    graph = imports()
    ext = {m for m in graph if m.startswith("studyguide.sphinxext")}
    reached = set().union(*(reachable(graph, m) for m in ext))
    assert not reached & {"studyguide.build", "studyguide.cli", "studyguide.execute"}
