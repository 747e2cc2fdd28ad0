"""The Anki deck: one note per question with the right fields and tags, and guids stable across editions."""

from __future__ import annotations

import sqlite3
import zipfile
from pathlib import Path

import pytest
from pages import TOPICS_YML, page
from studyguide.book import parse_book
from studyguide.deck import build_deck, fields, guid, markdown_html
from studyguide.locale import load

ZH = load("zh")

pytestmark = pytest.mark.build  # executes kernels or builds: not in `make unit`


def notes(apkg: Path, tmp: Path) -> list[tuple[str, list[str], set[str]]]:
    """(guid, fields, tags) of every note, read from the SQLite database inside the .apkg zip."""
    with zipfile.ZipFile(apkg) as z:
        z.extract("collection.anki2", tmp)
    with sqlite3.connect(tmp / "collection.anki2") as db:
        rows = db.execute("select guid, flds, tags from notes order by id").fetchall()
    return [(g, f.split("\x1f"), set(t.split())) for g, f, t in rows]


def book(answer: str = "一句话的答案。"):
    return parse_book({
        "topics.yml": TOPICS_YML,
        "1-basics/tensor/a.md": page(id="a", ref="b", frequent=True, answer=answer, topics=["tensor", "autograd"]),
        "2-intermediate/tensor/b.md": page(id="b", ref="a", tier="intermediate"),
    })


def test_deck_has_one_note_per_question_with_fields_and_tags(tmp_path: Path) -> None:
    out = build_deck(book(), tmp_path / "d.apkg", "书", "book", ZH)
    found = notes(out, tmp_path)
    assert len(found) == 2
    _, (title, prompt, answer, code), tags = found[0]
    assert title.startswith("标题") and "高频" in title
    assert prompt == "<p>问法。</p>" and answer == "一句话的答案。"
    assert code == "<pre><code>import math\nx = math.fsum([1, 1])\nassert x == 2</code></pre>"  # the cheat-sheet cell
    assert tags == {"tier::basics", "层级::入门", "topic::tensor", "topic::autograd", "高频"}
    assert found[1][2] == {"tier::intermediate", "层级::中级", "topic::tensor"}


def test_guids_come_from_the_id_and_survive_a_new_edition(tmp_path: Path) -> None:
    first = notes(build_deck(book(), tmp_path / "1.apkg", "书", "book", ZH), tmp_path / "x")
    second = notes(build_deck(book(answer="改写过的答案。"), tmp_path / "2.apkg", "书", "book", ZH), tmp_path / "y")
    assert [g for g, _, _ in first] == [g for g, _, _ in second]
    assert first[0][1][2] != second[0][1][2]  # the text changed, the card identity did not
    assert len({g for g, _, _ in first}) == 2
    assert first[0][0] == guid(book().questions[0], "book")


def test_two_books_with_a_question_of_the_same_id_keep_two_cards(tmp_path: Path) -> None:
    ours = notes(build_deck(book(), tmp_path / "1.apkg", "书", "book", ZH), tmp_path / "x")
    theirs = notes(build_deck(book(), tmp_path / "2.apkg", "别的书", "other-book", ZH), tmp_path / "y")
    assert not {g for g, _, _ in ours} & {g for g, _, _ in theirs}
    legacy = notes(build_deck(book(), tmp_path / "3.apkg", "书", "book", ZH, namespace=""), tmp_path / "z")
    import genanki

    assert legacy[0][0] == genanki.guid_for("studyguide", "a")  # the ids of decks published before namespaces


def test_prompt_markdown_and_snippet_become_html() -> None:
    assert markdown_html("`view` 与 {ref}`别的题 <x>` 有何不同？") == "<p><code>view</code> 与 <code>别的题</code> 有何不同？</p>"
    q = book().questions[0]
    q = type(q)(**{**q.__dict__, "snippet": "x = a < b"})
    assert fields(q, ZH)[3] == "<pre><code>x = a &lt; b</code></pre>"


def test_built_deck_matches_the_book(built_minibook: Path, tmp_path: Path) -> None:
    found = notes(built_minibook / "_build/minibook.apkg", tmp_path)
    assert sorted(f[0] for _, f, _ in found) == sorted(["转置之后为什么不连续？ <span class=\"tag\">高频</span>", "grad demo：图能反传两次吗？", "GPU 计时为什么要同步？", "手写 ReLU"])
    assert (built_minibook / "_build/html/downloads/minibook.apkg").is_file()


def test_the_deck_description_names_the_edition(tmp_path: Path) -> None:
    import json

    build_deck(book(), tmp_path / "d.apkg", "书", "book", ZH, "2026.12 版")
    with zipfile.ZipFile(tmp_path / "d.apkg") as z:
        z.extract("collection.anki2", tmp_path)
    with sqlite3.connect(tmp_path / "collection.anki2") as db:
        decks = json.loads(db.execute("select decks from col").fetchone()[0])
    assert [d["desc"] for d in decks.values() if d["name"] == "书"] == ["书 · 2026.12 版"]
