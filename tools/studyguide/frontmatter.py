"""Split a MyST page into front matter and body, and parse the YAML with a line for every key."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from .errors import Problem


@dataclass(frozen=True)
class FrontMatter:
    """Parsed front matter: the data, and the 1-based source line of every key path."""

    data: dict[str, Any]
    lines: dict[str, int] = field(default_factory=dict)
    body_line: int = 1  # first line after the closing ``---``

    def line(self, key: str) -> int:
        """Line of ``key`` (e.g. ``studyguide.topics[1]``), else of its nearest parent, else 1."""
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key.rpartition("[")[0] if key.endswith("]") else key.rpartition(".")[0]
        return 1


def split(text: str) -> tuple[str, int, int] | None:
    """Return (yaml_text, first_yaml_line, body_line) when ``text`` opens with ``---``."""
    lines = text.splitlines()
    if not lines or lines[0].rstrip() != "---":
        return None
    for i, line in enumerate(lines[1:], start=1):
        if line.rstrip() in ("---", "..."):
            return "\n".join(lines[1:i]) + "\n", 2, i + 2
    return None


_STR_TAG = "tag:yaml.org,2002:str"


def _key_lines(node: yaml.Node, prefix: str, offset: int, out: dict[str, int], problems: list[Problem], path_: str,
               above: frozenset[int] = frozenset()) -> None:
    """Record the line of every mapping key and sequence item under ``node``; note duplicate and non-string keys."""
    if id(node) in above:
        line = node.start_mark.line + offset
        problems.append(Problem(path_, line, prefix, "a YAML alias refers to its own parent", "write the value out instead of using &anchor / *alias"))
        return
    above = above | {id(node)}
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            path = f"{prefix}.{key_node.value}" if prefix else str(key_node.value)
            line = key_node.start_mark.line + offset
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _STR_TAG:
                shown = key_node.value if isinstance(key_node, yaml.ScalarNode) else "a collection"
                problems.append(Problem(path_, line, prefix or "front matter", f"key {shown!r} is not a string", "write keys as plain names, e.g. tier:"))
                continue
            if key_node.value in seen:
                problems.append(Problem(path_, line, path, "duplicate key", "keep one: YAML would silently keep only the last"))
            seen.add(key_node.value)
            out.setdefault(path, line)
            _key_lines(value_node, path, offset, out, problems, path_, above)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            path = f"{prefix}[{i}]"
            out[path] = item.start_mark.line + offset
            _key_lines(item, path, offset, out, problems, path_, above)


def parse(text: str, path: str) -> tuple[FrontMatter | None, list[Problem]]:
    """Parse the front matter of ``text``; problems carry ``path`` and the line."""
    parts = split(text)
    if parts is None:
        hint = "start the file with a '---' line, the YAML, and a closing '---' line"
        return None, [Problem(path, 1, "front matter", "missing or unterminated front matter", hint)]
    yaml_text, first, body_line = parts
    try:
        node = yaml.compose(yaml_text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(yaml_text)
    except yaml.YAMLError as exc:  # scanner, parser and constructor errors alike
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = first + (mark.line if mark else 0)
        reason = getattr(exc, "problem", None) or (str(exc).splitlines() or [type(exc).__name__])[0]
        hint = "check indentation, and quote values that contain ':' or '#'"
        return None, [Problem(path, line, "front matter", f"invalid YAML: {reason}", hint)]
    if not isinstance(data, dict):
        hint = "the front matter must be a mapping of keys to values"
        return None, [Problem(path, first, "front matter", "not a YAML mapping", hint)]
    lines: dict[str, int] = {}
    problems: list[Problem] = []
    if node is not None:
        _key_lines(node, "", first, lines, problems, path)
    if problems:
        return None, problems
    return FrontMatter(data, lines, body_line), []
