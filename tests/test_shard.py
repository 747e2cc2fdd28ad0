"""Sharded execution: the partition by recorded time, shard archives, and merging them into the store."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import copy_project, studyguide
from hypothesis import given
from hypothesis import strategies as st
from studyguide import archive, notebook
from studyguide.book import load_book
from studyguide.errors import ExecutionError
from studyguide.shard import Shard, imbalance, loads, parse_spec, partition

SHAPE = "book/1-basics/tensor/shape-demo.md"
# Provenance fields that differ between two correct runs of the same code, so the comparison drops them:
# date (the day it ran), seconds (wall time), threads (cores // parallel workers: a shard of one page
# runs it with every core, the single run with fewer). Code, outputs, device, torch, python, alone stay.
VOLATILE = ("date", "seconds", "threads")


def test_longest_first_onto_the_least_loaded_shard_then_untimed_pages_by_count() -> None:
    costs = {"a": 10.0, "b": 9.0, "c": 8.0, "d": 7.0, "e": 1.0, "f": None, "g": None}
    # a→1, b→2, c→2 (9 < 10), d→1 (10 < 17), e→1 (17 = 17: lower shard); f→2 (lighter), g→1 (fewer untimed)
    assert partition(costs, 2) == [["a", "d", "e", "g"], ["b", "c", "f"]]


def test_equal_times_split_by_page_id_whatever_the_input_order() -> None:
    costs = {f"p{i:02d}": float(i % 3) for i in range(30)} | {f"u{i}": None for i in range(5)}
    items = list(costs.items())
    random.Random(1).shuffle(items)
    assert partition(dict(items), 4) == partition(costs, 4)


def test_pages_without_a_recorded_time_are_spread_evenly() -> None:
    parts = partition({f"p{i}": None for i in range(7)}, 3)
    assert sorted(len(p) for p in parts) == [2, 2, 3]


@given(st.dictionaries(st.text("abcdef", min_size=1, max_size=4), st.one_of(st.none(), st.floats(0, 100)), max_size=40), st.integers(1, 9))
def test_every_page_in_exactly_one_shard_and_loads_within_one_page(costs: dict[str, float | None], count: int) -> None:
    parts = partition(costs, count)
    assert sorted(p for part in parts for p in part) == sorted(costs)
    timed = {p: c for p, c in costs.items() if c is not None}
    shard_loads = loads(partition(timed, count), timed)
    assert max(shard_loads) - min(shard_loads) <= max(timed.values(), default=0.0) + 1e-9


def test_imbalance_is_slowest_over_mean() -> None:
    assert imbalance([3.0, 1.0]) == 1.5
    assert imbalance([0.0, 0.0]) == 1.0


@pytest.mark.parametrize("spec", ["0/3", "4/3", "3", "a/b", "1/0"])
def test_bad_shard_spec_names_the_fix(spec: str) -> None:
    with pytest.raises(ExecutionError, match=r"expected I/N with 1 ≤ I ≤ N, e\.g\. --shard 2/4"):
        parse_spec(spec)
    assert parse_spec("2/4") == Shard(2, 4)


# --- archives and merge, with stored notebooks written without a kernel -----------------------------

def _stored(root: Path, rel: str, output: str = "") -> str:
    nb = notebook.read_page(root / rel)
    if output:
        next(c for c in nb.cells if c.cell_type == "code").outputs = [nbformat.v4.new_output("stream", name="stdout", text=output)]
    return notebook.to_store(nb, rel, {"device": "test", "date": "2026-12-01"})


def _archive(root: Path, name: str, texts: dict[str, str]) -> Path:
    store = root / "staging" / name
    store.mkdir(parents=True)
    for qid, text in texts.items():
        (store / f"{qid}.ipynb").write_text(text, encoding="utf-8")
    return archive.pack(store, list(texts), root / f"{name}.tar", name)


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    """The mini-book's three question pages (its exercise left out: the shares below are worked out for three)."""
    root = copy_project("minibook", tmp_path / "minibook")
    (root / "book/1-basics/tensor/relu-from-scratch.md").unlink()
    return root


def test_merge_imports_every_archive(mini: Path) -> None:
    a = _archive(mini, "a", {"shape-demo": _stored(mini, SHAPE, "x\n")})
    b = _archive(mini, "b", {"grad-demo": _stored(mini, "book/2-intermediate/autograd/grad-demo.md")})
    report = archive.merge(load_book(mini / "book"), mini / "book", [a, b])
    assert report.written == ["grad-demo", "shape-demo"]
    assert (mini / "book/_executed/shape-demo.ipynb").read_text(encoding="utf-8") == _stored(mini, SHAPE, "x\n")
    again = archive.merge(load_book(mini / "book"), mini / "book", [a, b])
    assert again.written == [] and again.unchanged == ["grad-demo", "shape-demo"]


def test_a_conflict_names_the_page_in_one_line_and_imports_nothing(mini: Path) -> None:
    grad = _stored(mini, "book/2-intermediate/autograd/grad-demo.md")
    a = _archive(mini, "a", {"shape-demo": _stored(mini, SHAPE, "x\n"), "grad-demo": grad})
    b = _archive(mini, "b", {"shape-demo": _stored(mini, SHAPE, "y\n")})
    with pytest.raises(ExecutionError) as err:
        archive.merge(load_book(mini / "book"), mini / "book", [a, b])
    assert str(err.value) == f"{SHAPE}: merge conflict: a.tar and b.tar hold different outputs for this page; nothing was imported"
    assert not (mini / "book/_executed").exists()  # not even grad-demo, which no other archive disputes


def test_the_same_outputs_from_two_archives_are_no_conflict(mini: Path) -> None:
    a = _archive(mini, "a", {"shape-demo": _stored(mini, SHAPE, "x\n")})
    b = _archive(mini, "b", {"shape-demo": _stored(mini, SHAPE, "x\n").replace("2026-12-01", "2026-12-02")})
    assert archive.merge(load_book(mini / "book"), mini / "book", [a, b]).written == ["shape-demo"]


def test_outputs_for_other_code_are_refused(mini: Path) -> None:
    a = _archive(mini, "a", {"shape-demo": _stored(mini, SHAPE, "x\n")})
    page = mini / SHAPE
    page.write_text(page.read_text(encoding="utf-8").replace("m = torch.arange(6)", "m = torch.arange(6)  # 改"), encoding="utf-8")
    with pytest.raises(ExecutionError, match=r"shape-demo\.md: a\.tar holds outputs for other code than the page's; nothing was imported"):
        archive.merge(load_book(mini / "book"), mini / "book", [a])
    assert not (mini / "book/_executed/shape-demo.ipynb").exists()


def test_a_damaged_archive_is_refused(mini: Path) -> None:
    bad = mini / "bad.tar"
    bad.write_bytes(b"not a tar")
    with pytest.raises(ExecutionError, match=r"bad\.tar: not a shard archive"):
        archive.merge(load_book(mini / "book"), mini / "book", [bad])


# --- three shards in separate processes equal one run -------------------------------------------------

def _normalized(store: Path) -> dict[str, dict]:
    out = {}
    for path in sorted(store.glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for key in VOLATILE:
            nb["metadata"]["studyguide"].pop(key, None)
        out[path.name] = nb
    return out


def three_pages(root: Path) -> Path:
    """The mini-book without its exercise: the shard cases are worked out for its three question pages."""
    (root / "book/1-basics/tensor/relu-from-scratch.md").unlink()
    return root


@pytest.mark.build
def test_three_shards_in_separate_processes_merge_to_the_single_run_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "mpl"))  # a fresh machine: no matplotlib font cache yet
    single = three_pages(copy_project("minibook", tmp_path / "single"))
    studyguide(single, "execute")
    # three machines: three checkouts, three processes at once, each writing its archive
    roots = [three_pages(copy_project("minibook", tmp_path / f"shard{i}")) for i in (1, 2, 3)]
    procs = [subprocess.Popen([sys.executable, "-m", "studyguide.cli", "--root", str(r), "execute", "--shard", f"{i}/3", "--archive", str(tmp_path / f"shard{i}.tar")],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for i, r in enumerate(roots, start=1)]
    for proc in procs:
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0, out
    shares = [sorted(archive.read(tmp_path / f"shard{i}.tar")) for i in (1, 2, 3)]
    assert sorted(sum(shares, [])) == ["gpu-demo", "grad-demo", "shape-demo"] and all(len(s) == 1 for s in shares)
    merged = three_pages(copy_project("minibook", tmp_path / "merged"))
    studyguide(merged, "sync")
    studyguide(merged, "merge", *(str(tmp_path / f"shard{i}.tar") for i in (1, 2, 3)))
    assert _normalized(merged / "book/_executed") == _normalized(single / "book/_executed")
    assert all(isinstance(nb["metadata"]["studyguide"]["seconds"], float) for nb in map(json.loads, (p.read_text() for p in (merged / "book/_executed").glob("*.ipynb"))))
    studyguide(merged, "execute", "--frozen")  # nothing stale after the merge


def _store_seconds(mini: Path, seconds: dict[str, float]) -> dict[str, notebook.StoreEntry]:
    """Store every mini page's notebook with the given recorded seconds; return the store as read back."""
    store = mini / "book/_executed"
    store.mkdir()
    for q in load_book(mini / "book").questions:
        nb = notebook.read_page(mini / "book" / q.path)
        (store / f"{q.id}.ipynb").write_text(notebook.to_store(nb, q.path, {"seconds": seconds[q.id]}), encoding="utf-8")
    return notebook.read_store(store)


def test_shares_follow_the_seconds_recorded_in_the_stored_notebooks(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from studyguide import cli, execute

    seconds = {"shape-demo": 2.0, "grad-demo": 5.0, "gpu-demo": 3.0}
    entries = _store_seconds(mini, seconds)
    states = execute.survey(load_book(mini / "book"), mini / "book", "book", entries)
    assert [execute.share_of(states, entries, Shard(i, 2)) for i in (1, 2)] == [["grad-demo"], ["gpu-demo", "shape-demo"]]
    assert cli.main(["--root", str(mini), "shards", "--force", "2"]) == 0
    assert "N=2: pages per shard [1, 2], recorded seconds [5.0, 5.0], max/mean 1.000 by recorded time" in capsys.readouterr().out


def test_parallel_pages_count_seconds_over_shard_jobs_timing_pages_in_full(mini: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dataclasses import replace

    from studyguide import cli, execute

    seconds = {"shape-demo": 4.0, "grad-demo": 5.0, "gpu-demo": 3.0}
    entries = _store_seconds(mini, seconds)
    states = [replace(s, timing=s.question.id == "shape-demo") for s in execute.survey(load_book(mini / "book"), mini / "book", "book", entries)]
    assert execute.shard_costs(states, entries) == seconds
    assert execute.shard_costs(states, entries, 2) == {"shape-demo": 4.0, "grad-demo": 2.5, "gpu-demo": 1.5}
    # in full: 5 | 4 + 3; with two pages at once the timing page (run alone) balances the other two
    assert [execute.share_of(states, entries, Shard(i, 2)) for i in (1, 2)] == [["grad-demo"], ["gpu-demo", "shape-demo"]]
    assert [execute.share_of(states, entries, Shard(i, 2), 2) for i in (1, 2)] == [["shape-demo"], ["gpu-demo", "grad-demo"]]
    with (mini / "pyproject.toml").open("a", encoding="utf-8") as f:
        f.write("shard_jobs = 2\n")
    assert cli.main(["--root", str(mini), "shards", "--force", "2"]) == 0
    # no mini page times code, so on disk every page counts half: 5/2 | 4/2 + 3/2
    assert "seconds (parallel pages ÷ shard_jobs = 2) [2.5, 3.5]" in capsys.readouterr().out
