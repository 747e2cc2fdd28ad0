"""A local static server for the built site that compresses text as static hosts do (gzip, long cache for assets)."""

from __future__ import annotations

import gzip
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from .errors import BuildError

COMPRESSED = (".html", ".css", ".js", ".svg", ".json", ".txt", ".xml", ".inv")


class _Handler(SimpleHTTPRequestHandler):
    """SimpleHTTPRequestHandler plus gzip for text files and the cache headers GitHub Pages and Netlify send."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        pass

    def send_head(self):  # type: ignore[no-untyped-def]
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        gz = "gzip" in self.headers.get("Accept-Encoding", "") and path.suffix in COMPRESSED
        if not gz or not path.is_file():
            return super().send_head()
        body = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return _Body(body)


class _Body:
    """The file-like object send_head returns: copyfile reads it, then closes it."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, size: int = -1) -> bytes:
        data, self.data = self.data, b""
        return data

    def close(self) -> None:
        pass


def server(site: Path, port: int = 0, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """A server for the folder site (port 0: any free port); call serve_forever or use start()."""
    if not (site / "index.html").is_file():
        raise BuildError(f"{site}: no index.html (build the site first: studyguide build html)")
    return ThreadingHTTPServer((host, port), partial(_Handler, directory=str(site)))


def start(site: Path, port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Serve site from a background thread; return the server (call shutdown()) and its base URL."""
    httpd = server(site, port)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_port}/"
