"""The data sets and the protocol of the strategy benchmark (``benchmarks/strategies.py``).

**Data sets** (:data:`DATASETS`, each made offline with a fixed seed, :data:`DATA_SEED`):

============================  =====  ===  ==  ==============================================
name                              n    d   T  definition
============================  =====  ===  ==  ==============================================
``wine``                        178   13   3  scikit-learn's ``load_wine``
``iris``                        150    4   3  scikit-learn's ``load_iris``
``breast_cancer``               569   30   2  scikit-learn's ``load_breast_cancer``
``digits``                      600   64  10  scikit-learn's ``load_digits``, 60 of each digit
                                              (a fixed draw: the 10-class ARLS and A-optimal
                                              steps cost O(T² n²), too slow at all 1797 here)
``digits_358``                  539   64   3  all the digits 3, 5 and 8 (a hard triple)
``blobs9``                      600    2   9  Gaussian blobs, std 1.5, centres on a 3 × 3 grid
                                              of spacing 4 (:func:`blobs9`)
``moons_imbalanced``            405    2   2  two moons, noise 0.2, 360 : 45 (8 : 1)
``classification``             2000   20   2  ``make_classification`` with its defaults
``twonorm``                    1000   20   2  Breiman (1996): N(±a·1, I), a = 2/√20
``ringnorm``                   1000   20   2  Breiman (1996): N(0, 4I) vs N(a·1, I), a = 1/√20
``checkerboard``               1000    2   2  uniform on [0, 4)², label = parity of the 4 × 4
                                              tile, ``(⌊x₁⌋ + ⌊x₂⌋) mod 2``
============================  =====  ===  ==  ==============================================

Every loader returns the features standardised (zero mean, unit variance per column, over
the whole set: an unsupervised transform, the same for every strategy) and integer labels.

**Protocol** (:class:`Protocol`). For each seed ``s``: a stratified split holds out
``test_fraction`` of the points as the test set (``random_state=s``); the rest is the pool
(at most 1400 points here, so the n × n strategies run); ``init_per_class`` labels of each
class are drawn from the pool (``numpy.random.default_rng(s)``); then ``queries`` queries,
each answered with the true label. Test accuracy and balanced accuracy are measured after the
initial labels (step 0) and after each query (steps 1 … Q).

**AULC** (:func:`aulc`): the mean of the test-accuracy curve over the steps 0 … Q, i.e.
``(1/(Q+1)) Σ_{t=0}^{Q} acc_t`` (the area under the learning curve with the step axis scaled
to [0, 1], by the left-and-right rectangle rule on the Q + 1 measured points). The balanced
AULC is the same mean of the balanced-accuracy curve (mean per-class recall).

**Hyper-parameters** (:func:`median_sigma`, :data:`LAM`): the RBF width σ is the median
pairwise Euclidean distance between the pool points (the median heuristic, computed per
seed on that seed's pool) and λ = 0.1 in the project's convention ``(K + λI)c = y``; both are
the same for every strategy (``benchmarks/strategies.py`` states how the peers' models map
them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from scipy.spatial.distance import pdist
from sklearn.datasets import (
    load_breast_cancer,
    load_digits,
    load_iris,
    load_wine,
    make_blobs,
    make_classification,
    make_moons,
)
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

#: seed of every generated data set (the runs' seeds vary the split and the initial labels)
DATA_SEED = 0
#: the regularisation of every strategy, in the project's convention ``(K + λI) c = y``
LAM = 0.1

Dataset = tuple[np.ndarray, np.ndarray]


# -- generators (raw, not standardised) ------------------------------------------------------
def twonorm(n: int = 1000, d: int = 20, seed: int = DATA_SEED) -> Dataset:
    """Breiman's twonorm: half the points from N(a·1, I), half from N(−a·1, I), a = 2/√d.

    Breiman, L. (1996). *Bias, variance, and arcing classifiers*. Tech. report 460, UC
    Berkeley (d = 20). Class 0 has mean ``+a·1``, class 1 mean ``−a·1``.
    """
    rng = np.random.default_rng(seed)
    y = _halves(n)
    a = 2.0 / np.sqrt(d)
    X = rng.standard_normal((n, d)) + np.where(y == 0, a, -a)[:, None]
    return X, y


def ringnorm(n: int = 1000, d: int = 20, seed: int = DATA_SEED) -> Dataset:
    """Breiman's ringnorm: class 0 from N(0, 4I), class 1 from N(a·1, I), a = 1/√d (Breiman
    1996, d = 20); half the points in each class."""
    rng = np.random.default_rng(seed)
    y = _halves(n)
    a = 1.0 / np.sqrt(d)
    Z = rng.standard_normal((n, d))
    X = np.where(y[:, None] == 0, 2.0 * Z, Z + a)
    return X, y


def checkerboard(n: int = 1000, tiles: int = 4, seed: int = DATA_SEED) -> Dataset:
    """Points uniform on ``[0, tiles)²``; the label is the parity of the unit tile,
    ``(⌊x₁⌋ + ⌊x₂⌋) mod 2`` (a ``tiles`` × ``tiles`` checkerboard)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, float(tiles), size=(n, 2))
    y = np.floor(X).astype(np.int64).sum(axis=1) % 2
    return X, y


def imbalanced_moons(
    n_major: int = 360, n_minor: int = 45, noise: float = 0.2, seed: int = DATA_SEED
) -> Dataset:
    """Two moons with ``n_major`` points of class 0 (outer moon) and ``n_minor`` of class 1."""
    X, y = make_moons(n_samples=(n_major, n_minor), noise=noise, random_state=seed)
    return X, y.astype(np.int64)


#: centres of :func:`blobs9`: a 3 × 3 grid of spacing 4
BLOB_CENTRES = 4.0 * np.array([(i, j) for i in range(3) for j in range(3)], dtype=np.float64)


def blobs9(n: int = 600, std: float = 1.5, seed: int = DATA_SEED) -> Dataset:
    """Nine Gaussian classes with standard deviation ``std`` around :data:`BLOB_CENTRES`
    (neighbouring classes overlap: the centres are 4/1.5 ≈ 2.7 σ apart)."""
    X, y = make_blobs(n_samples=n, centers=BLOB_CENTRES, cluster_std=std, random_state=seed)
    return X, y.astype(np.int64)


def classification(n: int = 2000, seed: int = DATA_SEED) -> Dataset:
    """``make_classification`` with scikit-learn's defaults (20 features, 2 informative,
    2 redundant, 2 clusters per class, 1 % flipped labels)."""
    X, y = make_classification(n_samples=n, random_state=seed)
    return X, y.astype(np.int64)


def digits_subset(
    digits: tuple[int, ...] = (3, 5, 8), per_class: int | None = None, seed: int = DATA_SEED
) -> Dataset:
    """scikit-learn's digits restricted to ``digits`` (labels renumbered 0 … len − 1), all of
    their images or ``per_class`` of each drawn with ``default_rng(seed)``."""
    data = load_digits()
    rng = np.random.default_rng(seed)
    keep = []
    for c in digits:
        members = np.flatnonzero(data.target == c)
        keep.append(members if per_class is None else rng.choice(members, per_class, False))
    keep = np.sort(np.concatenate(keep))
    return data.data[keep], np.searchsorted(np.asarray(digits), data.target[keep])


def _halves(n: int) -> np.ndarray:
    """Labels 0 for the first ⌈n/2⌉ points and 1 for the rest."""
    return (np.arange(n) >= (n + 1) // 2).astype(np.int64)


def _sklearn(loader: Callable) -> Callable[[], Dataset]:
    def load() -> Dataset:
        data = loader()
        return data.data, data.target.astype(np.int64)

    return load


def _standardised(make: Callable[[], Dataset]) -> Callable[[], Dataset]:
    def load() -> Dataset:
        X, y = make()
        return StandardScaler().fit_transform(np.asarray(X, dtype=np.float64)), np.asarray(y)

    return load


#: name → loader returning (X standardised, y integer labels 0 … T − 1)
DATASETS: dict[str, Callable[[], Dataset]] = {
    "wine": _standardised(_sklearn(load_wine)),
    "iris": _standardised(_sklearn(load_iris)),
    "breast_cancer": _standardised(_sklearn(load_breast_cancer)),
    "digits_358": _standardised(digits_subset),
    "moons_imbalanced": _standardised(imbalanced_moons),
    "twonorm": _standardised(twonorm),
    "ringnorm": _standardised(ringnorm),
    "checkerboard": _standardised(checkerboard),
    "classification": _standardised(classification),
    "blobs9": _standardised(blobs9),
    "digits": _standardised(partial(digits_subset, tuple(range(10)), 60)),
}

#: issue 24 part 6: the tasks split into a development half (rules and defaults are chosen
#: on it) and a confirmation half (reported, never tuned on), fixed by name before any run of
#: benchmarks/stopping_rules.py; each half mixes real and synthetic, binary and multiclass
DEVELOPMENT_TASKS = ("wine", "breast_cancer", "digits_358", "twonorm", "checkerboard", "blobs9")
CONFIRMATION_TASKS = ("iris", "moons_imbalanced", "ringnorm", "classification", "digits")


# -- protocol --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Protocol:
    """The fixed protocol of every run (module docstring)."""

    queries: int = 40
    seeds: tuple[int, ...] = field(default_factory=lambda: tuple(range(10)))
    init_per_class: int = 2
    test_fraction: float = 0.3
    lam: float = LAM


@dataclass(frozen=True)
class Split:
    """One seed's pool, test set and initial labels."""

    X_pool: np.ndarray
    y_pool: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    init: np.ndarray  # pool indices of the initial labels
    sigma: float


def make_split(X: np.ndarray, y: np.ndarray, protocol: Protocol, seed: int) -> Split:
    """The pool, test set, initial labels and σ of run ``seed`` (module docstring)."""
    X_pool, X_test, y_pool, y_test = train_test_split(
        X, y, test_size=protocol.test_fraction, stratify=y, random_state=seed
    )
    init = initial_labels(y_pool, protocol.init_per_class, seed)
    return Split(X_pool, y_pool, X_test, y_test, init, median_sigma(X_pool))


def initial_labels(y: np.ndarray, per_class: int, seed: int) -> np.ndarray:
    """``per_class`` distinct pool indices of every class, drawn with ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    members = [np.flatnonzero(y == c) for c in np.unique(y)]
    return np.concatenate([rng.choice(m, size=per_class, replace=False) for m in members])


def median_sigma(X: np.ndarray) -> float:
    """The median heuristic: the median Euclidean distance between distinct points of ``X``."""
    return float(np.median(pdist(X)))


def aulc(curve) -> float:
    """Area under a learning curve: the mean of its values at steps 0 … Q (module docstring)."""
    curve = np.asarray(curve, dtype=np.float64)
    if curve.ndim != 1 or curve.size == 0:
        raise ValueError(f"a learning curve is a non-empty 1-D sequence, got shape {curve.shape}")
    return float(curve.mean())
