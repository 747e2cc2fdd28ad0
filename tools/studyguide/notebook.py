"""Pages as notebooks: read with myst-nb's reader, key them like jupyter-cache, keep outputs in a store."""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

from .errors import ExecutionError
from .safety import unsafe_outputs

# The MyST syntax extensions of the book; conf.py uses the same list, so cells read identically.
MYST_EXTENSIONS = ("colon_fence", "dollarmath", "deflist")
STORE_DIR = "_executed"
META_KEY = "studyguide"


def parse_page(text: str, path: str = "") -> nbformat.NotebookNode:
    """Parse a MyST page's text into a notebook exactly as myst-nb does in the Sphinx build."""
    from myst_nb.core.read import read_myst_markdown_notebook
    from myst_parser.config.main import MdParserConfig

    config = MdParserConfig(enable_extensions=set(MYST_EXTENSIONS))
    return read_myst_markdown_notebook(text, config=config, add_source_map=True, path=path or None)


def read_page(path: Path) -> nbformat.NotebookNode:
    """Read a MyST page into a notebook exactly as myst-nb does in the Sphinx build."""
    return parse_page(path.read_text(encoding="utf-8"), str(path))


def cache_key(nb: nbformat.NotebookNode) -> str:
    """The key jupyter-cache gives a notebook: md5 over kernelspec and code cells."""
    from jupyter_cache.cache.main import JupyterCacheBase

    return JupyterCacheBase.create_hashed_notebook(None, nb)[1]  # type: ignore[arg-type]


def to_store(nb: nbformat.NotebookNode, page: str, provenance: dict[str, Any]) -> str:
    """The reviewable text kept in the repo: code cells with outputs, and provenance."""
    cells = []
    for i, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
        cell = copy.deepcopy(cell)
        cell.id = f"cell-{i + 1}"
        cell.metadata.pop("execution", None)
        cells.append(cell)
    meta = {key: nb.metadata[key] for key in ("kernelspec", "language_info") if key in nb.metadata}
    meta[META_KEY] = {"page": page, **provenance}
    out = nbformat.v4.new_notebook(cells=cells, metadata=meta)
    out.nbformat_minor = 5
    return nbformat.writes(out) + "\n"


def provenance_of(stored: nbformat.NotebookNode) -> dict[str, Any]:
    """Provenance recorded in a stored notebook (device, torch, cuda, python, date)."""
    meta = dict(stored.metadata.get(META_KEY, {}))
    meta.pop("page", None)
    return meta


@dataclass(frozen=True)
class StoreEntry:
    """One stored notebook, with the key of the code it holds."""

    path: Path
    text: str
    key: str

    @property
    def digest(self) -> str:
        """sha256 of the stored text; the cache record remembers it to skip re-imports."""
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def provenance(self) -> dict[str, Any]:
        """Where the stored outputs were produced."""
        return provenance_of(nbformat.reads(self.text, as_version=4))


def read_store(store_dir: Path) -> dict[str, StoreEntry]:
    """All stored notebooks, keyed by question id (the file stem)."""
    entries = {}
    for path in sorted(store_dir.glob("*.ipynb")):
        text = path.read_text(encoding="utf-8")
        try:
            nb = nbformat.reads(text, as_version=4)
            nbformat.validate(nb)
        except Exception as exc:  # nbformat raises several unrelated types
            reason = str(exc).splitlines()[0]
            raise ExecutionError(f"{path}: not a valid executed notebook: {reason} (delete it and run `make execute`)") from None
        unsafe = unsafe_outputs(nb)
        if unsafe:
            cell, what = unsafe[0]
            raise ExecutionError(f"{path}: code cell {cell}: {what} would run script on the site; outputs are shown, never trusted (print plain text instead, or delete the notebook and run `make execute`)")
        entries[path.stem] = StoreEntry(path, text, cache_key(nb))
    return entries


def read_stored(book: Any, store_dir: Path) -> dict[str, nbformat.NotebookNode]:
    """The stored notebook of each question that has one, by question id (for the checks that read outputs)."""
    paths = {q.id: store_dir / f"{q.id}.ipynb" for q in book.questions}
    return {qid: nbformat.read(path, as_version=4) for qid, path in paths.items() if path.is_file()}


def import_entry(cache: Any, entry: StoreEntry) -> bool:
    """Put a stored notebook into the jupyter-cache; return False when it was already there."""
    from jupyter_cache.base import CacheBundleIn

    nb = nbformat.reads(entry.text, as_version=4)
    try:
        record = cache.match_cache_notebook(nb)
    except KeyError:
        record = None
    if record is not None and record.description == entry.digest:
        return False
    bundle = CacheBundleIn(nb, str(entry.path), data={META_KEY: provenance_of(nb)})
    cache.cache_notebook_bundle(bundle, check_validity=True, overwrite=True, description=entry.digest)
    return True


def open_cache(path: Path) -> Any:
    """Open (creating if needed) the jupyter-cache at ``path``."""
    from jupyter_cache import get_cache

    path.mkdir(parents=True, exist_ok=True)
    return get_cache(str(path))


def cached_provenance(cache: Any, key: str) -> dict[str, Any] | None:
    """Provenance of the cache record with this key; None when absent or not ours."""
    from jupyter_cache.cache.db import NbCacheRecord

    try:
        record = NbCacheRecord.record_from_hashkey(key, cache.db)
    except KeyError:
        return None
    data = record.data or {}
    return data.get(META_KEY)
