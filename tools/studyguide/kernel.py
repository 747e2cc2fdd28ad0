"""Run one page's code cells in a fresh Jupyter kernel and record where it ran (no Sphinx needed)."""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

PROVENANCE_MARK = "__studyguide_provenance__="
PROVENANCE_CODE = '''
def _studyguide_provenance(packages):
    import datetime, importlib, importlib.metadata, json, platform
    info = {"python": platform.python_version(),
            "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat()}
    for name in packages:
        try:
            info[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            info[name] = "?"
    torch = importlib.import_module("torch") if "torch" in packages else None  # the GPU is seen through torch
    if torch is not None:
        info["torch"] = torch.__version__
        info["cuda"] = torch.version.cuda
        info["threads"] = torch.get_num_threads()
    if torch is not None and torch.cuda.is_available():
        info["device_type"] = "cuda"
        info["device"] = torch.cuda.get_device_name(0)
    else:
        name = platform.processor() or platform.machine()
        try:
            with open("/proc/cpuinfo") as f:
                name = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
        except (OSError, StopIteration):
            pass
        info["device_type"] = "cpu"
        info["device"] = name
    print("MARK" + json.dumps(info))
_studyguide_provenance(PACKAGES)
del _studyguide_provenance
'''.replace("MARK", PROVENANCE_MARK)


def provenance_code(packages: tuple[str, ...]) -> str:
    """The probe that a kernel runs after a page: it prints the provenance record (no package is imported but torch)."""
    return PROVENANCE_CODE.replace("PACKAGES", repr(tuple(packages)))


# Applied to every kernel through its IPython profile, so pages need no boilerplate.
KERNEL_CONFIG = """
c.InteractiveShell.xmode = "Minimal"
c.InlineBackend.figure_formats = {"png"}
c.InlineBackend.rc = {"figure.dpi": 110, "savefig.dpi": 110, "figure.figsize": (6.4, 3.6),
                      "font.family": ["Noto Sans CJK SC", "DejaVu Sans"], "axes.unicode_minus": False}
"""


@dataclass
class PageRun:
    """The outcome of executing one page."""

    page: str  # path shown to the user, e.g. book/1-basics/tensor/x.md
    ok: bool = False
    nb: Any = None
    provenance: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    attempts: int = 0
    error: str = ""  # one line: page:line: cell N: ExcName: message (hint)
    infra: bool = False  # the kernel failed, not the page's code


def prepare_ipython_dir(path: Path) -> Path:
    """Write the kernel profile that sets the inline figure format; return the IPython dir."""
    profile = path / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    config = profile / "ipython_kernel_config.py"
    if not config.is_file() or config.read_text() != KERNEL_CONFIG:
        config.write_text(KERNEL_CONFIG)
    return path


def warm_font_cache() -> None:
    """Build matplotlib's font cache before any kernel starts: on a fresh machine the first page that
    plots would otherwise store "Matplotlib is building the font cache" among its outputs."""
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], capture_output=True, check=False)


def _first_line(text: object) -> str:
    lines = [s for s in str(text).strip().splitlines() if s.strip()]
    return lines[0].strip() if lines else ""


RAISES_HINT = "tag the cell ':tags: [raises-exception]' if the error is intended"
ALONE_HINT = "the cheat sheet prints this cell alone: give it its own imports and no names from earlier cells"


ASSERT_HINT = "a claim the page asserts no longer holds: compare the output with the claim, then fix the code or the prose"
LINE_PROBE = """
import sys as _s, traceback as _t
_f = [f for f in _t.extract_tb(getattr(_s, "last_traceback", None)) if "ipykernel_" in f.filename or f.filename.startswith("<")]
print([f.lineno for f in _f if f.filename == _f[0].filename][-1] if _f else 1)
del _s, _t, _f
"""


def _raising_line(client: Any) -> int:
    """Line, within the cell that just failed, of the statement that raised (1 when unknown)."""
    probe = nbformat.v4.new_code_cell(LINE_PROBE)
    try:
        client.execute_cell(probe, 0)
    except Exception:  # the probe is best effort: the error itself is what matters
        return 1
    text = "".join(o.get("text", "") for o in probe.outputs if o.get("output_type") == "stream").strip()
    return int(text) if text.isdigit() else 1


_CONTROL = dict.fromkeys([*range(0, 9), 11, 12, *range(14, 27), *range(28, 32), 127])  # C0 but \t \n \r and ESC (colours)


def clean_outputs(cells: list[Any]) -> None:
    """Drop control characters from printed outputs: no format can print them (XeTeX stops on them)."""
    for cell in cells:
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = output["text"].translate(_CONTROL)
            if "text/plain" in output.get("data", {}):
                output["data"]["text/plain"] = output["data"]["text/plain"].translate(_CONTROL)


def output_lines(cell: Any) -> int:
    """Lines a cell's printed outputs take (streams, text results and tracebacks)."""
    n = 0
    for output in cell.get("outputs", []):
        text = output.get("text") or output.get("data", {}).get("text/plain") or "\n".join(output.get("traceback", []))
        n += len(str(text).splitlines())
    return n


def _run_once(nb: nbformat.NotebookNode, page: str, lines: list[int], timeout: int, ipython_dir: Path,
              threads: int = 0, what: str = "", hint: str = RAISES_HINT, packages: tuple[str, ...] = (), max_lines: int = 0) -> PageRun:
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient
    from nbclient.exceptions import (
        CellExecutionError,
        CellTimeoutError,
        DeadKernelError,
    )

    run = PageRun(page)
    env = dict(os.environ, IPYTHONDIR=str(ipython_dir), MPLBACKEND="module://matplotlib_inline.backend_inline", PYDEVD_DISABLE_FILE_VALIDATION="1")
    if threads:
        env.update(OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    cells = [c for c in nb.cells if c.cell_type == "code"]
    probe = nbformat.v4.new_code_cell(provenance_code(packages))
    work = nbformat.v4.new_notebook(cells=cells + [probe], metadata=nb.metadata)
    with tempfile.TemporaryDirectory(prefix="studyguide-") as cwd:
        # IPC sockets instead of TCP ports: parallel kernels cannot race for a port.
        km = AsyncKernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(cwd, "kernel"))
        client = NotebookClient(work, km=km, timeout=timeout, allow_errors=False, record_timing=False, coalesce_streams=True, resources={"metadata": {"path": cwd}})
        start = time.monotonic()
        try:
            with client.setup_kernel(env=env, cleanup_kc=True):
                assert client.kc is not None  # set by setup_kernel
                info = client.wait_for_reply(client.kc.kernel_info()) or {}
                work.metadata["language_info"] = info["content"]["language_info"]
                for index, cell in enumerate(work.cells):
                    where = f"{page}:{lines[index]}: {what or f'cell {index + 1}'}" if index < len(cells) else f"{page}: provenance probe"
                    try:
                        client.execute_cell(cell, index)
                    except CellTimeoutError:
                        run.error = f"{where}: timed out after {timeout} s (speed the cell up, or raise cell_timeout in [tool.studyguide])"
                        return run
                    except CellExecutionError as exc:
                        if index < len(cells):
                            where = f"{page}:{lines[index] + _raising_line(client) - 1}: {what or f'cell {index + 1}'}"
                        why = ASSERT_HINT if exc.ename == "AssertionError" and hint == RAISES_HINT else hint
                        run.error = f"{where}: {exc.ename}: {_first_line(exc.evalue) or '(no message)'} ({why})"
                        return run
                    except DeadKernelError:  # the page's own code ended the kernel: not retried
                        run.error = f"{where}: the kernel died while running this cell (os._exit, a crash in native code, or out of memory)"
                        return run
        except DeadKernelError as exc:
            run.error, run.infra = f"{page}: kernel died: {_first_line(exc)}", True
            return run
        except (RuntimeError, TimeoutError, OSError) as exc:
            run.error, run.infra = f"{page}: kernel failed to start: {type(exc).__name__}: {_first_line(exc)}", True
            return run
        run.seconds = round(time.monotonic() - start, 2)
    text = "".join(o.get("text", "") for o in probe.outputs if o.get("output_type") == "stream")
    payload = next((s for s in text.splitlines() if s.startswith(PROVENANCE_MARK)), None)
    if payload is None:
        run.error = f"{page}: provenance probe printed nothing"
        return run
    run.provenance = json.loads(payload[len(PROVENANCE_MARK):])
    clean_outputs(cells)
    for index, cell in enumerate(cells):
        if max_lines and output_lines(cell) > max_lines:
            run.error = (f"{page}:{lines[index]}: {what or f'cell {index + 1}'}: prints {output_lines(cell)} lines, more than max_output_lines = {max_lines} "
                         "(print a summary, or raise max_output_lines in [tool.studyguide])")
            return run
    work.cells = cells
    run.nb, run.ok = work, True
    return run


def run_page(path: Path, page: str, timeout: int, retries: int, ipython_dir: Path, threads: int = 0,
             snippet_only: bool = False, packages: tuple[str, ...] = (), max_lines: int = 0) -> PageRun:
    """Execute the page at ``path`` (or only its cheat-sheet cell, alone); retry only when the kernel failed."""
    from .cells import CHEATSHEET_TAG, from_notebook
    from .notebook import parse_page

    text = path.read_text(encoding="utf-8")
    nb = parse_page(text, str(path))
    # (first code line in the page, cell): one read of the page gives both
    found = list(zip([c.line for c in from_notebook(nb, text)], [c for c in nb.cells if c.cell_type == "code"], strict=True))
    what, hint = "", RAISES_HINT
    if snippet_only:
        found = [(line, cell) for line, cell in found if CHEATSHEET_TAG in cell.metadata.get("tags", ())][:1]
        what, hint = "cheat-sheet cell run alone in a fresh kernel", ALONE_HINT
        nb = nbformat.v4.new_notebook(cells=[cell for _, cell in found], metadata=nb.metadata)
    lines = [line for line, _ in found]
    run = PageRun(page)
    for attempt in range(1, retries + 2):
        run = _run_once(nb, page, lines, timeout, ipython_dir, threads, what, hint, packages, max_lines)
        run.attempts = attempt
        if run.ok or not run.infra:
            break
    return run
