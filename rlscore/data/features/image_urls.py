"""Image items given as http(s) URLs: allowed only by whoever starts the server, fetched with a
time limit and a byte cap, cached in memory.

By default an image cell must be a file under the image root
(:mod:`~rlscore.data.features.images`). With ``RLSCORE_ALLOW_IMAGE_URLS=1`` in the server's
environment, a cell may instead be an ``http://`` or ``https://`` URL: the server then fetches
whatever address an uploader writes (including addresses only the server can reach), so allow
it only for trusted uploaders. A fetch is refused, with the reason, when it takes longer than
``timeout`` seconds in all, sends more than ``max_bytes`` bytes, answers with an HTTP error or
with text (an HTML page), or redirects to a scheme other than http(s). The bytes are then
decoded by :func:`rlscore.data.features.images.decode_image` with the same pixel cap as files.

Fetched bytes are kept in a process-wide cache of at most :data:`CACHE_BYTES` bytes (least
recently used evicted first), so the Data page's preview, the features and every later view of
an item fetch it once; a refusal is remembered for :data:`FAILURE_SECONDS` seconds so a dead
host does not cost a time-out on every page run. A URL is shown in messages without its
user-info and query (they may hold credentials) by :func:`shown_url`.
"""

from __future__ import annotations

import os
import re
import threading
import time
import urllib.error
import urllib.request
from collections import OrderedDict
from urllib.parse import urlsplit

#: environment variable that lets image cells be http(s) URLs (``1``, ``true`` or ``yes``)
ALLOW_URLS_ENV = "RLSCORE_ALLOW_IMAGE_URLS"
#: seconds one fetch may take in all (connection, answer and body)
URL_TIMEOUT = 10.0
#: largest image (bytes) fetched from a URL
MAX_URL_BYTES = 20 * 2**20
#: total bytes the cache of fetched images keeps
CACHE_BYTES = 256 * 2**20
#: seconds a refused URL is answered from memory before it is fetched again
FAILURE_SECONDS = 60.0
_CHUNK = 64 * 1024
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_WEB_SCHEMES = ("http", "https")


class URLRefused(ValueError):
    """A URL could not be used as an image; the message says why (without the URL)."""


def is_url(text: str) -> bool:
    """Whether a cell is written as a URL (``scheme://…``), whatever its scheme."""
    return bool(_URL.match(text.strip()))


def image_urls_allowed(environ: dict | None = None) -> bool:
    """Whether the server was started with ``RLSCORE_ALLOW_IMAGE_URLS`` set to 1/true/yes."""
    value = (os.environ if environ is None else environ).get(ALLOW_URLS_ENV, "")
    return value.strip().lower() in ("1", "true", "yes")


def shown_url(url: str, limit: int = 80) -> str:
    """``url`` as it may be shown in a message: scheme, host, port and path only (no user,
    password, query or fragment), cut to ``limit`` characters."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # an unparsable port or bracket: show only the scheme
        return url.strip().split("://", 1)[0] + "://…"
    text = f"{parts.scheme}://{host}{port}{parts.path}"
    if parts.query or parts.fragment:
        text += "?…"
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _WebOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects only to http(s) (urllib would also follow one to ftp)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if urlsplit(newurl).scheme.lower() not in _WEB_SCHEMES:
            raise URLRefused("it redirects to a URL that is not http or https")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_WebOnlyRedirects)


def _fetch(url: str, timeout: float, max_bytes: int) -> bytes:
    if urlsplit(url).scheme.lower() not in _WEB_SCHEMES:
        raise URLRefused("only http and https URLs are fetched")
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(url, headers={"Accept": "image/*"})
    try:
        with _OPENER.open(request, timeout=timeout) as answer:
            kind = answer.headers.get_content_type()
            if kind.startswith("text/") or "html" in kind or "json" in kind:
                raise URLRefused(f"the server answered with {kind}, not an image")
            length = answer.headers.get("Content-Length")
            if length is not None and length.isdigit() and int(length) > max_bytes:
                raise URLRefused(f"the image has {int(length):,} bytes, more than {max_bytes:,}")
            chunks, size = [], 0
            while chunk := answer.read(_CHUNK):
                size += len(chunk)
                if size > max_bytes:
                    raise URLRefused(f"the image has more than {max_bytes:,} bytes")
                if time.monotonic() > deadline:
                    raise URLRefused(f"the download took longer than {timeout:g} s")
                chunks.append(chunk)
    except URLRefused:
        raise
    except urllib.error.HTTPError as exc:
        if 300 <= exc.code < 400:  # urllib refused the redirect (to file:, or in a loop)
            raise URLRefused(
                f"it redirects (HTTP {exc.code}) to a URL that is not http or https, or in a loop"
            ) from None
        raise URLRefused(f"the server answered HTTP {exc.code}") from None
    except urllib.error.URLError as exc:
        raise URLRefused(f"it could not be fetched ({exc.reason})") from None
    except TimeoutError:
        raise URLRefused(f"no answer within {timeout:g} s") from None
    except (OSError, ValueError) as exc:  # connection reset, malformed URL or answer
        raise URLRefused(f"it could not be fetched ({type(exc).__name__})") from None
    return b"".join(chunks)


class _Cache:
    """Fetched bytes by URL (least recently used evicted beyond ``limit`` bytes) and recent
    refusals by (URL, time limit, byte cap) (expired after :data:`FAILURE_SECONDS`)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.data: OrderedDict[str, bytes] = OrderedDict()
        self.failed: dict[tuple, tuple[float, str]] = {}
        self.size = 0
        self.lock = threading.Lock()

    def get(self, url: str, key: tuple) -> bytes | str | None:
        with self.lock:
            if url in self.data:
                self.data.move_to_end(url)
                return self.data[url]
            failure = self.failed.get(key)
            if failure is not None and time.monotonic() - failure[0] < FAILURE_SECONDS:
                return failure[1]
            return None

    def put(self, url: str, key: tuple, value: bytes | str) -> None:
        with self.lock:
            if isinstance(value, str):
                self.failed[key] = (time.monotonic(), value)
                return
            self.failed.pop(key, None)
            if len(value) > self.limit or url in self.data:
                return
            self.data[url] = value
            self.size += len(value)
            while self.size > self.limit:
                _, old = self.data.popitem(last=False)
                self.size -= len(old)

    def clear(self) -> None:
        with self.lock:
            self.data.clear()
            self.failed.clear()
            self.size = 0


_CACHE = _Cache(CACHE_BYTES)


def fetch_image_bytes(
    url: str, *, timeout: float = URL_TIMEOUT, max_bytes: int = MAX_URL_BYTES
) -> bytes:
    """The bytes at an http(s) ``url`` (from the cache when fetched before).

    Raises
    ------
    URLRefused
        Not http(s), too slow, too large, an HTTP error, a text answer, or a redirect to
        another scheme; the message says which (it does not repeat the URL).
    """
    url = url.strip()
    key = (url, float(timeout), int(max_bytes))
    cached = _CACHE.get(url, key)
    if isinstance(cached, str):
        raise URLRefused(cached)
    if cached is not None:
        if len(cached) > max_bytes:  # fetched before under a larger cap
            raise URLRefused(f"the image has {len(cached):,} bytes, more than {max_bytes:,}")
        return cached
    try:
        data = _fetch(url, timeout, max_bytes)
    except URLRefused as exc:
        _CACHE.put(url, key, str(exc))
        raise
    _CACHE.put(url, key, data)
    return data


def clear_url_cache() -> None:
    """Forget every fetched image and remembered refusal."""
    _CACHE.clear()


__all__ = [
    "ALLOW_URLS_ENV",
    "CACHE_BYTES",
    "FAILURE_SECONDS",
    "MAX_URL_BYTES",
    "URLRefused",
    "URL_TIMEOUT",
    "clear_url_cache",
    "fetch_image_bytes",
    "image_urls_allowed",
    "is_url",
    "shown_url",
]
