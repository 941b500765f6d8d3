"""Labeling sessions: validation error, stopping indicator and the risk figure's name.

References: predictions and errors recomputed by hand from the engine after every label,
RLS refitted independently on the labeled set, the strategies' own class attributes.
"""

import numpy as np
import pytest
from support.sessions import moons_subset, session

from rlscore.core.rls.classifier import RLSClassifier
from rlscore.query import strategy_class
from rlscore.storage import open_store


def test_auto_label_and_validation_error(store):
    s = session(store)
    assert s.auto_label(8) == 8
    truth = s.project.truth
    assert all(s.labels[i] == truth[i] for i in s.labels)
    assert {e.annotator for e in store.events("moons")} == {"oracle"}
    pred = s.engine.predict()
    mask = np.ones(s.project.n, bool)
    mask[list(s.labels)] = False
    wrong = pred[mask] != truth[mask].astype(int)
    assert s.validation_error() == pytest.approx(wrong.mean())
    per_class = [wrong[truth[mask] == c].mean() for c in (-1, 1)]
    assert s.validation_error(balanced=True) == pytest.approx(np.mean(per_class))
    assert len(s.validation_history) == 9


def test_no_truth(tmp_path):
    p = moons_subset("blind")
    p.truth = None
    with open_store(tmp_path / "db.sqlite3") as st:
        st.create_project(p)
        s = session(st, project="blind")
        assert s.validation_error() is None
        with pytest.raises(ValueError, match="has no ground truth"):
            s.auto_label(1)


def test_stopping_indicator(store):
    s = session(store, stop_window=4)
    first = s.stopping()
    assert first["prediction_change"] is None and not first["stable"]
    assert "label at least 4" in first["message"]
    preds = [s.engine.predict().copy()]
    for _ in range(6):
        s.auto_label(1)
        preds.append(s.engine.predict().copy())
    st = s.stopping()
    assert st["n_labeled"] == 6 and st["window"] == 4
    assert st["prediction_change"] == pytest.approx(np.mean(preds[6] != preds[2]))
    assert st["change_history"][1:] == pytest.approx(
        [np.mean(preds[k] != preds[k - 1]) for k in range(1, 7)]
    )
    missing = [c for c in (-1, 1) if c not in s.labels.values()]
    assert st["missing_classes"] == missing
    assert st["stable"] == (st["prediction_change"] <= 0.01 and not missing)
    assert st["estimated_risk"] == s.risk_history[-1]
    # LOO error on the labeled set, against RLS refitted independently
    idx = list(s.labels)
    clf = RLSClassifier(kernel="rbf", sigma=2.0, lam=0.5).fit(
        s.project.X[idx], np.array([s.labels[i] for i in idx])
    )
    y = np.array([s.labels[i] for i in idx])
    loo_pred = np.where(clf.loo_decision_ > 0, clf.classes_[1], clf.classes_[0])
    assert st["loo_error"] == pytest.approx(np.mean(loo_pred != y))
    assert st["loo_error"] == pytest.approx(clf.loo_classification_error_)
    assert st["loo_balanced_error"] == pytest.approx(
        np.mean([np.mean(loo_pred[y == c] != c) for c in np.unique(y)])
    )


def test_stable_when_predictions_settle(store):
    s = session(store, stop_window=3, stop_tolerance=0.5)
    s.auto_label(5)
    assert s.stopping()["stable"] is True and "settled" in s.stopping()["message"]


def test_stopping_window_survives_undo(store):
    """Undo returns to a state on the labeling path: the window of predictions it needs
    (n − 1 − k labels) is still there, so the indicator does not reset."""
    s = session(store, stop_window=10)
    preds = [s.engine.predict().copy()]
    for _ in range(20):
        s.auto_label(1)
        preds.append(s.engine.predict().copy())
    assert s.stopping()["prediction_change"] == pytest.approx(np.mean(preds[20] != preds[10]))
    for n in (19, 18, 17):
        s.undo()
        st = s.stopping()
        assert st["n_labeled"] == n
        expected = np.mean(s.engine.predict() != preds[n - 10])
        assert st["prediction_change"] == pytest.approx(expected)
        assert len(st["change_history"]) == n + 1
    s.auto_label(1)  # forward again: the window moves on from the undone state
    assert s.stopping()["prediction_change"] == pytest.approx(
        np.mean(s.engine.predict() != preds[8])
    )


def test_never_settled_before_every_class_has_a_label(store):
    """Ten labels of one class: predictions that never change only mean that no point of
    the other class was found (the circles sample before its first positive)."""
    s = session(store, stop_window=10, stop_tolerance=1.0)  # any change counts as settled
    negatives = np.flatnonzero(s.project.truth == -1)[:10]
    for i in negatives:
        s.label(int(i), -1)
    st = s.stopping()
    assert st["prediction_change"] is not None  # a full window of labels
    assert st["stable"] is False and "no point is labeled 1 yet" in st["message"]
    assert st["missing_classes"] == [1]
    s.label(int(np.flatnonzero(s.project.truth == 1)[0]), 1)
    st = s.stopping()
    assert st["missing_classes"] == [] and st["stable"] is True


@pytest.mark.parametrize("strategy", ["arls", "aopt-klr", "uncertainty"])
def test_the_risk_figure_is_named_by_the_strategy(store, strategy):
    # the pages word the risk of the session's engine (rlscore.ui.shell.strategy_names.risk_wording)
    s = session(store, strategy=strategy)
    assert type(s.engine) is strategy_class(strategy)
    s.set_params(strategy="arls")
    assert s.strategy_name == "arls" and type(s.engine) is strategy_class("arls")
