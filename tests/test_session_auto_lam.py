"""Labeling sessions: the automatic λ and the LOO errors follow the session's own weights.

Reference: ``RLSClassifier(kernel, σ, class_weight=<the session's>, lam="auto")`` fitted
independently on the labeled points (what the Tune page shows).
"""

import numpy as np
import pytest
from reference.tuning import brute_auto_lam
from support.sessions import assert_same_state, session

from rlscore.core.rls.classifier import RLSClassifier
from rlscore.sessions.state.auto_lam import AUTO_LAM_MILESTONES
from rlscore.sessions.state.settings import LAM_LOG_RANGE
from rlscore.storage import open_store


def test_auto_lam_follows_loo(store):
    s = session(store, lam="auto")
    assert s.lam_ == 0.5  # the project's recommended λ until enough labels
    s.auto_label(AUTO_LAM_MILESTONES[1])  # 8 labels: λ re-chosen at 4 and at 8
    idx = list(s.labels)
    ref = RLSClassifier(kernel="rbf", sigma=2.0, lam="auto").fit(
        s.project.X[idx], np.array([s.labels[i] for i in idx])
    )
    assert s.lam_ == pytest.approx(ref.lam_)
    assert s.engine.lam == s.lam_
    assert store.events("moons")[-1].params["lam_mode"] == "auto"
    assert_same_state(s, session(open_store(store.path), lam="auto"))


def test_the_automatic_lam_stays_within_the_sliders_range(store):
    """A tester's session chose λ = 4.6e-12 (σ = 100, 16 labels, 2 of them wrong): below the
    λ slider, where the model's values at new points are rounding noise and the Label page drew
    no boundary. Reference: the brute-force LOO choice over the grid moved into the range."""
    s = session(store, sigma=8.0, lam="auto")  # σ = 100 would be too ill-posed for the reference
    truth = s.project.truth.astype(int)
    rng = np.random.default_rng(0)
    idx = [
        *rng.choice(np.flatnonzero(truth == -1), 12, replace=False),
        *rng.choice(np.flatnonzero(truth == 1), 4, replace=False),
    ]
    y = truth[idx].copy()
    y[:2] *= -1  # two slips of the key
    assert len(idx) in AUTO_LAM_MILESTONES  # λ is re-chosen with all of them
    for i, label in zip(idx, y, strict=True):
        s.label(int(i), int(label))
    X = s.project.X[idx]
    unbounded = RLSClassifier(kernel="rbf", sigma=8.0, lam="auto").fit(X, y)
    assert unbounded.lam_ < 10 ** LAM_LOG_RANGE[0]  # the case of the report
    expected = brute_auto_lam(X, y, 8.0, lam_range=LAM_LOG_RANGE)
    assert 10 ** LAM_LOG_RANGE[0] <= s.lam_ <= 10 ** LAM_LOG_RANGE[1]
    assert s.lam_ == pytest.approx(expected, rel=1e-6) and s.engine.lam == s.lam_


def test_class_weight_and_weighted_strategy(store):
    s = session(store, strategy="arls-weighted")
    assert s.engine.class_weight == "balanced"  # the strategy's default is kept
    s.auto_label(4)
    s.set_params(class_weight={-1: 1.0, 1: 5.0})
    assert s.engine.class_weight == {-1: 1.0, 1: 5.0}
    assert store.events("moons")[-1].params["strategy"] == "arls-weighted"


@pytest.mark.parametrize(
    ("strategy", "class_weight", "weights"),
    [
        ("arls-weighted", None, "balanced"),  # the strategy's own default
        ("uncertainty", "balanced", "balanced"),
        ("arls", {-1: 1.0, 1: 4.0}, {-1: 1.0, 1: 4.0}),
    ],
)
def test_weighted_sessions_tune_lam_with_their_weights(store, strategy, class_weight, weights):
    s = session(store, strategy=strategy, class_weight=class_weight, lam="auto")
    truth = s.project.truth
    idx = [*np.flatnonzero(truth == -1)[:13], *np.flatnonzero(truth == 1)[:3]]
    assert len(idx) in AUTO_LAM_MILESTONES  # λ is re-chosen with all of them
    for i in idx:
        s.label(int(i), truth[i])
    X, y = s.project.X[idx], truth[idx].astype(int)
    ref = RLSClassifier(kernel="rbf", sigma=2.0, class_weight=weights, lam="auto").fit(X, y)
    unweighted = RLSClassifier(kernel="rbf", sigma=2.0, lam="auto").fit(X, y)
    assert ref.lam_ != pytest.approx(unweighted.lam_)  # the weights matter here
    assert s.lam_ == pytest.approx(ref.lam_) and s.engine.lam == s.lam_
    # the stopping indicator's LOO errors: the same weighted RLS at the λ in effect
    at = RLSClassifier(kernel="rbf", sigma=2.0, class_weight=weights, lam=s.lam_).fit(X, y)
    loo_pred = np.where(at.loo_decision_ > 0, 1, -1)
    st = s.stopping()
    assert st["loo_error"] == pytest.approx(np.mean(loo_pred != y))
    assert st["loo_balanced_error"] == pytest.approx(
        np.mean([np.mean(loo_pred[y == c] != c) for c in (-1, 1)])
    )


def test_a_klr_strategys_automatic_lam_is_its_own_loo_rule(store):
    """With lam="auto" a KLR strategy tunes (t, λ) itself (the RLS rule does not touch it);
    with a number it keeps that λ. Reference: the strategy taught the same labels here."""
    from rlscore.query import make_strategy

    auto = session(store, strategy="aopt-klr", kernel="rbf", lam="auto")
    assert auto.engine.tune == "loo"
    auto.auto_label(12)
    idx = list(auto.labels)
    ref = make_strategy("aopt-klr", kernel="rbf", sigma=2.0, lam=0.5, tune="loo")
    ref.start(auto.project.X, auto.project.classes)
    for i in idx:
        ref.teach(i, auto.labels[i])
    assert auto.engine.lam_ == ref.lam_ and auto.lam_ == ref.lam_
    np.testing.assert_allclose(auto.engine.predict_proba(), ref.predict_proba(), atol=1e-10)
    fixed = session(open_store(store.path), strategy="aopt-klr", kernel="rbf", lam=0.3)
    assert fixed.engine.tune == "none" and fixed.lam_ == 0.3


@pytest.mark.parametrize("strategy", ["arls", "arls-focused"])
def test_the_log_replayed_without_an_engine_gives_the_sessions_automatic_lam(store, strategy):
    # what an export fits the Label page's headline with (headline_settings): the λ the
    # session chose at its milestones, through undos and relabels, without a started engine
    from rlscore.query import make_strategy
    from rlscore.sessions.state.auto_lam import replayed_lam

    s = session(store, strategy=strategy, lam="auto")
    s.auto_label(9)  # λ re-chosen at 4 and 8
    s.undo()
    s.undo()  # 7 labels: the next one reaches 8 again, on other labels
    point = next(iter(s.labels))
    s.label(point, -s.labels[point])  # a relabel chooses nothing
    s.auto_label(17)  # and at 16
    engine = make_strategy(strategy, kernel="rbf", sigma=2.0, lam=0.5)
    events = store.events("moons")
    assert s.lam_ != 0.5
    assert replayed_lam(engine, 0.5, s.project.X, events, s.project.classes) == s.lam_
