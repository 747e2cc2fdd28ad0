"""A shard's archive (a tar of the stored notebooks it executed), and merging archives into the store."""

from __future__ import annotations

import io
import json
import os
import tarfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import nbformat

from . import notebook
from .book import Book
from .errors import ExecutionError

MANIFEST = "manifest.json"
FORMAT = "studyguide-shard-1"


def pack(store_dir: Path, ids: Sequence[str], out: Path, shard: str) -> Path:
    """Write ``out``: ``manifest.json`` and ``_executed/<id>.ipynb`` for ``ids``; reproducible bytes (sorted, mtime 0)."""
    manifest = {"format": FORMAT, "shard": shard, "pages": sorted(ids)}
    members = [(MANIFEST, (json.dumps(manifest, indent=1) + "\n").encode())]
    members += [(f"{notebook.STORE_DIR}/{i}.ipynb", (store_dir / f"{i}.ipynb").read_bytes()) for i in sorted(ids)]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    os.replace(tmp, out)
    return out


def read(path: Path) -> dict[str, str]:
    """The stored notebooks in an archive, keyed by question id; raise on anything else in it."""
    try:
        with tarfile.open(path, "r") as tar:
            files = {m.name: tar.extractfile(m) for m in tar.getmembers() if m.isfile()}
            data = {name: f.read() for name, f in files.items() if f is not None}
    except (OSError, tarfile.TarError) as exc:
        raise ExecutionError(f"{path}: not a shard archive: {exc} (make one with `studyguide execute --shard I/N --archive FILE`)") from None
    try:
        manifest = json.loads(data.pop(MANIFEST, b"{}"))
    except ValueError:
        manifest = {}
    if manifest.get("format") != FORMAT:
        raise ExecutionError(f"{path}: {MANIFEST}: missing or not {FORMAT} (make it with `studyguide execute --shard I/N --archive FILE`)")
    out = {}
    for name, raw in sorted(data.items()):
        member = PurePosixPath(name)
        if member.parent != PurePosixPath(notebook.STORE_DIR) or member.suffix != ".ipynb":
            raise ExecutionError(f"{path}: {name}: unexpected member (an archive holds {MANIFEST} and {notebook.STORE_DIR}/<id>.ipynb only)")
        out[member.stem] = raw.decode("utf-8")
    if sorted(out) != sorted(manifest.get("pages", [])):
        raise ExecutionError(f"{path}: {MANIFEST}: pages do not match the notebooks in the archive (the archive is damaged; make it again)")
    return out


@dataclass
class MergeReport:
    """What ``merge`` imported."""

    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)


def _cells(nb: nbformat.NotebookNode) -> str:
    """A notebook's code and outputs, without provenance (date, seconds, threads): what two runs must agree on."""
    return json.dumps([nb.metadata.get("kernelspec"), nb.cells], sort_keys=True)


def merge(book: Book, book_dir: Path, archives: Sequence[Path], prefix: str = "book") -> MergeReport:
    """Import the archives' notebooks into the store; all checks pass before anything is written.

    A page found in two archives with different code or outputs is a conflict; so is a page the book
    lacks, or outputs for code that is not the page's current code (the shard ran another commit).
    """
    pages = {q.id: q for q in book.questions}
    chosen: dict[str, tuple[Path, str, nbformat.NotebookNode]] = {}
    for path in archives:
        for qid, text in read(path).items():
            shown = f"{prefix}/{pages[qid].path}" if qid in pages else f"{prefix}/{notebook.STORE_DIR}/{qid}.ipynb"
            try:
                nb = nbformat.reads(text, as_version=4)
                nbformat.validate(nb)
            except Exception as exc:  # nbformat raises several unrelated types
                raise ExecutionError(f"{shown}: {path.name} holds an invalid notebook: {str(exc).splitlines()[0]}; nothing was imported") from None
            if qid not in pages:
                raise ExecutionError(f"{shown}: {path.name} holds outputs for a page the book lacks; nothing was imported (merge archives made from this commit)")
            if qid in chosen:
                first, _, other = chosen[qid]
                if _cells(other) != _cells(nb):
                    what = "code" if notebook.cache_key(other) != notebook.cache_key(nb) else "outputs"
                    raise ExecutionError(f"{shown}: merge conflict: {first.name} and {path.name} hold different {what} for this page; nothing was imported")
                continue
            chosen[qid] = (path, text, nb)
    for qid, (path, _, nb) in chosen.items():
        if notebook.cache_key(nb) != notebook.cache_key(notebook.read_page(book_dir / pages[qid].path)):
            raise ExecutionError(f"{prefix}/{pages[qid].path}: {path.name} holds outputs for other code than the page's; nothing was imported (run the shards on this commit)")
    report = MergeReport()
    store_dir = book_dir / notebook.STORE_DIR
    store_dir.mkdir(parents=True, exist_ok=True)
    staged = []
    for qid, (_, text, _) in sorted(chosen.items()):
        target = store_dir / f"{qid}.ipynb"
        if target.is_file() and target.read_text(encoding="utf-8") == text:
            report.unchanged.append(qid)
            continue
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        staged.append((tmp, target))
        report.written.append(qid)
    for tmp, target in staged:  # every file is staged before the first one replaces a stored notebook
        os.replace(tmp, target)
    return report
