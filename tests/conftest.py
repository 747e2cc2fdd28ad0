"""Shared test helpers: project copies, the CLI in a subprocess, external tools."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"


def copy_project(name: str, dest: Path) -> Path:
    """Copy the fixture project ``tests/fixtures/<name>`` to ``dest`` and return its root."""
    shutil.copytree(FIXTURES / name, dest, ignore=shutil.ignore_patterns("_build", "__pycache__"))
    return dest


def studyguide(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run ``studyguide --root ROOT ARGS`` in a fresh process (Sphinx keeps global state)."""
    proc = subprocess.run(
        [sys.executable, "-m", "studyguide.cli", "--root", str(root), *args],
        capture_output=True, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"}, check=False,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"studyguide {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def require_program(name: str) -> str:
    """Path of an external program the test needs; fail (not skip) when it is missing."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed (run tools/setup.sh debian)")
    return path


@pytest.fixture(scope="session")
def built_minibook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture mini-book, executed and built to HTML, EPUB and PDF once per session."""
    root = copy_project("minibook", tmp_path_factory.mktemp("built") / "minibook")
    studyguide(root, "build")
    return root
