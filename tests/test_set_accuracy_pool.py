"""The whole pool's micro-F1 (docs/multilabel.md §5, "The whole pool"): the labeled points'
leave-one-out sets counted in full, the unlabeled rest estimated from the random checks.

References: scikit-learn's micro-averaged F1 on a pool built so that the answer is known, the
checks-only interval in the limit, brute-force refits for the labeled points' leave-one-out
sets, and the interval's coverage where the whole pool's truth is known."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score

from rlscore.core.evaluation.set_accuracy import micro_f1_estimate, pool_micro_f1_estimate
from rlscore.core.rls.multilabel import MultiLabelRLS
from rlscore.data.projects.project import Project, RowIds
from rlscore.query import make_strategy
from rlscore.sessions.stopping.set_accuracy import labeled_sets


def sets(seed, m, L=4, wrong=0.2, rates=(0.5, 0.3, 0.2, 0.1)):
    rng = np.random.default_rng(seed)
    Y = (rng.random((m, L)) < rates[:L]).astype(int)
    return Y, np.where(rng.random((m, L)) < wrong, 1 - Y, Y)


@pytest.mark.parametrize("copies", [1, 3, 10])
@pytest.mark.parametrize("seed", range(3))
def test_the_estimate_is_the_micro_f1_of_labeled_points_and_copies_of_the_checks(seed, copies):
    # an unlabeled rest made of `copies` copies of the checks has exactly the checks' counts
    # per point: the whole pool's micro-F1 is then known
    YL, PL = sets(seed, 60, wrong=0.35)
    Yc, Pc = sets(seed + 100, 12)
    got = pool_micro_f1_estimate(Yc, Pc, YL, PL, copies * len(Yc))
    pool_true = np.vstack([YL, *[Yc] * copies])
    pool_pred = np.vstack([PL, *[Pc] * copies])
    assert got.estimate == pytest.approx(f1_score(pool_true, pool_pred, average="micro"), 1e-12)
    assert got.low <= got.estimate <= got.high
    assert got.n_checks == len(Yc)


def test_nothing_unlabeled_leaves_the_labeled_points_micro_f1_without_width():
    YL, PL = sets(1, 50)
    Yc, Pc = YL[:8], PL[:8]
    got = pool_micro_f1_estimate(Yc, Pc, YL, PL, 0)
    assert got.estimate == pytest.approx(f1_score(YL, PL, average="micro"), 1e-12)
    assert got.low == pytest.approx(got.estimate, 1e-12)
    assert got.high == pytest.approx(got.estimate, 1e-12)


def test_a_vast_unlabeled_rest_is_the_checks_memberships_interval():
    YL, PL = sets(2, 30, wrong=0.4)
    Yc, Pc = sets(3, 20)
    got = pool_micro_f1_estimate(Yc, Pc, YL, PL, 10**12)
    checks_only = micro_f1_estimate(Yc, Pc, method="memberships")
    assert got.estimate == pytest.approx(checks_only.estimate, abs=1e-9)
    assert got.interval == pytest.approx(checks_only.interval, abs=1e-9)


def test_too_few_or_empty_checks_give_none_and_bad_counts_are_named():
    YL, PL = sets(4, 30)
    Yc, Pc = sets(5, 4)
    assert pool_micro_f1_estimate(Yc, Pc, YL, PL, 100) is None
    empty = np.zeros((6, 4), int)
    assert pool_micro_f1_estimate(empty, empty, YL, PL, 100) is None
    Yc, Pc = sets(5, 6)
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="n_unlabeled"):
            pool_micro_f1_estimate(Yc, Pc, YL, PL, bad)


def test_the_interval_holds_the_whole_pools_micro_f1_in_about_95_percent_of_draws():
    # a pool whose labeled part is harder than the rest (as a strategy leaves it): the checks
    # alone estimate the rest; the whole pool's micro-F1 is the truth
    YL, PL = sets(6, 150, wrong=0.35)
    YU, PU = sets(7, 350, wrong=0.1)
    truth = f1_score(np.vstack([YL, YU]), np.vstack([PL, PU]), average="micro")
    rest_only = f1_score(YU, PU, average="micro")
    rng = np.random.default_rng(8)
    held = rest_held = 0
    draws = 400
    for _ in range(draws):
        k = rng.choice(len(YU), size=40, replace=False)
        e = pool_micro_f1_estimate(YU[k], PU[k], YL, PL, len(YU))
        held += e.low <= truth <= e.high
        c = micro_f1_estimate(YU[k], PU[k], method="memberships")
        rest_held += c.low <= truth <= c.high
    assert rest_only - truth > 0.05  # the rest alone is the wrong population
    assert held / draws >= 0.92
    assert rest_held / draws < 0.8  # the checks alone, read as the whole pool's figure


def test_labeled_sets_are_brute_force_refits_without_each_label():
    rng = np.random.default_rng(9)
    X = rng.normal(size=(40, 3))
    classes = ["a", "b", "c"]
    truth = [tuple(c for c, x in zip(classes, row, strict=True) if x > 0.2) for row in X]
    project = Project(
        name="t", X=X, feature_names=["x0", "x1", "x2"], ids=RowIds(40), truth=None,
        classes=classes, multi_label=True,
    )  # fmt: skip
    engine = make_strategy("arls", multi_label=True, sigma=1.5, lam=0.3)
    labels = {int(i): truth[i] for i in rng.choice(40, size=15, replace=False)}
    true, held = labeled_sets(project, engine, labels, 0.3)
    idx = list(labels)
    for r, i in enumerate(idx):
        rest = [j for j in idx if j != i]
        model = MultiLabelRLS("rbf", sigma=1.5, lam=0.3)
        model.fit(X[rest], [labels[j] for j in rest], classes=classes)
        expected = model.decision_function(X[[i]])[0] > 0
        np.testing.assert_array_equal(held[r], expected)
        np.testing.assert_array_equal(true[r], [c in labels[i] for c in classes])
