"""Build the bundled image sample: scikit-learn's handwritten digits written as PNG files.

Source: ``sklearn.datasets.load_digits`` — 1797 images of 8 × 8 pixels (ink 0–16) shipped
inside scikit-learn itself, so the sample builds offline on any machine with rlscore's
dependencies. License: scikit-learn is BSD-3-Clause; the digits are a copy of the UCI "Optical
Recognition of Handwritten Digits" test set (Alpaydin & Kaynak, 1998), licensed CC BY 4.0:
redistribution is allowed with attribution, given here and in the sample's metadata.

Writes ``sample_data/images/digits/<split>/<index>.png`` (dark ink on white, upscaled ×4 to
32 × 32 so a person can read them) and ``digit_images.csv`` / ``_validation.csv`` with the
columns ``path`` (relative to ``sample_data/images``) and ``label`` (the digit): 40 images of
each digit in the pool, 20 in the validation split (stratified, seeded).
Run: ``python sample_data/build_image_samples.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image
from sklearn.datasets import load_digits

OUT = Path(__file__).resolve().parent
IMAGE_ROOT = OUT / "images"
PER_CLASS = {"pool": 40, "validation": 20}
SCALE = 4


def build() -> None:
    """Write the PNG files and both CSV files."""
    digits = load_digits()
    rng = np.random.default_rng(0)
    chosen = {split: [] for split in PER_CLASS}
    for digit in range(10):
        idx = rng.permutation(np.flatnonzero(digits.target == digit))
        chosen["pool"] += idx[: PER_CLASS["pool"]].tolist()
        chosen["validation"] += idx[PER_CLASS["pool"] : sum(PER_CLASS.values())].tolist()
    for split, rows in chosen.items():
        rows = rng.permutation(rows).tolist()
        folder = IMAGE_ROOT / "digits" / split
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for k, i in enumerate(rows):
            ink = digits.images[i] / 16.0
            pixels = np.round(255 * (1.0 - ink)).astype(np.uint8)
            im = Image.fromarray(pixels, mode="L").resize((8 * SCALE, 8 * SCALE), Image.NEAREST)
            name = f"digits/{split}/{k:03d}.png"
            im.save(IMAGE_ROOT / name, optimize=True)
            paths.append(name)
        suffix = "" if split == "pool" else "_validation"
        pd.DataFrame({"path": paths, "label": digits.target[rows]}).to_csv(
            OUT / f"digit_images{suffix}.csv", index=False
        )


if __name__ == "__main__":
    build()
    print(f"wrote the digit images to {IMAGE_ROOT}")
