"""The GitHub Actions workflows: actionlint finds nothing in them, and does find a broken one; their studyguide calls parse."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO
from studyguide.cli import parser

GITHUB = REPO / ".github"
NAMES = ("ci", "execute", "pages", "release")


def actionlint(github: Path) -> subprocess.CompletedProcess:
    venv_bin = Path(sys.executable).parent / "actionlint"
    program = str(venv_bin) if venv_bin.is_file() else shutil.which("actionlint")
    if program is None:
        pytest.fail("actionlint is not installed (pip install -e '.[test]')")
    files = sorted(str(p) for p in (github / "workflows").glob("*.yml"))
    return subprocess.run([program, "-no-color", "-config-file", str(github / "actionlint.yaml"), *files],
                          cwd=github.parent, capture_output=True, text=True, check=False)


def test_the_four_workflows_pass_actionlint() -> None:
    assert sorted(p.stem for p in (GITHUB / "workflows").glob("*.yml")) == sorted(NAMES)
    proc = actionlint(GITHUB)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(("file", "old", "new", "message"), [
    ("execute.yml", "needs: shard\n", "needs: shards\n", 'job "merge" needs job "shards" which does not exist'),
    ("execute.yml", "runs-on: [self-hosted, linux, gpu]", "runs-on: [self-hosted, linux, gpu2]", 'label "gpu2" is unknown'),
    ("release.yml", "${{ github.ref_name }}", "${{ github.ref_nam }}", 'property "ref_nam" is not defined'),
])
def test_actionlint_fails_on_a_broken_workflow(tmp_path: Path, file: str, old: str, new: str, message: str) -> None:
    broken = tmp_path / ".github"
    shutil.copytree(GITHUB, broken)
    path = broken / "workflows" / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    proc = actionlint(broken)
    assert proc.returncode == 1 and message in proc.stdout, proc.stdout + proc.stderr


def test_every_studyguide_call_in_the_workflows_parses() -> None:
    calls = []
    for path in sorted((GITHUB / "workflows").glob("*.yml")):
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.search(r"\.venv/bin/studyguide (.*)$", line)
            if m:
                calls.append(re.sub(r"\$\{\{[^}]*\}\}", "1", m.group(1)))
    assert {shlex.split(c)[0] for c in calls} == {"execute", "merge", "status", "build"}
    for call in calls:
        parser().parse_args(shlex.split(call))  # exits (SystemExit) on an unknown command or option
