"""Images under a project root: safe path resolution, and downscaled grey pixels as features.

An image item is a path *relative to the project's image root*, a folder chosen by whoever
starts the server (never by the uploader). :func:`resolve_image_path` refuses every path that
could leave the root: absolute paths, ``..`` components, URLs, and symlinks whose target is
outside it (the path is resolved before the check). :func:`open_image` opens a file with
Pillow, refusing files that are not images and images with more than ``max_pixels`` pixels
(read from the header before any pixel is decoded: a decompression bomb never reaches
memory; Pillow's own guard is caught too).

Features. If the uploader gives an embedding column (:mod:`~rlscore.data.features.
embeddings`), those are the features. Otherwise :func:`image_pixel_features` is the documented
fallback: each image converted to grey (Pillow's ``"L"``: ITU-R 601 luma), resized to
``size`` (default 16 × 16, aspect ratio not kept) with a box filter, pixel values scaled to
[0, 1] — the representation of scikit-learn's digits. It is enough to tell apart classes that
differ in shape or brightness at a glance; for photographs, upload embeddings.
"""

from __future__ import annotations

import os
import re
from os import PathLike
from pathlib import Path, PurePosixPath, PureWindowsPath

import numpy as np
from PIL import Image, UnidentifiedImageError

from rlscore.data.features import FeatureInputError, Progress, report
from rlscore.data.items import rows_text

#: environment variable naming the folder image projects' paths are read from, set by whoever
#: starts the server (an uploader can only name files inside it)
IMAGE_ROOT_ENV = "RLSCORE_IMAGE_ROOT"
#: images with more pixels than this are refused (a 400 × 400 image has 160 000)
MAX_IMAGE_PIXELS = 40_000_000
#: side of the grey fallback features (16 × 16 = 256 features)
DEFAULT_SIZE = (16, 16)
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


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


def resolve_image_path(
    root: str | PathLike, value: str, column: str = "image", row: int | None = None
) -> Path:
    """The file an image cell names, which must be inside ``root``.

    Parameters
    ----------
    root
        The project's image root (an existing folder).
    value
        The cell: a path relative to the root, ``/`` or ``\\`` separated.
    column, row
        Named in the error message (``row`` 0-based).

    Raises
    ------
    FeatureInputError
        An absolute path, a URL, a ``..`` component, a path (or symlink) resolving outside
        the root, or a file that does not exist.
    """
    where = _where(column, row)
    text = str(value).strip()
    root_path = Path(root).resolve()
    if not root_path.is_dir():
        raise FeatureInputError(f"the image root {str(root)!r} is not an existing folder")
    if _URL.match(text):
        raise FeatureInputError(
            f"{where}: {text[:60]!r} is a URL: images are read only from files under the "
            "project's image root"
        )
    win = PureWindowsPath(text)
    if PurePosixPath(text).is_absolute() or win.is_absolute() or win.drive:
        raise FeatureInputError(
            f"{where}: {text[:60]!r} is an absolute path: give paths relative to the image root"
        )
    parts = PurePosixPath(text.replace("\\", "/")).parts
    if ".." in parts:
        raise FeatureInputError(
            f"{where}: {text[:60]!r} contains '..': paths must stay inside the image root"
        )
    path = root_path.joinpath(*parts).resolve()
    if not path.is_relative_to(root_path):
        raise FeatureInputError(
            f"{where}: {text[:60]!r} leads outside the image root (through a symbolic link): "
            "only files inside the root are read"
        )
    if not path.is_file():
        raise FeatureInputError(f"{where}: no image file {text[:60]!r} under the image root")
    return path


def open_image(
    path: Path, column: str = "image", row: int | None = None, max_pixels: int = MAX_IMAGE_PIXELS
) -> Image.Image:
    """Open and decode an image file, refusing non-images and images over ``max_pixels``.

    Raises
    ------
    FeatureInputError
        Naming the column and row.
    """
    where = _where(column, row)
    try:
        im = Image.open(path)
        width, height = im.size  # from the header: nothing decoded yet
        if width * height > max_pixels:
            im.close()
            raise FeatureInputError(
                f"{where}: {path.name!r} has {width} × {height} pixels, more than the "
                f"{max_pixels:,} allowed: downscale the image"
            )
        im.load()
    except FeatureInputError:
        raise
    except UnidentifiedImageError:
        raise FeatureInputError(f"{where}: {path.name!r} is not an image Pillow can read") from None
    except Image.DecompressionBombError:
        raise FeatureInputError(
            f"{where}: {path.name!r} has too many pixels to decode safely: downscale the image"
        ) from None
    except OSError as exc:  # truncated or corrupt image data
        raise FeatureInputError(f"{where}: {path.name!r} could not be decoded ({exc})") from None
    return im


def grey_pixels(im: Image.Image, size: tuple[int, int] = DEFAULT_SIZE) -> np.ndarray:
    """The image in grey, resized to ``size`` (width, height) with a box filter, as a flat
    float64 vector in [0, 1] (row-major)."""
    small = im.convert("L").resize(size, Image.Resampling.BOX)
    return np.asarray(small, dtype=np.float64).ravel() / 255.0


def image_pixel_features(
    paths: list[str],
    root: str | PathLike,
    *,
    column: str = "image",
    size: tuple[int, int] = DEFAULT_SIZE,
    max_pixels: int = MAX_IMAGE_PIXELS,
    progress: Progress | None = None,
) -> np.ndarray:
    """The fallback image features (see the module's docstring): (n, width · height).

    Raises
    ------
    FeatureInputError
        The first path or file refused, naming the column and the row.
    """
    size = (int(size[0]), int(size[1]))
    X = np.empty((len(paths), size[0] * size[1]), dtype=np.float64)
    step = max(1, len(paths) // 100)
    for row, value in enumerate(paths):
        path = resolve_image_path(root, value, column, row)
        with open_image(path, column, row, max_pixels) as im:
            X[row] = grey_pixels(im, size)
        if row % step == 0:
            report(progress, row / len(paths), f"reading images ({row:,} of {len(paths):,})")
    report(progress, 1.0, "image features ready")
    return X


def pixel_feature_names(size: tuple[int, int] = DEFAULT_SIZE) -> list[str]:
    """``pixel_<row>_<col>`` for the fallback features, row-major."""
    return [f"pixel_{r}_{c}" for r in range(size[1]) for c in range(size[0])]


__all__ = [
    "DEFAULT_SIZE",
    "IMAGE_ROOT_ENV",
    "MAX_IMAGE_PIXELS",
    "grey_pixels",
    "image_pixel_features",
    "open_image",
    "pixel_feature_names",
    "resolve_image_path",
    "server_image_root",
]
