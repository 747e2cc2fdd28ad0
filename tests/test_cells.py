"""Code-cell rules read with myst-nb's reader and ``ast``: loud expected-error demos, timing pages."""

from __future__ import annotations

import pytest
from pages import BODY, page
from studyguide import cells

LOUD = [
    "try:\n    f()\nexcept ValueError:\n    pass\nelse:\n    raise AssertionError('应当报错')",
    "try:\n    f()\nexcept ValueError:\n    print('x')\n    raise",
    "try:  # fallback\n    import missing_module\nexcept ImportError:\n    missing_module = None",
    "try:\n    f()\nfinally:\n    g()",
]
SILENT = [
    ("try:\n    f()\nexcept ValueError as e:\n    print(e)", 1),
    ("x = 1\nfor n in range(2):\n    try:\n        f(n)\n    except RuntimeError:\n        continue", 3),
    ("def g():\n    try:\n        f()\n    except Exception:\n        return 0\n    else:\n        return 1", 2),
]


def cell_page(code: str, tags: str = "") -> str:
    options = f":tags: [{tags}]\n" if tags else ""
    return page(body=BODY.replace("import math\nx = math.fsum([1, 1])\nassert x == 2", code.replace("{", "{{").replace("}", "}}")).replace(":tags: [cheatsheet]\n", options).format(ref="q1"))


@pytest.mark.parametrize("code", LOUD)
def test_loud_or_marked_try_blocks_pass(code: str) -> None:
    found = cells.check(cells.read(cell_page(code, "cheatsheet")), "q.md", 1)
    assert [p for p in found if p.key == "try"] == []


@pytest.mark.parametrize(("code", "offset"), SILENT)
def test_silent_try_blocks_are_reported_at_their_line(code: str, offset: int) -> None:
    text = cell_page(code + "\nassert True", "cheatsheet")
    first = text.splitlines().index(code.splitlines()[0]) + 1
    found = [p for p in cells.check(cells.read(text), "q.md", 1) if p.key == "try"]
    assert [(p.line, p.message) for p in found] == [(first + offset - 1, "try/except passes silently when nothing is raised")]


def test_magics_are_read_as_python_and_bad_syntax_is_one_problem() -> None:
    ok = cell_page("%%writefile worker.py\nimport torch\nprint(torch.ones(1))", "")
    assert [p.key for p in cells.check(cells.read(ok), "q.md", 1)] == ["cheatsheet"]  # only: no cheat-sheet cell
    bad = cell_page("x = (1,\nassert x", "cheatsheet")
    found = cells.check(cells.read(bad), "q.md", 1)
    assert [p.key for p in found] == ["code"] and "not valid Python" in found[0].message


def test_yaml_block_tags_are_seen() -> None:
    text = cell_page("import torch\nassert torch.ones(1).item() == 1.0", "")
    text = text.replace("```{code-cell} python\n", "```{code-cell} python\n---\ntags: [cheatsheet]\n---\n")
    assert [c.is_snippet for c in cells.read(text)] == [True]


@pytest.mark.parametrize(("code", "timing"), [
    ("from torch.utils import benchmark\nm = benchmark.Timer('f()').blocked_autorange()", True),
    ("import torch.utils.benchmark as tb", True),
    ("import time\nt0 = time.perf_counter()", True),
    ("import time\nt0 = time.time()", True),
    ("s = torch.cuda.Event(enable_timing=True)\nms = s.elapsed_time(e)", True),
    ("import timeit", True),
    ("import torch\nx = torch.ones(3)\nprint(x.sum())", False),
    ("import datetime\nprint(datetime.date.today())", False),
])
def test_timing_pages_are_recognised_from_their_code(code: str, timing: bool) -> None:
    assert cells.is_timing(["print(1)", code]) is timing


def test_a_cell_is_turned_into_python_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page checks, the timing survey and the exercises each ask for every cell (IPython's tokenizer took
    3.6 s of the book's 8 s parse); the second answer is the first one's."""
    from IPython.core.inputtransformer2 import TransformerManager

    calls: list[str] = []
    real = TransformerManager.transform_cell
    monkeypatch.setattr(TransformerManager, "transform_cell", lambda self, source: calls.append(source) or real(self, source))
    cells.python.cache_clear()
    source = "%timeit f()\nx = 1\n"
    assert cells.python(source) == cells.python(source) == real(TransformerManager(), source)
    assert calls == [source]
