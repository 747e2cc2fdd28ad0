"""Reference blocks for the cheat sheets: small tables a book computes when its sheets are built.

A book names Python files in ``[tool.studyguide] plugins``; each defines ``BLOCKS``, a mapping of block name to
a function returning a ``Table``, and ``PACKAGE``, the package whose installed version computed them (printed
under each table). Topics list the blocks of their sheet in ``topics.yml`` (``reference: [name]``).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import BuildError, ConfigError


@dataclass(frozen=True)
class Table:
    """A reference table as printed on a sheet."""

    title: str
    heads: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Block:
    """A named reference block: the function that computes it, and the package it asks."""

    name: str
    compute: Callable[[], Table]
    package: str = ""
    path: str = ""  # the plugin file, as named in pyproject.toml


def load(root: Path, paths: Iterable[str]) -> dict[str, Block]:
    """The blocks of the plugin files ``paths`` (relative to ``root``); raise ``ConfigError`` naming a bad one."""
    blocks: dict[str, Block] = {}
    for rel in paths:
        path = root / rel
        if not path.is_file():
            raise ConfigError(f"pyproject.toml [tool.studyguide]: plugins: {rel}: no such file (give a .py path from the project root)")
        spec = importlib.util.spec_from_file_location(f"studyguide_plugin_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        try:
            spec.loader.exec_module(module)  # type: ignore[union-attr]
        except Exception as exc:  # a plugin is the book's own code: report it in one line
            raise ConfigError(f"{rel}: the plugin failed to load: {type(exc).__name__}: {exc}") from None
        found = getattr(module, "BLOCKS", None)
        if not isinstance(found, Mapping):
            raise ConfigError(f"{rel}: a plugin defines BLOCKS, a mapping of block name to a function returning a Table")
        for name, compute in found.items():
            if name in blocks:
                raise ConfigError(f"{rel}: reference block {name!r} is defined twice (rename one)")
            blocks[name] = Block(str(name), compute, str(getattr(module, "PACKAGE", "")), rel)
    return blocks


_COMPUTED: dict[int, tuple[Block, Table]] = {}  # id -> (block, its table): sheets that share a block compute it once per process


def render(names: Iterable[str], blocks: Mapping[str, Block], note: str) -> list[dict[str, Any]]:
    """The named blocks as the JSON the sheet template prints; ``note`` names ``{package}`` and ``{version}``."""
    out: list[dict[str, Any]] = []
    for name in names:
        block = blocks[name]
        try:
            if id(block) not in _COMPUTED:
                _COMPUTED[id(block)] = (block, block.compute())
            table = _COMPUTED[id(block)][1]
        except Exception as exc:  # a plugin is the book's own code, and its asserts are its rows' claims: one line
            raise BuildError(_failure(block, exc)) from exc
        version = importlib.metadata.version(block.package).split("+")[0] if block.package else ""
        out.append({"title": table.title, "note": note.format(package=block.package, version=version) if block.package else "",
                    "heads": list(table.heads), "rows": [list(r) for r in table.rows]})
    return out


def _failure(block: Block, exc: Exception) -> str:
    """A block that raised, in one line: the plugin's line that failed, and what it raised."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if block.path and Path(f.filename).as_posix().endswith(block.path)]
    where = f"{block.path}:{frames[-1].lineno}" if frames else block.path or block.name
    what = f"{type(exc).__name__}: {exc}".rstrip(": ")
    return (f"{where}: reference block {block.name!r} failed: {what} "
            f"(its asserts are what its rows claim: the installed {block.package or 'code'} no longer agrees, so fix that row)")
