"""The cluster-corrected memberships intervals of the multi-label headline (docs/multilabel.md
§5, "Points as clusters") against references written from other formulas
(tests/reference/clustered_interval.py), and their coverage where a point's memberships go
together."""

from __future__ import annotations

import numpy as np
import pytest
from reference.clustered_interval import clustered_interval, design_effect

from rlscore.core.evaluation.set_accuracy import membership_design_effect, micro_f1_estimate


def correlated_checks(seed, m=40, L=4):
    """Checks whose memberships go together: each point's predicted set is its true set, or
    (for a third of the points) every membership flipped."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((m, L)) < [0.6, 0.5, 0.4, 0.3][:L]).astype(int)
    wrong = rng.random(m) < 1 / 3
    return Y, np.where(wrong[:, None], 1 - Y, Y)


def independent_checks(seed, m=40, L=4):
    rng = np.random.default_rng(seed)
    Y = (rng.random((m, L)) < [0.5, 0.3, 0.1, 0.05][:L]).astype(int)
    return Y, np.where(rng.random((m, L)) < 0.2, 1 - Y, Y)


@pytest.mark.parametrize("make", [correlated_checks, independent_checks])
@pytest.mark.parametrize("seed", range(4))
def test_design_effect_and_intervals_equal_the_references(make, seed):
    Y, P = make(seed)
    deff = membership_design_effect(Y.astype(bool), P.astype(bool))
    assert deff == pytest.approx(design_effect(Y, P), rel=1e-10)
    for method, kg in (("clustered", False), ("clustered-t", True)):
        for level in (0.8, 0.95):
            got = micro_f1_estimate(Y, P, method=method, level=level)
            assert got.interval == pytest.approx(clustered_interval(Y, P, level, kg), abs=1e-9)


def test_all_or_nothing_memberships_give_a_design_effect_above_one():
    Y, P = correlated_checks(0)
    a, d = (Y & P).sum(axis=1), (Y | P).sum(axis=1)
    assert design_effect(Y, P) > 1.5
    # near the memberships per check weighted by themselves (docs/multilabel.md §5)
    assert design_effect(Y, P) == pytest.approx((d**2).sum() / d.sum(), rel=0.35)
    assert a.sum() < d.sum()


def test_one_membership_per_check_is_plain_memberships():
    # every check holds at most one membership true or predicted: deff is exactly 1
    rng = np.random.default_rng(5)
    m, L = 30, 3
    Y, P = np.zeros((m, L), int), np.zeros((m, L), int)
    cls = rng.integers(0, L, m)
    kind = rng.integers(0, 4, m)  # TP, FN, FP, none
    Y[np.arange(m), cls] = kind <= 1
    P[np.arange(m), cls] = (kind == 0) | (kind == 2)
    assert ((Y | P).sum(axis=1) <= 1).all()
    assert membership_design_effect(Y.astype(bool), P.astype(bool)) == 1.0
    plain = micro_f1_estimate(Y, P, method="memberships")
    assert micro_f1_estimate(Y, P, method="clustered").interval == pytest.approx(
        plain.interval, abs=1e-12
    )
    # the degrees-of-freedom adjustment alone still widens it
    kg = micro_f1_estimate(Y, P, method="clustered-t")
    assert kg.low < plain.low and kg.high > plain.high


def test_clustered_is_never_narrower_than_memberships():
    for seed in range(6):
        Y, P = correlated_checks(seed)
        plain = micro_f1_estimate(Y, P, method="memberships")
        clu = micro_f1_estimate(Y, P, method="clustered")
        kg = micro_f1_estimate(Y, P, method="clustered-t")
        assert clu.low < plain.low and clu.high > plain.high
        assert kg.low <= clu.low and kg.high >= clu.high
        assert plain.estimate == clu.estimate == kg.estimate


def test_perfect_and_hopeless_checks_and_too_few_informative():
    Y = np.array([[1, 1, 0]] * 3 + [[0, 0, 0]] * 3)
    perfect = micro_f1_estimate(Y, Y, method="clustered")
    assert perfect.estimate == 1.0 and perfect.high == 1.0
    assert perfect.interval == micro_f1_estimate(Y, Y, method="memberships").interval
    hopeless = micro_f1_estimate(Y, 1 - Y, method="clustered")
    assert hopeless.estimate == 0.0 and hopeless.low == 0.0
    # one informative check: no degrees of freedom for its design effect
    one = np.zeros((6, 3), int)
    one[0] = [1, 1, 0]
    pred = one.copy()
    pred[0, 0] = 0
    assert micro_f1_estimate(one, pred, method="clustered-t").interval == (0.0, 1.0)


def test_clustered_covers_where_memberships_go_together():
    """200 samples of 60 checks from a population whose points are predicted all right or all
    wrong: counting memberships as independent trials undercovers; the design effect restores
    the nominal 95 %."""
    pop_Y, pop_P = correlated_checks(12, m=5000)
    tp = (pop_Y & pop_P).sum()
    p = tp / (pop_Y | pop_P).sum()
    truth = 2 * p / (1 + p)
    rng = np.random.default_rng(13)
    covered = dict.fromkeys(("memberships", "clustered", "clustered-t"), 0)
    for _ in range(200):
        pick = rng.choice(5000, size=60, replace=False)
        for method in covered:
            e = micro_f1_estimate(pop_Y[pick], pop_P[pick], method=method)
            covered[method] += e.low <= truth <= e.high
    assert covered["memberships"] <= 170  # below 85 %: the case is one where it matters
    assert covered["clustered"] >= 180  # at least 90 % of 200
    assert covered["clustered-t"] >= covered["clustered"]
