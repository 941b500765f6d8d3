"""The item samples' features, built once and shipped beside their files.

Building the features of the bundled text samples (TF-IDF and a truncated SVD) and of the
image sample (every picture decoded and shrunk) takes seconds of CPU; done when a fresh
database gets its sample projects, it was done inside the first page request of a fresh
install (issue 36). ``python -m rlscore samples`` writes them to
``sample_data/features/<name>.npz`` with the digest of everything they are built from — the
sample's CSV files, its settings and, for images, every picture — and
:func:`rlscore.data.samples.bundled.load_sample` uses a file only while that digest still
matches: an edited sample is built afresh, never paired with stale features.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

#: folder of the feature files, inside the samples' folder
FEATURE_FOLDER = "features"


def input_digest(name: str, spec: dict, sample_dir: Path, images: list[Path] | None = None) -> str:
    """SHA-256 of what the sample ``name``'s features are built from: its pool and
    validation CSV files, its ``spec`` (settings) and, for an image sample, its pictures."""
    h = hashlib.sha256(json.dumps(spec, sort_keys=True, default=str).encode())
    for path in [
        sample_dir / f"{name}.csv",
        sample_dir / f"{name}_validation.csv",
        *(images or []),
    ]:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def feature_path(name: str, sample_dir: Path) -> Path:
    """Where the features of sample ``name`` are kept."""
    return sample_dir / FEATURE_FOLDER / f"{name}.npz"


def load_features(name: str, digest: str, sample_dir: Path) -> tuple[np.ndarray, list, dict] | None:
    """The kept features of ``name`` (all rows: pool then validation), their names and
    summary, or None when there are none or they were built from other inputs."""
    path = feature_path(name, sample_dir)
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as kept:
            if str(kept["digest"]) != digest:
                return None
            return kept["X"].copy(), kept["names"].tolist(), json.loads(str(kept["summary"]))
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile):
        return None  # damaged (a copy cut short): the features are built afresh


def save_features(
    name: str, digest: str, X: np.ndarray, names: list, summary: dict, sample_dir: Path
) -> Path:
    """Keep the features of ``name`` built from the inputs of ``digest``; the file.

    Written to a temporary file beside it and renamed into place, so that another process
    (a second app server, a test) reading it meanwhile finds the old file or the whole new
    one, never a file cut short."""
    path = feature_path(name, sample_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npz.tmp", delete=False) as f:
        try:
            np.savez_compressed(
                f,
                X=np.asarray(X, dtype=np.float64),
                names=np.asarray(names, dtype=str),
                summary=np.asarray(json.dumps(summary, sort_keys=True)),
                digest=np.asarray(digest),
            )
        except BaseException:
            f.close()
            os.unlink(f.name)
            raise
    os.replace(f.name, path)
    return path


__all__ = ["FEATURE_FOLDER", "feature_path", "input_digest", "load_features", "save_features"]
