"""EPUB: print folded content plainly, label outputs, and ship one lean stylesheet written for e-readers."""

from __future__ import annotations

import html
import re
import shutil
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from docutils import nodes
from pygments.style import Style
from pygments.token import Comment, Error, Generic, Keyword, Name, Operator, String
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.builders.epub3 import Epub3Builder
from sphinx.transforms.post_transforms import SphinxPostTransform

from .. import editions
from ..generate import QUICK_DIR, SELFTEST_DIR
from ..indexes import SHEETS_DIR, TOPICS_DIR
from . import state
from .fresh import FreshFromDoctrees

WEB_ONLY = (f"{TOPICS_DIR}/", f"{SHEETS_DIR}/", f"{SELFTEST_DIR}/", f"{QUICK_DIR}/")  # not part of the EPUB
QUICK = editions.QUICK.key  # value of ``studyguide_edition`` that builds the quick-review EPUB instead of the book
THEME = "studyguide-epub"  # themes/studyguide-epub: Sphinx's epub layout with the e-reader stylesheet
THEME_DIR = Path(__file__).parent / "themes" / THEME
EPUB_CSS = ("studyguide-epub.css", "pygments.css")  # the only stylesheets of the EPUB
_SVG_RE = re.compile(r"<svg\b.*?</svg>", re.S)


class EInkStyle(Style):
    """Code highlighting that survives greyscale: keywords and definitions bold, comments italic."""

    background_color = "transparent"  # the reader's page colour, also in night mode
    highlight_color = "#dddddd"
    styles = {
        Keyword: "bold", Keyword.Constant: "nobold", Operator.Word: "bold",
        Name.Function: "bold", Name.Class: "bold", Name.Namespace: "bold", Name.Exception: "bold", Name.Decorator: "bold",
        Comment: "italic #444444", String: "#333333", String.Doc: "italic #333333", String.Escape: "bold", String.Interpol: "bold",
        Generic.Heading: "bold", Generic.Subheading: "bold", Generic.Emph: "italic", Generic.Strong: "bold",
        Generic.Prompt: "bold", Generic.Traceback: "bold", Error: "",
    }


class UnfoldForEpub(SphinxPostTransform):
    """Turn dropdowns and hidden cells into plain content; e-readers often drop ``<details>``."""

    default_priority = 150  # before sphinx-design and myst-nb build their <details> (199)
    builders = ("epub",)

    def run(self, **kwargs: Any) -> None:
        """Unfold every dropdown and un-hide every code cell."""
        for node in list(self.document.findall(nodes.container)):
            if node.get("design_component") == "dropdown":
                plain = nodes.container(classes=["studyguide-unfolded"])
                plain.extend(node.children)
                node.replace_self(plain)
            elif node.get("hide_mode"):
                node["hide_mode"] = None


class LabelOutputs(SphinxPostTransform):
    """Open every cell output with a small 输出 label: on paper-like screens it must not pass for code."""

    default_priority = 150
    builders = ("epub",)

    def run(self, **kwargs: Any) -> None:
        """Insert the label paragraph into each output container."""
        for node in list(self.document.findall(nodes.container)):
            if "cell_output" in node["classes"]:
                label = state.of(self.env).config.locale.t("epub.output")  # type: ignore[union-attr]
                node.insert(0, nodes.paragraph("", label, classes=["studyguide-output-label"]))


class TieredEpubBuilder(FreshFromDoctrees, Epub3Builder):
    """EPUB 3 whose table of contents groups chapters under their toctree caption (the tier)."""

    name = "epub"

    def init(self) -> None:
        """For the quick-review edition, a private config whose root and names are the edition's."""
        if self.config.studyguide_edition == QUICK:
            own = object.__new__(type(self.config))  # Sphinx keeps values per instance: the shared one is untouched
            own.__dict__.update(self.config.__dict__)  # (copy.copy would go through __getstate__ and drop some)
            words = state.of(self.env).config.locale  # type: ignore[union-attr]
            own.root_doc = editions.QUICK.root_doc
            own.epub_basename = f"{self.config.epub_basename}{editions.QUICK.suffix}"
            own.epub_title = words.t(editions.QUICK.title, title=self.config.epub_title)
            own.epub_uid = own.epub_identifier = f"{self.config.epub_uid}-{QUICK}"
            self.config = own
        super().init()
        if self.quick:
            self.use_index = False  # the general index points into the full book

    @property
    def quick(self) -> bool:
        """True when this builder writes the quick-review edition."""
        return self.config.studyguide_edition == QUICK

    def _wanted(self, docname: str) -> bool:
        return docname.startswith(f"{QUICK_DIR}/") if self.quick else not docname.startswith(WEB_ONLY)

    def prepare_writing(self, docnames: AbstractSet[str]) -> None:
        """Every XHTML page declares the book's language; the navigation and guide titles are in it too."""
        super().prepare_writing(docnames)
        words = state.of(self.env).config.locale  # type: ignore[union-attr]
        lang = words.html_lang
        self.globalcontext["html_tag"] = (f'<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" '
                                          f'lang="{lang}" xml:lang="{lang}">')
        self.guide_titles = {"toc": words.t("epub.contents"), "cover": words.t("epub.cover")}

    def get_outdated_docs(self) -> Iterator[str]:  # type: ignore[override]
        """Only the pages of this edition."""
        return (d for d in super().get_outdated_docs() if self._wanted(d))

    def write_documents(self, docnames: AbstractSet[str]) -> None:
        """Skip the pages of other editions (topic indexes, cheat sheets, self-test, quick review) and their images."""
        super().write_documents({d for d in docnames if self._wanted(d)})

    def handle_finish(self) -> None:
        """Drop website-only pages left by earlier builds, then package the EPUB."""
        for folder in WEB_ONLY:
            if not (self.quick and folder == f"{QUICK_DIR}/"):
                shutil.rmtree(self.outdir / folder, ignore_errors=True)
        super().handle_finish()

    def build_content(self) -> None:
        """Package only the files the pages use: of ``_static``, the e-reader stylesheets and the cover;
        no formula files when formulas are embedded in the pages (imgmath deletes them only after packaging)."""
        static = self.outdir / "_static"
        keep = {*EPUB_CSS, Path(self.config.epub_cover[0]).name if self.config.epub_cover else ""}
        unused = [f"_static/{p.name}" for p in sorted(static.iterdir()) if p.is_file() and p.name not in keep]
        if getattr(self.config, "imgmath_embed", False):
            unused += [p.relative_to(self.outdir).as_posix() for p in sorted((self.outdir / self.imagedir / "math").glob("*"))]
        self.config.epub_exclude_files = [*self.config.epub_exclude_files, *unused]
        super().build_content()
        self._add_accessibility_metadata()

    def build_navigation_doc(self) -> None:
        """The navigation document, its toc landmark carrying the ARIA role that matches its epub:type."""
        super().build_navigation_doc()
        nav = self.outdir / "nav.xhtml"
        text = nav.read_text(encoding="utf-8")
        if 'role="doc-toc"' not in text:
            nav.write_text(text.replace('<nav epub:type="toc">', '<nav epub:type="toc" role="doc-toc">', 1), encoding="utf-8")

    def _add_accessibility_metadata(self) -> None:
        """The EPUB Accessibility 1.1 metadata (schema.org) in the package document, with the book's summary."""
        opf = self.outdir / "content.opf"
        text = opf.read_text(encoding="utf-8")
        if "schema:accessMode" in text:
            return
        summary = html.escape(state.of(self.env).config.locale.t("epub.accessibility"))  # type: ignore[union-attr]
        metas = [("schema:accessMode", "textual"), ("schema:accessMode", "visual"), ("schema:accessModeSufficient", "textual"),
                 ("schema:accessibilityFeature", "structuralNavigation"), ("schema:accessibilityFeature", "tableOfContents"),
                 ("schema:accessibilityFeature", "readingOrder"), ("schema:accessibilityFeature", "alternativeText"),
                 ("schema:accessibilityFeature", "index"), ("schema:accessibilityHazard", "none"), ("schema:accessibilitySummary", summary)]
        block = "".join(f'    <meta property="{p}">{v}</meta>\n' for p, v in metas)
        opf.write_text(text.replace("  </metadata>", block + "  </metadata>", 1), encoding="utf-8")

    def get_refnodes(self, doctree: nodes.Node, result: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Like Sphinx's, but a captioned toctree becomes one level-1 entry holding its pages."""
        if isinstance(doctree, addnodes.compact_paragraph) and doctree.get("toctree"):
            caption = doctree[0] if len(doctree) and isinstance(doctree[0], nodes.title) else None
            inner = super().get_refnodes(doctree, [])
            if caption is None or not inner:
                return result + inner
            for item in inner:
                item["level"] += 1
            head = {"level": 1, "refuri": inner[0]["refuri"], "text": caption.astext()}
            inner[0]["refuri"] = self._top_anchor(inner[0]["refuri"])  # distinct from the head, still in order
            return result + [head, *inner]
        return super().get_refnodes(doctree, result)

    def _top_anchor(self, refuri: str) -> str:
        """``page.xhtml#<id of its title>``: the same place as ``page.xhtml``, as a distinct link."""
        docname = refuri.split("#")[0].removesuffix(self.out_suffix)
        section = next(iter(self.env.get_doctree(docname).findall(nodes.section)), None)
        return f"{refuri.split('#')[0]}#{section['ids'][0]}" if section is not None and section["ids"] else refuri


def clean_page(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """For EPUB pages, keep only the e-reader stylesheets and drop inline SVG icons."""
    if app.builder.name != "epub":
        return
    context["css_files"] = [
        css for css in context.get("css_files", [])
        if Path(getattr(css, "filename", str(css))).name in EPUB_CSS
    ]
    if "body" in context:
        context["body"] = _SVG_RE.sub("", context["body"])
        # a toctree caption is a heading for assistive technology: it needs its level (the site's theme adds it)
        context["body"] = context["body"].replace('<p class="caption" role="heading">', '<p aria-level="2" class="caption" role="heading">')


def setup(app: Sphinx) -> None:
    """Register the EPUB builder, theme, transforms and page hook."""
    app.add_config_value("studyguide_edition", "", "", types=frozenset({str}))  # not "env": one read serves both
    app.add_builder(TieredEpubBuilder, override=True)
    app.add_html_theme(THEME, str(THEME_DIR))
    app.add_post_transform(UnfoldForEpub)
    app.add_post_transform(LabelOutputs)
    app.connect("html-page-context", clean_page)
