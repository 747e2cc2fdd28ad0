"""The extension's one state object per build: the project root, its config, the parsed book, the builder.

Transforms reach it through the environment (``of(self.env)``), so nothing hangs off ``app`` and no
deprecated ``SphinxTransform.app`` is needed.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..book import Book
from ..config import Config


@dataclass
class State:
    """What the extension knows about the build it runs in."""

    root: Path
    config: Config
    book: Book | None = None
    builder: Any = None  # the Sphinx builder, once it is created
    reading: set[str] = field(default_factory=set)  # docnames read in this run
    blocks: frozenset[str] = frozenset()  # reference blocks the book's plugins define
    layout: Any = None  # the project's paths (``project.Layout``)


_STATES: weakref.WeakKeyDictionary[Any, State] = weakref.WeakKeyDictionary()  # keyed by the Sphinx app
_BY_ENV: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()  # environment -> app


_LATEST: list[State] = []  # the state of the app configured last, for an environment not yet bound


def attach(app: Any, state: State) -> None:
    """Make ``state`` this app's state."""
    _STATES[app] = state
    _LATEST[:] = [state]


def bind(app: Any, env: Any) -> None:
    """Remember which app an environment belongs to (a pickled environment is reloaded as a new object)."""
    _BY_ENV[env] = app


def of_app(app: Any) -> State:
    """The state of an app (raises ``KeyError`` outside a studyguide build)."""
    return _STATES[app]


def of(env: Any) -> State | None:
    """The state of the build an environment belongs to, or None outside a studyguide build."""
    app = _BY_ENV.get(env)
    if app is None:  # a builder's init() runs before builder-inited binds the environment
        return _LATEST[0] if _LATEST else None
    return _STATES.get(app)


def builder(env: Any) -> Any:
    """The builder of the build an environment belongs to."""
    st = of(env)
    if st is None or st.builder is None:
        raise RuntimeError("studyguide: no builder recorded for this environment")
    return st.builder
