"""The second line behind ``studyguide check``: a page read by Sphinx may not pull in a file from outside the
book, nor (unless the book allows it) carry raw LaTeX or HTML that runs script. Generated pages may use raw LaTeX.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

from .. import book as book_mod
from .. import safety
from . import state


def _inside(root: Path, path: Path, outputs: Path | None = None) -> bool:
    full = path.resolve()
    return full.is_relative_to(root) or (outputs is not None and full.is_relative_to(outputs))


def _files(app: Sphinx, doctree: nodes.document, docname: str) -> list[str]:
    """Files the page read or will publish that lie outside the book folder (myst-nb's own output images aside)."""
    env = app.env
    root = Path(app.srcdir).resolve()
    outputs = Path(env.mystnb_config.output_folder).resolve()  # type: ignore[attr-defined]  # myst-nb: images of cell outputs
    bad = [str(dep) for dep in sorted(env.dependencies.get(docname, ())) if not _inside(root, root / dep, outputs)]
    for image in doctree.findall(nodes.image):
        uris = [*image.get("candidates", {}).values()] or [image.get("uri", "")]
        bad += [u for u in uris if u and safety.is_local(u) and not _inside(root, root / u, outputs)]
    for ref in doctree.findall(addnodes.download_reference):
        target = ref.get("reftarget", "")
        if target and safety.is_local(target) and not _inside(root, Path(env.relfn2path(target, docname)[1])):
            bad.append(target)
    page_dir = Path(env.doc2path(docname)).parent
    for cell in doctree.findall(nodes.container):
        load = (cell.get("cell_metadata") or {}).get("load")
        if isinstance(load, str) and not _inside(root, page_dir / load):
            bad.append(load)
    return bad


def _raw(doctree: nodes.document, allow: safety.Allow) -> str:
    """Why a raw node an author wrote is refused, or '' (the extension marks its own raw nodes ``studyguide``)."""
    for raw in doctree.findall(nodes.raw):
        if raw.get("studyguide"):
            continue  # the extension's own markup (e.g. the self-test back link)
        formats = set(raw.get("format", "").lower().split())
        if formats & safety.RAW_LATEX_FORMATS and not allow.raw_latex:
            return "raw LaTeX, which can read files of the build machine"
        if "html" in formats and not allow.raw_html and safety.unsafe_html(raw.astext()):
            return f"HTML that runs script ({safety.unsafe_html(raw.astext())!r})"
    return ""


def check_doctree(app: Sphinx, doctree: nodes.document) -> None:
    """Stop the build when a page reads a file from outside the book or an author's page carries unsafe raw content."""
    docname = app.env.docname
    source = Path(app.env.doc2path(docname))
    where = f"{Path(app.srcdir).name}/{source.relative_to(Path(app.srcdir)).as_posix()}"
    bad = _files(app, doctree, docname)
    if bad:
        raise ExtensionError(f"{where}: reads {bad[0]!r} from outside the book folder; file insertion is limited to the book (run `studyguide check`)")
    generated = source.is_file() and book_mod.is_generated(source.read_text(encoding="utf-8"))
    st = state.of(app.env)
    allow = st.config.rules.allow if st is not None else safety.Allow()
    reason = "" if generated else _raw(doctree, allow)
    if reason:
        raise ExtensionError(f"{where}: holds {reason}; the book does not allow it in pages authors write (run `studyguide check`)")


def setup(app: Sphinx) -> None:
    """Check every page once it is read, after Sphinx's own collectors (priority 900)."""
    app.connect("doctree-read", check_doctree, priority=900)

