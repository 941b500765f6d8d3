"""The consensus of several annotators and a model (issue 37, item 2): against a
loop-by-loop computation of the documented formulas on tiny examples, and a simulation where
one annotator flips 30 % of the labels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from rlscore.core.evaluation.annotator_consensus import (
    MIN_WEIGHT,
    MISSING,
    crowd_consensus,
    majority_vote,
)


def reference(ratings: list[list[int]], probs: list[list[float]]) -> dict:
    """docs/mathematics.md's formulas, one point and one annotator at a time."""
    n, M, K = len(ratings), len(ratings[0]), len(probs[0])
    given = [[m for m in range(M) if ratings[i][m] != MISSING] for i in range(n)]
    first = []
    for i in range(n):
        counts = [sum(ratings[i][m] == k for m in given[i]) for k in range(K)]
        tied = [k for k in range(K) if counts[k] == max(counts)]
        first.append(max(tied, key=lambda k: probs[i][k]))
    multi = [i for i in range(n) if len(given[i]) >= 2]
    P = sum(sum(ratings[i][m] == first[i] for m in given[i]) / len(given[i]) for i in multi)
    P /= len(multi)
    mode = max(range(K), key=lambda k: (sum(first[i] == k for i in multi), -k))
    e0 = max(sum(first[i] != mode for i in multi) / len(multi), MIN_WEIGHT)
    agreement = []
    for m in range(M):
        same = pairs = 0
        for i in multi:
            if m in given[i]:
                others = [o for o in given[i] if o != m]
                same += sum(ratings[i][o] == ratings[i][m] for o in others)
                pairs += len(others)
        agreement.append(same / pairs if pairs else None)
    known = [a for a in agreement if a is not None]
    agreement = [sum(known) / len(known) if a is None else a for a in agreement]
    w = [max(1 - (1 - a) / e0, MIN_WEIGHT) for a in agreement]
    e_model = sum(max(range(K), key=lambda k: probs[i][k]) != first[i] for i in multi)
    mean_n = sum(len(g) for g in given) / n
    w_model = max(1 - e_model / len(multi) / e0, MIN_WEIGHT) * math.sqrt(mean_n)
    posterior = []
    for i in range(n):
        row = []
        for k in range(K):
            total = w_model * probs[i][k]
            for m in given[i]:
                total += w[m] * (P if ratings[i][m] == k else (1 - P) / (K - 1))
            row.append(total / (w_model + sum(w[m] for m in given[i])))
        posterior.append(row)
    labels = [max(range(K), key=lambda k: posterior[i][k]) for i in range(n)]
    error = []
    for m in range(M):
        mine = [i for i in multi if m in given[i]]
        error.append(sum(ratings[i][m] != labels[i] for i in mine) / len(mine) if mine else None)
    return dict(labels=labels, posterior=posterior, error=error, w=w, w_model=w_model)


@pytest.mark.parametrize("seed", range(6))
def test_the_consensus_equals_the_formulas_computed_point_by_point(seed):
    rng = np.random.default_rng(seed)
    n, M, K = 9, 4, 2 + seed % 2
    ratings = rng.integers(0, K, size=(n, M))
    ratings[rng.random((n, M)) < 0.45] = MISSING
    ratings[np.arange(n), rng.integers(0, M, n)] = rng.integers(0, K, n)  # ≥ 1 label each
    ratings[0, :2] = [0, 1 % K]  # ≥ 1 point with two labels
    probs = rng.dirichlet(np.ones(K), size=n)
    got = crowd_consensus(ratings, probs)
    want = reference(ratings.tolist(), probs.tolist())
    np.testing.assert_allclose(got.posterior, want["posterior"], rtol=0, atol=1e-12)
    assert got.labels.tolist() == want["labels"]
    np.testing.assert_allclose(got.annotator_weight, want["w"], rtol=0, atol=1e-12)
    assert got.model_weight == pytest.approx(want["w_model"], abs=1e-12)
    expected_error = [np.nan if e is None else e for e in want["error"]]
    np.testing.assert_allclose(got.annotator_error, expected_error, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.posterior.sum(axis=1), 1.0, atol=1e-12)


def test_a_tie_goes_to_the_class_the_model_finds_likelier():
    ratings = np.array([[0, 1], [1, 0], [0, 0]])
    probs = np.array([[0.3, 0.7], [0.8, 0.2], [0.1, 0.9]])
    assert majority_vote(ratings, probs).tolist() == [1, 0, 0]


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="at least two annotators"):
        crowd_consensus(np.array([[0, MISSING], [MISSING, 1]]), np.full((2, 2), 0.5))
    with pytest.raises(ValueError, match="class codes"):
        crowd_consensus(np.array([[0, 2]]), np.full((1, 2), 0.5))
    with pytest.raises(ValueError, match="at least one"):
        crowd_consensus(np.array([[0, 1], [MISSING, MISSING]]), np.full((2, 2), 0.5))


def _simulate(seed: int, n: int = 600, flips=(0.05, 0.05, 0.05, 0.30)):
    """Three annotators of ``n`` binary points each, drawn from four whose error rates are
    ``flips``; a model right 80 % of the time with probability 0.7 on its class."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n)
    ratings = np.full((n, len(flips)), MISSING)
    for i in range(n):
        for m in rng.choice(len(flips), 3, replace=False):
            ratings[i, m] = truth[i] ^ (rng.random() < flips[m])
    predicted = truth ^ (rng.random(n) < 0.2)
    probs = np.where(predicted[:, None] == np.arange(2), 0.7, 0.3)
    return truth, ratings, probs


def test_the_annotator_flipping_30_percent_is_found_the_worst_and_the_consensus_helps():
    better = []
    for seed in range(10):
        truth, ratings, probs = _simulate(seed)
        got = crowd_consensus(ratings, probs)
        assert np.argmax(got.annotator_error) == 3
        # the estimate (against the consensus) is near each one's error against the truth
        on = ratings != MISSING
        realised = [np.mean(ratings[on[:, m], m] != truth[on[:, m]]) for m in range(4)]
        np.testing.assert_allclose(got.annotator_error, realised, rtol=0, atol=0.03)
        assert np.argmin(got.annotator_weight) == 3
        majority = majority_vote(ratings, probs)
        better.append(np.mean(got.labels == truth) - np.mean(majority == truth))
    # weighing the careless annotator down is at least as accurate as the majority vote
    assert np.mean(better) >= 0.0 and min(better) > -0.01, better
