"""Bundled sample datasets with ground truth (docs/mathematics.md §9 stand-ins), seeded and
reproducible.

Each dataset has a *pool* (the points to label) and a held-out *validation* split, stored as
CSV files (feature columns plus a ``label`` column) with a JSON metadata record in
``sample_data/``. :func:`load_sample` reads those files and falls back to the generators when
the folder is absent (e.g. a non-editable install); ``python -m rlscore samples`` rewrites
them.

*Item samples* are real texts and images (:data:`ITEM_SAMPLES`): their CSV files hold the
items (a text or an image path) and the label, written by ``sample_data/build_text_samples.py``
(Debian package descriptions) and ``sample_data/build_image_samples.py`` (scikit-learn's digits
as PNG files); their features are made on the spot (:mod:`rlscore.data.features`) from the pool
and validation items together (unsupervised: no label is used), so both splits share one
basis. They are listed only where their files are.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rlscore.core.conventions.json_values import jsonable
from rlscore.core.kernels.rbf_width import median_sigma
from rlscore.data.features.images import image_pixel_features, pixel_feature_names
from rlscore.data.features.text import TextFeatureSettings, build_text_features
from rlscore.data.items.columns import item_columns_from_table, item_texts
from rlscore.data.projects.project import Project
from rlscore.data.samples.feature_cache import input_digest, load_features, save_features

# pandas is imported by the functions that read or write the sample tables: a page whose
# database already holds the samples never pays its 0.4 s of import
if TYPE_CHECKING:
    import pandas as pd

#: the repository's sample_data/ (this module is rlscore/data/samples/bundled.py)
SAMPLE_DIR = Path(__file__).resolve().parents[3] / "sample_data"
SPLITS = ("pool", "validation")


@dataclass
class Dataset:
    """A labeled dataset: features ``X`` (n × d, float64), labels ``y`` and metadata.

    ``meta`` keys: ``description``, ``sigma`` and ``lam`` (recommended RBF width and
    regularisation, docs/mathematics.md §1 conventions), ``image_shape`` (``None`` or
    ``[rows, cols]``),
    ``classes``, ``class_names`` (label → readable name), ``source``, ``imbalance``,
    ``class_weight`` (recommended: ``None`` or ``"balanced"``).
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    meta: dict = field(default_factory=dict)


# -- generators -----------------------------------------------------------------------------
def _uniform_disk(rng: np.random.Generator, n: int, r_min: float, r_max: float) -> np.ndarray:
    """``n`` points uniform (by area) in the annulus ``r_min ≤ r ≤ r_max``."""
    r = np.sqrt(rng.uniform(r_min**2, r_max**2, n))
    a = rng.uniform(0.0, 2.0 * np.pi, n)
    return np.column_stack([r * np.cos(a), r * np.sin(a)])


def make_spheres(
    n_spheres: int = 60,
    per_sphere: int = 20,
    seed: int = 0,
    *,
    radius: float = 1.5,
    spacing: float = 8.0,
    label_seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Paskov's *Spheres* (fig. 4-6): equally spaced 2-D discs on a grid, one label per disc.

    60 discs on a 10 × 6 grid ``spacing`` apart, ``per_sphere`` points uniform in each. Disc
    labels (half +1, half −1) depend on ``label_seed`` only, so a validation set drawn with
    another ``seed`` has the same discs and labels. With σ = 1.7 the discs barely interact
    (``exp(-(spacing - 2·radius)²/(2σ²)) ≈ 0.013``), so one label per disc suffices.
    """
    cols = int(np.ceil(np.sqrt(n_spheres * 10 / 6)))
    centres = np.array([(spacing * (k % cols), spacing * (k // cols)) for k in range(n_spheres)])
    signs = np.where(np.arange(n_spheres) < n_spheres // 2, 1, -1)
    disc_label = np.random.default_rng(label_seed).permutation(signs)
    rng = np.random.default_rng(seed)
    X = np.concatenate([c + _uniform_disk(rng, per_sphere, 0.0, radius) for c in centres])
    y = np.repeat(disc_label, per_sphere)
    return X, y.astype(np.int64)


def make_circles_imbalanced(
    n_neg: int = 2000, n_pos: int = 20, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Paskov's imbalanced *Circles* (fig. 4-9): +1 in the disc r ≤ 2, −1 in 3 ≤ r ≤ 10."""
    rng = np.random.default_rng(seed)
    X = np.concatenate([_uniform_disk(rng, n_pos, 0.0, 2.0), _uniform_disk(rng, n_neg, 3.0, 10.0)])
    y = np.concatenate([np.ones(n_pos), -np.ones(n_neg)]).astype(np.int64)
    order = rng.permutation(y.size)
    return X[order], y[order]


def make_two_moons_imbalanced(
    n_neg: int = 200, n_pos: int = 20, noise: float = 0.1, scale: float = 6.0, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Two Moons with ``n_pos`` positives (Paskov fig. 4-1), scaled by ``scale``.

    scikit-learn's moons have radius 1; scaling by 6 makes the paper's σ = 2 a third of a
    moon's radius, so the kernel resolves the moons' shape.
    """
    from sklearn.datasets import make_moons  # here: the app's first page does not need it

    rng = np.random.default_rng(seed)
    m = max(n_neg, n_pos)
    Xm, ym = make_moons(n_samples=(m, m), noise=noise, random_state=int(rng.integers(2**31)))
    neg = rng.choice(np.flatnonzero(ym == 0), n_neg, replace=False)
    pos = rng.choice(np.flatnonzero(ym == 1), n_pos, replace=False)
    idx = rng.permutation(np.concatenate([neg, pos]))
    return scale * Xm[idx], np.where(ym[idx] == 1, 1, -1).astype(np.int64)


def _stratified_split(y: np.ndarray, n_first: dict, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    first = np.concatenate(
        [rng.choice(np.flatnonzero(y == c), n, replace=False) for c, n in n_first.items()]
    )
    first = rng.permutation(first)
    rest = np.setdiff1d(np.arange(y.size), first)
    return first, rng.permutation(rest)


def _digits123(split: str) -> tuple[np.ndarray, np.ndarray]:
    """Digits 1, 2, 3 (8 × 8 images): 100 random per class in the pool (Yajima §6)."""
    from sklearn.datasets import load_digits  # here: the app's first page does not need it

    d = load_digits()
    keep = np.isin(d.target, [1, 2, 3])
    X, y = d.data[keep], d.target[keep].astype(np.int64)
    pool, rest = _stratified_split(y, {1: 100, 2: 100, 3: 100}, seed=0)
    idx = pool if split == "pool" else rest
    return X[idx], y[idx]


def _breast_cancer(split: str) -> tuple[np.ndarray, np.ndarray]:
    """Wisconsin breast cancer, standardised with the pool's mean and sd; +1 = malignant."""
    from sklearn.datasets import load_breast_cancer  # here: the app's first page does not need it

    d = load_breast_cancer()
    y = np.where(d.target == 0, 1, -1).astype(np.int64)
    pool, rest = _stratified_split(y, {1: 150, -1: 250}, seed=0)
    mu, sd = d.data[pool].mean(0), d.data[pool].std(0)
    idx = pool if split == "pool" else rest
    return (d.data[idx] - mu) / sd, y[idx]


_META = {
    "spheres": {
        "description": "Paskov's Spheres: 1200 points, 20 in each of 60 equally spaced discs "
        "(2-D, 10 × 6 grid), one label per disc. ARLS should need exactly 60 queries.",
        "sigma": 1.7,
        "lam": 0.5,
        "class_weight": None,
        "source": "generated: rlscore.data.samples.bundled.make_spheres(seed=0); validation seed=1",
    },
    "circles": {
        "description": "Imbalanced Circles (100 : 1): 20 positives in the disc r ≤ 2, 2000 "
        "negatives in the ring 3 ≤ r ≤ 10. Validation set is balanced (500 + 500).",
        "sigma": 1.7,
        "lam": 0.2,
        "class_weight": None,
        "weighted": {"sigma": 1.0, "lam": 0.1, "class_weight": "balanced"},
        "source": "generated: rlscore.data.samples.bundled.make_circles_imbalanced(seed=0); "
        "validation "
        "n_neg=n_pos=500, seed=1",
    },
    "two_moons": {
        "description": "Two Moons with 10× fewer positives (200 negatives, 20 positives), "
        "scaled ×6 so σ = 2 is meaningful. Validation set is balanced (200 + 200).",
        "sigma": 2.0,
        "lam": 0.1,
        "class_weight": "balanced",
        "source": "generated: rlscore.data.samples.bundled.make_two_moons_imbalanced(seed=0); "
        "validation "
        "n_neg=n_pos=200, seed=1",
    },
    "digits123": {
        "description": "scikit-learn digits 1, 2, 3: 100 random 8 × 8 images per class "
        "(Yajima's setting); the other 242 images of these digits are the validation split.",
        "sigma": 20.0,
        "lam": 0.1,
        "class_weight": None,
        "image_shape": [8, 8],
        "class_names": {"1": "one", "2": "two", "3": "three"},
        "source": "sklearn.datasets.load_digits, classes 1-3, stratified split seed=0",
    },
    "breast_cancer": {
        "description": "Wisconsin breast cancer (30 features, standardised): 400 points in "
        "the pool, 169 held out; +1 = malignant.",
        "sigma": 5.0,
        "lam": 0.1,
        "class_weight": None,
        "class_names": {"-1": "benign", "1": "malignant"},
        "source": "sklearn.datasets.load_breast_cancer, stratified split seed=0",
    },
}


#: samples of real items, features made on the spot (see the module's docstring)
ITEM_SAMPLES = {
    "debian_sections": {
        "description": "Debian package descriptions (one line each) from 4 sections — games, "
        "graphics, science, sound — 250 per section in the pool, 100 held out. Features: "
        "TF-IDF of the words reduced to 100 dimensions by truncated SVD.",
        "lam": 0.1,
        "class_weight": None,
        "items": {"text_columns": ["text"], "context_columns": ["package"]},
        "text_features": {"n_components": 100},
        "source": "Debian main Packages indexes (apt-cache dumpavail), built by "
        "sample_data/build_text_samples.py",
        "license": "descriptions from Debian main (DFSG-free packages' debian/control)",
    },
    "debian_games": {
        "description": "Find the games: 40 game descriptions among 2000 Debian package "
        "descriptions (2 %; label 1 = game). Validation set is balanced (200 + 200). A search "
        "for 'game' finds seeds for the cold start.",
        "lam": 0.1,
        "class_weight": "balanced",
        "class_names": {"-1": "other", "1": "game"},
        "items": {"text_columns": ["text"], "context_columns": ["package"]},
        "text_features": {"n_components": 100},
        "source": "Debian main Packages indexes (apt-cache dumpavail), built by "
        "sample_data/build_text_samples.py",
        "license": "descriptions from Debian main (DFSG-free packages' debian/control)",
    },
    "digit_images": {
        "description": "Handwritten digits 0–9 as PNG images (scikit-learn's digits, 32 × 32): "
        "40 per digit in the pool, 20 held out. Features: the images' grey pixels at 8 × 8 "
        "(the fallback for images without embeddings).",
        "lam": 0.1,
        "class_weight": None,
        "items": {"image_column": "path"},
        "image_root": "images",
        "image_size": [8, 8],
        "source": "sklearn.datasets.load_digits written as PNG by "
        "sample_data/build_image_samples.py",
        "license": "scikit-learn BSD-3-Clause; UCI Optical Recognition of Handwritten Digits, "
        "CC BY 4.0 (Alpaydin & Kaynak 1998)",
    },
}


def _item_frame(name: str, split: str) -> pd.DataFrame:
    import pandas as pd

    suffix = "" if split == "pool" else "_validation"
    return pd.read_csv(SAMPLE_DIR / f"{name}{suffix}.csv", keep_default_na=False)


def _image_root(name: str) -> Path:
    return SAMPLE_DIR / ITEM_SAMPLES[name]["image_root"]


def _item_images(name: str) -> list[Path] | None:
    """The pictures of an image sample (pool then validation), None for a text sample."""
    spec = ITEM_SAMPLES[name]
    if "image_column" not in spec["items"]:
        return None
    column, root = spec["items"]["image_column"], _image_root(name)
    return [root / p for split in SPLITS for p in _item_frame(name, split)[column].astype(str)]


@lru_cache(maxsize=8)
def _item_features(name: str, sample_dir: Path) -> tuple[np.ndarray, np.ndarray, list, dict]:
    """Pool and validation features of an item sample (one basis for both) and what the
    project's meta records about them (``sample_dir`` keys the cache): the shipped ones
    while their inputs are unchanged (:mod:`rlscore.data.samples.feature_cache`), else
    built."""
    n = _item_frame(name, "pool").shape[0]
    digest = input_digest(name, ITEM_SAMPLES[name], sample_dir, _item_images(name))
    kept = load_features(name, digest, sample_dir)
    X, names, summary = kept if kept is not None else build_item_features(name)
    return X[:n], X[n:], names, summary


def build_item_features(name: str) -> tuple[np.ndarray, list, dict]:
    """Build the features of the item sample ``name`` from its files: all rows (pool, then
    validation, one basis for both), their names and what the project's meta records."""
    spec = ITEM_SAMPLES[name]
    pool, val = _item_frame(name, "pool"), _item_frame(name, "validation")
    items = spec["items"]
    if "text_columns" in items:
        texts = [
            *item_texts(item_columns_from_table(pool, items["text_columns"])),
            *item_texts(item_columns_from_table(val, items["text_columns"])),
        ]
        tf = build_text_features(texts, TextFeatureSettings.from_dict(spec["text_features"]))
        X, names, summary = tf.X, tf.feature_names, {"text_features": tf.summary()}
    else:
        column, size = items["image_column"], tuple(spec["image_size"])
        root = _image_root(name)
        paths = [*pool[column].astype(str), *val[column].astype(str)]
        X = image_pixel_features(paths, root, column=column, size=size)
        names = pixel_feature_names(size)
        summary = {"image_features": {"kind": "grey pixels", "size": list(size)}}
    # the median heuristic on the pool, fixed per sample (kept with the features: the pairwise
    # distances of 2 000 texts are most of the rest of the cost)
    summary["sigma"] = round(median_sigma(X[: pool.shape[0]]), 6)
    return X, list(names), summary


def write_item_features(folder: Path = SAMPLE_DIR) -> list[Path]:
    """Build every item sample's features afresh and keep them beside its files in
    ``<folder>/features`` (what :func:`load_sample` then reads instead of building them); the
    files. The item samples' files live in the bundled folder only: for another ``folder``
    (the ``samples`` command pointed elsewhere) nothing is built or written."""
    written = []
    for name in ITEM_SAMPLES:
        if folder == SAMPLE_DIR and (folder / f"{name}.csv").exists():
            digest = input_digest(name, ITEM_SAMPLES[name], folder, _item_images(name))
            written.append(save_features(name, digest, *build_item_features(name), folder))
    _item_features.cache_clear()
    return written


def _generate(name: str, split: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    if name in ITEM_SAMPLES:  # real items: the features are made from the bundled files
        X_pool, X_val, names, _ = _item_features(name, SAMPLE_DIR)
        y = _item_frame(name, split)["label"].to_numpy()
        return (X_pool if split == "pool" else X_val).copy(), y, list(names)
    val = split == "validation"
    if name == "spheres":
        X, y = make_spheres(seed=1 if val else 0)
    elif name == "circles":
        X, y = make_circles_imbalanced(**({"n_neg": 500, "n_pos": 500, "seed": 1} if val else {}))
    elif name == "two_moons":
        X, y = make_two_moons_imbalanced(**({"n_neg": 200, "n_pos": 200, "seed": 1} if val else {}))
    elif name == "digits123":
        X, y = _digits123(split)
        return X, y, [f"pixel_{r}_{c}" for r in range(8) for c in range(8)]
    elif name == "breast_cancer":
        X, y = _breast_cancer(split)
        from sklearn.datasets import load_breast_cancer  # here: see _breast_cancer

        return X, y, [str(f) for f in load_breast_cancer().feature_names]
    else:
        raise ValueError(f"unknown sample dataset {name!r}: choose one of {list_samples()}")
    return X.astype(np.float64), y, ["x1", "x2"]


def list_samples() -> list[str]:
    """Names of the bundled sample datasets (item samples only where their files are)."""
    return [*_META, *(k for k in ITEM_SAMPLES if (SAMPLE_DIR / f"{k}.csv").exists())]


def _item_sample_meta(name: str) -> dict:
    return copy.deepcopy(_item_sample_meta_cached(name, SAMPLE_DIR))


@lru_cache(maxsize=8)
def _item_sample_meta_cached(name: str, sample_dir: Path) -> dict:
    spec = ITEM_SAMPLES[name]
    _, _, _, summary = _item_features(name, SAMPLE_DIR)  # its "sigma" too
    y = _item_frame(name, "pool")["label"].to_numpy()
    classes, counts = np.unique(y, return_counts=True)
    meta = {"name": name, "image_shape": None, "class_names": None, **spec, **summary}
    meta["classes"] = classes.tolist()
    meta["class_counts"] = {str(c): int(k) for c, k in zip(classes, counts, strict=True)}
    meta["imbalance"] = round(float(counts.max() / counts.min()), 2)
    meta["n_pool"] = int(y.size)
    meta["n_validation"] = int(_item_frame(name, "validation").shape[0])
    return jsonable(meta)


def sample_meta(name: str) -> dict:
    """The metadata record of a sample dataset (without loading it)."""
    if name in ITEM_SAMPLES and name in list_samples():
        return _item_sample_meta(name)
    if name not in _META:
        raise ValueError(f"unknown sample dataset {name!r}: choose one of {list_samples()}")
    path = SAMPLE_DIR / f"{name}.json"
    if path.exists():
        return json.loads(path.read_text())
    meta = {"name": name, "image_shape": None, "class_names": None, **_META[name]}
    _, y, _ = _generate(name, "pool")
    classes, counts = np.unique(y, return_counts=True)
    meta["classes"] = classes.tolist()
    meta["class_counts"] = {str(c): int(k) for c, k in zip(classes, counts, strict=True)}
    meta["imbalance"] = round(float(counts.max() / counts.min()), 2)
    meta["n_pool"] = int(y.size)
    meta["n_validation"] = int(_generate(name, "validation")[1].size)
    return meta


def load_sample(name: str, split: str = "pool") -> Dataset:
    """Load a bundled sample dataset.

    Parameters
    ----------
    name
        One of :func:`list_samples`.
    split
        ``"pool"`` (the points to label) or ``"validation"`` (held out, same distribution;
        class-balanced for ``two_moons`` and ``circles``).
    """
    import pandas as pd

    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    meta = sample_meta(name)
    path = SAMPLE_DIR / (f"{name}.csv" if split == "pool" else f"{name}_validation.csv")
    if name in ITEM_SAMPLES:
        X, y, features = _generate(name, split)
    elif path.exists():
        df = pd.read_csv(path)
        y = df.pop("label").to_numpy()
        X, features = df.to_numpy(dtype=np.float64), list(df.columns)
    else:
        X, y, features = _generate(name, split)
    return Dataset(name=name, X=X, y=y, feature_names=features, meta=meta)


def write_samples(folder: Path = SAMPLE_DIR) -> None:
    """(Re)generate every generated sample dataset's CSV files and metadata into ``folder``
    (item samples have their own build scripts in ``sample_data/``)."""
    import pandas as pd

    folder.mkdir(parents=True, exist_ok=True)
    for name in _META:
        for split in SPLITS:
            X, y, features = _generate(name, split)
            df = pd.DataFrame(X, columns=features)
            df["label"] = y
            suffix = "" if split == "pool" else "_validation"
            df.to_csv(folder / f"{name}{suffix}.csv", index=False, float_format="%.17g")
        meta_path = folder / f"{name}.json"
        if meta_path.exists():
            meta_path.unlink()
        (folder / f"{name}.json").write_text(json.dumps(sample_meta(name), indent=2) + "\n")


def project_from_sample(name: str) -> Project:
    """A project holding a bundled sample dataset (pool split) with its truth and settings."""
    ds = load_sample(name, split="pool")
    meta = {k: v for k, v in dict(ds.meta).items() if k != "classes"}
    classes = ds.meta.get("classes") or sorted(set(np.asarray(ds.y).tolist()))
    meta.update({"source": f"sample:{name}", "standardized": False, "sample": name})
    items = []
    if name in ITEM_SAMPLES:
        spec = ITEM_SAMPLES[name]["items"]
        items = item_columns_from_table(
            _item_frame(name, "pool"),
            spec.get("text_columns"),
            spec.get("image_column"),
            spec.get("context_columns"),
        )
        meta.pop("items", None)
        if "image_column" in spec:
            meta["image_root"] = str(_image_root(name))
    return Project(
        name=name,
        X=ds.X,
        feature_names=list(ds.feature_names),
        ids=[str(i) for i in range(ds.X.shape[0])],
        truth=np.asarray(ds.y),
        classes=list(classes),
        meta=jsonable(meta),
        items=items,
    )


def ensure_sample_projects(store) -> None:
    """Create a project in ``store`` for every bundled sample dataset it does not hold yet.

    ``store`` is any :class:`~rlscore.storage.interface.label_store.LabelStore` (only
    ``list_projects`` and ``create_project`` are used).
    """
    existing = set(store.list_projects())
    for sample in list_samples():
        if sample not in existing:
            try:
                store.create_project(project_from_sample(sample))
            except ValueError:  # created meanwhile by another process
                if sample not in store.list_projects():
                    raise
