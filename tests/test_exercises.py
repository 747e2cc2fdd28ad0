"""Exercise pages (kind: exercise): `check` names each broken rule of the role cells in one line, and the
generated editions place the exercise like a question, the self-test printing its stub without the solution."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES
from studyguide import book as book_mod
from studyguide import deck, exercises, generate, practice, schema, sheets
from studyguide.book import load_book
from studyguide.config import load_config

PAGE = FIXTURES / "minibook" / "book" / "1-basics" / "tensor" / "relu-from-scratch.md"
REL = "1-basics/tensor/relu-from-scratch.md"
TOPICS = {t: schema.Topic(t, t) for t in ("tensor", "autograd", "performance")}
WHERE = f"book/{REL}"


def problems(*edits: tuple[str, str]) -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    _, _, found = book_mod.parse_page(REL, text, TOPICS, "book")
    return [str(p).removeprefix(WHERE + ":") for p in sorted(found)]


def test_the_fixture_exercise_is_valid_and_read_by_role() -> None:
    question, parsed, found = book_mod.parse_page(REL, PAGE.read_text(encoding="utf-8"), TOPICS, "book")
    assert found == [] and question is not None and parsed is not None and question.is_exercise
    ex = exercises.read(parsed.cells)
    assert ex is not None and ex.function == "relu" and ex.signature == "def relu(x: torch.Tensor) -> torch.Tensor:"
    assert question.stub.endswith("raise NotImplementedError") and "```" not in question.prompt and "clamp" not in question.prompt


CASES = {
    "no test functions": ((("def test_matches_torch(impl=relu):", "def check_matches_torch(impl=relu):"),
                           ("test_matches_torch(impl=relu_max)", "check_matches_torch(impl=relu_max)")),
                          ["62: cell 'tests': defines no test_ function (write e.g. def test_matches_torch(impl=relu): expect_close(lambda: impl(x), ...))",
                           "83: 易错点: code cell runs no test of the tests cell (define the buggy variant, then: try: test_x(impl=buggy) / except AssertionError as err: print(..., err) / else: raise AssertionError('... should fail'))"]),
    "solution signature": ((("def relu(x: torch.Tensor) -> torch.Tensor:\n    return", "def relu(y):\n    return"), ("return x.clamp(min=0)", "return y.clamp(min=0)")),
                           ["47: cell 'solution': relu takes (y), the stub (x) (give the solution the stub's signature)"]),
    "tests never run": ((("run_tests(globals())", "print(1)"),),
                        ["62: cell 'tests': the tests never run in the book (add a cell after it in '## 测试': from practice_check import run_tests; run_tests(globals()))"]),
    "top-level code": ((("def test_matches_torch(impl=relu):", "print('hi')\n\n\ndef test_matches_torch(impl=relu):"),),
                       ["66: cell 'tests': runs code at the top level (keep imports, constants and test functions: pytest runs this cell at import; run the tests in the next cell with run_tests(globals()))"]),
    "no helper": ((("from practice_check import expect_close\n\n\ndef test", "\n\ndef test"),),
                  ["62: cell 'tests': does not import expect_close from practice_check (start it with 'from practice_check import expect_close': the pack ships the same helper)",
                   "65: cell 'tests': test_matches_torch checks nothing with expect_close (compare with expect_close(lambda: impl(...), expected, like=...))"]),
    "mistake on the reference": ((("test_matches_torch(impl=relu_max)", "test_matches_torch()"),),
                                 ["88: 易错点: test_matches_torch runs on relu, not on a buggy variant (pass the variant: test_matches_torch(impl=buggy))"]),
    "impl outside a lambda": ((('    expect_close(lambda: impl(x), torch.relu(x), like="torch.relu(x)")', '    y = impl(x)\n    expect_close(y, torch.relu(x))'),),
                              ["68: cell 'tests': test_matches_torch calls impl(...) outside a lambda (write expect_close(lambda: impl(...), expected, like=...): on the stub the failure then says what was expected)"]),
    "no default impl": ((("def test_matches_torch(impl=relu):", "def test_matches_torch():\n    impl = relu"),),
                        ["66: cell 'tests': test_matches_torch has no default-argument impl (write def test_matches_torch(impl=relu): and call impl, so pytest runs it on the stub module and the book on any variant)"]),
    "missing role cell": (((":label: solution\n", ""),),
                          ["35: cell 'solution': no code cell labelled 'solution' (add one in '## 参考实现' with ':label: solution': the reference solution: the stub's function, implemented, with its own imports)"]),
    "unknown kind": ((("kind: exercise", "kind: exercize"),),
                     ["8: studyguide.kind: unknown page kind 'exercize' (did you mean 'exercise'?; leave it out for a question)"]),
    "module shadows the stdlib": ((("id: relu-from-scratch", "id: random"),),
                                  ["7: studyguide.id: the practice pack's module 'random' would shadow a module the code imports (choose an id that starts with a letter and names no module, e.g. stable-softmax)"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_check_names_each_broken_rule_with_its_line_and_fix(case: str) -> None:
    edits, expected = CASES[case]
    assert problems(*edits) == expected


@pytest.fixture(scope="module")
def minibook() -> tuple[object, dict[str, str]]:
    root = FIXTURES / "minibook"
    config = load_config(root)
    book = load_book(root / "book", rules=config.rules)
    return book, generate.plan(book, config, ("preface",))


def test_exercises_close_their_chapter_and_are_marked_on_topic_pages(minibook: tuple) -> None:
    book, files = minibook
    assert [q.id for q in book.questions if q.tier == "basics"] == ["shape-demo", "relu-from-scratch"]
    assert files["1-basics/tensor/index.md"].index("shape-demo") < files["1-basics/tensor/index.md"].index("relu-from-scratch")
    assert "{ref}`relu-from-scratch` · 手撕代码：" in files["topics/tensor.md"]


def test_the_self_test_prints_the_stub_and_room_to_write_but_not_the_solution(minibook: tuple) -> None:
    _, files = minibook
    basics = files["selftest/basics.md"]
    part = basics[basics.index("{ref}`relu-from-scratch`"):]
    assert "```python\nimport torch\n\n\ndef relu(x: torch.Tensor) -> torch.Tensor:" in part and "raise NotImplementedError" in part
    assert "clamp(min=0)" not in part and "```{code-cell}" not in part
    assert generate.WRITE_BOX in part and "在这里写出实现：" in part and "\\ref{\\detokenize{1-basics/tensor/relu-from-scratch:relu-from-scratch}}" in part


def test_sheets_and_deck_give_the_signature_and_the_key_idea(minibook: tuple) -> None:
    book, files = minibook
    q = next(q for q in book.questions if q.is_exercise)
    assert q.sheet_code.startswith(q.signature + "\n") and q.sheet_code.endswith(q.snippet)
    assert f"```python\n{q.signature}\n" in files["cheatsheets/tensor.md"]
    [sheet] = [s for s in sheets.plan(book, load_config(FIXTURES / "minibook").locale) if s.name == "tensor"]
    assert q in sheet.questions
    items = [i for g in sheets.data(sheet, "t", "e", {}, load_config(FIXTURES / "minibook").locale, {})["groups"] for i in g["items"]]
    assert next(i for i in items if i["title"] == q.title)["code"] == q.sheet_code
    front = deck.fields(q, load_config(FIXTURES / "minibook").locale)
    assert "<pre><code>def relu(x: torch.Tensor) -&gt; torch.Tensor:</code></pre>" in front[1] and front[2] == q.answer


def test_the_pack_lists_only_exercises(minibook: tuple) -> None:
    book, _ = minibook
    assert [q.id for q, _ in practice.exercise_list(book)] == ["relu-from-scratch"]
    assert exercises.requirements([ex for _, ex in practice.exercise_list(book)]) == ["torch"]


def test_the_helper_is_one_file_outside_the_package() -> None:
    assert practice.HELPER_FILE == Path(__file__).resolve().parents[1] / "tools" / "practice_check.py"
