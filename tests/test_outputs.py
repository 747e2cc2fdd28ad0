"""The fixture mini-book built to HTML, EPUB and PDF, checked with the real tools a reader's device would use."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from outputs import (
    epub_files,
    epubcheck,
    link_annotations,
    opf_metadata,
    outline_titles,
    pdf_fonts,
    pdf_text,
    print_furniture_problems,
    visible_text,
    words_outside,
)
from pypdf import PdfReader

pytestmark = pytest.mark.build  # executes kernels or builds: not in `make unit`

PAGES = {
    "shape": "1-basics/tensor/shape-demo",
    "grad": "2-intermediate/autograd/grad-demo",
    "gpu": "3-advanced/performance/gpu-demo",
}


def html(root: Path, key: str) -> str:
    return (root / "_build/html" / f"{PAGES[key]}.html").read_text(encoding="utf-8")


# --- PDF -------------------------------------------------------------------------------------------

def test_pdf_text_is_extractable_chinese_with_parts_chapters_and_numbered_sections(built_minibook: Path) -> None:
    text = pdf_text(built_minibook / "_build/minibook.pdf").replace(" ", "")
    for expected in ("第一部分", "第三部分", "第1章张量基础与内存布局", "1.1转置之后为什么不连续？", "执行环境", "目录", "索引"):
        assert expected in text, expected


def test_pdf_prints_folded_content_provenance_and_cpu_fallback(built_minibook: Path) -> None:
    text = pdf_text(built_minibook / "_build/minibook.pdf").replace(" ", "")
    assert "调用contiguous()，它会拷贝出一块连续内存。" in text  # the dropdown's answer, printed in full
    assert text.count("输出来源：") == 4 and "torch2." in text  # three questions and one exercise
    assert "CPU回退" in text


def test_pdf_fonts_are_embedded_noto_cjk(built_minibook: Path) -> None:
    fonts = pdf_fonts(built_minibook / "_build/minibook.pdf")
    assert fonts and all(f["emb"] == "yes" for f in fonts)
    assert any("NotoSerifCJK" in f["name"] for f in fonts) and any("NotoSansCJK" in f["name"] for f in fonts)


def test_pdf_has_bookmarks_links_and_a_sane_page_count(built_minibook: Path) -> None:
    pdf = built_minibook / "_build/minibook.pdf"
    titles = outline_titles(pdf)
    assert {"第一部分 入门", "第二部分 中级", "第三部分 高阶"} <= set(titles)
    assert any(t.endswith("转置之后为什么不连续？") for t in titles)
    assert 8 <= len(PdfReader(str(pdf)).pages) <= 40
    assert link_annotations(pdf) >= 10  # TOC entries and cross-references are clickable


@pytest.mark.parametrize("edition", ["minibook", "minibook-quickreview", "minibook-selftest"])
def test_pdf_cover_running_heads_part_openers_and_middots(built_minibook: Path, edition: str) -> None:
    pdf = built_minibook / f"_build/{edition}.pdf"
    assert print_furniture_problems(pdf, "迷你测试书", "0.1 版", "发行版本", "封面", "第一部分") == []


def test_quick_review_bookmarks_each_question_and_marks_the_frequent_ones(built_minibook: Path) -> None:
    titles = outline_titles(built_minibook / "_build/minibook-quickreview.pdf")
    assert any(t.endswith("转置之后为什么不连续？（高频）") for t in titles), titles  # shape-demo is frequent
    assert sum(t.endswith("？") for t in titles) == 2, titles  # the other two questions, unmarked


def test_pdf_log_has_no_missing_glyphs_and_no_text_in_the_margin(built_minibook: Path) -> None:
    log = (built_minibook / "_build/latex/minibook.log").read_text(encoding="utf-8", errors="replace")
    assert "Missing character" not in log
    assert words_outside(built_minibook / "_build/minibook.pdf") == []


def test_pdf_back_index_lists_the_api_entries(built_minibook: Path) -> None:
    text = pdf_text(built_minibook / "_build/minibook.pdf")
    index = text[text.rindex("索引"):]
    for api in ("torch.Tensor.t", "torch.Tensor.backward", "torch.cuda.synchronize", "内存连续", "张量", "转置"):
        assert api in index


def test_index_sorts_concepts_by_pinyin_sets_them_upright_and_files_them_under_a_letter(built_minibook: Path) -> None:
    tex = (built_minibook / "_build/latex/minibook.tex").read_text(encoding="utf-8")
    assert r"\index{nei cun lian xu 内存连续@\studyguideconcept{内存连续}}" in tex
    assert r"\index{zhang liang 张量@\studyguideconcept{张量}!zhuan zhi 转置@\studyguideconcept{转置}}" in tex
    assert r"\index{torch.Tensor.t@\spxentry{torch.\allowbreak{}Tensor.\allowbreak{}t}}" in tex  # code font, breaks after dots
    genindex = (built_minibook / "_build/html/genindex.html").read_text(encoding="utf-8")
    letters = re.findall(r'<h2 id="([^"]+)">', genindex)
    assert "N" in letters and "Z" in letters and "内" not in letters and "张" not in letters, letters
    assert genindex.index('id="N"') < genindex.index("内存连续") < genindex.index('id="T"')


def test_a_split_code_block_keeps_three_printed_lines_on_each_side_when_its_edge_lines_wrap(built_minibook: Path) -> None:
    """Issue #23: Sphinx hands fancyvrb each printed part of a wrapped line as a line of its own, so the break rule
    must read the logical line of the box it breaks before; with the counter instead, a block broke before its
    last, wrapped line and left 2 printed lines on the next page. The block is set at every height near a page's
    foot, on pages with the book's header and footer (the measure finds the text area from them)."""
    import subprocess

    from printmeasure import measure
    from studyguide.sphinxext.latexrefs import WRAP, block_rules

    latex = built_minibook / "_build/latex"
    tex = (latex / "minibook.tex").read_text(encoding="utf-8")
    wrapped = "y = '" + "a" * (WRAP + 10) + "'"  # two printed lines
    tall = "z = '" + "a" * (10 * WRAP) + "'"  # a logical line of 11 printed lines: the logical rule gives up on it
    blocks = ["\n".join(["x = 1"] * 15 + [wrapped]), "\n".join([wrapped] + ["x = 1"] * 15), tall + "\n" + wrapped]
    body = []
    for fill in range(20, 48):  # lines of text before the block: it starts lower on each page
        for code in blocks:
            body.append("\\clearpage" + "".join(f"\\noindent 填充 {k}\\par" for k in range(fill)))
            body.append(block_rules(code, WRAP) + "\n\\begin{sphinxVerbatim}[commandchars=\\\\\\{\\}]\n" + code
                        + "\n\\end{sphinxVerbatim}\n")
    (latex / "splits.tex").write_text(tex[: tex.index(r"\begin{document}")] + "\\begin{document}\\pagestyle{normal}\n" + "\n".join(body)
                                      + "\n\\end{document}\n", encoding="utf-8")
    subprocess.run(["xelatex", "-interaction=nonstopmode", "-halt-on-error", "splits.tex"], cwd=latex,
                   check=True, capture_output=True)
    report = measure(latex / "splits.pdf")
    assert report.split_blocks >= 10, report.counts()  # near a page's foot the block splits
    assert report.bad_splits == [], report.bad_splits


def test_code_lines_set_without_the_forced_wrap_test_come_out_as_with_it(built_minibook: Path, tmp_path: Path) -> None:
    """Issue #27: the forced-wrap test (verbatimforcewraps) typeset every code line once more to measure it (a
    third of the A4 book's xelatex time); it is now left out for a block whose widest line (a bound from the
    translator) is narrower than the measure. The same blocks, at the edge of the measure (ASCII, CJK, other
    characters, a tab, a long name that must be force-wrapped), in the text and in a list, come out the same with
    the test always run, and otherwise when it is never run; the test was left out for some lines, run for others."""
    import subprocess

    from studyguide.sphinxext.latexrefs import WRAP, block_rules, bound_rule

    latex = tmp_path / "latex"
    shutil.copytree(built_minibook / "_build/latex", latex)
    tex = (latex / "minibook.tex").read_text(encoding="utf-8")
    lines = [*("a = " + "b" * (WRAP - 4 + d) for d in range(-3, 3)), *("a = " + "x" * (WRAP - 12 + d) + "  # 张量" for d in range(-3, 3)),
             "# " + "维度" * (WRAP // 4), "y = '" + "a" * (WRAP + 30) + "'", "z = 1  # 2 × 3 → 6, é ≈ e", "w = f(x, y) " * 9,
             "t =\t" + "c" * (WRAP - 10)]
    blocks = [lines[k:k + 3] for k in range(len(lines))] + [[line] for line in lines] + [["x = 1", "print(x)  # 打印 x"]] * 20
    body = "\n".join(block_rules("\n".join(code), WRAP) + bound_rule("\n".join(code)) + "\n\\begin{sphinxVerbatim}[commandchars=\\\\\\{\\}]\n"
                     + "\n".join(code) + "\n\\end{sphinxVerbatim}\n" for code in blocks)
    count = ("\\newcount\\measured\\makeatletter\\let\\realtest\\studyguide@decideforcewrap"
             "\\def\\studyguide@decideforcewrap{\\global\\advance\\measured 1 \\realtest}"
             "\\AtEndDocument{\\typeout{MEASURED \\the\\measured}}\\makeatother\n")
    always = "\\makeatletter\\let\\spx@verb@DecideIfWillDoForceWrap\\studyguide@decideforcewrap\\makeatother\n"  # the counted test
    never = "\\makeatletter\\def\\spx@verb@DecideIfWillDoForceWrap{}\\makeatother\n"  # a control: no line is force-wrapped
    head = tex[: tex.index(r"\begin{document}")]
    made = {}
    for name, extra in (("bounded", count), ("always", count + always), ("never", count + never)):
        (latex / f"{name}.tex").write_text(head + extra + "\\begin{document}\n" + body + "\\begin{itemize}\\item\n" + body
                                           + "\\end{itemize}\n\\end{document}\n", encoding="utf-8")
        proc = subprocess.run(["xelatex", "-no-pdf", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"], cwd=latex,
                              check=True, capture_output=True, text=True)
        made[name] = (int(re.search(r"MEASURED (\d+)", proc.stdout).group(1)), _xdv_pages(latex / f"{name}.xdv"))
    printed = sum(len(code) for code in blocks) * 2
    assert made["always"][0] == printed and 0 < made["bounded"][0] < printed - 80, (made["bounded"][0], printed)  # the short lines skip it
    assert made["bounded"][1] == made["always"][1] != made["never"][1]


def test_each_code_block_of_the_book_has_its_bound_and_the_next_block_none(built_minibook: Path) -> None:
    """The bound is set just before a block's verbatim and reset just after it: a block the translator gives none
    (a footnote's, a parsed literal) is never measured by another's. (The mini-book has neither: what the translator
    writes for them is read in latexrefs.PageRefTranslator.visit_literal_block.)"""
    from studyguide.sphinxext.latexrefs import MAX_BOUND

    tex = (built_minibook / "_build/latex/minibook.tex").read_text(encoding="utf-8")
    found = list(re.finditer(r"\\def\\studyguidecodecols\{(\d+)\}", tex))
    bounded = [(m, n) for m, n in zip(found, found[1:], strict=False) if int(m.group(1)) != MAX_BOUND]
    assert len(bounded) >= 10 and len(found) == 2 * len(bounded)  # each bound, then its reset
    for m, after in bounded:
        between = tex[m.end():after.start()]
        assert int(after.group(1)) == MAX_BOUND and between.count("\\begin{sphinxVerbatim}") == 1, between[:300]
        assert re.search(r"\\end\{sphinxVerbatim(intable)?\}\s*(\\sphinxresetverbatimhllines\s*)?$", between), between[-300:]


def _xdv_pages(xdv: Path) -> bytes:
    """An XDV file without its preamble, whose comment holds the time it was written."""
    data = xdv.read_bytes()
    return data[15 + data[14]:]


# --- EPUB ------------------------------------------------------------------------------------------

def test_epubcheck_reports_no_errors_and_no_warnings(built_minibook: Path) -> None:
    proc = epubcheck(built_minibook / "_build/minibook.epub")
    assert "Messages: 0 fatals / 0 errors / 0 warnings" in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_epub_metadata_and_cover(built_minibook: Path) -> None:
    meta = opf_metadata(built_minibook / "_build/minibook.epub")
    assert meta["title"] == ["迷你测试书"] and meta["creator"] == ["测试组"] and meta["language"] == ["zh-CN"]
    assert meta.get("cover-image") or meta.get("cover")


def test_the_edition_is_on_the_cover_in_the_page_footers_and_in_the_epub_metadata(built_minibook: Path) -> None:
    pages = pdf_text(built_minibook / "_build/minibook.pdf").split("\f")[:-1]  # pdftotext ends each page with a form feed
    assert "0.1 版" in pages[0]  # the title page (the fixture has no git tag: the edition comes from its config)
    assert all("0.1 版" in page for page in pages[1:] if not re.match(r"\s*第.部分\s*\n", page))  # every footer (part openers have none)
    meta = opf_metadata(built_minibook / "_build/minibook.epub")
    assert meta["description"] == ["迷你测试书 · 0.1 版"] and "0.1" in meta["meta"]


def test_the_changes_page_is_in_the_front_matter_of_every_format(built_minibook: Path) -> None:
    assert "本版更新" in (built_minibook / "_build/html/changes.html").read_text(encoding="utf-8")
    assert "本版更新" in pdf_text(built_minibook / "_build/minibook.pdf")
    assert "changes.xhtml" in epub_files(built_minibook / "_build/minibook.epub")


def test_epub_toc_groups_chapters_by_tier(built_minibook: Path) -> None:
    nav = epub_files(built_minibook / "_build/minibook.epub")["nav.xhtml"]
    top = re.findall(r"^        <li>\s*<a href=\"[^\"]+\">([^<]+)</a>", nav, re.M)
    assert top[:1] == ["迷你测试书"] and "第一部分 入门" in top and "第三部分 高阶" in top
    assert nav.index("第一部分 入门") < nav.index("张量基础与内存布局") < nav.index("第二部分 中级")


def test_epub_is_self_contained_with_math_outputs_and_unfolded_content(built_minibook: Path) -> None:
    files = epub_files(built_minibook / "_build/minibook.epub")
    pages = {n: t for n, t in files.items() if n.endswith(".xhtml")}
    for name, text in pages.items():
        assert not re.search(r'(src|href)="https?://', text), name
        assert "<details" not in text, name
    shape = pages[f"{PAGES['shape']}.xhtml"]
    assert "data:image/svg+xml" in shape or ".svg" in shape  # math as an image
    assert "\\(" not in shape
    assert "转置前 stride: (3, 1)" in shape  # code output visible
    assert "它会拷贝出一块连续内存" in shape
    assert "CPU 回退" in pages[f"{PAGES['gpu']}.xhtml"]


# --- Website ---------------------------------------------------------------------------------------

def test_every_page_links_the_downloads_which_exist(built_minibook: Path) -> None:
    site = built_minibook / "_build/html"
    for key in PAGES:
        page = html(built_minibook, key)
        assert 'href="../../downloads/minibook.pdf"' in page and 'href="../../downloads/minibook.epub"' in page
    assert (site / "downloads/minibook.pdf").read_bytes() == (built_minibook / "_build/minibook.pdf").read_bytes()
    assert (site / "downloads/minibook.epub").is_file()


def test_site_needs_no_network(built_minibook: Path) -> None:
    for page in (built_minibook / "_build/html").rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r'<(script|link|img)[^>]+(src|href)="(https?:)?//', text), page


def test_question_page_has_metadata_provenance_anchors_copy_buttons_math_and_links(built_minibook: Path) -> None:
    page = html(built_minibook, "shape")
    text = visible_text(page)
    assert "入门 · 张量基础与内存布局 · 高频" in text
    assert "输出来源：" in text and "执行" in text
    for anchor in ("shape-demo", "question", "short-answer", "details", "related"):
        assert f'id="{anchor}"' in page
    assert "copybutton.js" in page
    assert "data:image/svg+xml" in page  # imgmath, no MathJax CDN
    assert 'href="../../2-intermediate/autograd/grad-demo.html#grad-demo"' in page
    assert "1.1. " in text


def test_chinese_search_index_is_segmented(built_minibook: Path) -> None:
    raw = (built_minibook / "_build/html/searchindex.js").read_text(encoding="utf-8")
    terms = json.loads(raw[raw.index("(") + 1 : raw.rindex(")")])["terms"]
    assert {"转置", "反传", "连续"} <= set(terms)  # jieba split the sentences into words


def test_environment_page_sums_up_the_pages(built_minibook: Path) -> None:
    text = visible_text((built_minibook / "_build/html/environment.html").read_text(encoding="utf-8"))
    assert re.search(r"\(CPU\)|（CPU）", text) and "合计 4" in text  # three questions and one exercise
    assert "以下 1 道题的真实输出需要 GPU" in text and "GPU 计时为什么要同步？" in text


@pytest.mark.parametrize("key", ["shape", "grad"])
def test_no_cpu_fallback_note_on_cpu_pages(built_minibook: Path, key: str) -> None:
    assert "studyguide-cpu-fallback" not in html(built_minibook, key)


# --- Self-test edition -------------------------------------------------------------------------

def test_selftest_pdf_lists_bare_questions_then_answers_with_links_both_ways(built_minibook: Path) -> None:
    pdf = built_minibook / "_build/minibook-selftest.pdf"
    text = pdf_text(pdf).replace(" ", "")
    assert "入门·自测题" in text and "入门·答案" in text and "高阶·答案" in text
    prompt, answer = text.index("t()之后的张量为什么不连续？"), text.index("1.1转置之后为什么不连续？")
    assert prompt < answer  # the question comes first, its answer later in the tier
    assert "答案：第1.1节，第" in text and "回到自测题" in text
    assert pdf_text(pdf).splitlines().count("回到自测题") == 4  # one back link per answer (three questions, one exercise)
    assert link_annotations(pdf) >= link_annotations(built_minibook / "_build/minibook.pdf") + 6
    assert "回到自测题" not in pdf_text(built_minibook / "_build/minibook.pdf")  # the main PDF is unchanged
    assert (built_minibook / "_build/html/downloads/minibook-selftest.pdf").is_file()


def test_search_dictionary_cache_stays_in_the_build_folder(built_minibook: Path) -> None:
    assert (built_minibook / "_build/cache-home/jieba.cache").is_file()  # not in the system temp folder


def test_the_answer_opens_the_short_answer_in_every_format(built_minibook: Path) -> None:
    answer = "转置只改 stride，所以结果不再连续。"
    page = html(built_minibook, "shape")
    section = page[page.index('id="short-answer"'):]
    first = re.search(r"<p[^>]*>(.*?)</p>", section, re.S)
    assert first and 'class="studyguide-answer"' in section[: first.end()] and answer in first.group(1)
    assert section.index(answer) < section.index("转置交换了 stride")  # before the bullets
    epub = epub_files(built_minibook / "_build/minibook.epub")["1-basics/tensor/shape-demo.xhtml"]
    assert 'class="studyguide-answer"' in epub and epub.index(answer) < epub.index("转置交换了 stride")
    for pdf in ("minibook.pdf", "minibook-selftest.pdf"):
        text = pdf_text(built_minibook / "_build" / pdf).replace(" ", "")
        block = text[text.index("先给结论"):]
        assert block.index(answer.replace(" ", "")) < block.index("转置交换了stride"), pdf


# --- Quick-review edition (速览版) -------------------------------------------------------------------

def _book_page_of(pdf: Path, title: str) -> str:
    """The printed page number where a question starts in the full book: its title with its 考点 section, not the TOC."""
    reader = PdfReader(pdf)
    pages = [p.extract_text().replace(" ", "") for p in reader.pages]
    return next(reader.page_labels[i] for i, text in enumerate(pages) if re.search(re.escape(title) + "(?!（第)", text) and "考点" in text)


def test_quick_review_pdf_holds_the_answers_and_the_page_of_each_question_in_the_book(built_minibook: Path) -> None:
    quick, book = built_minibook / "_build/minibook-quickreview.pdf", built_minibook / "_build/minibook.pdf"
    text = pdf_text(quick).replace(" ", "")
    for part in ("转置之后为什么不连续？", "转置只改stride，所以结果不再连续。", "转置交换了stride，数据没有移动。",
                 "易错点", "以为转置会复制数据。", "t=torch.zeros(2,3).t()"):
        assert part in text, part
    for left_out in ("考点", "转置前stride:", "怎样让它重新连续"):  # the rest of the page stays in the book
        assert left_out not in text, left_out
    where = re.search(r"全书：入门·张量[^，]*，第(\d+)页", text)
    assert where and where.group(1) == _book_page_of(book, "转置之后为什么不连续？")
    targets = [a["/A"].get("/F") for page in PdfReader(quick).pages for a in page.get("/Annots", [])
               if a.get_object().get("/A", {}).get("/S") == "/GoToR"]
    proofs = text.count("证据：全书第")
    assert proofs == 7  # the cited bullets of 先给结论 and 易错点 of the three questions (two each) and the exercise's one
    assert targets.count("minibook.pdf") == 4 + proofs  # each question and exercise, and each proof, links to its page in the full book
    assert all(f["emb"] == "yes" for f in pdf_fonts(quick)) and words_outside(quick) == []
    assert (built_minibook / "_build/html/downloads/minibook-quickreview.pdf").is_file()


def test_quick_review_epub_passes_epubcheck_and_holds_only_the_quick_review(built_minibook: Path) -> None:
    epub = built_minibook / "_build/minibook-quickreview.epub"
    proc = epubcheck(epub)
    assert proc.returncode == 0 and "0 errors" in proc.stdout + proc.stderr and "0 warnings" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    files = epub_files(epub)
    pages = [name for name in files if name.endswith(".xhtml") and name not in ("nav.xhtml",)]
    assert all(name.startswith("quickreview/") for name in pages if not name.startswith(("_static", "genindex"))), pages
    body = visible_text(files["quickreview/basics.xhtml"])
    assert "转置只改 stride，所以结果不再连续。" in body and "以为转置会复制数据。" in body and "全书：入门 · 张量" in body
    assert "速览版" in " ".join(opf_metadata(epub)["title"])
    site = html(built_minibook, "shape")
    assert 'href="../../downloads/minibook-quickreview.pdf"' in site and 'href="../../downloads/minibook-quickreview.epub"' in site
    assert (built_minibook / "_build/html/downloads/minibook-quickreview.epub").is_file()


def test_in_the_pdf_outputs_are_set_apart_from_code_in_greyscale(built_minibook: Path) -> None:
    from outputs import grey_page, word_boxes

    tex = (built_minibook / "_build/latex/minibook.tex").read_text(encoding="utf-8")
    assert "\\newenvironment{sphinxclasscell_output}" in tex and tex.count("\\begin{sphinxuseclass}{cell_output}") >= 3
    pdf = built_minibook / "_build/minibook.pdf"
    words = word_boxes(pdf)
    code = next(w for w in words if w[5] == "m" and any(v[5].startswith("torch.arange(6)") for v in words if v[0] == w[0] and abs(v[2] - w[2]) < 1))
    output = next(w for w in words if w[5] == "转置前" and not any(v[0] == w[0] and abs(v[2] - w[2]) < 3 and v[1] < w[1] for v in words))  # starts its line
    label = [w for w in words if w[0] == output[0] and w[5] == "输出" and 0 < output[2] - w[4] < 20]
    assert label, "no 输出 label right above the output"
    grey = grey_page(pdf, output[0])
    assert code[0] == output[0] and grey(code[1] - 2, (code[2] + code[4]) / 2) < 250  # code: on Sphinx's grey box
    middle = (output[2] + output[4]) / 2
    assert grey(output[3] + 40, middle) > 252  # the output: on the white page
    assert min(grey(output[1] - d / 2, middle) for d in range(2, 24)) < 160  # ... behind a rule on its left


def test_every_cross_reference_in_the_pdfs_gives_the_page_it_points_to(built_minibook: Path) -> None:
    for stem in ("minibook", "minibook-selftest", "minibook-quickreview"):
        tex = (built_minibook / f"_build/latex/{stem}.tex").read_text(encoding="utf-8")
        links = tex.count("\\sphinxcrossref{")
        assert tex.count("（第~\\pageref*{") >= links and (links or stem.endswith("quickreview")), stem  # each one, and the proof marks
    book = built_minibook / "_build/minibook.pdf"
    text = pdf_text(book).replace(" ", "")
    for title in ("转置之后为什么不连续？", "grad demo：图能反传两次吗？".replace(" ", "")):
        pages = set(re.findall(re.escape(title) + r"（第(\d+)页）", text))
        assert pages == {_book_page_of(book, title)}, (title, pages)


@pytest.mark.parametrize(("kind", "bounded"), [("verbatim", True), ("parsed", False), ("footnote", False)])
def test_the_translator_bounds_only_a_verbatim_and_resets_after_it(monkeypatch: pytest.MonkeyPatch, kind: str, bounded: bool) -> None:
    """A parsed literal (Sphinx writes alltt and visits its children) and a footnote's block get no bound, so no
    block is ever measured by another's; a verbatim gets its bound, then the reset, after all Sphinx wrote."""
    from docutils import nodes
    from sphinx.writers.latex import LaTeXTranslator
    from studyguide.sphinxext.latexrefs import NO_BOUND, PageRefTranslator, bound_rule

    def sphinx_visit(self: LaTeXTranslator, node: nodes.Element) -> None:
        if node.rawsource != node.astext():
            self.body.append("\\begin{sphinxalltt}")
            return
        self.body.append("\\begin{sphinxVerbatim}...\\end{sphinxVerbatim}")
        raise nodes.SkipNode

    monkeypatch.setattr(LaTeXTranslator, "visit_literal_block", sphinx_visit)
    code = "x = 1\t# 张量"
    node = nodes.literal_block("**x** = 1" if kind == "parsed" else code, code)
    translator = PageRefTranslator.__new__(PageRefTranslator)
    translator.body, translator.in_footnote, translator.in_parsed_literal = [], kind == "footnote", 0
    translator.config = type("Config", (), {"studyguide_latex": ""})()
    try:
        translator.visit_literal_block(node)
    except nodes.SkipNode:
        assert kind != "parsed"
    text = "".join(translator.body)
    if bounded:
        assert text.index(bound_rule(code)) < text.index("\\begin{sphinxVerbatim}") < text.index("\\end{sphinxVerbatim}") < text.rindex(NO_BOUND)
        assert bound_rule(code) == "\\def\\studyguidecodecols{20}"  # 5 + 8 for the tab + 2 + 2 per CJK character + 1 for rounding
    else:
        assert "studyguidecodecols" not in text
