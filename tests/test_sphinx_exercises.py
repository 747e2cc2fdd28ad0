"""An exercise page on the site (in-process Sphinx, no kernels): the key idea opens 参考实现, the meta line marks
it, and the quick review gives its solution and pitfalls but not its tests or the scope checks after the solution."""

from __future__ import annotations

from pathlib import Path

from sphinxroot import FIXTURES, build, make_root

RELU = "1-basics/tensor/relu-from-scratch.md"
SCOPE = """

适用范围之外：整数张量也能算，dtype 不变。

```{code-cell} python
:label: solution-scope
assert relu(torch.tensor([-3, 4])).tolist() == [0, 4]  # int64 的 clamp_scope
```
"""


def test_the_exercise_page_and_its_quick_review_entry(tmp_path: Path) -> None:
    text = (FIXTURES / "minibook/book" / RELU).read_text(encoding="utf-8")
    solution_end = text.index("```", text.index(":label: solution")) + 3
    app, warnings = build(make_root(tmp_path, {RELU: text[:solution_end] + SCOPE + text[solution_end:]}))
    ours = [w for w in warnings.splitlines() if "relu-from-scratch" in w and "lexer" not in w and "unrecorded" not in w]
    assert ours == []  # in-process builds run no kernel: only those two warnings are expected on every page
    html = (Path(app.outdir) / "1-basics/tensor/relu-from-scratch.html").read_text(encoding="utf-8")
    solution = html[html.index('<section id="solution">'):html.index('<section id="tests">')]
    assert '<p class="studyguide-answer"><strong>用 clamp(min=0) 一次算完，不写循环。</strong></p>' in solution
    assert "· 手撕代码" in html[: html.index('<section id="question">')]
    quick = (Path(app.outdir) / "quickreview/basics.html").read_text(encoding="utf-8")
    entry = quick[quick.index('id="qr-relu-from-scratch"'):]
    assert "用 clamp(min=0) 一次算完" in entry and "x.clamp(min=0)" in entry and "把 <code" in entry
    assert "test_matches_torch" not in entry and "relu_max" not in entry  # no tests, no buggy variants
    assert "clamp_scope" in solution and "clamp_scope" not in entry  # the scope checks after the solution stay in the book
