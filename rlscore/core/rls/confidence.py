"""Confidence estimates for RLS outputs and the data behind a reliability histogram.

Paskov §3.2 (docs/mathematics.md §4) gives three estimates of how sure a one-vs-all (OvA) RLS
prediction is:

* **soft** — ``p̂ = clip((f + 1)/2, 0, 1)`` of the winning OvA classifier (eq. 3.36, with the
  thesis's ``(f − 1)/2`` typo corrected);
* **gap** — ``p̂^α − p̂^β``, the winner's soft score minus the runner-up's (eq. 3.37);
* **bayes** — RLS read as a Gaussian process: each OvA output is ``N(μ_t, σ_t²)`` with
  ``μ_t = f_t(x)`` and ``σ_t² = k(x,x) + λ − k(x,X)(K + λA_t⁻¹)⁻¹k(X,x)`` (eqs. 3.39–3.43).
  Binary: ``P(+1) = Φ(μ/σ)``; multiclass: ``P(i wins) = ∫ N(u; μ_i, σ_i²) Π_{j≠i}
  Φ((u − μ_j)/σ_j) du``, a 1-D integral computed by composite Gauss–Legendre quadrature.

Conventions: a *binary* problem is represented by one decision vector ``f`` of shape (n,)
(positive = the second class); its OvA equivalent is the pair ``(−f, f)``, so every function
here accepts either ``(n,)`` binary scores or ``(n, T)`` OvA scores and returns per-class
arrays of shape ``(n, 2)`` or ``(n, T)``. A confidence is always the confidence *in the
predicted label* (argmax of the scores), a number in ``[0, 1]``.

The Gaussian-process variances themselves come from
:class:`rlscore.core.rls.classifier.RLSClassifier`
(:meth:`~rlscore.core.rls.classifier.RLSClassifier.predictive_variance`, and ``loo_variance_`` for
the leave-one-out version used by :func:`loo_reliability`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

METHODS = ("soft", "gap", "bayes")
Method = Literal["soft", "gap", "bayes"]


class LOOFitted(Protocol):
    """What :func:`loo_confidence` reads from a fitted classifier (a fitted
    :class:`rlscore.core.rls.classifier.RLSClassifier` has it; described here so that this module
    does not
    import the classifier)."""

    #: (T,) class labels
    classes_: np.ndarray
    #: (n,) training labels
    y_fit_: np.ndarray
    #: exact leave-one-out decision values, (n,) binary or (n, T)
    loo_decision_: np.ndarray
    #: their Gaussian-process variances, same shape
    loo_variance_: np.ndarray


def _scores(F) -> np.ndarray:
    F = np.asarray(F, dtype=np.float64)
    if F.ndim not in (1, 2):
        raise ValueError(f"scores must be 1-D (binary) or 2-D (n, T), got shape {F.shape}")
    if not np.all(np.isfinite(F)):
        raise ValueError("scores contain NaN or infinite values")
    return F


def soft_scores(F) -> np.ndarray:
    """Clipped soft scores ``clip((f + 1)/2, 0, 1)`` per OvA classifier, shape (n, T).

    For binary ``f`` the two columns are ``1 − p̂`` and ``p̂`` with ``p̂ = clip((f + 1)/2, 0, 1)``.
    """
    # in place (binary f as the two OvA columns [−f, f]), the same values as np.clip((F + 1)/2,
    # 0, 1) (F is finite), a few times faster at small n, where the lookahead of every ARLS
    # query calls it
    F = _scores(F)
    if F.ndim == 1:
        P = np.empty((F.shape[0], 2))
        np.subtract(1.0, F, out=P[:, 0])  # −f + 1
        np.add(F, 1.0, out=P[:, 1])
    else:
        P = F + 1.0  # a new array: F may be the caller's
    P *= 0.5
    np.maximum(P, 0.0, out=P)
    return np.minimum(P, 1.0, out=P)


def soft_probabilities(F) -> np.ndarray:
    """Clipped soft scores normalised to sum 1 per row (uniform where every score is 0).

    This is :meth:`RLSClassifier.predict_proba
    <rlscore.core.rls.classifier.RLSClassifier.predict_proba>`; binary rows are ``[1 − p̂, p̂]``
    already.
    """
    P = soft_scores(F)
    if P.shape[1] < _FEW_COLUMNS:
        # a few classes: the row sums column by column, in the order numpy sums a row this
        # short (the same values), several times faster than a reduction along a short axis
        total = P[:, 0].copy()
        for t in range(1, P.shape[1]):
            total += P[:, t]
        total = total[:, None]
    else:
        total = P.sum(axis=1, keepdims=True)
    if (total > 0).all():
        P /= total
        return P
    uniform = np.full_like(P, 1.0 / P.shape[1])
    return np.divide(P, total, out=uniform, where=total > 0)


#: below this many columns a row-wise sum or maximum runs column by column: numpy's reduction
#: along a short axis costs about ten times more (36 ms against 3 ms for 10⁶ × 2 values; its
#: ``argmax`` has no such cost)
_FEW_COLUMNS = 8


def predicted_index(F) -> np.ndarray:
    """Index of the predicted class: ``f > 0`` for binary ``f``, the argmax for OvA scores."""
    F = _scores(F)
    return (F > 0).astype(np.intp) if F.ndim == 1 else np.argmax(F, axis=1)


def top_probability(P) -> np.ndarray:
    """Each row's largest class probability, (n,): the confidence a pool plot tints by.

    ``P.max(axis=1)``, column by column for a few classes (the same values, about ten times
    faster on a pool of 10⁶ points, where the Label page computes it at every label).
    """
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2 or P.shape[1] == 0:
        raise ValueError(f"probabilities must be 2-D (n, T) with T ≥ 1, got shape {P.shape}")
    if P.shape[1] >= _FEW_COLUMNS:
        return P.max(axis=1)
    top = P[:, 0].copy()
    for t in range(1, P.shape[1]):
        np.maximum(top, P[:, t], out=top)
    return top


def margin(F) -> np.ndarray:
    """Distance to the decision boundary, (n,).

    ``|f(x)|`` for binary decision values (n,), or the gap between the two largest
    one-vs-all values ``f_(1)(x) − f_(2)(x)`` for (n, T) values (twice the binary margin
    when T = 2).
    """
    F = np.asarray(F, dtype=np.float64)
    if F.ndim == 1:
        return np.abs(F)
    top = np.sort(F, axis=1)
    return top[:, -1] - top[:, -2]


def soft_confidence(F) -> np.ndarray:
    """Soft confidence (Paskov eq. 3.36): the clipped soft score of the predicted class."""
    P = soft_scores(F)
    return P[np.arange(P.shape[0]), predicted_index(F)]


def gap_confidence(F) -> np.ndarray:
    """Gap confidence (Paskov eq. 3.37): winner's soft score minus the runner-up's.

    For binary ``f`` this is ``min(|f|, 1)``.
    """
    top2 = np.sort(soft_scores(F), axis=1)[:, -2:]
    return top2[:, 1] - top2[:, 0]


def _mean_and_std(mean, variance) -> tuple[np.ndarray, np.ndarray]:
    mu = _scores(mean)
    var = np.asarray(variance, dtype=np.float64)
    if var.ndim == 1 and mu.ndim == 2:
        var = np.broadcast_to(var[:, None], mu.shape)
    if var.shape != mu.shape:
        raise ValueError(f"variance has shape {var.shape} but the means have shape {mu.shape}")
    if not np.all(np.isfinite(var)) or np.any(var <= 0):
        raise ValueError("predictive variances must be finite and > 0")
    return mu, np.sqrt(var)


# Panel breakpoints at μ_j + k·σ_j for every class j: each panel is narrower than the scale on
# which any factor of the integrand changes, so a few Gauss–Legendre nodes per panel are exact
# to ~1e-9 even when the variances differ by orders of magnitude. (Plain Gauss–Hermite around
# μ_i alone loses ~1e-2 when some σ_j is 10× smaller than σ_i: the factor Φ((u − μ_j)/σ_j) is
# then a step between its nodes.) Beyond ±9σ the Gaussian mass is below 1e-18.
_PANEL_OFFSETS = np.array([-9, -6, -4.5, -3, -2, -1, -0.5, 0, 0.5, 1, 2, 3, 4.5, 6, 9])


def bayes_probabilities(mean, variance, *, n_nodes: int = 6) -> np.ndarray:
    """Gaussian-process class probabilities (Paskov eqs. 3.41, 3.43), shape (n, T).

    Parameters
    ----------
    mean
        ``μ``: binary decision values (n,) or OvA decision values (n, T).
    variance
        ``σ²`` of the same shape (per OvA classifier; (n,) is broadcast over the classes).
    n_nodes
        Gauss–Legendre nodes per panel of the multiclass integral (composite rule with panel
        breaks at ``μ_j + kσ_j``, k ∈ {0, ±0.5, ±1, ±2, ±3, ±4.5, ±6, ±9}, for every class).

    Returns
    -------
    numpy.ndarray
        Binary: ``[1 − Φ(μ/σ), Φ(μ/σ)]``. Multiclass: ``P(i wins) = ∫ N(u; μ_i, σ_i²)
        Π_{j≠i} Φ((u − μ_j)/σ_j) du`` with the OvA outputs independent (eq. 3.42). The
        integrals are accurate to ~1e-9 and rows are renormalised to sum exactly 1.
    """
    # imported here: the app's first page needs no scipy.special (0.03 s of CPU after scipy.linalg)
    from scipy.special import log_ndtr, ndtr

    mu, sd = _mean_and_std(mean, variance)
    if mu.ndim == 1:
        p = ndtr(mu / sd)
        return np.column_stack([1.0 - p, p])
    n, T = mu.shape
    x, wx = np.polynomial.legendre.leggauss(int(n_nodes))
    out = np.empty((n, T))
    n_points = (T * _PANEL_OFFSETS.size - 1) * x.size
    step = max(1, int(2e6 // (T * n_points)))  # rows per chunk: arrays of ~16 MB
    for s in range(0, n, step):
        m, d = mu[s : s + step], sd[s : s + step]
        r = m.shape[0]
        brk = np.sort((m[:, :, None] + d[:, :, None] * _PANEL_OFFSETS).reshape(r, -1), axis=1)
        half = 0.5 * np.diff(brk, axis=1)  # (r, panels); zero-width panels weigh nothing
        mid = 0.5 * (brk[:, 1:] + brk[:, :-1])
        u = (mid[:, :, None] + half[:, :, None] * x).reshape(r, -1)  # (r, nodes)
        wu = (half[:, :, None] * wx).reshape(r, -1)
        z = (u[:, None, :] - m[:, :, None]) / d[:, :, None]  # (r, T, nodes)
        logphi = log_ndtr(z)
        # density of class i times Π_{j≠i} Φ_j = exp(Σ_j log Φ_j − log Φ_i)
        log_rest = logphi.sum(axis=1, keepdims=True) - logphi
        dens = np.exp(-0.5 * z * z + log_rest) / (np.sqrt(2.0 * np.pi) * d[:, :, None])
        out[s : s + step] = np.einsum("rtk,rk->rt", dens, wu)
    return out / out.sum(axis=1, keepdims=True)


def bayes_confidence(mean, variance, *, n_nodes: int = 6) -> np.ndarray:
    """Bayes confidence: the Gaussian-process probability of the predicted class (argmax of μ)."""
    P = bayes_probabilities(mean, variance, n_nodes=n_nodes)
    return P[np.arange(P.shape[0]), predicted_index(mean)]


def confidence_scores(F, method: Method = "soft", variance=None) -> np.ndarray:
    """Confidence in the predicted label by ``method`` (``"soft"``, ``"gap"`` or ``"bayes"``).

    ``variance`` (same shape as ``F``) is required for ``"bayes"`` and ignored otherwise.
    """
    if method == "soft":
        return soft_confidence(F)
    if method == "gap":
        return gap_confidence(F)
    if method == "bayes":
        if variance is None:
            raise ValueError("method='bayes' needs the predictive variances")
        return bayes_confidence(F, variance)
    raise ValueError(f"unknown confidence method {method!r}: choose one of {METHODS}")


def reliability_table(confidence, correct, bins: int = 10) -> pd.DataFrame:
    """The data behind a reliability histogram (Paskov figs. 4-4, 4-5).

    Parameters
    ----------
    confidence
        (n,) confidences in ``[0, 1]``.
    correct
        (n,) booleans: was the prediction right?
    bins
        Number of equal-width bins over ``[0, 1]``; the last bin includes 1.

    Returns
    -------
    pandas.DataFrame
        One row per bin: ``bin_left``, ``bin_right``, ``count``, ``n_correct``, ``accuracy``
        (NaN for empty bins) and ``mean_confidence`` (NaN for empty bins). The property wanted
        is accuracy increasing with confidence.
    """
    import pandas as pd  # here: only the table needs it, not the app's predictions

    conf = np.asarray(confidence, dtype=np.float64).ravel()
    ok = np.asarray(correct).ravel()
    if conf.shape != ok.shape:
        raise ValueError(f"confidence has {conf.size} values but correct has {ok.size}")
    if not np.all(np.isfinite(conf)) or np.any((conf < 0) | (conf > 1)):
        raise ValueError("confidence values must lie in [0, 1]")
    if isinstance(bins, bool) or int(bins) != bins or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    bins = int(bins)
    edges = np.linspace(0.0, 1.0, bins + 1)
    idx = np.minimum((conf * bins).astype(np.intp), bins - 1)
    count = np.bincount(idx, minlength=bins)
    n_ok = np.bincount(idx, weights=ok.astype(np.float64), minlength=bins)
    conf_sum = np.bincount(idx, weights=conf, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(count > 0, n_ok / count, np.nan)
        mean_conf = np.where(count > 0, conf_sum / count, np.nan)
    return pd.DataFrame(
        {
            "bin_left": edges[:-1],
            "bin_right": edges[1:],
            "count": count,
            "n_correct": n_ok.astype(np.int64),
            "accuracy": accuracy,
            "mean_confidence": mean_conf,
        }
    )


def loo_confidence(
    clf: LOOFitted, y=None, method: Method = "soft"
) -> tuple[np.ndarray, np.ndarray]:
    """Leave-one-out confidence and correctness on the training points of a fitted classifier.

    Every training point is judged by the classifier trained on the *other* n − 1 points
    (same λ, balanced class weights recounted on them), using the exact LOO decision values
    ``clf.loo_decision_``: an honest reliability check that needs no held-out data.

    Parameters
    ----------
    clf
        A fitted :class:`rlscore.core.rls.classifier.RLSClassifier`, or any object with its
        ``classes_``, ``y_fit_``, ``loo_decision_`` and ``loo_variance_`` (:class:`LOOFitted`).
    y
        The training labels; default: the labels ``clf`` was fitted on.
    method
        ``"soft"`` or ``"gap"`` use the LOO decision values. ``"bayes"`` uses the LOO decision
        values as means and ``clf.loo_variance_`` as variances: the Gaussian-process predictive
        variance at ``x_i`` of the model trained without point i (exact, from the same
        eigendecomposition; noise term λ as in docs/mathematics.md §4).

    Returns
    -------
    (confidence, correct)
        Two (n,) arrays: the confidence in the LOO prediction and whether it equals ``y``.
    """
    F = clf.loo_decision_
    labels = clf.classes_[predicted_index(F)]
    y_true = clf.y_fit_ if y is None else np.asarray(y)
    if y_true.shape != (F.shape[0],):
        raise ValueError(f"y has shape {y_true.shape}; expected ({F.shape[0]},) training labels")
    var = clf.loo_variance_ if method == "bayes" else None
    return confidence_scores(F, method, var), labels == y_true


def loo_reliability(
    clf: LOOFitted, y=None, method: Method = "soft", bins: int = 10
) -> pd.DataFrame:
    """Reliability table of the exact leave-one-out predictions (see :func:`loo_confidence`).

    This is what the app's Tune page draws for the labeled points.
    """
    conf, ok = loo_confidence(clf, y, method)
    return reliability_table(conf, ok, bins=bins)
