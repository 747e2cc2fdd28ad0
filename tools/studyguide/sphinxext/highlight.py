"""Code lexed once: the site, the EPUBs and the PDFs share Pygments' tokens, within a build and across builds.

A build of all formats runs Sphinx several times in one process (site, two EPUBs, the PDFs' LaTeX), and each run
lexed every code cell again: Pygments' lexing took about 20 s of each. ``sphinx.highlighting`` calls
``pygments.highlight(source, lexer, formatter)``, which is ``format(lex(source, lexer), formatter)``; this keeps
the tokens, keyed by the source, the Pygments version and everything the lexer was made with, and formats them for
each output as before. A lexing error is raised as before and nothing is kept (Sphinx retries with another lexer).

The EPUB and LaTeX builders write every page on every run, so each later build process lexed every cell again
(6 s of the book's 26 s EPUB build): the tokens are also kept on disk, one compressed file per cell, beside the
formula cache (``_build/.highlight_cache``). A file that cannot be read is lexed again and replaced; one unused for
UNUSED_DAYS is removed.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import json
import os
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import pygments
import sphinx.highlighting
from pygments.token import _TokenType, string_to_tokentype
from sphinx.application import Sphinx

LIMIT = 100_000  # results kept in memory; the memo starts afresh past it
CACHE_DIR = ".highlight_cache"  # beside the jupyter-cache, in the build folder
UNUSED_DAYS = 30  # a cache file no build wrote, or read, for about this long is removed (a cell since edited or deleted)
_memo: dict[tuple[Any, ...], list[tuple[Any, str]]] = {}
_disk: list[Path] = []  # the cache folder of the Sphinx run going on (none: memory only)


def _spec(lexer: Any) -> tuple[Any, ...]:
    """What a lexer was made with: its class (and the file that defines it), options and filters."""
    options = tuple(sorted((k, repr(v)) for k, v in lexer.options.items()))
    filters = tuple(type(f).__qualname__ + repr(vars(f)) + _sources(type(f)) for f in lexer.filters)
    return (type(lexer).__module__, type(lexer).__qualname__, _sources(type(lexer)), options, filters)


def _sources(kind: Any) -> str:
    """The files defining ``kind`` and the classes it derives from."""
    return "|".join(_source(base) for base in kind.__mro__)


_SOURCES: dict[Any, str] = {}  # lexer and filter classes -> _source


def _source(kind: Any) -> str:
    """The file defining ``kind``, with its size and time: an upgraded lexer (ipython3 and the ANSI output lexer
    are not Pygments') gets keys of its own."""
    if kind not in _SOURCES:
        try:
            path = Path(inspect.getfile(kind))
            stat = path.stat()
            _SOURCES[kind] = f"{path}:{stat.st_size}:{stat.st_mtime_ns}"
        except (TypeError, OSError):
            _SOURCES[kind] = ""
    return _SOURCES[kind]


def _file(key: tuple[Any, ...]) -> Path | None:
    """The cache file of ``key`` (None without a cache folder)."""
    return _disk[0] / (hashlib.sha256(repr(key).encode("utf-8")).hexdigest() + ".json.z") if _disk else None


def _read(path: Path | None) -> list[tuple[Any, str]] | None:
    """The tokens a cache file holds; None when there is none or it cannot be read."""
    if path is None:
        return None
    try:
        tokens = [(_kind(kind), value) for kind, value in json.loads(zlib.decompress(path.read_bytes()))]
    except (OSError, ValueError, TypeError, AttributeError, zlib.error):
        return None
    with contextlib.suppress(OSError):  # a read-only folder, or a file another build just removed
        if time.time() - path.stat().st_mtime > 86400:
            os.utime(path)  # read today: kept UNUSED_DAYS more
    return tokens


@functools.cache
def _kind(name: str) -> Any:
    """The token type named ``name`` (``Token.Name.Builtin``); ValueError for a name that is none."""
    kind = string_to_tokentype(name)
    if not isinstance(kind, _TokenType):
        raise ValueError(f"not a token type: {name}")
    return kind


def _write(path: Path | None, tokens: list[tuple[Any, str]]) -> None:
    """Keep ``tokens`` in ``path``, whole or not at all."""
    if path is None:
        return
    part = path.with_name(f"{path.name}.{os.getpid()}.part")  # parallel writers each write a file of their own
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part.write_bytes(zlib.compress(json.dumps([[str(kind), value] for kind, value in tokens]).encode("ascii"), 1))
        os.replace(part, path)
    except OSError:
        pass  # a full or read-only disk: the build goes on without the file
    finally:
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)  # also after Ctrl-C


def lex(source: str, lexer: Any) -> list[tuple[Any, str]]:
    """``list(pygments.lex(source, lexer))``, from memory or from the cache folder when the same source was lexed by
    the same lexer."""
    key = (sys.version_info[:2], pygments.__version__, source, _spec(lexer))
    tokens = _memo.get(key)
    if tokens is None:
        path = _file(key)
        tokens = _read(path)
        if tokens is None:
            tokens = list(pygments.lex(source, lexer))  # a lexing error propagates before anything is kept
            _write(path, tokens)
        if len(_memo) >= LIMIT:
            _memo.clear()
        _memo[key] = tokens
    return tokens


def highlight(source: str, lexer: Any, formatter: Any, outfile: Any = None) -> Any:
    """``pygments.highlight``, with the tokens of :func:`lex`."""
    return pygments.format(iter(lex(source, lexer)), formatter, outfile)


def use_cache(app: Sphinx, config: Any) -> None:
    """Keep tokens in the build folder's cache (beside the jupyter-cache) for this run; in memory only without one.
    Files unused for UNUSED_DAYS, and parts a killed build left, are removed."""
    folder = config.nb_execution_cache_path
    _disk[:] = [Path(folder).parent / CACHE_DIR] if folder else []
    if _disk:
        prune(_disk[0], time.time())


def prune(folder: Path, now: float) -> None:
    """Remove the cache files of ``folder`` unused for UNUSED_DAYS at ``now``, and parts older than an hour."""
    for path in folder.glob("*.json.z*") if folder.is_dir() else ():
        try:
            age = now - path.stat().st_mtime
            if age > (3600 if path.suffix == ".part" else UNUSED_DAYS * 86400):
                path.unlink()
        except OSError:
            pass  # removed meanwhile by another build


def setup(app: Sphinx) -> None:
    """Make Sphinx's highlighter use the memo and the cache folder."""
    sphinx.highlighting.highlight = highlight  # type: ignore[attr-defined]
    app.connect("config-inited", use_cache)
