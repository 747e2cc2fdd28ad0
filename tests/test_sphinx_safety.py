"""The Sphinx side stops a page that slipped past `check` from reading files outside the book or carrying
script; generated pages keep their raw LaTeX. `check` is switched off here, as if it had a hole."""

from __future__ import annotations

from pathlib import Path

import pytest
from sphinx.errors import ExtensionError
from sphinxroot import build, make_root
from studyguide import safety

PREFACE = "# 前言\n\n这本小书只用于测试。\n\n"


@pytest.mark.parametrize("extra, said", [
    ("```{literalinclude} ../../../../../../../../etc/passwd\n```\n", "/etc/passwd' from outside the book folder"),
    ("```{include} ../../../../../../../../etc/hostname\n```\n", "/etc/hostname' from outside the book folder"),
    ("![机密](../../../../../../../../etc/hosts)\n", "/etc/hosts' from outside the book folder"),
    ("<script>alert(document.cookie)</script>\n", "holds HTML that runs script ('<script')"),
    ("看 <img src='a.png' onerror='alert(1)'> 吧。\n", "holds HTML that runs script ('onerror=')"),
    ("```{raw} latex\n\\input{/etc/passwd}\n```\n", "holds raw LaTeX"),
])
def test_a_page_that_slips_past_check_cannot_read_files_or_run_script(tmp_path: Path, extra: str, said: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(safety, "check", lambda *args, **kwargs: [])
    root = make_root(tmp_path, {"preface.md": PREFACE + extra})
    with pytest.raises(ExtensionError) as caught:
        build(root)
    assert str(caught.value).startswith("book/preface.md: ") and said in str(caught.value)


def test_a_book_may_allow_raw_latex_for_trusted_authors(tmp_path: Path) -> None:
    root = make_root(tmp_path, {"preface.md": PREFACE + "```{raw} latex\n\\newpage\n```\n"}, "allow_raw_latex = true\n")
    app, _ = build(root)
    assert (app.outdir / "preface.html").is_file()


def test_generated_pages_keep_their_raw_latex_and_plain_html_passes(tmp_path: Path) -> None:
    root = make_root(tmp_path, {"preface.md": PREFACE + "<kbd>Ctrl</kbd> + <kbd>C</kbd>\n"})
    app, _ = build(root)
    assert "<kbd>Ctrl</kbd>" in (app.outdir / "preface.html").read_text(encoding="utf-8")
    assert "studyguidepart" in (root / "book/1-basics/tensor/index.md").read_text(encoding="utf-8")


def test_check_itself_rejects_the_same_front_page(tmp_path: Path) -> None:
    from studyguide.errors import BookError

    with pytest.raises(BookError, match=r"^book/preface.md:5: html: raw HTML runs script"):
        make_root(tmp_path, {"preface.md": PREFACE + "<script>alert(1)</script>\n"})
