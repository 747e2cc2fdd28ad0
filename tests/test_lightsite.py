"""The light website (studyguide/sphinxext/lightsite.py): what it cuts, that nothing a reader sees changes, and
what a phone then loads, measured by Lighthouse against a compressing local server."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import sphinxroot
from conftest import require_program
from fontTools.ttLib import TTFont
from studyguide import serve
from studyguide.sphinxext import lightsite

REPO = Path(__file__).resolve().parents[1]
LIGHTHOUSE = REPO / "tools/node/node_modules/.bin/lighthouse"
QUESTION = "1-basics/tensor/shape-demo.html"
KIB = 1024


# -- the cutting itself: no build ---------------------------------------------------------------------------------

def test_purge_keeps_a_rule_only_when_each_class_it_needs_is_used() -> None:
    css = (".used{a:1}.unused{b:2}.used .unused{c:3}.used,.unused{d:4}div{e:5}.used:not(.unused){f:6}"
           "@media (max-width:10px){.unused{g:7}}@media print{.used{h:8}}@font-face{font-family:X}#id{i:9}")
    out = lightsite.purge_css(css, {"used"})
    assert ".unused{" not in out and "c:3" not in out and "g:7" not in out and "@media (max-width" not in out
    for kept in (".used{a:1}", ".used{d:4}", "div{e:5}", ".used:not(.unused){f:6}", "@media print{.used{h:8}}", "@font-face", "#id{i:9}"):
        assert kept in out, kept


def test_serve_without_a_built_site_says_what_to_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from studyguide import cli

    assert cli.main(["init", str(tmp_path / "b"), "--title", "T"]) == 0
    capsys.readouterr()
    assert cli.main(["--root", str(tmp_path / "b"), "serve", "--port", "0"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{tmp_path / 'b' / '_build' / 'html'}: no index.html (build the site first: studyguide build html)"]


def test_used_words_are_page_classes_and_script_words(tmp_path: Path) -> None:
    (tmp_path / "_static").mkdir()
    (tmp_path / "a.html").write_text('<div class="x y">z</div>', encoding="utf-8")
    (tmp_path / "_static" / "s.js").write_text('el.classList.add("show-me")', encoding="utf-8")
    (tmp_path / "_static" / "fontawesome.js").write_text('"fa-every-icon"', encoding="utf-8")
    assert {"x", "y", "show-me"} <= lightsite.used_words(tmp_path)
    assert "z" not in lightsite.used_words(tmp_path) and "fa-every-icon" not in lightsite.used_words(tmp_path)


def test_the_html_build_keeps_the_themes_translator(tmp_path: Path) -> None:
    """The LaTeX translator is registered for LaTeX builds only: registered always, it hid the theme's HTML one."""
    root = sphinxroot.make_root(tmp_path)
    app, _ = sphinxroot.build(root, "html")
    home = (Path(app.outdir) / "index.html").read_text(encoding="utf-8")
    assert '<p aria-level="2" class="caption" role="heading">' in home
    assert '<table class="studyguide-environment table">' in (Path(app.outdir) / "environment.html").read_text(encoding="utf-8")


# -- the built mini-book ------------------------------------------------------------------------------------------


def _site(built_minibook: Path) -> Path:
    return built_minibook / "_build" / "html"


@pytest.mark.build
def test_pages_load_no_icon_script_and_the_index_only_for_search(built_minibook: Path) -> None:
    site = _site(built_minibook)
    pages = sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)
    assert len(pages) > 10
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "fontawesome.js" not in text, page
        assert ("searchindex.js" in text) == (page.name == "search.html"), page
        assert re.search(r'<meta name="description" content="[^"]+" />', text), page
        if page.name != "search.html":  # search.html's own scripts need doctools.js at once
            assert not re.search(r'<script src="[^"]*(doctools|copybutton|studyguide)\.js', text), page  # deferred
    source = (built_minibook / "book" / QUESTION.replace(".html", ".md")).read_text(encoding="utf-8")
    answer = re.search(r"^  answer: (.+)$", source, re.M).group(1)
    assert f'<meta name="description" content="{answer}" />' in (site / QUESTION).read_text(encoding="utf-8")


@pytest.mark.build
def test_icon_fonts_keep_every_icon_a_page_shows(built_minibook: Path) -> None:
    site = _site(built_minibook)
    full = (site / "_static/styles/pydata-sphinx-theme.css").read_text(encoding="utf-8")
    icons = {c for p in site.rglob("*.html") for v in re.findall(r'class="([^"]*)"', p.read_text(encoding="utf-8"))
             for c in v.split() if c.startswith("fa-") and c not in ("fa-solid", "fa-regular", "fa-brands", "fa-lg", "fa-fw")}
    assert {"fa-magnifying-glass", "fa-bars", "fa-sun", "fa-moon"} <= icons
    fonts = site / "_static/vendor/fontawesome/webfonts"
    solid = TTFont(fonts / "fa-solid-900.light.woff2").getBestCmap()
    for icon in icons:
        code = re.search(r"\." + re.escape(icon) + r"(?:,[^{]*)?\{--fa:\"\\(\w+)\"", full)
        assert code, icon
        assert int(code.group(1), 16) in solid, icon
    assert (fonts / "fa-solid-900.light.woff2").stat().st_size < (fonts / "fa-solid-900.woff2").stat().st_size / 10


# -- in a browser: the light pages look exactly as the full ones ---------------------------------------------------
# Custom properties (--x) are left out: they draw nothing, and a used one shows in the properties that read it.

STYLES_JS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    for (const pseudo of [null, '::before', '::after']) {
      const cs = getComputedStyle(el, pseudo);
      const props = [];
      for (let i = 0; i < cs.length; i++) if (!cs[i].startsWith('--')) props.push(cs[i] + ':' + cs.getPropertyValue(cs[i]));
      out.push((el.id || el.tagName) + (pseudo || '') + ' ' + props.join(';'));
    }
  }
  return out;
}"""


def _styles(browser, base: str, path: str, site: Path, full: bool, viewport: dict, mode: str, action: str) -> list[str]:
    context = browser.new_context(viewport=viewport)
    context.add_init_script(f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');")
    if full:  # serve each light copy's original in its place: same URL, so relative url()s still resolve
        def original(route) -> None:
            rel = route.request.url.split("?")[0][len(base):].replace(".light.css", ".css")
            route.fulfill(body=(site / rel).read_bytes(), content_type="text/css")
        context.route("**/*.light.css*", original)
    pg = context.new_page()
    pg.goto(base + path, wait_until="networkidle")
    if action:
        pg.locator(action).first.click()
        pg.wait_for_timeout(600)
    pg.evaluate("document.fonts.ready")
    styles = pg.evaluate(STYLES_JS)
    context.close()
    return styles


@pytest.mark.build
@pytest.mark.parametrize("path, viewport, mode, action", [
    (QUESTION, {"width": 1280, "height": 800}, "light", ""),
    (QUESTION, {"width": 1280, "height": 800}, "dark", "#studyguide-selftest-toggle"),
    (QUESTION, {"width": 390, "height": 844}, "light", ".primary-toggle:visible"),
    (QUESTION, {"width": 390, "height": 844}, "dark", ".secondary-toggle:visible"),
    ("index.html", {"width": 1280, "height": 800}, "light", "button.search-button-field"),
    ("search.html?q=连续", {"width": 1280, "height": 800}, "light", ""),
    ("environment.html", {"width": 390, "height": 844}, "light", ""),
])
def test_light_pages_compute_the_same_style_for_every_element(built_minibook: Path, path: str, viewport: dict, mode: str, action: str) -> None:
    from playwright.sync_api import sync_playwright

    site = _site(built_minibook)
    httpd, base = serve.start(site)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=require_program("chromium"), args=["--no-sandbox", "--disable-gpu"])
            light = _styles(browser, base, path, site, False, viewport, mode, action)
            full = _styles(browser, base, path, site, True, viewport, mode, action)
            browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert len(light) == len(full) and len(light) > 300
    diff = [(a, b) for a, b in zip(light, full, strict=True) if a != b]
    if diff:
        a, b = diff[0]
        props = [f"{x} | {y}" for x, y in zip(a.split(";"), b.split(";"), strict=False) if x != y]
        pytest.fail(f"{len(diff)} element(s) styled differently; first {a.split(' ')[0]}: {props[:5]}")


# -- Lighthouse, mobile profile -------------------------------------------------------------------------------------

def lighthouse(url: str, out: Path) -> dict:
    """Lighthouse's report on url (mobile profile, simulated slow 4G and a 4x slower CPU), Debian's Chromium."""
    if not LIGHTHOUSE.exists():
        pytest.fail(f"{LIGHTHOUSE} missing: run `tools/setup.sh node` (the README's `make test` does)")
    env = {**os.environ, "CHROME_PATH": require_program("chromium"), "HOME": str(out.parent)}
    cmd = [str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={out}", "--chrome-flags=--headless=new --no-sandbox",
           "--only-categories=performance,accessibility,best-practices,seo"]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(out.read_text(encoding="utf-8"))


def page_weight(report: dict, base: str) -> dict[str, int]:
    """Bytes before compression of each request the page made, the book's own images aside."""
    items = report["audits"]["network-requests"]["details"]["items"]
    return {i["url"][len(base):]: i.get("resourceSize", 0) for i in items
            if i["url"].startswith(base) and "/_images/" not in i["url"]}


RUNS = 3  # Lighthouse's own advice: the median of several runs, since a busy machine inflates one run's blocking time


@pytest.mark.build
@pytest.mark.parametrize("path", [QUESTION, "index.html"])
def test_lighthouse_on_a_phone(built_minibook: Path, tmp_path: Path, path: str) -> None:
    httpd, base = serve.start(_site(built_minibook))
    try:
        reports = [lighthouse(base + path, tmp_path / f"report-{i}.json") for i in range(RUNS)]
    finally:
        httpd.shutdown()
        httpd.server_close()
    reports.sort(key=lambda r: r["categories"]["performance"]["score"])
    report = reports[RUNS // 2]  # the median run by performance
    scores = {k: round(v["score"] * 100) for k, v in report["categories"].items()}
    weight = page_weight(report, base)
    assert sum(weight.values()) <= 700 * KIB, sorted(weight.items(), key=lambda kv: -kv[1])[:5]
    assert not any(u.endswith(("fontawesome.js", "searchindex.js")) for u in weight), list(weight)
    assert scores["accessibility"] == 100, scores
    assert scores["performance"] >= 90, (scores, {k: report["audits"][k]["displayValue"] for k in ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time")})
    assert report["audits"]["meta-description"]["score"] == 1
