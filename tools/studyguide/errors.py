"""Problems found in the sources, and the exceptions that carry them to the CLI."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One defect in one source file, printed as ``file:line: key: message (hint)``."""

    path: str
    line: int
    key: str
    message: str
    hint: str = ""

    def __str__(self) -> str:
        text = f"{self.path}:{self.line}: {self.key}: {self.message}"
        return f"{text} ({self.hint})" if self.hint else text


class StudyguideError(Exception):
    """Base class: every error the tools raise prints as one or more one-line messages."""


class BookError(StudyguideError):
    """The sources have problems; all of them are listed, one per line, sorted by file and line."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems = sorted(set(problems))
        super().__init__("\n".join(str(p) for p in self.problems))


class ExecutionError(StudyguideError):
    """A page's code raised, or its kernel could not be run."""


class ToolMissingError(StudyguideError):
    """A program the build needs (TeX, fonts, epubcheck) is not installed."""


class BuildError(StudyguideError):
    """A build stage failed; the last good output was kept."""


class ConfigError(StudyguideError):
    """The ``[tool.studyguide]`` table holds an unknown key or a bad value."""


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """Return a ``did you mean 'x'?`` hint for the closest choice, or list the choices."""
    choices = sorted(choices)
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if close:
        return f"did you mean '{close[0]}'?"
    return "choose one of: " + ", ".join(choices)
