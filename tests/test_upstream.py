"""Upstream contracts: each behaviour of Sphinx, myst-nb, myst-parser, markdown-it and jupyter-cache that the
generator relies on beyond their documented API, asserted in one place. An upgrade that changes one fails
here, with its name, instead of somewhere in a build."""

from __future__ import annotations

import hashlib
import inspect
import re
import time
from pathlib import Path

import nbformat
from conftest import REPO
from pages import BODY, page
from studyguide import notebook
from studyguide import page as page_mod


def test_markdown_it_gives_roles_targets_and_dunder_bold_as_the_page_parser_expects() -> None:
    toks = page_mod.tokens("(t)=\n# T\n\n- a {proof}`x` __init__\n\n```{code-cell} python\n:label: x\n1\n```\n")
    kinds = [t.type for t in toks]
    assert "myst_target" in kinds and "fence" in kinds
    inline = next(t for t in toks if t.type == "inline" and "proof" in t.content)
    roles = [(c.type, c.meta.get("name"), c.content) for c in inline.children if c.type == "myst_role"]
    assert roles == [("myst_role", "proof", "x")]
    assert [c.markup for c in inline.children if c.type == "strong_open"] == ["__"]  # __init__ becomes bold
    assert next(t for t in toks if t.type == "fence").info.startswith("{code-cell}")


def test_myst_nb_turns_code_cell_options_into_cell_metadata_and_maps_cell_lines() -> None:
    nb = notebook.parse_page(page(body=BODY.format(ref="q1")))
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].metadata["label"] == "sum" and code[0].metadata["tags"] == ["cheatsheet"]
    assert len(nb.metadata["source_map"]) == len(nb.cells)  # cells.from_notebook reads the fence lines from it


def test_jupyter_cache_keys_hash_code_and_cell_options_and_match_by_that_key(tmp_path: Path) -> None:
    from jupyter_cache.base import CacheBundleIn

    text = page(body=BODY.format(ref="q1"))
    nb = notebook.parse_page(text)
    relabelled = notebook.parse_page(text.replace(":label: sum", ":label: other"))
    prose = notebook.parse_page(text.replace("问法。", "另一种问法。"))
    assert notebook.cache_key(nb) != notebook.cache_key(relabelled)  # cell options are hashed: a new label re-executes
    assert notebook.cache_key(nb) == notebook.cache_key(prose)  # prose is not: a prose edit executes nothing
    cache = notebook.open_cache(tmp_path / "cache")
    assert cache.create_hashed_notebook(nb)[1] == notebook.cache_key(nb)  # the unbound call gives the instance's key
    stored = nbformat.v4.new_notebook(cells=[c for c in nb.cells if c.cell_type == "code"], metadata=nb.metadata)
    cache.cache_notebook_bundle(CacheBundleIn(stored, "q.ipynb", data={"studyguide": {"device": "cpu"}}), check_validity=False, description="d")
    record = cache.match_cache_notebook(nb)
    assert record.description == "d" and notebook.cached_provenance(cache, notebook.cache_key(nb)) == {"device": "cpu"}


def test_sphinx_read_times_are_microseconds_like_our_file_times(tmp_path: Path) -> None:
    from sphinx.builders import Builder
    from studyguide.sphinxext.fresh import modified_us

    source = inspect.getsource(Builder.read_doc)
    assert "env.all_docs[docname] = time.time_ns() // 1_000" in source
    path = tmp_path / "f"
    path.write_text("x")
    assert abs(modified_us(str(path)) - time.time_ns() // 1_000) < 10_000_000


def test_sphinx_latex_labels_every_document_start_as_we_map_errors_back() -> None:
    from sphinx.builders.latex import transforms

    # each included page's first section gets the id ':doc', written as \\label{\\detokenize{<docname>::doc}} (latex.doc_at)
    assert "section['ids'].append(':doc')" in inspect.getsource(transforms)


def test_sphinx_latex_containers_emit_no_labels_so_proof_anchors_write_their_own() -> None:
    from sphinx.writers.latex import LaTeXTranslator

    assert "hypertarget" not in inspect.getsource(LaTeXTranslator.visit_container)


def test_imgmath_still_converts_through_the_function_mathcache_wraps() -> None:
    from sphinx.ext import imgmath

    assert "convert_dvi_to_svg" in inspect.getsource(imgmath.render_math)


def test_sphinx_searchtools_removes_a_list_of_selectors_before_making_snippets() -> None:
    import sphinx
    from studyguide.sphinxext.search import REMOVED

    searchtools = Path(sphinx.__file__).parent / "themes/basic/static/searchtools.js"
    assert f"for (const removalQuery of {REMOVED})" in searchtools.read_text(encoding="utf-8")


def test_sphinx_zh_search_loads_the_default_dictionary_our_search_skips() -> None:
    from sphinx.search.zh import SearchChinese

    assert "jieba_load_userdict" in inspect.getsource(SearchChinese.__init__)


def test_a_copy_of_the_sphinx_config_made_as_the_quick_epub_does_leaves_the_original_alone() -> None:
    from sphinx.config import Config

    config = Config({"project": "书", "root_doc": "index"}, {})
    config.init_values()
    own = object.__new__(type(config))  # epub.TieredEpubBuilder.init
    own.__dict__.update(config.__dict__)
    own.root_doc = "quickreview/index"
    assert (config.root_doc, own.root_doc, own.project) == ("index", "quickreview/index", "书")


def test_myst_nb_records_its_output_folder_on_the_environment() -> None:
    from myst_nb import sphinx_ext

    assert "app.env.mystnb_config = NbParserConfig(" in inspect.getsource(sphinx_ext.create_mystnb_config)
    assert "output_folder" in inspect.getsource(sphinx_ext.create_mystnb_config)


def test_epub_builder_builds_its_toc_through_get_refnodes_and_honours_epub_exclude_files() -> None:
    from sphinx.builders import _epub_base

    assert "self.get_refnodes(" in inspect.getsource(_epub_base.EpubBuilder)
    assert "self.config.epub_exclude_files" in inspect.getsource(_epub_base.EpubBuilder.build_content)


def test_the_light_layout_copies_theme_blocks_that_are_unchanged() -> None:
    import pydata_sphinx_theme

    text = (Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "layout.html").read_text()
    # templates/layout.html rewrites these two blocks; a new theme version that changes them must be looked at again
    for name, digest in {"css": "1436267ac153f48c", "extrahead": "e607f7742f3bd264"}.items():
        block = re.search(r"\{%- block " + name + r" %\}(.*?)\{%- endblock " + name + r" %\}", text, re.S)
        assert block and hashlib.sha256(block.group(1).encode()).hexdigest()[:16] == digest, name


def test_our_blockwise_chinese_split_gives_the_words_sphinx_gives() -> None:
    from sphinx.search.zh import SearchChinese
    from studyguide.sphinxext.search import ChineseSearch

    lang = ChineseSearch({})
    pages = sorted((REPO / "book").rglob("*.md"))[::40]  # prose, code cells, tables, math
    texts = [p.read_text(encoding="utf-8") for p in pages] + [
        "用torch.nn写一个x.view(-1)，学习率3.5e-3\r\n\t混合精度", "state_dict 与 named_parameters()", "梯度累积：",
        "x = torch.randn(2, 3)  # 形状 (2, 3)", "ｆｕｌｌ　ｗｉｄｔｈ　１２３", "🙂表情", "", "   ", "a+b#c&d%e-f.g"]
    for text in texts * 2:  # the second time from the memo
        assert lang.split(text) == SearchChinese.split(lang, text)
    assert len(pages) >= 4 and lang._blocks
    words = [w for text in texts for w in SearchChinese.split(lang, text)] + ["GPUs", "CUDA", "Cuda", "ops", "was", "running"]
    assert {w for w in words if len(w) >= 3 > len(lang.stemmer.stemWord(w.lower())) and w in lang.latin_terms}  # the acronym case
    for word in words * 2:
        assert lang.stem(word) == SearchChinese.stem(lang, word)
    lang.latin_terms.discard("ops")
    assert lang.stem("ops") == SearchChinese.stem(lang, "ops") == "op"  # memoised while not a Latin term
    lang.latin_terms.add("ops")
    assert lang.stem("ops") == SearchChinese.stem(lang, "ops") == "ops"  # then one: the memo does not hide it
