"""When a PDF or EPUB counts as up to date: which changes make it stale, which do not (no build, no TeX)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from conftest import copy_project
from studyguide import build
from studyguide.config import load_config
from studyguide.project import Layout


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    """The mini-book with doctrees and one output, made after every input."""
    root = copy_project("minibook", tmp_path / "mini")
    lay = Layout(root, load_config(root))
    lay.doctrees.mkdir(parents=True)
    (lay.doctrees / "environment.pickle").write_bytes(b"")
    out = lay.build / "book.epub"
    out.write_bytes(b"")
    assert not build.outputs_up_to_date(lay, [out])  # the edition stamp is new: the first check writes it
    now = time.time()
    os.utime(out, (now, now))
    return lay


def _after(path: Path, layout: Layout) -> None:
    """Give ``path`` a time after the output's."""
    later = (layout.build / "book.epub").stat().st_mtime + 10
    os.utime(path, (later, later))


def test_an_image_a_removed_page_or_another_edition_makes_the_output_stale(layout: Layout) -> None:
    out = [layout.build / "book.epub"]
    assert build.outputs_up_to_date(layout, out)
    image = layout.book / "1-basics/tensor/figure.png"
    image.write_bytes(b"png")
    _after(image, layout)
    assert not build.outputs_up_to_date(layout, out)
    image.unlink()
    folder = layout.book / "1-basics/tensor"
    _after(folder, layout)  # what removing a page leaves: the folder's time
    assert not build.outputs_up_to_date(layout, out)
    os.utime(folder, (0, 0))
    assert build.outputs_up_to_date(layout, out)
    config = layout.root / "pyproject.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('edition = "0.1"', 'edition = "2099.1"'), encoding="utf-8")
    os.utime(layout.root / "pyproject.toml", (0, 0))  # as if a release tag changed the edition, no file touched
    again = Layout(layout.root, load_config(layout.root))
    assert not build.outputs_up_to_date(again, out)


def test_editor_backups_caches_and_hidden_files_do_not(layout: Layout) -> None:
    out = [layout.build / "book.epub"]
    for name in (".shape-demo.md.swp", "shape-demo.md~", "#shape-demo.md#", "__pycache__/x.pyc", ".DS_Store"):
        made = layout.book / "1-basics/tensor" / name
        made.parent.mkdir(exist_ok=True)
        made.write_bytes(b"")
        _after(made, layout)
        if made.parent.name == "__pycache__":
            _after(made.parent, layout)
    os.utime(layout.book / "1-basics/tensor", (0, 0))
    assert build.outputs_up_to_date(layout, out)
