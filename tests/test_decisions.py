"""The book's decision tables (plugins/decisions.py): computed by torch, each row's claim asserted."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch
from conftest import REPO
from studyguide.errors import BuildError
from studyguide.refblocks import load, render
from torch import nn


def plugin():  # noqa: ANN201
    """The plugin module itself, for its row check."""
    spec = importlib.util.spec_from_file_location("decisions", REPO / "plugins/decisions.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_the_tables_are_the_books_blocks_and_compute() -> None:
    blocks = load(REPO, ["plugins/decisions.py"])
    assert set(blocks) == {"losses", "dtype_jobs", "parallel_memory"} and {b.package for b in blocks.values()} == {"torch"}
    for block in blocks.values():
        table = block.compute()
        assert table.rows and all(len(row) == len(table.heads) for row in table.rows), block.name
    losses = [row[1:] for row in blocks["losses"].compute().rows]
    assert ("(N,) int64", "(N, C) logits", "CrossEntropyLoss") in losses
    assert ("(N, L) int64", "(N, C, L) logits", "CrossEntropyLoss") in losses  # the classes in dim 1
    assert ("(N, C) float32", "(N, C) logits", "BCEWithLogitsLoss") in losses


def test_a_loss_that_does_not_take_the_target_fails_the_row_check() -> None:
    accepts = plugin()._accepts
    x, index = torch.randn(4, 3), torch.randint(0, 3, (4,))
    accepts(nn.CrossEntropyLoss(), x, index)
    with pytest.raises((RuntimeError, ValueError)):
        accepts(nn.BCEWithLogitsLoss(), x, index)  # a class-index target is not a 0/1 matrix


def test_per_gpu_memory_is_the_zero_formula() -> None:
    rows = {row[0]: row for row in plugin().parallel_memory(1e9, 4).rows}
    assert rows["DDP"][1:] == ("4P", "4P", "8P", "16.0 GB")  # fp32 weights, gradients, Adam's two moments
    assert rows["ZeRO-2"][1:] == ("4P", "4P/N", "8P/N", "7.0 GB")
    assert rows["ZeRO-3 / FSDP FULL_SHARD"][-1] == "4.0 GB"


def test_a_row_whose_claim_fails_stops_the_build_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "p.py").write_text(
        "from studyguide.refblocks import Table\n\ndef table():\n    assert 1 + 1 == 3  # the row's claim\n"
        "    return Table('t', ('a',), (('1',),))\n\nBLOCKS = {'t': table}\n", encoding="utf-8")
    with pytest.raises(BuildError) as err:
        render(["t"], load(tmp_path, ["p.py"]), "")
    assert str(err.value).startswith("p.py:4: reference block 't' failed: AssertionError (its asserts are what its rows claim")


def test_a_block_that_two_sheets_print_is_computed_once_and_a_failure_every_time() -> None:
    from studyguide.refblocks import Block, Table

    calls: list[str] = []

    def table() -> Table:
        calls.append("table")
        return Table("t", ("a",), (("1",),))

    def broken() -> Table:
        calls.append("broken")
        raise AssertionError("the row's claim")

    blocks = {"t": Block("t", table), "b": Block("b", broken)}
    assert render(["t"], blocks, "") == render(["t"], blocks, "") and calls == ["table"]
    for _ in range(2):
        with pytest.raises(BuildError):
            render(["b"], blocks, "")
    assert calls == ["table", "broken", "broken"]
