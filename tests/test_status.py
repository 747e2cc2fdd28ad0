"""`studyguide status`: stale pages and CPU outputs by default; --strict fails a release without GPU outputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import studyguide

pytestmark = pytest.mark.build  # executes kernels or builds: not in `make unit`

GPU_PAGE = "book/3-advanced/performance/gpu-demo.md"


def project(built: Path, tmp_path: Path) -> Path:
    root = tmp_path / "mb"
    shutil.copytree(built, root, ignore=shutil.ignore_patterns("_build"))
    return root


def set_device(root: Path, qid: str, device_type: str, device: str) -> None:
    path = root / "book/_executed" / f"{qid}.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    nb["metadata"]["studyguide"].update(device_type=device_type, device=device, cuda="13.0")
    path.write_text(json.dumps(nb, ensure_ascii=False, indent=1), encoding="utf-8")


def test_default_mode_lists_cpu_outputs_and_gpu_fallbacks(built_minibook: Path, tmp_path: Path) -> None:
    root = project(built_minibook, tmp_path)
    proc = studyguide(root, "status")
    lines = proc.stdout.splitlines()
    assert any(line.startswith(f"{GPU_PAGE}: needs a GPU but its outputs came from ") and line.endswith("(CPU fallback)") for line in lines)
    assert sum("outputs from CPU" in line for line in lines) == 3  # two questions and the exercise
    assert lines[-1] == "4 pages: 0 stale, 4 with CPU outputs, 1 of them need a GPU"


def test_default_mode_lists_stale_pages(built_minibook: Path, tmp_path: Path) -> None:
    root = project(built_minibook, tmp_path)
    page = root / "book/1-basics/tensor/shape-demo.md"
    page.write_text(page.read_text(encoding="utf-8").replace("m = torch.arange(6)", "m = torch.arange(6)  # 改"), encoding="utf-8")
    out = studyguide(root, "status").stdout
    assert "book/1-basics/tensor/shape-demo.md: stale: code changed since its outputs were produced (run `make execute`)" in out
    assert out.splitlines()[-1].startswith("4 pages: 1 stale")


def test_strict_mode_fails_without_gpu_outputs_and_passes_with_them(built_minibook: Path, tmp_path: Path) -> None:
    root = project(built_minibook, tmp_path)
    proc = studyguide(root, "status", "--strict", check=False)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[-1].endswith("release check FAILED: every GPU page needs fresh GPU outputs")
    set_device(root, "gpu-demo", "cuda", "NVIDIA H200")  # as if imported from a GPU run
    proc = studyguide(root, "status", "--strict")
    assert proc.stdout.splitlines()[-1] == "4 pages: 0 stale, 3 with CPU outputs, 0 of them need a GPU — release check passed"
    assert GPU_PAGE not in proc.stdout
