"""Images under a project root (or, if the server allows it, at http(s) URLs): safe
resolution, checks of every cell, and downscaled grey pixels as features.

An image item is a path *relative to the project's image root*, a folder chosen by whoever
starts the server (never by the uploader). :func:`resolve_image_path` refuses every path that
could leave the root: absolute paths, ``..`` components, URLs, and symlinks whose target is
outside it (the path is resolved before the check). :func:`open_image` opens a file with
Pillow, refusing files that are not images and images with more than ``max_pixels`` pixels
(read from the header before any pixel is decoded: a decompression bomb never reaches
memory; Pillow's own guard is caught too). A cell may be an ``http(s)://`` URL only when the
server is started with ``RLSCORE_ALLOW_IMAGE_URLS=1`` (:mod:`~rlscore.data.features.
image_urls`: time limit, byte cap, cache); its bytes are decoded under the same pixel cap.
:func:`load_image` is the one entry point for a cell of either kind.

A project is made only if *every* cell of its image column can be read: :func:`check_images`
and :func:`image_pixel_features` look at all the rows and refuse the column with one message
listing the refused rows (up to :data:`MAX_LISTED`) and the reason for each, rather than
making a project that silently lacks rows.

Features. If the uploader gives an embedding column (:mod:`~rlscore.data.features.
embeddings`), those are the features. Otherwise :func:`image_pixel_features` is the documented
fallback: each image converted to grey (Pillow's ``"L"``: ITU-R 601 luma), resized to
``size`` (default 16 × 16, aspect ratio not kept) with a box filter, pixel values scaled to
[0, 1] — the representation of scikit-learn's digits. It is enough to tell apart classes that
differ in shape or brightness at a glance; for photographs, upload embeddings.
"""

from __future__ import annotations

import io
import os
import unicodedata
from os import PathLike
from pathlib import Path, PurePosixPath, PureWindowsPath

import numpy as np
from PIL import Image, UnidentifiedImageError

from rlscore.data.features import FeatureInputError, Progress, report
from rlscore.data.features.image_urls import (
    ALLOW_URLS_ENV,
    URLRefused,
    fetch_image_bytes,
    image_urls_allowed,
    is_url,
    shown_url,
)
from rlscore.data.features.recent_results import RecentResults, input_digest
from rlscore.data.items.columns import rows_text

#: environment variable naming the folder image projects' paths are read from, set by whoever
#: starts the server (an uploader can only name files inside it)
IMAGE_ROOT_ENV = "RLSCORE_IMAGE_ROOT"
#: images with more pixels than this are refused (a 400 × 400 image has 160 000); below
#: Pillow's own guard (``Image.MAX_IMAGE_PIXELS``), so this message is the one shown
MAX_IMAGE_PIXELS = 40_000_000
#: side of the grey fallback features (16 × 16 = 256 features)
DEFAULT_SIZE = (16, 16)
#: at most this many refused rows are listed (with their reasons) in one message
MAX_LISTED = 8


class _Refused(Exception):
    """One cell refused; the reason, without the column and the row."""


def _cell(text: str, limit: int = 60) -> str:
    """A cell as quoted in a message: between single quotes and as written (a backslash is one
    backslash, not ``repr``'s two), cut to ``limit`` characters with "…" when cut; only control
    characters (a NUL, a line break) are shown as their escapes."""
    cut = text if len(text) <= limit else text[: limit - 1] + "…"
    return "'" + "".join(_escaped(ch) for ch in cut) + "'"


def _escaped(ch: str) -> str:
    """``ch``, or its escape (``\\x00``, ``\\n``) when it is a control or line-separator
    character, which would not read as itself."""
    return repr(ch)[1:-1] if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch


def _where(column: str, row: int | None) -> str:
    return f"image column {column!r}" + ("" if row is None else f", {rows_text([row])}")


def server_image_root(environ: dict | None = None) -> Path | None:
    """The image root ``$RLSCORE_IMAGE_ROOT`` names (resolved), None if it is unset.

    Raises
    ------
    FeatureInputError
        The variable names no existing folder.
    """
    value = (os.environ if environ is None else environ).get(IMAGE_ROOT_ENV, "").strip()
    if not value:
        return None
    root = Path(value).expanduser().resolve()
    if not root.is_dir():
        raise FeatureInputError(f"{IMAGE_ROOT_ENV} names no existing folder: {value!r}")
    return root


def _resolve(root: str | PathLike | None, text: str) -> Path:
    """The file ``text`` names under ``root``, or :class:`_Refused`."""
    if root is None:
        raise _Refused(
            f"{_cell(text)} is a file path, but there is no image root to read it from: start "
            f"the server with {IMAGE_ROOT_ENV}=/path/to/images"
        )
    root_path = Path(root).resolve()
    if not root_path.is_dir():
        raise _Refused(f"the image root {str(root)!r} is not an existing folder")
    if is_url(text):
        raise _Refused(
            f"{_cell(shown_url(text, 60))} is a URL: images are read only from files under the "
            "project's image root"
        )
    if "\x00" in text:
        raise _Refused(f"{_cell(text)} contains a NUL character: it is not a file path")
    win = PureWindowsPath(text)
    if PurePosixPath(text).is_absolute() or win.is_absolute() or win.drive:
        raise _Refused(f"{_cell(text)} is an absolute path: give paths relative to the image root")
    separated = PurePosixPath(text.replace("\\", "/")).parts
    if ".." in separated:
        raise _Refused(f"{_cell(text)} contains '..': paths must stay inside the image root")
    # a backslash is a folder separator (a path written on Windows), unless a file has the
    # name as written: a POSIX file name may contain one
    as_written = PurePosixPath(text).parts
    for parts in (as_written, separated) if as_written != separated else (separated,):
        path = _file_under(root_path, parts, text)
        if path is not None:
            return path
    if as_written != separated:
        raise _Refused(
            f"no image file {_cell(text)} under the image root, neither by that name nor "
            f"as {_cell('/'.join(separated))} (a backslash read as a folder separator)"
        )
    raise _Refused(f"no image file {_cell(text)} under the image root")


def _file_under(root_path: Path, parts: tuple[str, ...], text: str) -> Path | None:
    """The file ``parts`` name under ``root_path`` (resolved), None if there is none, or
    :class:`_Refused` when they lead outside it or cannot be resolved."""
    try:
        path = root_path.joinpath(*parts).resolve()
        inside = path.is_relative_to(root_path)
        exists = inside and path.is_file()
    except (OSError, RuntimeError):  # a name too long, a symlink loop (RuntimeError < 3.13)
        raise _Refused(f"{_cell(text)} cannot be resolved to a file") from None
    if not inside:
        raise _Refused(
            f"{_cell(text)} leads outside the image root (through a symbolic link): only files "
            "inside the root are read"
        )
    return path if exists else None


def _decode(source, name: str, max_pixels: int, *, decode: bool = True) -> Image.Image:
    """Open ``source`` (a path or a binary file) with Pillow under the pixel cap, or
    :class:`_Refused`; with ``decode=False`` only the header is read (and the file's structure
    checked with ``verify``), no pixel is decoded. A refused file is closed at once."""
    im, quoted = None, _cell(name, 255)
    try:
        im = Image.open(source)
        width, height = im.size  # from the header: nothing decoded yet
        if width * height > max_pixels:
            reason = (
                f"{quoted} has {width} × {height} pixels, more than the {max_pixels:,} allowed: "
                "downscale the image"
            )
        elif decode:
            im.load()
            return im
        else:
            im.verify()
            return im
    except UnidentifiedImageError:
        reason = f"{quoted} is not an image Pillow can read"
    except Image.DecompressionBombError:  # Pillow's guard, in Image.open, over twice its limit
        reason = (
            f"{quoted} has too many pixels to decode safely (more than the {max_pixels:,} "
            "allowed): downscale the image"
        )
    except (OSError, SyntaxError, ValueError) as exc:  # truncated or corrupt image data
        reason = f"{quoted} could not be decoded ({exc})"
    if im is not None:
        im.close()
    raise _Refused(reason)


def _load(
    value: str,
    root: str | PathLike | None,
    max_pixels: int,
    allow_urls: bool | None,
    *,
    decode: bool = True,
) -> Image.Image:
    """One cell's image (a file under ``root``, or an allowed URL), or :class:`_Refused`."""
    text = str(value).strip()
    if is_url(text):
        shown = shown_url(text, 60)
        if not (image_urls_allowed() if allow_urls is None else allow_urls):
            raise _Refused(
                f"{_cell(shown)} is a URL, and this server reads images only from files under its "
                f"image root (whoever starts it can allow http(s) URLs with {ALLOW_URLS_ENV}=1)"
            )
        try:
            data = fetch_image_bytes(text)
        except URLRefused as exc:
            raise _Refused(f"{_cell(shown)} was not used: {exc}") from None
        return _decode(io.BytesIO(data), shown, max_pixels, decode=decode)
    path = _resolve(root, text)
    return _decode(path, path.name, max_pixels, decode=decode)


def resolve_image_path(
    root: str | PathLike, value: str, column: str = "image", row: int | None = None
) -> Path:
    """The file an image cell names, which must be inside ``root``.

    Parameters
    ----------
    root
        The project's image root (an existing folder).
    value
        The cell: a path relative to the root, ``/`` separated; a ``\\`` separates folders
        too (a path written on Windows), unless a file has the name as written.
    column, row
        Named in the error message (``row`` 0-based).

    Raises
    ------
    FeatureInputError
        An absolute path, a URL, a ``..`` component, a path (or symlink) resolving outside
        the root, or a file that does not exist.
    """
    try:
        return _resolve(root, str(value).strip())
    except _Refused as exc:
        raise FeatureInputError(f"{_where(column, row)}: {exc}") from None


def open_image(
    path: Path, column: str = "image", row: int | None = None, max_pixels: int = MAX_IMAGE_PIXELS
) -> Image.Image:
    """Open and decode an image file, refusing non-images and images over ``max_pixels``.

    Raises
    ------
    FeatureInputError
        Naming the column and row.
    """
    try:
        return _decode(path, Path(path).name, max_pixels)
    except _Refused as exc:
        raise FeatureInputError(f"{_where(column, row)}: {exc}") from None


def load_image(
    value: str,
    root: str | PathLike | None,
    column: str = "image",
    row: int | None = None,
    *,
    max_pixels: int = MAX_IMAGE_PIXELS,
    allow_urls: bool | None = None,
) -> Image.Image:
    """The decoded image of one cell: a file under ``root``, or an http(s) URL if allowed.

    Parameters
    ----------
    value
        The cell.
    root
        The image root (None: only URLs can be read).
    column, row
        Named in the error message (``row`` 0-based).
    max_pixels
        Larger images are refused before they are decoded.
    allow_urls
        Whether URLs are fetched; None reads ``$RLSCORE_ALLOW_IMAGE_URLS``.

    Raises
    ------
    FeatureInputError
        The cell cannot be read, naming the column, the row and the reason.
    """
    try:
        return _load(value, root, max_pixels, allow_urls)
    except _Refused as exc:
        raise FeatureInputError(f"{_where(column, row)}: {exc}") from None


def _refusal(column: str, problems: list[tuple[int, str]], n: int) -> FeatureInputError:
    """One message for every refused row: a line per row (the first :data:`MAX_LISTED`)."""
    if len(problems) == 1:
        row, reason = problems[0]
        return FeatureInputError(
            f"{_where(column, row)}: {reason}. No project is made until every row's image can "
            "be read: fix or remove this row."
        )
    listed = "".join(f"\n{rows_text([r])}: {reason}" for r, reason in problems[:MAX_LISTED])
    more = len(problems) - MAX_LISTED
    return FeatureInputError(
        f"image column {column!r}: {len(problems)} of {n} rows cannot be read, and no project "
        "is made until every row's image can be read: fix or remove these rows."
        + listed
        + (f"\n… and {more} more rows" if more > 0 else "")
    )


def check_images(
    values: list[str],
    root: str | PathLike | None,
    *,
    column: str = "image",
    max_pixels: int = MAX_IMAGE_PIXELS,
    allow_urls: bool | None = None,
    progress: Progress | None = None,
) -> None:
    """Check that every cell names a readable image (path, header, pixel count, structure)
    without decoding its pixels: what an image project whose features come from an
    embedding needs.

    Raises
    ------
    FeatureInputError
        Listing every refused row (up to :data:`MAX_LISTED`) with its reason.
    """
    problems: list[tuple[int, str]] = []
    step = max(1, len(values) // 100)
    for row, value in enumerate(values):
        try:
            _load(value, root, max_pixels, allow_urls, decode=False).close()
        except _Refused as exc:
            problems.append((row, str(exc)))
        if row % step == 0:
            report(progress, row / len(values), f"checking images ({row:,} of {len(values):,})")
    if problems:
        raise _refusal(column, problems, len(values))
    report(progress, 1.0, "images checked")


def grey_pixels(im: Image.Image, size: tuple[int, int] = DEFAULT_SIZE) -> np.ndarray:
    """The image in grey, resized to ``size`` (width, height) with a box filter, as a flat
    float64 vector in [0, 1] (row-major)."""
    small = im.convert("L").resize(size, Image.Resampling.BOX)
    return np.asarray(small, dtype=np.float64).ravel() / 255.0


#: how many recent results :func:`image_pixel_features` keeps (:mod:`~rlscore.data.features.
#: recent_results`)
RECENT_RESULTS = 2
_RECENT: RecentResults[np.ndarray] = RecentResults(RECENT_RESULTS)


def _pixels_key(
    paths: list[str],
    root: str | PathLike | None,
    size: tuple[int, int],
    max_pixels: int,
    allow_urls: bool,
) -> str | None:
    """A digest of what the pixel features depend on: the settings, every cell and, for a
    file, its size and modification time (a file replaced under the same name is read
    again); None when a cell is refused (the full read names it)."""
    parts = [repr((None if root is None else str(Path(root).resolve()), size, max_pixels))]
    for value in paths:
        text = str(value).strip()
        if is_url(text):
            if not allow_urls:
                return None
            parts.append(text)  # read once per process anyway (image_urls keeps the bytes)
            continue
        try:
            stat = _resolve(root, text).stat()
        except (_Refused, OSError):
            return None
        parts.append(f"{text}\0{stat.st_mtime_ns}\0{stat.st_size}")
    return input_digest(parts)


def image_pixel_features(
    paths: list[str],
    root: str | PathLike | None,
    *,
    column: str = "image",
    size: tuple[int, int] = DEFAULT_SIZE,
    max_pixels: int = MAX_IMAGE_PIXELS,
    allow_urls: bool | None = None,
    progress: Progress | None = None,
) -> np.ndarray:
    """The fallback image features (see the module's docstring): (n, width · height).

    Parameters
    ----------
    paths
        The image cells: paths under ``root``, or http(s) URLs if allowed (``allow_urls``;
        None reads ``$RLSCORE_ALLOW_IMAGE_URLS``).

    Raises
    ------
    FeatureInputError
        Listing every refused row (up to :data:`MAX_LISTED`) with its reason.
    """
    size = (int(size[0]), int(size[1]))
    urls = image_urls_allowed() if allow_urls is None else bool(allow_urls)
    key = _pixels_key(paths, root, size, max_pixels, urls)
    kept = None if key is None else _RECENT.get(key)
    if kept is not None:
        report(progress, 1.0, "image features ready")
        return kept
    X = np.empty((len(paths), size[0] * size[1]), dtype=np.float64)
    problems: list[tuple[int, str]] = []
    step = max(1, len(paths) // 100)
    for row, value in enumerate(paths):
        try:
            with _load(value, root, max_pixels, allow_urls) as im:
                X[row] = grey_pixels(im, size)
        except _Refused as exc:
            problems.append((row, str(exc)))
        if row % step == 0:
            report(progress, row / len(paths), f"reading images ({row:,} of {len(paths):,})")
    if problems:
        raise _refusal(column, problems, len(paths))
    if key is not None:
        _RECENT.put(key, X)
    report(progress, 1.0, "image features ready")
    return X


def pixel_feature_names(size: tuple[int, int] = DEFAULT_SIZE) -> list[str]:
    """``pixel_<row>_<col>`` for the fallback features, row-major."""
    return [f"pixel_{r}_{c}" for r in range(size[1]) for c in range(size[0])]


__all__ = [
    "DEFAULT_SIZE",
    "IMAGE_ROOT_ENV",
    "MAX_IMAGE_PIXELS",
    "MAX_LISTED",
    "check_images",
    "grey_pixels",
    "image_pixel_features",
    "load_image",
    "open_image",
    "pixel_feature_names",
    "resolve_image_path",
    "server_image_root",
]
