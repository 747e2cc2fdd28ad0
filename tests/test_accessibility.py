"""The EPUBs pass Ace by DAISY (the EPUB Accessibility 1.1 checker), run on Debian's Chromium through Puppeteer."""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from conftest import REPO, require_program

pytestmark = pytest.mark.build  # executes kernels or builds: not in `make unit`

ACE = REPO / "tools/node/node_modules/.bin/ace-puppeteer"


def ace(epub: Path, out: Path) -> dict:
    """Ace's JSON report on ``epub``."""
    if not ACE.is_file():
        pytest.fail("Ace by DAISY is not installed (run tools/setup.sh node)")
    env = {**os.environ, "PUPPETEER_EXECUTABLE_PATH": require_program("chromium")}
    cmd = [str(ACE), "--verbose", "--force", "--outdir", str(out), str(epub)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, check=False)
    if proc.returncode != 0:  # Ace crashed (violations exit 0, in the report): seen once per fresh CI run, never alone
        first = (proc.stdout + proc.stderr).strip()[-2000:]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, check=False)
        if proc.returncode != 0:
            pytest.fail(f"Ace failed twice ({proc.returncode}); first run: {first}")
    return json.loads((out / "report.json").read_text(encoding="utf-8"))


def violations(report: dict) -> Counter:
    """Failed checks by rule."""
    found: Counter = Counter()
    for page in report["assertions"]:
        for check in page.get("assertions", []):
            if check["earl:result"]["earl:outcome"] == "fail":
                found[check["earl:test"]["dct:title"]] += 1
    return found


@pytest.mark.parametrize("name", ["minibook.epub", "minibook-quickreview.epub"])
def test_ace_reports_no_violation_and_finds_the_accessibility_metadata(built_minibook: Path, tmp_path: Path, name: str) -> None:
    report = ace(built_minibook / "_build" / name, tmp_path / "ace")
    assert violations(report) == Counter() and report["earl:result"]["earl:outcome"] == "pass"
    present = set(report["a11y-metadata"]["present"])
    assert {"schema:accessMode", "schema:accessModeSufficient", "schema:accessibilityFeature", "schema:accessibilityHazard",
            "schema:accessibilitySummary"} <= present
