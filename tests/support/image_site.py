"""A small web site on 127.0.0.1, served by a thread of the test, for image items given as URLs:
pictures, an HTML page where a picture was expected, HTML claiming to be a PNG, a bomb's
header, redirects to file: and ftp:, a page that answers only when released, and 404s."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from support.image_files import bomb_png, png_bytes

HTML = b"<!doctype html><html><body><h1>Sign in</h1></body></html>"


@dataclass
class ImageSite:
    """The site's base URL, the requests it answered per path, and the event that releases
    the ``/slow.png`` page."""

    url: str
    pictures: dict[str, np.ndarray]
    hits: dict[str, int] = field(default_factory=dict)
    release: threading.Event = field(default_factory=threading.Event)


def _handler(site: ImageSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the name http.server calls
            path = self.path.split("?", 1)[0]
            site.hits[path] = site.hits.get(path, 0) + 1
            if path in site.pictures:
                self._send(200, "image/png", png_bytes(site.pictures[path]))
            elif path == "/login.png":  # a sign-in page where a picture was expected
                self._send(200, "text/html; charset=utf-8", HTML)
            elif path == "/disguised.png":  # HTML that claims to be a PNG
                self._send(200, "image/png", HTML)
            elif path == "/bomb.png":
                self._send(200, "image/png", bomb_png(8_000, 8_000))
            elif path == "/large.png":
                self._send(200, "image/png", png_bytes(np.arange(65536).reshape(256, 256) % 251))
            elif path in ("/to-file", "/to-ftp"):
                self.send_response(302)
                target = "file:///etc/passwd" if path == "/to-file" else "ftp://127.0.0.1/a.png"
                self.send_header("Location", target)
                self.end_headers()
            elif path == "/slow.png":
                site.release.wait(30)
                self._send(200, "image/png", png_bytes(np.zeros((4, 4))))
            else:
                self._send(404, "text/plain", b"not found")

        def _send(self, status: int, kind: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (a time-out)
                pass

        def log_message(self, *args):  # quiet
            pass

    return Handler


@contextmanager
def image_site(pictures: dict[str, np.ndarray]) -> Iterator[ImageSite]:
    """Serve ``pictures`` (path → uint8 array, as PNG) and the special pages above on a free
    port of 127.0.0.1 until the block ends."""
    site = ImageSite(url="", pictures=pictures)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(site))
    httpd.daemon_threads = True
    site.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield site
    finally:
        site.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join()
