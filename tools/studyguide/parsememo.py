"""Parsed pages kept between commands: a page is parsed again only when its text, topics, rules or code change.

Parsing and checking a page (MyST tokens, myst-nb's cells, IPython's transforms, the asserts) takes about 0.1 s;
every ``studyguide`` command parses the whole book, so a no-op build spent 20 s of 171 pages on it. The memo is a
pickle in the build folder, keyed by a hash of everything ``parse_page`` reads plus the code that parses.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import os
import pickle
import tempfile
from collections.abc import Iterator, MutableMapping
from functools import cache
from pathlib import Path
from typing import Any

FILE = ".parsed-pages.pickle"  # in the build folder: the pages parsed by the last command
FORMAT = 1
LIBRARIES = ("myst-parser", "markdown-it-py", "mdit-py-plugins", "myst-nb", "ipython", "nbformat", "PyYAML")


@cache
def code_version() -> str:
    """A hash of this package's sources and the versions of the libraries a page is parsed with."""
    h = hashlib.sha256(f"format {FORMAT}".encode())
    for lib in LIBRARIES:
        try:
            version = importlib.metadata.version(lib)
        except importlib.metadata.PackageNotFoundError:
            version = "absent"
        h.update(f"{lib} {version}\n".encode())
    package = Path(__file__).parent
    for path in sorted(package.rglob("*.py")):
        h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _stable(obj: Any) -> Any:
    """``obj`` as nested tuples whose repr does not depend on set order or hash seeds."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (type(obj).__qualname__, *(_stable(getattr(obj, f.name)) for f in dataclasses.fields(obj)))
    if isinstance(obj, (set, frozenset)):
        return ("set", *sorted(repr(_stable(x)) for x in obj))
    if isinstance(obj, dict):
        return ("dict", *sorted((repr(_stable(k)), repr(_stable(v))) for k, v in obj.items()))
    if isinstance(obj, (list, tuple)):
        return tuple(_stable(x) for x in obj)
    return obj


def key(rel: str, text: str, topics: Any, prefix: str, rules: Any) -> str:
    """The memo key of one page: everything ``parse_page`` reads, and the code that reads it."""
    inputs = repr((code_version(), rel, prefix, _stable(dict(topics)), _stable(rules)))
    return hashlib.sha256(inputs.encode() + b"\0" + text.encode()).hexdigest()


def read(path: Path) -> dict[str, Any]:
    """The memo stored at ``path``, or an empty one (missing, unreadable or of another format)."""
    try:
        with open(path, "rb") as f:
            memo = pickle.load(f)
    except Exception:  # a cache: a damaged or foreign file only costs a full parse
        return {}
    return memo if isinstance(memo, dict) else {}


class Recording(MutableMapping[str, Any]):
    """A memo that records which keys were used and which were added."""

    def __init__(self, old: dict[str, Any]) -> None:
        self.old, self.used, self.added = old, set[str](), False

    def __getitem__(self, k: str) -> Any:
        self.used.add(k)
        return self.old[k]

    def __setitem__(self, k: str, v: Any) -> None:
        self.used.add(k)
        self.old[k], self.added = v, True

    def __delitem__(self, k: str) -> None:
        del self.old[k]

    def __contains__(self, k: object) -> bool:
        return k in self.old

    def __iter__(self) -> Iterator[str]:
        return iter(self.old)

    def __len__(self) -> int:
        return len(self.old)


def write(path: Path, memo: Recording, keep_unused: bool) -> None:
    """Store the pages used this time (and the others too with ``keep_unused``), if that changes the file."""
    kept = memo.old if keep_unused else {k: v for k, v in memo.old.items() if k in memo.used}
    if not memo.added and len(kept) == len(memo.old) and path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump(kept, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
