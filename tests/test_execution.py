"""Execution: each page runs once; rebuilds, prose edits and fresh clones execute nothing."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import nbformat
import pytest
from conftest import copy_project, studyguide

pytestmark = pytest.mark.build  # executes kernels or builds: not in `make unit`

SHAPE = "book/1-basics/tensor/shape-demo.md"
GRAD = "book/2-intermediate/autograd/grad-demo.md"


def executed(root: Path) -> list[str]:
    return json.loads((root / "_build/execute-report.json").read_text())["executed"]


def records(root: Path) -> list[tuple[str, bool]]:
    """(hashkey, has provenance) of every jupyter-cache record; myst-nb's own records lack provenance."""
    with sqlite3.connect(root / "_build/.jupyter_cache/global.db") as db:
        rows = db.execute("select hashkey, data from nbcache order by hashkey").fetchall()
    return [(key, "studyguide" in json.loads(data or "{}")) for key, data in rows]


def page_html(root: Path, rel: str) -> str:
    return (root / "_build/html" / rel.removeprefix("book/").replace(".md", ".html")).read_text(encoding="utf-8")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project("minibook", tmp_path / "minibook")


def test_second_build_prose_edit_and_code_edit(project: Path) -> None:
    studyguide(project, "build", "html")
    assert sorted(executed(project)) == sorted([SHAPE, GRAD, "book/3-advanced/performance/gpu-demo.md", "book/1-basics/tensor/relu-from-scratch.md"])
    first = records(project)
    assert len(first) == 4 and all(has for _, has in first)

    studyguide(project, "build", "html")  # second build: nothing executes, in the executor or in Sphinx
    assert executed(project) == [] and records(project) == first

    page = project / SHAPE
    page.write_text(page.read_text(encoding="utf-8").replace("stride 的含义。", "stride 的含义，改过的一句话。"), encoding="utf-8")
    studyguide(project, "build", "html")  # prose edit: re-read, not re-executed
    assert executed(project) == [] and records(project) == first
    assert "改过的一句话" in page_html(project, SHAPE)

    grad = project / GRAD
    grad.write_text(grad.read_text(encoding="utf-8").replace("y = x ** 3\n", "y = x ** 3  # 改过的代码\n"), encoding="utf-8")
    studyguide(project, "build", "html")  # code edit: only that page runs again
    assert executed(project) == [GRAD]
    after = records(project)
    assert len(after) == 5 and all(has for _, has in after)
    assert "改过的代码" in page_html(project, GRAD)


def test_fresh_clone_builds_the_same_site_without_executing(project: Path, tmp_path: Path) -> None:
    studyguide(project, "build", "html")
    clone = tmp_path / "clone"
    shutil.copytree(project, clone, ignore=shutil.ignore_patterns("_build"))
    studyguide(clone, "build", "--frozen", "html")
    assert executed(clone) == []
    assert not (clone / "_build/.jupyter_cache").exists() or all(has for _, has in records(clone))
    for rel in (SHAPE, GRAD):
        assert page_html(clone, rel) == page_html(project, rel)


def test_frozen_mode_refuses_to_execute_stale_pages(project: Path) -> None:
    studyguide(project, "execute")
    page = project / SHAPE
    page.write_text(page.read_text(encoding="utf-8").replace("m = torch.arange(6)", "m = torch.arange(6)  # 改"), encoding="utf-8")
    proc = studyguide(project, "execute", "--frozen", check=False)
    assert proc.returncode == 1
    assert proc.stderr == f"{SHAPE}: outputs are stale (code changed since execution; run `make execute` and commit book/_executed/)\n"


def test_store_is_reviewable_text_with_provenance(project: Path) -> None:
    studyguide(project, "execute")
    text = (project / "book/_executed/grad-demo.ipynb").read_text(encoding="utf-8")
    nb = nbformat.reads(text, as_version=4)
    assert [c.cell_type for c in nb.cells] == ["code"] * 4  # code cells only: prose edits never touch it
    assert [c.execution_count for c in nb.cells] == [1, 2, 3, 4]
    assert '"source": [' in text and "dy/dx = 27.0" in text  # line lists, readable in a diff
    assert nb.cells[1].outputs[0].output_type == "error"  # the tagged cell kept its intended error
    assert nb.cells[2].outputs[0].output_type == "display_data" and "image/png" in nb.cells[2].outputs[0].data
    prov = nb.metadata.studyguide
    assert prov.page == GRAD and prov.device_type in {"cpu", "cuda"} and prov.torch and prov.date
    assert "execution" not in json.dumps([c.metadata for c in nb.cells])  # no timestamps


def test_provenance_and_cpu_fallback_are_printed(project: Path) -> None:
    studyguide(project, "build", "html")
    html = page_html(project, "book/3-advanced/performance/gpu-demo.md")
    assert "输出来源：" in html and "torch " in html
    assert "CPU 回退" in html and "studyguide-cpu-fallback" in html
    assert "CPU 回退" not in page_html(project, SHAPE)
    env = (project / "_build/html/environment.html").read_text(encoding="utf-8")
    assert "执行环境" in env and "<td><p>4</p></td>" in env  # three questions and one exercise


def test_a_page_that_kills_its_kernel_is_reported_at_its_cell_and_not_retried(project: Path) -> None:
    page = project / SHAPE
    text = page.read_text(encoding="utf-8").replace("m = torch.arange(6)", "import os\nos._exit(3)\nm = torch.arange(6)")
    page.write_text(text, encoding="utf-8")
    proc = studyguide(project, "execute", check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{SHAPE}:") and ": cell 1: the kernel died while running this cell" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and "attempts" not in proc.stdout


FLAKY_KERNEL = """
import os, sys
marker = sys.argv.pop(1)
if not os.path.exists(marker):  # the first start fails, as a kernel that cannot start would
    open(marker, "w").close()
    sys.exit(1)
os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *sys.argv[1:]])
"""


def test_a_kernel_that_fails_to_start_is_retried(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from conftest import FIXTURES

    root = tmp_path / "book"
    shutil.copytree(FIXTURES / "bad-pages" / "_base", root)
    spec = tmp_path / "jupyter/kernels/python3"
    spec.mkdir(parents=True)
    (tmp_path / "flaky.py").write_text(FLAKY_KERNEL, encoding="utf-8")
    argv = [sys.executable, str(tmp_path / "flaky.py"), str(tmp_path / "started-once"), "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "flaky", "language": "python"}))
    (root / "pyproject.toml").write_text("[tool.studyguide]\njobs = 1\nprovenance = [\"torch\"]\n", encoding="utf-8")
    env = {**os.environ, "JUPYTER_PATH": str(tmp_path / "jupyter")}
    run = [sys.executable, "-m", "studyguide.cli", "--root", str(root), "execute", "book/1-basics/tensor/good.md"]
    proc = subprocess.run(run, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "ok     book/1-basics/tensor/good.md" in proc.stdout and "2 attempts" in proc.stdout


def test_new_stored_outputs_for_unchanged_code_reach_every_format(project: Path) -> None:
    """A GPU run imports new outputs for the same code: no source changes, yet HTML and EPUB must follow."""
    import zipfile

    studyguide(project, "build", "html", "epub")
    store = project / "book/_executed/shape-demo.ipynb"
    text = store.read_text(encoding="utf-8")
    assert text.count("(3, 1) 转置后") == 1  # in the output only, not in the code
    store.write_text(text.replace("(3, 1) 转置后", "(9, 9) 转置后"), encoding="utf-8")
    studyguide(project, "build", "html", "epub")
    assert executed(project) == []
    assert "(9, 9) 转置后" in page_html(project, SHAPE)
    with zipfile.ZipFile(project / "_build/minibook.epub") as z:
        assert "(9, 9) 转置后" in z.read("1-basics/tensor/shape-demo.xhtml").decode("utf-8")


def test_timing_pages_run_alone_after_the_batch_with_fixed_threads(tmp_path: Path) -> None:
    from conftest import FIXTURES
    from studyguide.locale import load
    from studyguide.provenance import describe

    root = tmp_path / "book"
    shutil.copytree(FIXTURES / "bad-pages" / "_base", root)
    (root / "pyproject.toml").write_text("[tool.studyguide]\ntiming_threads = 1\njobs = 2\nprovenance = [\"torch\"]\n", encoding="utf-8")
    good = root / "book/1-basics/tensor/good.md"
    timed = good.read_text(encoding="utf-8").replace("id: good", "id: timed").replace(
        "x = 1 + 1\nassert x == 2",
        "from torch.utils import benchmark\nm = benchmark.Timer('1 + 1').blocked_autorange(min_run_time=0.2)\n"
        "assert m.median > 0",
    )
    (good.parent / "timed.md").write_text(timed, encoding="utf-8")
    out = studyguide(root, "execute").stdout
    assert "then 1 timing page(s) alone" in out and "(alone) ok     book/1-basics/tensor/timed.md" in out
    assert out.index("ok     book/1-basics/tensor/good.md") < out.index("(alone) ok")  # after the batch
    meta = {p.stem: nbformat.read(p, as_version=4).metadata["studyguide"] for p in (root / "book/_executed").glob("*.ipynb")}
    assert meta["timed"]["alone"] is True and meta["timed"]["threads"] == 1
    assert "alone" not in meta["good"]
    assert describe(meta["timed"], load("zh"), ("torch",)).endswith("计时页：单独运行，1 个线程")
    assert "计时页" not in describe(meta["good"], load("zh"), ("torch",))


def test_stored_outputs_of_deleted_pages_are_pruned_and_reported(project: Path) -> None:
    studyguide(project, "execute")
    stray = project / "book/_executed/deleted-question.ipynb"
    shutil.copy(project / "book/_executed/grad-demo.ipynb", stray)
    out = studyguide(project, "execute").stdout
    assert "execute: removed book/_executed/deleted-question.ipynb (its page no longer exists)" in out
    assert not stray.exists() and (project / "book/_executed/grad-demo.ipynb").is_file()
