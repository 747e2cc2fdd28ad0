"""The website in a real headless Chromium (Debian's, driven by Playwright) served from localhost."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest
from conftest import require_program

pytestmark = pytest.mark.build  # executes kernels or builds: not in `make unit`

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-default-apps"]
QUESTION = "1-basics/tensor/shape-demo.html"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site(built_minibook: Path):
    """Serve the built site on a free localhost port."""
    handler = functools.partial(QuietHandler, directory=str(built_minibook / "_build/html"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()  # close the listening socket too (warnings are errors)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=require_program("chromium"), args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, site):
    """A fresh page that records console errors and every request's host."""
    context = browser.new_context()
    pg = context.new_page()
    pg.errors, pg.hosts = [], set()
    pg.on("console", lambda msg: pg.errors.append(msg.text) if msg.type == "error" else None)
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    pg.on("request", lambda req: pg.hosts.add(urlparse(req.url).netloc))
    pg.on("response", lambda res: pg.errors.append(f"{res.status} {res.url}") if res.status >= 400 else None)
    yield pg
    context.close()


def test_pages_render_without_errors_or_foreign_requests(page, site) -> None:
    for path in ("index.html", QUESTION, "environment.html", "topics/index.html", "cheatsheets/tensor.html"):
        page.goto(f"{site}/{path}", wait_until="networkidle")
        assert page.locator("article h1").first.is_visible(), path
    page.goto(f"{site}/{QUESTION}", wait_until="networkidle")
    assert "输出来源：" in page.inner_text("article")
    assert page.errors == []
    assert page.hosts == {urlparse(site).netloc}


def test_chinese_search_finds_the_question(page, site) -> None:
    page.goto(f"{site}/search.html?q=连续", wait_until="networkidle")
    results = page.locator("#search-results li a")
    results.first.wait_for(timeout=15000)
    titles = results.all_inner_texts()
    assert any("转置之后为什么不连续" in t for t in titles), titles
    assert page.errors == []


def test_download_links_resolve(page, site) -> None:
    page.goto(f"{site}/{QUESTION}", wait_until="networkidle")
    links = page.locator("nav.studyguide-downloads a")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    names = [href.rsplit("/", 1)[-1] for href in hrefs]
    assert names == ["minibook.pdf", "minibook-selftest.pdf", "minibook-quickreview.pdf", "minibook.epub",
                     "minibook-quickreview.epub", "minibook.apkg", "minibook-practice.zip", "index.html"], names  # the e-reader PDF only once built
    for href in hrefs:
        url = f"{site}/1-basics/tensor/{href}"
        assert page.request.get(url).status == 200, href
    page.goto(f"{site}/topics/tensor.html")
    sheet = page.locator("a.download").first.get_attribute("href")
    response = page.request.get(f"{site}/topics/{sheet}")
    assert response.status == 200 and response.body()[:5] == b"%PDF-"


def test_self_test_mode_folds_answers_and_is_remembered(page, site) -> None:
    page.goto(f"{site}/{QUESTION}", wait_until="networkidle")
    answer = page.locator("section#short-answer > ul").first
    assert answer.is_visible()
    page.locator("#studyguide-selftest-toggle").check()
    assert not answer.is_visible()
    assert page.locator("section#question > p").first.is_visible()  # the question itself stays
    page.locator("section#short-answer > h2").click()
    assert answer.is_visible()
    page.goto(f"{site}/2-intermediate/autograd/grad-demo.html", wait_until="networkidle")
    assert page.locator("#studyguide-selftest-toggle").is_checked()  # remembered across pages
    assert not page.locator("section#pitfalls > ul").first.is_visible()
    page.locator("#studyguide-selftest-toggle").uncheck()
    assert page.locator("section#pitfalls > ul").first.is_visible()
    assert page.errors == []


@pytest.mark.parametrize("query, title", [("反传两次", "图能反传两次吗"), ("不连续", "转置之后为什么不连续")])
def test_search_finds_words_the_index_holds_only_in_pieces(page, site, query: str, title: str) -> None:
    page.goto(f"{site}/search.html?q={query}", wait_until="networkidle")  # jieba indexed 反传 and 两次, not 反传两次
    results = page.locator("#search-results li a")
    results.first.wait_for(timeout=15000)
    assert any(title in t for t in results.all_inner_texts()[:3]), results.all_inner_texts()
    assert page.errors == []


def test_on_a_phone_the_menu_and_the_page_contents_open(browser, site) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    pg = context.new_page()
    pg.goto(f"{site}/{QUESTION}", wait_until="networkidle")
    menu = pg.locator("#pst-primary-sidebar-modal")
    assert not menu.is_visible()
    pg.locator(".primary-toggle:visible").first.click()
    menu.wait_for(state="visible", timeout=5000)
    assert menu.locator("a", has_text="张量基础与内存布局").first.is_visible()  # the chapters are there
    assert menu.locator("nav.studyguide-downloads").is_visible() and menu.locator("#studyguide-selftest-toggle").count() == 1
    pg.keyboard.press("Escape")
    contents = pg.locator("#pst-secondary-sidebar-modal")
    pg.locator(".secondary-toggle:visible").first.click()
    contents.wait_for(state="visible", timeout=5000)
    assert contents.locator("a", has_text="先给结论").first.is_visible()
    context.close()


def test_on_a_wide_screen_the_menu_button_folds_the_sidebar(browser, site) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    pg = context.new_page()
    pg.goto(f"{site}/{QUESTION}", wait_until="networkidle")
    sidebar = pg.locator("#pst-primary-sidebar")
    assert sidebar.is_visible()
    pg.locator(".primary-toggle:visible").first.click()
    pg.wait_for_timeout(500)
    assert not sidebar.is_visible()
    pg.locator(".primary-toggle:visible").first.click()
    pg.wait_for_timeout(500)
    assert sidebar.is_visible()
    context.close()


def test_search_snippets_are_the_pages_own_text(page, site) -> None:
    page.goto(f"{site}/search.html?q=转置", wait_until="networkidle")  # first met in the title, next to the theme's buttons
    summary = page.locator("#search-results li p.context").first
    summary.wait_for(timeout=15000)
    text = summary.inner_text()
    assert "System Settings" not in text and "亮色" not in text and "本页目录" not in text and "输出来源" not in text
    assert "转置" in text


def test_the_copy_button_copies_the_cells_code(browser, site) -> None:
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    pg = context.new_page()
    pg.goto(f"{site}/{QUESTION}", wait_until="networkidle")  # copybutton.js is deferred on the light site
    cell = pg.locator("div.cell_input pre").first
    cell.hover()
    pg.locator("div.cell_input button.copybtn").first.click()
    copied, code = pg.evaluate("navigator.clipboard.readText()"), cell.inner_text()
    context.close()
    assert copied.strip() and copied.strip() == code.strip()


def test_the_colour_menu_turns_the_page_dark_and_is_remembered(page, site) -> None:
    page.goto(f"{site}/{QUESTION}", wait_until="networkidle")
    background = "getComputedStyle(document.body).backgroundColor"
    light = page.evaluate(background)
    page.locator("button.theme-switch-button:visible").first.click()  # a Bootstrap dropdown: bootstrap.js is deferred
    page.locator("button.theme-change-button[data-mode=dark]:visible").click()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate(background) != light
    page.goto(f"{site}/index.html", wait_until="networkidle")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.errors == []
