"""Error-rate guarantees of a fitted RLS classifier (Saketha Nath, ch. 2, docs/mathematics.md §8
(a), (b)): its class moments, certificate and the offsets meeting error-rate targets.

An RLS is linear in feature space, ``f(x) = wᵀφ(x) − b`` with ``w = Σ_j c_j φ(x_j)`` over its
training points (its dual coefficients) and ``b = −intercept``: the bounds of
:mod:`rlscore.core.classifiers.error_bounds` apply to it as they are.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from rlscore.core.classifiers.error_bounds import (
    DEFAULT_RIDGE,
    Certificate,
    Moments,
    OffsetInterval,
    ProjectedMoments,
    certificate,
    kernel_class_traces,
    linear_projected_moments,
    offset_interval,
    positive_mask,
    projected_moments,
)
from rlscore.core.kernels.functions import kernel_matrix

__all__ = ["rls_certificate", "rls_offset_interval", "rls_projected_moments"]


def _rls_column(clf, positive) -> tuple[int, object]:
    check_is_fitted(clf, "dual_coef_")
    classes = clf.classes_
    if classes.size == 2:
        if positive is not None and positive != classes[1]:
            raise ValueError(
                f"a binary RLS's positive class is {classes[1]!r} (f > 0), got {positive!r}"
            )
        return 0, classes[1]
    if positive is None:
        raise ValueError(
            f"a one-vs-all RLS has {classes.size} classifiers: name the positive class "
            f"(one of {list(classes)})"
        )
    hits = np.flatnonzero(classes == positive)
    if hits.size != 1:
        raise ValueError(f"positive {positive!r} is not one of the classes {list(classes)}")
    return int(hits[0]), positive


def rls_projected_moments(
    clf, X=None, y=None, *, positive=None, ridge: float = DEFAULT_RIDGE
) -> tuple[ProjectedMoments, float]:
    """Projected class moments of a fitted :class:`~rlscore.core.rls.classifier.RLSClassifier`.

    ``w = Σ_j c_j φ(x_j)`` over the RLS's training points (its dual coefficients), so
    ``f(x) = wᵀφ(x) − b`` with ``b = −intercept``. Linear kernel: ``w = X_fitᵀc`` explicitly
    (O(nd)); other kernels: §2.4's kernel quantities (:func:`projected_moments`).

    Parameters
    ----------
    clf
        A fitted RLSClassifier (binary, or one-vs-all with ``positive`` naming a class).
    X, y
        Labeled points to estimate the moments on; default the RLS's training set. Held-out
        labels give an honest certificate (training moments are optimistic, thesis §2.4 end).
    positive
        The class playing class 1 (binary: ``classes_[1]``, the default).
    ridge
        Relative ridge (:mod:`rlscore.core.classifiers.error_bounds`).

    Returns
    -------
    (ProjectedMoments, float)
        The moments and the RLS's offset ``b = −intercept``.
    """
    col, pos_label = _rls_column(clf, positive)
    n = clf.X_fit_.shape[0]
    c = np.asarray(clf.dual_coef_, dtype=np.float64).reshape(n, -1)[:, col]
    b = -float(np.asarray(clf.intercept_).ravel()[col])
    kw = {"kernel": clf.kernel, "sigma": clf.sigma, "degree": int(clf.degree)}
    if X is None:
        if y is not None:
            raise ValueError("pass X together with y")
        X, y = clf.X_fit_, clf.y_fit_
        same = True
    else:
        if y is None:
            raise ValueError("pass y together with X")
        X = np.asarray(X, dtype=np.float64)
        same = False
    # one-vs-all: class 1 is ``positive``, class 2 every other class
    y, pos_label = np.asarray(y) == pos_label, True
    if clf.kernel == "linear":
        pm = linear_projected_moments(X, y, clf.X_fit_.T @ c, pos_label=pos_label, ridge=ridge)
        return pm, b
    if clf.kernel == "precomputed":
        if not same:
            raise ValueError(
                "kernel='precomputed': certify on the training points (X=None), other points "
                "need their kernel among themselves"
            )
        return projected_moments(clf.X_fit_, y, c, pos_label=pos_label, ridge=ridge), b
    if same:
        K = kernel_matrix(clf.X_fit_, **kw)
        return projected_moments(K, y, c, pos_label=pos_label, ridge=ridge), b
    # moments of other points: their scores, ‖w‖² = cᵀKc, traces from their own kernel blocks
    pos = positive_mask(y, pos_label)
    K_fit = kernel_matrix(clf.X_fit_, **kw)
    scores = kernel_matrix(X, clf.X_fit_, **kw) @ c
    traces = kernel_class_traces(kernel_matrix(X, **kw), pos)
    return ProjectedMoments.from_scores(scores, pos, c @ K_fit @ c, traces, ridge), b


def rls_certificate(
    clf,
    X=None,
    y=None,
    *,
    positive=None,
    moments: Moments = "chebyshev",
    ridge: float = DEFAULT_RIDGE,
) -> Certificate:
    """Worst-case false-negative / false-positive rates of a fitted RLS (docs/mathematics.md §8
    (a)).

    Parameters
    ----------
    clf, X, y, positive, ridge
        As for :func:`rls_projected_moments`.
    moments
        ``"chebyshev"`` (any distribution) or ``"gaussian"``.
    """
    pm, b = rls_projected_moments(clf, X, y, positive=positive, ridge=ridge)
    return certificate(pm, b, moments)


def rls_offset_interval(
    clf,
    eta,
    X=None,
    y=None,
    *,
    positive=None,
    moments: Moments = "chebyshev",
    ridge: float = DEFAULT_RIDGE,
) -> OffsetInterval:
    """Offsets b (``f = k(x, X)c − b``) meeting the targets ``eta`` for a fitted RLS.

    ``interval.intercepts()`` gives the same interval for the RLS's ``intercept_``.

    Parameters
    ----------
    clf, X, y, positive, ridge
        As for :func:`rls_projected_moments`.
    eta
        ``(η₁, η₂)``: the false-negative and false-positive targets.
    moments
        ``"chebyshev"`` or ``"gaussian"``.
    """
    pm, _ = rls_projected_moments(clf, X, y, positive=positive, ridge=ridge)
    return offset_interval(pm, eta, moments)
