"""Graph-OCL (Sheng §3.5) against a brute-force reading of the thesis's rule.

The brute force shares no code with the engine: a kNN graph from sorted distances, ``S = D⁻¹W``
and the propagation ``F(t+1) = αSF(t) + (1 − α)Y`` of Sheng eq. 3.2 run to convergence in
100-digit decimal arithmetic (at α = 0.001 the ``F*`` of points m hops from every label differ
by about α^m, below double precision beyond ~5 hops), then §3.5.2 word for word: "select those
samples whose F*_{i2} is greater than the highest F*_{i2} of the spy samples … if R is not less
than l, only the l samples with the highest F*_{i2} are kept".
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.graph_ocl import brute_cosine, brute_knn, brute_negatives

from rlscore.core.graph.ocl import GraphOCL, spy_count


def _two_blobs(n_pos=60, n_neg=60, d=2, gap=3.0, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n_pos, d)), rng.normal(size=(n_neg, d)) + gap])
    truth = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
    return X, truth


def _label(truth, fraction=0.2, seed=0):
    rng = np.random.default_rng(seed + 100)
    pos = np.flatnonzero(truth)
    mask = np.zeros(truth.size, bool)
    mask[rng.choice(pos, max(2, int(fraction * pos.size)), replace=False)] = True
    return mask


@pytest.mark.parametrize("alpha", [0.001, 0.1, 0.6])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("spy_fraction", [0.1, 0.3])
def test_reliable_negatives_equal_the_brute_force_rule(alpha, seed, spy_fraction):
    X, truth = _two_blobs(seed=seed, gap=2.5)
    mask = _label(truth, 0.25, seed)
    model = GraphOCL(
        n_neighbors=6, alpha=alpha, spy_fraction=spy_fraction, kernel="linear", random_state=seed
    ).fit(X, mask)
    positives = np.flatnonzero(mask)
    assert model.spies_.size == spy_count(positives.size, spy_fraction)
    assert set(model.spies_) <= set(positives)
    W = brute_knn(X, 6)
    np.testing.assert_array_equal(model.affinity_.toarray(), W)
    kept, n_above, F2 = brute_negatives(W, positives, model.spies_, alpha)
    assert model.n_below_spies_ == n_above
    # same points in the same order (most negative first)
    np.testing.assert_array_equal(model.reliable_negatives_, kept)
    assert 0 < kept.size <= positives.size
    # the engine's scores order the pool as F*_{i1} = 1 − F*_{i2}
    hidden = np.setdiff1d(np.arange(len(X)), np.setdiff1d(positives, model.spies_))
    by_engine = hidden[np.lexsort((hidden, model.ranking_scores_[hidden]))]
    by_decimal = sorted(hidden.tolist(), key=lambda i: -F2[i])
    np.testing.assert_array_equal(by_engine, by_decimal)


def test_reliable_negatives_with_the_thesis_cosine_affinity():
    # affinity="kernel" with the linear kernel: W is the cosine similarity (eqs. 3.42, 3.46)
    rng = np.random.default_rng(3)
    topics = np.abs(rng.normal(size=(2, 30)))
    X = np.vstack([rng.poisson(2 * topics[t] + 0.2, size=(40, 30)) for t in (0, 1)]) + 0.0
    truth = np.r_[np.ones(40, bool), np.zeros(40, bool)]
    mask = _label(truth, 0.25, 3)
    model = GraphOCL(affinity="kernel", kernel="linear", random_state=0).fit(X, mask)
    W = brute_cosine(X)
    np.testing.assert_allclose(model.affinity_.toarray(), W, atol=1e-12)
    kept, n_above, _ = brute_negatives(W, np.flatnonzero(mask), model.spies_, 0.001)
    assert model.n_below_spies_ == n_above
    np.testing.assert_array_equal(model.reliable_negatives_, kept)
    assert truth[model.reliable_negatives_].mean() < 0.2  # mostly true negatives


def test_the_cap_keeps_the_l_lowest_and_the_second_pass():
    # far apart blobs: many points rank below every spy, the cap l binds
    X, truth = _two_blobs(n_pos=50, n_neg=80, gap=8.0, seed=4)
    mask = _label(truth, 0.1, 4)
    model = GraphOCL(n_neighbors=5, kernel="linear", random_state=1).fit(X, mask)
    l = int(mask.sum())
    assert model.n_below_spies_ > l
    assert model.reliable_negatives_.size == l
    assert not truth[model.reliable_negatives_].any()
    two = GraphOCL(n_neighbors=5, kernel="linear", random_state=1, second_pass=True).fit(X, mask)
    assert two.reliable_negatives_.size == l
    np.testing.assert_array_equal(two.spies_, model.spies_)
    assert not truth[two.reliable_negatives_].any()


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_labeled_positives_predicted_positive_on_separable_data(kernel):
    X, truth = _two_blobs(n_pos=80, n_neg=120, gap=6.0, seed=5)
    mask = _label(truth, 0.2, 5)
    model = GraphOCL(n_neighbors=8, kernel=kernel, sigma=2.0, random_state=0).fit(X, mask)
    assert model.predict(X[mask]).all()
    assert (model.transduction_ == truth).mean() > 0.95
    np.testing.assert_array_equal(model.predict(X), model.transduction_)
    np.testing.assert_allclose(model.decision_function(X), model.classifier_.decision_function(X))
    # new points: the classifier is inductive
    assert model.predict(np.array([[0.0, 0.0], [6.0, 6.0]])).tolist() == [True, False]


def test_reproducible_with_a_seed():
    X, truth = _two_blobs(seed=6, gap=2.0)
    mask = _label(truth, 0.3, 6)
    a = GraphOCL(n_neighbors=6, random_state=11).fit(X, mask)
    b = GraphOCL(n_neighbors=6, random_state=11).fit(X, mask)
    np.testing.assert_array_equal(a.spies_, b.spies_)
    np.testing.assert_array_equal(a.reliable_negatives_, b.reliable_negatives_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    draws = {tuple(GraphOCL(n_neighbors=6, random_state=s).fit(X, mask).spies_) for s in range(5)}
    assert len(draws) > 1


def test_integer_mask_and_spy_count():
    X, truth = _two_blobs(seed=7)
    mask = _label(truth, 0.2, 7)
    a = GraphOCL(n_neighbors=6, random_state=0).fit(X, mask)
    b = GraphOCL(n_neighbors=6, random_state=0).fit(X, mask.astype(int))
    np.testing.assert_array_equal(a.reliable_negatives_, b.reliable_negatives_)
    assert [spy_count(n) for n in (2, 9, 10, 14, 15, 25, 100)] == [1, 1, 1, 1, 2, 3, 10]
    assert spy_count(3, 0.9) == 2  # one positive always stays labeled


def test_error_messages():
    X, truth = _two_blobs(n_pos=10, n_neg=10, seed=8)
    with pytest.raises(ValueError, match="no labeled positive"):
        GraphOCL(n_neighbors=3).fit(X, np.zeros(20, bool))
    one = np.zeros(20, bool)
    one[0] = True
    with pytest.raises(ValueError, match="at least 2 labeled positives .* got 1"):
        GraphOCL(n_neighbors=3).fit(X, one)
    with pytest.raises(ValueError, match="no unlabeled point"):
        GraphOCL(n_neighbors=3).fit(X, np.ones(20, bool))
    with pytest.raises(ValueError, match="X has 2 rows; at least 3"):
        GraphOCL(n_neighbors=1).fit(X[:2], [True, True])
    with pytest.raises(ValueError, match="n_neighbors=20 needs more than 20 points"):
        GraphOCL(n_neighbors=20).fit(X, truth)
    with pytest.raises(ValueError, match=r"positive_mask must be \(20,\) booleans"):
        GraphOCL(n_neighbors=3).fit(X, truth[:5])
    with pytest.raises(ValueError, match="booleans or 0/1"):
        GraphOCL(n_neighbors=3).fit(X, np.where(truth, 2, 0))
    with pytest.raises(ValueError, match="spy_fraction must be a number in"):
        GraphOCL(spy_fraction=0.0).fit(X, truth)
    with pytest.raises(ValueError, match="alpha must lie strictly between 0 and 1"):
        GraphOCL(alpha=1.0).fit(X, truth)
    with pytest.raises(
        ValueError, match="unknown affinity 'full': affinity must be one of 'knn', 'kernel'"
    ):
        GraphOCL(affinity="full").fit(X, truth)
    with pytest.raises(ValueError, match="not a precomputed kernel"):
        GraphOCL(kernel="precomputed").fit(X, truth)
    # a path 0 – 1 – 2 – 3 with positives at both ends: whichever end is the spy, the other
    # unlabeled points are closer to the labeled end than it is
    line = np.array([[0.0], [1.0], [2.1], [3.3]])
    with pytest.raises(ValueError, match="no reliable negative"):
        GraphOCL(n_neighbors=1, random_state=0).fit(line, [True, False, False, True])
