"""The image fallback features written out directly in numpy (no Pillow resampling or mode
conversion): ITU-R BT.601 luma, then the mean of each block for an integer downscale."""

from __future__ import annotations

import numpy as np


def grey_blocks(rgb: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Features of an (h, w, 3) uint8 picture for ``size = (width, height)`` dividing (w, h):
    luma ``0.299 R + 0.587 G + 0.114 B`` rounded to a byte, the mean of each
    (h / height) × (w / width) block rounded to a byte, scaled to [0, 1], row-major."""
    rgb = np.asarray(rgb, dtype=np.float64)
    h, w = rgb.shape[:2]
    width, height = size
    assert h % height == 0 and w % width == 0, "an integer downscale only"
    luma = np.rint(rgb @ np.array([0.299, 0.587, 0.114]))
    blocks = luma.reshape(height, h // height, width, w // width).mean(axis=(1, 3))
    return np.rint(blocks).ravel() / 255.0
