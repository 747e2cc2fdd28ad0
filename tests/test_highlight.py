"""Code is lexed once: each formatter gets Pygments' own result, from the memo's tokens or the cache folder's."""

from __future__ import annotations

import inspect
import sys
import zlib
from pathlib import Path

import pygments
import pytest
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter, LatexFormatter
from pygments.lexers import PythonLexer
from studyguide.sphinxext import highlight as memo


@pytest.fixture
def lexed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = pygments.lex

    def counting(source: str, lexer):  # type: ignore[no-untyped-def]
        calls.append(source)
        return real(source, lexer)

    monkeypatch.setattr(pygments, "lex", counting)
    monkeypatch.setattr(memo, "_memo", {})
    monkeypatch.setattr(memo, "_disk", [])  # memory only, whatever an earlier Sphinx run in this process set
    return calls


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder, as a Sphinx run beside a jupyter-cache sets it."""
    config = type("Config", (), {"nb_execution_cache_path": str(tmp_path / ".jupyter_cache")})()
    memo.use_cache(None, config)  # type: ignore[arg-type]
    return tmp_path / memo.CACHE_DIR


SOURCE = "x = torch.randn(2, 3)  # 形状\nprint(f'{x.sum():.2f}')\n"
MAKERS = (HtmlFormatter, lambda: LatexFormatter(commandprefix="PYG"))


def test_a_later_process_formats_the_tokens_of_the_cache_folder_without_lexing(lexed: list[str], folder: Path) -> None:
    expected = [pygments_highlight(SOURCE, PythonLexer(), make()) for make in MAKERS]
    lexed.clear()
    assert [memo.highlight(SOURCE, PythonLexer(), make()) for make in MAKERS] == expected
    assert lexed == [SOURCE] and len(list(folder.iterdir())) == 1
    memo._memo.clear()  # a new build process: nothing in memory
    assert [memo.highlight(SOURCE, PythonLexer(), make()) for make in MAKERS] == expected
    assert lexed == [SOURCE]


def test_a_damaged_cache_file_is_lexed_again_and_replaced(lexed: list[str], folder: Path) -> None:
    want = pygments_highlight(SOURCE, PythonLexer(), HtmlFormatter())
    lexed.clear()
    memo.highlight(SOURCE, PythonLexer(), HtmlFormatter())
    (kept,) = folder.iterdir()
    for damage in (kept.read_bytes()[:20], zlib.compress(b'[["Token.nope", "x"]]'), b""):
        kept.write_bytes(damage)
        memo._memo.clear()
        assert memo.highlight(SOURCE, PythonLexer(), HtmlFormatter()) == want
    assert len(lexed) == 4 and [p.name for p in folder.iterdir()] == [kept.name]
    memo._memo.clear()
    assert memo.highlight(SOURCE, PythonLexer(), HtmlFormatter()) == want and len(lexed) == 4  # replaced by a good file


def test_another_pygments_version_lexes_anew(lexed: list[str], folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memo.highlight(SOURCE, PythonLexer(), HtmlFormatter())
    memo._memo.clear()
    monkeypatch.setattr(pygments, "__version__", "0.0")  # tokens may differ between versions
    memo.highlight(SOURCE, PythonLexer(), HtmlFormatter())
    assert len(lexed) == 2 and len(list(folder.iterdir())) == 2


def test_a_second_highlight_is_pygments_result_without_lexing_again(lexed: list[str]) -> None:
    source = "x = torch.randn(2, 3)  # 形状\nprint(x.sum())\n"
    makers = (HtmlFormatter, lambda: LatexFormatter(commandprefix="PYG"))
    expected = [pygments_highlight(source, PythonLexer(), make()) for make in makers]
    lexed.clear()
    for make, want in zip(makers, expected, strict=True):
        assert [memo.highlight(source, PythonLexer(), make()) for _ in range(2)] == [want, want]
    assert lexed == [source]  # lexed once for both formatters


def test_other_lexer_options_or_filters_are_lexed_anew_and_formatters_differ(lexed: list[str]) -> None:
    source = "def f(a):\n    return a\n"
    plain = memo.highlight(source, PythonLexer(), HtmlFormatter())
    numbered = memo.highlight(source, PythonLexer(), HtmlFormatter(linenos="inline"))
    filtered = PythonLexer()
    filtered.add_filter("raiseonerror")
    memo.highlight(source, filtered, HtmlFormatter())
    memo.highlight(source, PythonLexer(stripnl=False), HtmlFormatter())
    assert len(lexed) == 3
    assert plain != numbered == pygments_highlight(source, PythonLexer(), HtmlFormatter(linenos="inline"))


def test_sphinx_highlights_through_the_module_function_the_memo_replaces() -> None:
    from sphinx.highlighting import PygmentsBridge

    assert "hlsource = highlight(source, lexer, formatter)" in inspect.getsource(PygmentsBridge.highlight_block)


def test_a_lexing_error_is_raised_as_pygments_raises_it_and_not_kept(lexed: list[str]) -> None:
    from pygments.filters import ErrorToken

    strict = PythonLexer()
    strict.add_filter("raiseonerror")
    for _ in range(2):
        with pytest.raises(ErrorToken):
            memo.highlight("x = $\n", strict, HtmlFormatter())
    assert memo._memo == {} and len(lexed) == 2


def test_a_lexing_error_leaves_no_cache_file(lexed: list[str], folder: Path) -> None:
    from pygments.filters import ErrorToken

    strict = PythonLexer()
    strict.add_filter("raiseonerror")
    with pytest.raises(ErrorToken):
        memo.highlight("x = $\n", strict, HtmlFormatter())
    assert not folder.exists() or not list(folder.iterdir())


def test_an_upgraded_lexer_gets_keys_of_its_own(lexed: list[str], folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ipython3 and the ANSI output lexer are not Pygments': the file defining a lexer is part of the key."""
    import importlib

    module = tmp_path / "mylexer.py"
    module.write_text("from pygments.lexers import PythonLexer\nclass L(PythonLexer):\n    pass\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mylexer", raising=False)  # after the test as well: monkeypatch restores the absence
    mine = importlib.import_module("mylexer")
    memo.highlight(SOURCE, mine.L(), HtmlFormatter())
    memo._memo.clear()
    memo.highlight(SOURCE, mine.L(), HtmlFormatter())
    assert len(lexed) == 1
    module.write_text(module.read_text(encoding="utf-8") + "# version 2\n", encoding="utf-8")  # upgraded
    memo._memo.clear()
    memo._SOURCES.clear()  # a new build process
    memo.highlight(SOURCE, mine.L(), HtmlFormatter())
    assert len(lexed) == 2 and len(list(folder.iterdir())) == 2


def test_files_unused_for_a_month_and_old_parts_are_removed_and_a_read_keeps_a_file(lexed: list[str], folder: Path) -> None:
    import os
    import time

    memo.highlight(SOURCE, PythonLexer(), HtmlFormatter())
    (used,) = folder.iterdir()
    now = time.time()
    month = memo.UNUSED_DAYS * 86400
    stale, part, fresh_part = folder / ("0" * 64 + ".json.z"), folder / ("1" * 64 + ".json.z.7.part"), folder / ("2" * 64 + ".json.z.8.part")
    for path, age in ((used, month - 86400 * 2), (stale, month + 60), (part, 7200), (fresh_part, 60)):
        path.write_bytes(used.read_bytes()) if path != used else None
        os.utime(path, (now - age, now - age))
    memo._memo.clear()
    memo.highlight(SOURCE, PythonLexer(), HtmlFormatter())  # read from the file two days before its month ends
    assert len(lexed) == 1 and now - used.stat().st_mtime < 60  # so it is kept a month more
    memo.prune(folder, now)
    assert sorted(p.name for p in folder.iterdir()) == sorted([used.name, fresh_part.name])
    memo.prune(folder, now + 3 * 86400)  # past the month the file had before it was read
    assert [p.name for p in folder.iterdir()] == [used.name]


def test_a_cache_that_cannot_be_written_costs_nothing_but_the_file(lexed: list[str], tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder would be", encoding="utf-8")
    memo._disk[:] = [blocked / memo.CACHE_DIR]
    assert memo.highlight(SOURCE, PythonLexer(), HtmlFormatter()) == pygments_highlight(SOURCE, PythonLexer(), HtmlFormatter())
    assert blocked.is_file() and sorted(p.name for p in tmp_path.iterdir()) == ["blocked"]


@pytest.mark.parametrize("lexer_name", ["ipython3", "myst-ansi", "ipythontb"])
def test_the_book_lexers_tokens_come_back_from_the_file_the_same(lexed: list[str], folder: Path, lexer_name: str) -> None:
    from pygments.lexers import get_lexer_by_name

    source = {"ipython3": "%timeit x @ y\nx = torch.ones(2)  # 注释\n",
              "myst-ansi": "\x1b[1;31mError\x1b[0m: \x1b[32mok\x1b[0m 形状\n",
              "ipythontb": "Traceback (most recent call last):\n  File \"<x>\", line 1, in <module>\nValueError: 坏\n"}[lexer_name]
    want = [pygments_highlight(source, get_lexer_by_name(lexer_name), m()) for m in MAKERS]
    memo.highlight(source, get_lexer_by_name(lexer_name), HtmlFormatter())
    memo._memo.clear()
    assert [memo.highlight(source, get_lexer_by_name(lexer_name), m()) for m in MAKERS] == want
    assert len(lexed) == 3  # the two references and the first highlight (which wrote the file); the rest read it


def test_an_interrupted_write_leaves_no_part(lexed: list[str], folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(src: object, dst: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(memo.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        memo.highlight(SOURCE, PythonLexer(), HtmlFormatter())
    assert list(folder.iterdir()) == []
