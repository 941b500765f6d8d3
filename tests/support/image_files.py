"""Image files for the image-item tests: PNG bytes, two visually distinct classes, and a
decompression bomb's header written byte by byte (no pixels behind it)."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
from PIL import Image


def png_bytes(pixels: np.ndarray) -> bytes:
    """A PNG of a uint8 array, (h, w) grey or (h, w, 3) RGB."""
    out = io.BytesIO()
    Image.fromarray(np.asarray(pixels, dtype=np.uint8)).save(out, format="PNG")
    return out.getvalue()


def class_picture(kind: str, k: int, side: int = 24) -> np.ndarray:
    """A small RGB picture of class ``kind``: ``"bar"`` a bright vertical bar on black,
    ``"ring"`` a dark ring on white. ``k`` moves and sizes the shape so that pictures
    ``k = 0 … 19`` of a class differ in shape, not only in tint."""
    yy, xx = np.mgrid[:side, :side]
    if kind == "bar":
        grey = np.where(np.abs(xx - (side // 4 + k % 8)) < 2 + (k // 8) % 3, 230, 10)
    else:
        r = np.hypot(yy - side / 2, xx - side / 2 - (k % 5 - 2))
        grey = np.where(np.abs(r - (5 + (k // 5) % 4)) < 1.5, 20, 240)
    tint = (np.arange(3) * 7 + k) % 11  # a slight, different tint per picture
    return np.clip(grey[..., None] + tint, 0, 255).astype(np.uint8)


def write_two_classes(root: Path, n_per_class: int, folder: str = "pics") -> list[tuple[str, str]]:
    """``2 · n_per_class`` PNGs under ``root/folder``, alternating bar and ring; returns
    (path relative to root, class) per picture."""
    (root / folder).mkdir(parents=True, exist_ok=True)
    rows = []
    for k in range(n_per_class):
        for kind in ("bar", "ring"):
            rel = f"{folder}/{kind}_{k:02d}.png"
            (root / rel).write_bytes(png_bytes(class_picture(kind, k)))
            rows.append((rel, kind))
    return rows


def bomb_png(width: int, height: int) -> bytes:
    """A PNG whose header declares ``width × height`` 8-bit grey pixels, with an empty image
    data chunk: a reader that decodes it before checking the size fails (or allocates
    ``width · height`` bytes); one that checks the header first refuses it at once."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b""))
        + chunk(b"IEND", b"")
    )
