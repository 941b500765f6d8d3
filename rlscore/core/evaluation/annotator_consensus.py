"""Several annotators per point: a consensus of their labels and a model, and each
annotator's estimated error rate (CROWDLAB-style).

CROWDLAB (Goh, Mueller & Northcutt 2022, *CROWDLAB: supervised learning to infer consensus
labels and quality scores for data with multiple annotators*) weighs each annotator's label and
a model's out-of-sample class probabilities by how much better than the trivial guess each is:

1. **Majority vote** ``c⁰`` (ties go to the class the model finds likelier).
2. On the points with ≥ 2 annotators, the **agreement** ``a_m`` of annotator ``m`` with the
   others: the share of the other annotators' labels equal to ``m``'s, pooled over ``m``'s
   points (an annotator who shares no point gets the mean of the others); ``P`` the mean share
   of a point's annotators that agree with ``c⁰``; ``e₀`` the error of always answering the
   most frequent class of ``c⁰``; ``e_M`` the model's error against ``c⁰``.
3. **Weights** ``w_m = max(1 − (1 − a_m)/e₀, ε)`` and
   ``w_M = max(1 − e_M/e₀, ε) · sqrt(mean annotators per point)``.
4. **Posterior** ``p_i(k) ∝ w_M p̂_i(k) + Σ_m w_m L_im(k)``, the weighted mean over the model
   and the point's annotators, with ``L_im(k) = P`` when ``y_im = k`` and
   ``(1 − P)/(K − 1)`` otherwise; the **consensus** is its argmax.

An annotator's **estimated error rate** is the share of their labels, on the points with ≥ 2
annotators, that differ from the consensus (docs/mathematics.md, "Which labels are probably
wrong"). Pure functions over class codes; the log is folded into them in
:mod:`rlscore.sessions.team.crowd_labels`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: marks "this annotator did not label this point" in a ratings matrix
MISSING = -1
#: the smallest weight (CROWDLAB's clipping): an annotator or model no better than the
#: trivial guess still counts a little, so a weighted mean is always defined
MIN_WEIGHT = 1e-6


@dataclass(frozen=True)
class Consensus:
    """The result of :func:`crowd_consensus`.

    Attributes
    ----------
    labels : numpy.ndarray
        (n,) consensus class codes.
    posterior : numpy.ndarray
        (n, K) consensus probabilities of each class.
    annotator_error : numpy.ndarray
        (M,) each annotator's estimated error rate (NaN: no point shared with another).
    annotator_points : numpy.ndarray
        (M,) the points with ≥ 2 annotators each annotator labeled (the rate's denominator).
    annotator_weight : numpy.ndarray
        (M,) the weights ``w_m``.
    model_weight : float
        The weight ``w_M``.
    """

    labels: np.ndarray
    posterior: np.ndarray
    annotator_error: np.ndarray
    annotator_points: np.ndarray
    annotator_weight: np.ndarray
    model_weight: float


def majority_vote(ratings: np.ndarray, model_probs: np.ndarray) -> np.ndarray:
    """The most frequent label of each point, ties to the class the model finds likelier.

    Parameters
    ----------
    ratings
        (n, M) class codes, :data:`MISSING` where an annotator did not label the point.
    model_probs
        (n, K) the model's class probabilities.
    """
    counts = vote_counts(ratings, model_probs.shape[1])
    top = counts == counts.max(axis=1, keepdims=True)
    return np.argmax(np.where(top, model_probs, -np.inf), axis=1)


def vote_counts(ratings: np.ndarray, n_classes: int) -> np.ndarray:
    """(n, K) how many annotators gave each class to each point."""
    ratings = np.asarray(ratings)
    return np.stack([(ratings == k).sum(axis=1) for k in range(n_classes)], axis=1)


def _check(ratings: np.ndarray, model_probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ratings = np.asarray(ratings, dtype=np.intp)
    model_probs = np.asarray(model_probs, dtype=np.float64)
    if ratings.ndim != 2 or model_probs.ndim != 2 or ratings.shape[0] != model_probs.shape[0]:
        raise ValueError(
            f"ratings must be (n, M) and model_probs (n, K): got {ratings.shape} and "
            f"{model_probs.shape}"
        )
    K = model_probs.shape[1]
    if K < 2 or ratings.min(initial=0) < MISSING or ratings.max(initial=0) >= K:
        raise ValueError(f"ratings must be class codes 0..{K - 1} or {MISSING} (missing)")
    n_i = (ratings != MISSING).sum(axis=1)
    if (n_i == 0).any():
        raise ValueError("every point needs at least one annotator's label")
    if not (n_i >= 2).any():
        raise ValueError("a consensus needs points labeled by at least two annotators")
    return ratings, model_probs


def annotator_agreement(ratings: np.ndarray) -> np.ndarray:
    """(M,) each annotator's agreement ``a_m`` with the other annotators of their points
    (module docstring, step 2)."""
    given = ratings != MISSING
    n_i = given.sum(axis=1)
    agree, pairs = np.zeros(ratings.shape[1]), np.zeros(ratings.shape[1])
    for m in range(ratings.shape[1]):
        mine = given[:, m] & (n_i >= 2)
        same = (ratings[mine] == ratings[mine, m][:, None]).sum(axis=1) - 1  # minus oneself
        agree[m], pairs[m] = same.sum(), (n_i[mine] - 1).sum()
    a = np.full(ratings.shape[1], np.nan)
    a[pairs > 0] = agree[pairs > 0] / pairs[pairs > 0]
    return np.where(np.isnan(a), np.nanmean(a), a)


def crowd_consensus(ratings: np.ndarray, model_probs: np.ndarray) -> Consensus:
    """The CROWDLAB-style consensus of several annotators and a model (module docstring).

    Parameters
    ----------
    ratings
        (n, M) class codes of M annotators on n points, :data:`MISSING` where an annotator
        did not label a point; every point has at least one label, and some at least two.
    model_probs
        (n, K) the model's out-of-sample class probabilities (rows summing to 1): a model
        that did not train on the point's labels (RLS's exact leave-one-out).

    Returns
    -------
    Consensus

    Raises
    ------
    ValueError
        Shapes that do not match, codes outside the classes, a point without a label, or no
        point with two.
    """
    ratings, model_probs = _check(ratings, model_probs)
    K = model_probs.shape[1]
    given = ratings != MISSING
    n_i = given.sum(axis=1)
    multi = n_i >= 2
    first = majority_vote(ratings, model_probs)
    P = float(np.mean((ratings[multi] == first[multi, None]).sum(axis=1) / n_i[multi]))
    mode = np.bincount(first[multi], minlength=K).argmax()
    e0 = max(float(np.mean(first[multi] != mode)), MIN_WEIGHT)
    a = annotator_agreement(ratings)
    w = np.maximum(1.0 - (1.0 - a) / e0, MIN_WEIGHT)
    e_model = float(np.mean(np.argmax(model_probs[multi], axis=1) != first[multi]))
    w_model = max(1.0 - e_model / e0, MIN_WEIGHT) * float(np.sqrt(np.mean(n_i)))
    # each annotator's likelihood of each class: P on their label, the rest shared evenly
    votes = np.stack([(ratings == k) for k in range(K)], axis=2)  # (n, M, K)
    L = np.where(votes, P, (1.0 - P) / (K - 1)) * given[:, :, None]
    weighted = w_model * model_probs + np.einsum("m,nmk->nk", w, L)
    posterior = weighted / (w_model + given @ w)[:, None]
    labels = np.argmax(posterior, axis=1)
    shared = given & multi[:, None]
    points = shared.sum(axis=0)
    wrong = (shared & (ratings != labels[:, None])).sum(axis=0)
    error = np.full(ratings.shape[1], np.nan)
    error[points > 0] = wrong[points > 0] / points[points > 0]
    return Consensus(labels, posterior, error, points, w, w_model)


__all__ = [
    "MISSING",
    "MIN_WEIGHT",
    "Consensus",
    "annotator_agreement",
    "crowd_consensus",
    "majority_vote",
    "vote_counts",
]
