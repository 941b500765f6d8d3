"""Metrics and agreement of label sets (docs/multilabel.md §4) against independent
implementations: scikit-learn's f1_score, hamming_loss and cohen_kappa_score, and NLTK's
Krippendorff's α with its MASI distance."""

from __future__ import annotations

import math

import numpy as np
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import masi_distance as nltk_masi
from sklearn.metrics import cohen_kappa_score, f1_score
from sklearn.metrics import hamming_loss as sk_hamming

from rlscore.core.evaluation.agreement import krippendorff_alpha
from rlscore.core.evaluation.multilabel_metrics import hamming_loss, macro_f1, micro_f1
from rlscore.core.evaluation.set_agreement import (
    krippendorff_alpha_sets,
    masi_distance,
    per_label_kappa,
)

CLASSES = ["a", "b", "c", "d"]


def random_matrices(seed, m=60, L=4):
    rng = np.random.default_rng(seed)
    Y = (rng.random((m, L)) < [0.5, 0.3, 0.1, 0.05][:L]).astype(int)
    flip = rng.random((m, L)) < 0.2
    return Y, np.where(flip, 1 - Y, Y)


@pytest.mark.parametrize("seed", range(5))
def test_metrics_equal_scikit_learn(seed):
    Y, P = random_matrices(seed)
    assert micro_f1(Y, P) == pytest.approx(f1_score(Y, P, average="micro", zero_division=0))
    assert macro_f1(Y, P) == pytest.approx(f1_score(Y, P, average="macro", zero_division=0))
    assert hamming_loss(Y, P) == pytest.approx(sk_hamming(Y, P))


def test_metrics_take_label_sets_and_a_class_nobody_uses():
    Y, P = random_matrices(7)
    Y[:, 3] = P[:, 3] = 0  # never true, never predicted: F1 0 as zero_division=0
    sets = [[tuple(c for c, h in zip(CLASSES, row, strict=True) if h) for row in M] for M in (Y, P)]
    assert macro_f1(*sets, classes=CLASSES) == pytest.approx(
        f1_score(Y, P, average="macro", zero_division=0)
    )
    assert micro_f1(*sets, classes=CLASSES) == pytest.approx(micro_f1(Y, P))
    with pytest.raises(ValueError, match="classes"):
        micro_f1(*sets)
    with pytest.raises(ValueError, match="0 and 1"):
        hamming_loss(Y * 2, P)
    with pytest.raises(ValueError, match="shape"):
        hamming_loss(Y[:-1], P)


def random_set_ratings(seed, items=25, raters=3, missing=0.0, empty=None):
    """Items × raters sets, correlated between raters; an empty set is given as ``empty``
    (None by default: NLTK's MASI divides by the size of the union)."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(items):
        base = set(rng.choice(CLASSES, size=rng.integers(1, 3), replace=False).tolist())
        row = []
        for _ in range(raters):
            s = set(base)
            if rng.random() < 0.4:
                s ^= {str(rng.choice(CLASSES))}
            if rng.random() < missing:
                row.append(None)
            else:
                row.append(tuple(sorted(s)) if s else empty)
        rows.append(row)
    return rows


def nltk_alpha(rows):
    data = [
        (f"r{r}", f"i{i}", frozenset(s))
        for i, row in enumerate(rows)
        for r, s in enumerate(row)
        if s is not None
    ]
    return AnnotationTask(data=data, distance=nltk_masi).alpha()


@pytest.mark.parametrize(("seed", "missing"), [(0, 0.0), (1, 0.0), (2, 0.3), (3, 0.5)])
def test_alpha_with_masi_equals_nltk(seed, missing):
    rows = random_set_ratings(seed, missing=missing)
    assert krippendorff_alpha_sets(rows) == pytest.approx(nltk_alpha(rows), abs=1e-12)


def test_masi_distance_equals_nltk_and_takes_empty_sets():
    pairs = [({1, 2}, {1, 2, 3, 4}), ({1}, {2}), ({1, 2}, {2, 3}), ({3}, {3})]
    for a, b in pairs:
        assert masi_distance(a, b) == pytest.approx(nltk_masi(a, b))
    assert masi_distance((), []) == 0.0
    assert masi_distance((), ("a",)) == 1.0


def test_alpha_on_singleton_sets_is_nominal_alpha():
    rng = np.random.default_rng(4)
    labels = rng.choice(["x", "y", "z"], size=(30, 3))
    labels = [[None if rng.random() < 0.2 else v for v in row] for row in labels.tolist()]
    sets = [[None if v is None else (v,) for v in row] for row in labels]
    # MASI of two singletons is 0 or 1: the nominal distance
    assert krippendorff_alpha_sets(sets) == pytest.approx(krippendorff_alpha(labels))


def test_alpha_undefined_cases_and_bad_input():
    assert math.isnan(krippendorff_alpha_sets([[("a",), None], [None, ("b",)]]))
    assert math.isnan(krippendorff_alpha_sets([[("a",), ("a",)], [("a",), ("a",)]]))
    with pytest.raises(ValueError, match="label set"):
        krippendorff_alpha_sets([["a", ("a",)]])
    with pytest.raises(ValueError, match="two raters"):
        krippendorff_alpha_sets([[("a",)]])


def test_per_label_kappa_equals_scikit_learn():
    rows = random_set_ratings(5, items=40, raters=2, empty=())
    a, b = [r[0] for r in rows], [r[1] for r in rows]
    got = per_label_kappa(a, b, CLASSES)
    for c in CLASSES:
        x = [int(c in s) for s in a]
        y = [int(c in s) for s in b]
        assert got[c] == pytest.approx(cohen_kappa_score(x, y))
    # items one annotator did not label are left out
    a2 = [None, *a[1:]]
    got = per_label_kappa(a2, b, CLASSES)
    x = [int("a" in s) for s in a[1:]]
    y = [int("a" in s) for s in b[1:]]
    assert got["a"] == pytest.approx(cohen_kappa_score(x, y))


def test_micro_f1_estimate_is_the_checks_micro_f1_and_its_interval_covers():
    from rlscore.core.evaluation.set_accuracy import micro_f1_estimate

    Y, P = random_matrices(11, m=40)
    est = micro_f1_estimate(Y, P)
    assert est.estimate == pytest.approx(f1_score(Y, P, average="micro"))
    assert est.low <= est.estimate <= est.high
    assert micro_f1_estimate(Y[:4], P[:4]) is None
    assert micro_f1_estimate(np.zeros((6, 2)), np.zeros((6, 2))) is None
    # coverage on a known population: 200 samples of 60 checks from 5000 points
    pop_Y, pop_P = random_matrices(12, m=5000)
    truth = f1_score(pop_Y, pop_P, average="micro")
    rng = np.random.default_rng(13)
    covered = 0
    for _ in range(200):
        pick = rng.choice(5000, size=60, replace=False)
        e = micro_f1_estimate(pop_Y[pick], pop_P[pick], n_bootstrap=500)
        covered += e.low <= truth <= e.high
    assert covered >= 180  # nominal 95 %: at least 90 % of 200


def per_check_counts(Y, P):
    """Each check's 2·TP and 2·TP + FP + FN, counted one membership at a time."""
    num, den = [], []
    for y_row, p_row in zip(Y.tolist(), P.tolist(), strict=True):
        tp = sum(1 for y, p in zip(y_row, p_row, strict=True) if y and p)
        wrong = sum(1 for y, p in zip(y_row, p_row, strict=True) if y != p)
        num.append(2 * tp)
        den.append(2 * tp + wrong)
    return np.array(num, float), np.array(den, float)


def delta_se(num, den):
    """The delta-method standard error of Σnum/Σden from the sample covariance of the two
    counts (gradient of n̄/d̄ at the means)."""
    g = np.array([1.0 / den.mean(), -num.mean() / den.mean() ** 2])
    return math.sqrt(g @ np.cov(np.vstack([num, den])) @ g / num.size)


def test_micro_f1_estimate_candidate_intervals_match_independent_references():
    from scipy import stats

    from rlscore.core.evaluation.set_accuracy import METHODS, micro_f1_estimate

    # 20 checks of rare classes: a skewed ratio, where BCa and percentile differ by 0.15
    rng = np.random.default_rng(22)
    Y = (rng.random((20, 4)) < [0.2, 0.1, 0.05, 0.05]).astype(int)
    P = np.where(rng.random((20, 4)) < 0.1, 1 - Y, Y)
    num, den = per_check_counts(Y, P)
    ratio = num.sum() / den.sum()
    m = num.size
    est = {k: micro_f1_estimate(Y, P, method=k, n_bootstrap=20000) for k in METHODS}
    for e in est.values():
        assert e.estimate == pytest.approx(f1_score(Y, P, average="micro"))
        assert 0.0 <= e.low < e.estimate < e.high <= 1.0
    # scipy's bootstrap of the same ratio, the checks resampled with their two counts
    for ours, theirs in (("percentile", "percentile"), ("bca", "BCa")):
        ref = stats.bootstrap(
            (num, den),
            lambda n, d, axis=-1: n.sum(axis=axis) / d.sum(axis=axis),
            paired=True,
            vectorized=True,
            n_resamples=20000,
            method=theirs,
            random_state=1,
        ).confidence_interval
        # different resamples: equal up to the Monte Carlo error of a 2.5 % quantile
        assert est[ours].low == pytest.approx(ref.low, abs=0.02)
        assert est[ours].high == pytest.approx(ref.high, abs=0.02)
    half = stats.t.ppf(0.975, m - 1) * delta_se(num, den)
    assert est["delta-t"].interval == pytest.approx((ratio - half, ratio + half))
    # the bootstrap-t, one resample at a time (the same resamples: generator and seed 0)
    draws = np.random.default_rng(0).integers(0, m, size=(2000, m))
    t = [
        (num[d].sum() / den[d].sum() - ratio) / delta_se(num[d], den[d])
        for d in draws
        if delta_se(num[d], den[d]) > 0
    ]
    se = delta_se(num, den)
    studentized = micro_f1_estimate(Y, P, method="studentized")
    expected = (ratio - np.quantile(t, 0.975) * se, ratio - np.quantile(t, 0.025) * se)
    assert studentized.interval == pytest.approx(expected)
    # memberships: scipy's exact binomial interval of TP among the memberships true or
    # predicted, mapped by 2p / (1 + p)
    right = int(sum(y and p for y, p in zip(Y.ravel(), P.ravel(), strict=True)))
    counted = int(sum(y or p for y, p in zip(Y.ravel(), P.ravel(), strict=True)))
    ci = stats.binomtest(right, counted).proportion_ci(method="exact")
    f1 = [2 * p / (1 + p) for p in (ci.low, ci.high)]
    assert est["memberships"].interval == pytest.approx(tuple(f1))
    with pytest.raises(ValueError, match="method must be one of"):
        micro_f1_estimate(Y, P, method="wald")
