"""EPUB: print folded content plainly and keep only markup that epubcheck accepts."""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

# Stylesheets that use CSS epubcheck rejects (empty custom properties, :has(), :is()).
EPUB_EXCLUDED_CSS = ("mystnb", "sphinx-design", "sphinx_design", "copybutton")
_SVG_RE = re.compile(r"<svg\b.*?</svg>", re.S)


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


def exclude_css(app: Sphinx) -> None:
    """Keep rejected stylesheets out of the EPUB package, even when an earlier build left them in _static."""
    if app.builder.name != "epub":
        return
    for filename, _attrs in app.registry.css_files:
        if any(bad in filename for bad in EPUB_EXCLUDED_CSS):
            app.config.epub_exclude_files = [*app.config.epub_exclude_files, f"_static/{filename}"]


def clean_page(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """For EPUB pages, drop rejected stylesheets and inline SVG icons."""
    if app.builder.name != "epub":
        return
    context["css_files"] = [
        css for css in context.get("css_files", [])
        if not any(bad in getattr(css, "filename", str(css)) for bad in EPUB_EXCLUDED_CSS)
    ]
    if "body" in context:
        context["body"] = _SVG_RE.sub("", context["body"])


def setup(app: Sphinx) -> None:
    """Register the EPUB transform and page hook."""
    app.add_post_transform(UnfoldForEpub)
    app.connect("builder-inited", exclude_css)
    app.connect("html-page-context", clean_page)
