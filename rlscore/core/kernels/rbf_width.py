"""Data-adaptive RBF widths: the rule every RBF estimator applies when σ is not a number.

The RBF kernel is ``k(x, z) = exp(−‖x − z‖² / (2σ²))`` (docs/mathematics.md §1). A constant
default σ is a trap on unscaled data: on scikit-learn's digits 3 and 8 (pixel values 0–16,
median distance 41) σ = 1 makes the kernel matrix the identity to double precision (every
off-diagonal value below 3e-21). Two rules read σ off the data instead:

* ``"median"`` — the **median heuristic**: σ = the median Euclidean distance between two
  distinct points of ``X``, ``median_{i<j} ‖x_i − x_j‖``. Above :data:`EXACT_MAX_POINTS`
  points the median is taken over :data:`MEDIAN_PAIRS` random pairs drawn with a fixed seed
  (O(pairs · d) time and memory, not O(n²)); on 5000 Gaussian points in 10 dimensions the
  estimate was within 0.15 % of the exact median for 5 seeds. Coincident points (distance 0)
  are left out, so duplicates do not collapse σ; if every point coincides, σ = 1.
* ``"scale"`` — scikit-learn's ``gamma="scale"``: ``γ = 1 / (d · Var(X))`` with ``Var(X)``
  the variance of all entries of ``X``; as a width (``γ = 1/(2σ²)``)
  ``σ = √(d · Var(X) / 2)``. If ``Var(X) = 0``, σ = 1.

The estimators' default is ``"median"``: it is a distance between actual points (so it does
not depend on how the features are shifted against each other, and a few far outliers barely
move it), it is the rule issue 21 measured (digits 3-vs-8 with Graph-OCL: 54 % labeled right
at σ = 1, 97.5 % at the median distance; ``tests/test_kernel_width.py`` checks ≥ 95 %), and it
errs on the wide side, where an RBF kernel degrades gracefully towards a low-degree
polynomial, while a width far too small turns the kernel into the identity. ``"scale"`` is
offered for parity with scikit-learn; it gives a smaller width (about half the
root-mean-square distance: on the bundled samples 0.55–0.76 times the median rule's).

Who uses it: :class:`~rlscore.core.klr.classifier.KernelLogisticRegression`,
:class:`~rlscore.core.graph.ocl.GraphOCL`,
:class:`~rlscore.core.classifiers.specified_error.SpecifiedErrorClassifier`,
:class:`~rlscore.core.kernels.lowrank.LowRankKernel` and
:class:`~rlscore.core.rls.reduced.ReducedRLSClassifier` default to ``"median"`` and keep the width
in ``sigma_``; :class:`~rlscore.core.rls.classifier.RLSClassifier` takes both rules but keeps σ = 1
by default, because its sample weights promise that a weight of 0 equals leaving the point out (a
width read off every row of ``X`` would break that). A new project in the app starts at its pool's
median width unless its meta recommends one (:func:`rlscore.sessions.state.settings.pool_sigma`).

Both rules are invariant in the sense that matters: scaling ``X`` by ``c`` scales σ by ``c``,
so the kernel matrix is unchanged.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from rlscore.core.conventions.input_validation import check_matrix, check_positive
from rlscore.core.kernels.functions import check_sigma

__all__ = [
    "DEFAULT_SIGMA",
    "check_width",
    "EXACT_MAX_POINTS",
    "MEDIAN_PAIRS",
    "SIGMA_RULES",
    "median_sigma",
    "fitted_sigma",
    "resolve_sigma",
    "scale_sigma",
]

#: the data-adaptive rules accepted wherever an RBF width σ is
SIGMA_RULES = ("median", "scale")
#: the default σ of every RBF estimator (see the module's docstring for why)
DEFAULT_SIGMA = "median"
#: up to this many points the median runs over every pair exactly (n(n−1)/2 ≈ 500 000 pairs,
#: 4 MB of distances)
EXACT_MAX_POINTS = 1000
#: above :data:`EXACT_MAX_POINTS`, the number of random pairs the median is estimated on
MEDIAN_PAIRS = 100_000


def _fallback(width: float) -> float:
    # coincident points or constant data: no scale to read off, keep the historic σ = 1
    return float(width) if math.isfinite(width) and width > 0 else 1.0


def median_sigma(X, *, max_pairs: int = MEDIAN_PAIRS, random_state: int = 0) -> float:
    """The median heuristic: the median distance between two distinct points of ``X``.

    Parameters
    ----------
    X
        (n, d) points, n ≥ 2.
    max_pairs
        Above :data:`EXACT_MAX_POINTS` points, the median of this many random pairs
        ``(i, j)``, ``i ≠ j``.
    random_state
        Seed of the random pairs (fixed, so the width of a pool never changes).

    Returns
    -------
    float
        σ > 0 (1.0 when all points coincide).
    """
    X = check_matrix(X, "X", min_samples=2)
    n = X.shape[0]
    if n <= EXACT_MAX_POINTS:
        # scipy's pdist takes differences (no |x|² + |z|² − 2x·z cancellation), so
        # coincident points come out exactly 0; imported here: scipy.spatial costs 0.3 s of
        # import that a page with a fixed σ never needs
        from scipy.spatial.distance import pdist

        d2 = pdist(X, "sqeuclidean")
    else:
        rng = np.random.default_rng(random_state)
        i = rng.integers(0, n, size=int(max_pairs))
        j = rng.integers(0, n - 1, size=int(max_pairs))
        j += j >= i  # a uniform j ≠ i
        diff = X[i] - X[j]
        d2 = np.einsum("ij,ij->i", diff, diff)
    d2 = d2[d2 > 0]
    # the median of the distances, not the root of the median of their squares: with an even
    # number of pairs the two differ (the mean of the two middle values)
    return _fallback(float(np.median(np.sqrt(d2)))) if d2.size else 1.0


def scale_sigma(X) -> float:
    """scikit-learn's ``gamma="scale"`` as a width: ``σ = √(d · Var(X) / 2)``.

    Parameters
    ----------
    X
        (n, d) points.

    Returns
    -------
    float
        σ > 0 (1.0 when every entry of ``X`` is the same).
    """
    X = check_matrix(X, "X")
    return _fallback(math.sqrt(X.shape[1] * float(X.var()) / 2.0))


def check_width(sigma) -> float | str:
    """``sigma`` as an estimator's parameter: a rule of :data:`SIGMA_RULES` (returned as is) or a
    number > 0 (as a float); anything else raises a ``ValueError`` naming the choices.

    The data-dependent lower bound of a number is
    :func:`~rlscore.core.kernels.functions.check_sigma`'s, checked by :func:`resolve_sigma` when the
    points are known.
    """
    if isinstance(sigma, str):
        if sigma in SIGMA_RULES:
            return sigma
        raise ValueError(
            f"sigma must be a positive number or one of {list(SIGMA_RULES)}, got {sigma!r}"
        )
    if isinstance(sigma, bool) or not isinstance(sigma, Real | np.number):
        raise ValueError(
            f"sigma must be a positive number or one of {list(SIGMA_RULES)}, got {sigma!r}"
        )
    return check_positive(sigma, "sigma")


def resolve_sigma(sigma, X) -> float:
    """The RBF width an estimator uses on the training points ``X``.

    Parameters
    ----------
    sigma
        A number σ > 0 (returned as a float, validated by
        :func:`~rlscore.core.kernels.functions.check_sigma`), or one of :data:`SIGMA_RULES`.
    X
        (n, d) training points (for a transductive estimator: the pool).

    Raises
    ------
    ValueError
        A σ that is neither a usable number nor a known rule.
    """
    sigma = check_width(sigma)
    if sigma == "median":
        return median_sigma(X)
    if sigma == "scale":
        return scale_sigma(X)
    return check_sigma(sigma, X)


def fitted_sigma(sigma, kernel: str, X) -> float | None:
    """An estimator's ``sigma_``: :func:`resolve_sigma` for the RBF kernel, None for the others
    (they have no width, and a rule is not worth computing for them)."""
    return resolve_sigma(sigma, X) if kernel == "rbf" else None
