"""The JB1 side-by-side script's pure parts: the ``_toc.yml`` from the folders, references to pages left out."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import jb1_compare  # noqa: E402

PAGES = ["1-basics/tensor/a.md", "1-basics/autograd/b.md", "2-intermediate/data/c.md", "3-advanced/compile/d.md"]


def test_the_toc_has_a_part_per_tier_folder_and_a_chapter_per_page_in_order() -> None:
    toc = yaml.safe_load(jb1_compare.toc_yaml(PAGES))
    assert toc["format"] == "jb-book" and toc["root"] == "intro"
    assert [p["caption"] for p in toc["parts"]] == ["1-basics", "2-intermediate", "3-advanced"]
    assert [c["file"] for c in toc["parts"][0]["chapters"]] == ["1-basics/tensor/a", "1-basics/autograd/b"]
    assert [c["file"] for p in toc["parts"] for c in p["chapters"]] == [p.removesuffix(".md") for p in PAGES]


def test_the_toc_of_the_real_book_lists_every_question_page_once(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[1]
    pages = jb1_compare.question_pages(root)
    toc = yaml.safe_load(jb1_compare.toc_yaml(list(pages.values())))
    files = [c["file"] + ".md" for p in toc["parts"] for c in p["chapters"]]
    assert sorted(files) == sorted(pages.values()) and len(set(files)) == len(files)
    assert all((root / "book" / f).is_file() for f in files)


def test_a_reference_to_a_page_left_out_points_to_a_kept_page_and_keeps_its_text() -> None:
    text = "见 {ref}`kept-id`、{ref}`gone-id` 和 {ref}`那一题 <gone-id>`，还有 {ref}`这题 <kept-id>`。"
    kept = ["kept-id", "other-id"]
    assert jb1_compare.retarget_missing(text, kept) == (
        "见 {ref}`kept-id`、{ref}`gone-id <kept-id>` 和 {ref}`那一题 <kept-id>`，还有 {ref}`这题 <kept-id>`。")
    assert jb1_compare.retarget_missing(text, kept, own="kept-id").count("<other-id>") == 2  # never to itself
    assert jb1_compare.retarget_missing(text, [*kept, "gone-id"]) == text
