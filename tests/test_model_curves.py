"""rlscore.experiments.comparison.model_curves and the Compare page's model choice: another
classifier
(BDLDA, shrinkage LDA) refitted on each strategy's labels, against fits made here."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from support.app import app_page

from rlscore.core.classifiers.bdlda import BDLDA
from rlscore.data.samples.bundled import load_sample
from rlscore.experiments.comparison.compare import compare_strategies
from rlscore.experiments.comparison.model_curves import can_fit, model_errors
from rlscore.experiments.simulation.simulate import simulate


@pytest.fixture(scope="module")
def digits():
    ds = load_sample("digits123")
    return ds.X, ds.y


def one_vs_rest_bdlda(X, y, Z):
    """Each class against the rest with its own BDLDA; the largest decision value wins."""
    classes = np.unique(y)
    scores = np.column_stack([BDLDA().fit(X, np.where(y == c, 1, 0)).decision_function(Z)
                              for c in classes])  # fmt: skip
    return classes[np.argmax(scores, axis=1)]


def test_can_fit_wants_two_points_of_each_of_two_classes():
    assert not can_fit(np.array([1, 1, 1]))
    assert not can_fit(np.array([1, 1, 2]))
    assert can_fit(np.array([1, 2, 1, 2]))
    assert not can_fit(np.array([1, 2, 1, 2, 3]))  # the third class has one point


def test_bdlda_errors_on_the_pool_match_fits_made_here(digits):
    X, y = digits
    rng = np.random.default_rng(4)
    labeled = rng.permutation(y.size)[:30]
    checkpoints = [2, 9, 18, 30]
    got = model_errors("bdlda", X, y, labeled, checkpoints)
    for k, (error, balanced) in zip(checkpoints, got, strict=True):
        idx = labeled[:k]
        if not can_fit(y[idx]):
            assert np.isnan(error) and np.isnan(balanced)
            continue
        rest = np.setdiff1d(np.arange(y.size), idx)
        pred = one_vs_rest_bdlda(X[idx], y[idx], X[rest])
        assert error == pytest.approx(np.mean(pred != y[rest]), abs=1e-12)
        recalls = [np.mean(pred[y[rest] == c] == c) for c in np.unique(y[rest])]
        assert balanced == pytest.approx(1 - np.mean(recalls), abs=1e-12)
    assert np.isfinite(got[-1][0]) and got[-1][0] < 0.5  # 30 labels of 3 digits


def test_shrinkage_lda_on_a_validation_pair(digits):
    X, y = digits
    labeled = np.r_[np.flatnonzero(y == 1)[:3], np.flatnonzero(y == 2)[:3]]
    val = (X[200:], y[200:])
    ((error, _),) = model_errors("shrinkage-lda", X, y, labeled, [6], validation=val)
    ref = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto").fit(X[labeled], y[labeled])
    assert error == pytest.approx(np.mean(ref.predict(val[0]) != val[1]), abs=1e-12)


def test_compare_measures_the_model_on_each_runs_labels(digits):
    X, y = digits
    params = {"sigma": 40.0, "lam": 0.1}
    table = compare_strategies(X, y, ["arls", "random"], queries=6, seeds=2, init=4,
                               params=params, model="bdlda")  # fmt: skip
    for name in ("arls", "random"):
        ref = simulate(X, y, name, queries=6, seeds=2, init=4, params=params)
        for run in ref.runs:
            rows = table[(table.strategy == name) & (table.seed == run.seed)].sort_values("step")
            labeled = run.init + [s.index for s in run.steps[1:]]
            for row in rows.itertuples():
                idx = np.asarray(labeled[: row.n_labels])
                if not can_fit(y[idx]):
                    assert np.isnan(row.model_error)
                    continue
                rest = np.setdiff1d(np.arange(y.size), idx)
                pred = one_vs_rest_bdlda(X[idx], y[idx], X[rest])
                assert row.model_error == pytest.approx(np.mean(pred != y[rest]), abs=1e-12)
    assert table.model_error.notna().any()


def test_compare_without_a_model_leaves_the_columns_empty(digits):
    X, y = digits
    table = compare_strategies(X[:60], y[:60], ["random"], queries=2, params={"sigma": 40.0})
    assert table.model_error.isna().all() and table.model_balanced_error.isna().all()


def test_compare_refuses_an_unknown_model_or_a_held_out_fraction(digits):
    X, y = digits
    with pytest.raises(ValueError, match="unknown model 'svm'"):
        compare_strategies(X, y, ["random"], queries=2, model="svm")
    with pytest.raises(ValueError, match="not on a held-out fraction"):
        compare_strategies(X, y, ["random"], queries=2, model="bdlda", validation=0.3)


def test_the_page_draws_the_models_curves(tmp_path, monkeypatch):
    monkeypatch.setenv("RLSCORE_DB", str(tmp_path / "labels.sqlite3"))
    at = app_page("compare.py", timeout=120)
    at.query_params["project"] = "digits123"
    at.run()
    at.multiselect[0].set_value(["random"])
    at.number_input[0].set_value(8)
    at.selectbox(key="compare_model").set_value("bdlda")
    at.button[0].click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    table = at.session_state["compare_results"][1]
    assert table.model_error.notna().any()
    charts = [c.proto.id for c in at.get("plotly_chart")]
    assert any("model_learning" in c for c in charts)
    assert any("BDLDA (Sheng ch. 2) on each strategy" in s.value for s in at.subheader)
