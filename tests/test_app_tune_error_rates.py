"""Error-rate targets on the Tune page (docs/mathematics.md §8, Saketha Nath ch. 2) and their figure
function.

The page's certificate and interval of offsets are compared with
:mod:`rlscore.core.classifiers.rls_certificate` computed here on the same labeled points, σ and λ.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from support.markdown import plain
from support.tune_page import label_some, run_page

from rlscore.core.classifiers.error_bounds import INFEASIBLE
from rlscore.core.classifiers.rls_certificate import rls_certificate, rls_offset_interval
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.data.projects.project import Project
from rlscore.data.samples.bundled import ensure_sample_projects
from rlscore.experiments.tuning.report import TuningModel
from rlscore.sessions.state.settings import save_project_settings
from rlscore.storage import Event, open_store
from rlscore.viz.figures.decision_contours import add_offset_band
from rlscore.viz.figures.pool_figure import pool_figure

LOG_SIGMA, LOG_LAM = -0.35, -1.2  # a candidate unlike the session's, set on the sliders
NUMBER = r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf)"


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    return path


def candidate_page(db, project: str = "two_moons", log_sigma: float = LOG_SIGMA):
    """The page with σ and λ moved on the sliders, and the candidate refitted here."""
    label_some(db, project)
    at = run_page(project)
    at.slider(key="tune_log_sigma").set_value(log_sigma)
    at.slider(key="tune_log_lam").set_value(LOG_LAM)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    p = at.session_state["params"]
    # the page's rule for the session's kernel and weights (tests/test_tuning_report.py)
    model = TuningModel.for_settings(p["strategy"], p["kernel"], p["class_weight"])
    with open_store(db) as store:
        proj = store.load_project(project)
    # the labels written by label_some (the order of the points does not change the fit)
    labels = {int(i): c for c in proj.classes for i in np.flatnonzero(proj.truth == c)[:4]}
    idx = list(labels)
    clf = RLSClassifier(
        kernel=model.kernel, sigma=10**log_sigma, lam=10**LOG_LAM, class_weight=model.class_weight
    ).fit(proj.X[idx], np.asarray(list(labels.values())))
    return at, clf


def metric_values(at) -> dict[str, float]:
    return {plain(m.label): float(m.value) for m in at.metric}


def set_targets(at, eta_fn: float, eta_fp: float, moments: str = "chebyshev") -> None:
    at.number_input(key="tune_eta_fn").set_value(eta_fn)
    at.number_input(key="tune_eta_fp").set_value(eta_fp)
    at.radio(key="tune_moments").set_value(moments)
    at.run()
    assert not at.exception, [e.value for e in at.exception]


@pytest.mark.parametrize("moments", ["chebyshev", "gaussian"])
def test_the_certificate_is_the_candidates(db, moments):
    at, clf = candidate_page(db)
    set_targets(at, 0.2, 0.2, moments)
    cert = rls_certificate(clf, moments=moments)
    shown = metric_values(at)
    fn = next(v for k, v in shown.items() if k.startswith("Worst-case false negatives"))
    fp = next(v for k, v in shown.items() if k.startswith("Worst-case false positives"))
    assert fn == pytest.approx(cert.false_negative, rel=1e-3, abs=1e-12)
    assert fp == pytest.approx(cert.false_positive, rel=1e-3, abs=1e-12)
    captions = [plain(c.value) for c in at.caption]
    assert any("optimistic" in c and f"b = {cert.b + 0.0:.4g}" in c for c in captions)
    assert not at.error


def test_the_weighted_strategy_certifies_a_balanced_candidate(db):
    """With the weighted ARLS strategy and unequal classes, the candidate is RLS with balanced
    class weights (written out here, not taken from the page's rule): its certificate is not
    the unweighted one."""
    with open_store(db) as store:
        ensure_sample_projects(store)
        save_project_settings(store, "two_moons", {"strategy": "arls-weighted"})
        proj = store.load_project("two_moons")
        labels = {
            int(i): c
            for c, k in zip(proj.classes, (7, 3), strict=True)
            for i in np.flatnonzero(proj.truth == c)[:k]
        }
        for i, c in labels.items():
            store.append_event("two_moons", Event("label", i, c, "ann"))
    at = run_page("two_moons")
    at.slider(key="tune_log_sigma").set_value(LOG_SIGMA)
    at.slider(key="tune_log_lam").set_value(LOG_LAM)
    at.run()
    set_targets(at, 0.2, 0.2)
    assert any("class weights balanced" in c.value for c in at.caption)
    idx, y = list(labels), np.asarray(list(labels.values()))
    fitted = {
        weights: rls_certificate(
            RLSClassifier(sigma=10**LOG_SIGMA, lam=10**LOG_LAM, class_weight=weights).fit(
                proj.X[idx], y
            )
        )
        for weights in ("balanced", None)
    }
    shown = metric_values(at)
    fn = next(v for k, v in shown.items() if k.startswith("Worst-case false negatives"))
    assert fn == pytest.approx(fitted["balanced"].false_negative, rel=1e-3, abs=1e-12)
    assert fn != pytest.approx(fitted[None].false_negative, rel=1e-3, abs=1e-12)


def test_feasible_targets_show_the_interval_and_draw_it(db):
    at, clf = candidate_page(db)
    eta = (0.6, 0.6)
    interval = rls_offset_interval(clf, eta)
    assert interval.feasible  # loose targets on two moons
    set_targets(at, *eta)
    assert not at.error
    # green only when the candidate's own offset meets both targets (issue 34: "the
    # candidate's b is outside" was shown in a green box)
    inside = interval.contains(rls_certificate(clf).b)
    boxes = at.success if inside else at.warning
    assert len(boxes) == 1 and not (at.warning if inside else at.success)
    text = plain(boxes[0].value)
    assert text.endswith(
        ("inside: it meets both." if inside else "outside: it misses a target.")
        + " Both ends are dashed on the decision boundary plot."
    )
    (low, high), (lo_c, hi_c) = (
        (float(u), float(v)) for u, v in re.findall(rf"\[({NUMBER}), ({NUMBER})\]", text)
    )
    assert (low, high) == pytest.approx((interval.low, interval.high), rel=1e-3, abs=1e-9)
    assert (lo_c, hi_c) == pytest.approx(interval.intercepts(), rel=1e-3, abs=1e-9)
    # the two ends are dashed contours on the decision boundary plot
    chart = at.get("plotly_chart")
    spec = next(c for c in chart if c.proto.id and "candidate" in c.proto.id).proto.spec
    assert spec.count('"dash":"dash"') >= 3  # f = ±0.5 and both ends of the interval


def test_an_offset_outside_the_targets_interval_is_a_warning_not_a_success(db):
    """Targets the candidate's own offset misses (an interval exists, b is outside it): said
    in a warning box, never a green one."""
    # three of class b's four points sit inside class a's cluster: both classes' decision
    # values lie on one side of 0, so targets can hold only with an offset away from b = 0
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(scale=0.1, size=(7, 2)), [[3.0, 3.0]]])
    ids = [str(i) for i in range(8)]
    with open_store(db) as store:
        store.create_project(Project("overlap", X, ["u", "v"], ids, list("aaaabbbb"), ["a", "b"]))
    at, clf = candidate_page(db, "overlap", log_sigma=0.0)
    b = rls_certificate(clf).b
    grid = [(fn, fp) for fn in (0.05, 0.2, 0.6, 0.9) for fp in (0.05, 0.2, 0.6, 0.9)]
    missed = next(
        eta
        for eta in grid
        if (interval := rls_offset_interval(clf, eta)).feasible and not interval.contains(b)
    )
    set_targets(at, *missed)
    assert not at.success and len(at.warning) == 1
    assert "is outside: it misses a target." in plain(at.warning[0].value)


def test_infeasible_targets_show_the_message(db):
    at, clf = candidate_page(db)
    eta = (0.001, 0.001)
    interval = rls_offset_interval(clf, eta)
    assert not interval.feasible
    set_targets(at, *eta)
    assert not at.success and not at.error
    message = plain(at.warning[0].value)
    assert message.startswith(INFEASIBLE) and message.startswith(
        "targets infeasible: label more or relax them"
    )
    assert message == interval.message


def add_blobs(db: Path, name: str = "blobs3") -> None:
    """A two-feature project of three overlapping Gaussian classes."""
    rng = np.random.default_rng(3)
    centres = np.array([[0.0, 0.0], [2.0, 0.5], [0.8, 2.0]])
    X = np.concatenate([c + rng.normal(size=(40, 2)) for c in centres])
    truth = np.repeat(["r", "g", "b"], 40).tolist()
    with open_store(db) as store:
        store.create_project(
            Project(name, X, ["u", "v"], [str(i) for i in range(120)], truth, ["b", "g", "r"])
        )


@pytest.mark.parametrize(
    ("project", "log_sigma"),
    # digits: σ near their median distance (47), so the three columns differ; PCA plot
    [("digits123", 1.6), ("blobs3", 0.0)],
)
def test_multiclass_projects_certify_one_class_against_the_rest(db, project, log_sigma):
    """The targets of a three-class project are those of the chosen class's own one-vs-rest
    column of the candidate RLS, computed here from the same labels."""
    if project == "blobs3":
        add_blobs(db)
    at, clf = candidate_page(db, project, log_sigma=log_sigma)
    assert len(clf.classes_) == 3
    chosen = clf.classes_[2].item()
    at.selectbox(key="tune_ovr_class").set_value(chosen)
    eta = (0.45, 0.45)
    set_targets(at, *eta)
    cert = rls_certificate(clf, positive=chosen)
    interval = rls_offset_interval(clf, eta, positive=chosen)
    shown = metric_values(at)
    fn = next(v for k, v in shown.items() if k.startswith("Worst-case false negatives"))
    fp = next(v for k, v in shown.items() if k.startswith("Worst-case false positives"))
    assert fn == pytest.approx(cert.false_negative, rel=1e-3, abs=1e-12)
    assert fp == pytest.approx(cert.false_positive, rel=1e-3, abs=1e-12)
    captions = [plain(c.value) for c in at.caption]
    assert any("False negatives: points of class" in c for c in captions), captions
    assert any(
        "called the other classes; false positives: points of the other" in c for c in captions
    )
    # a different class is a different one-vs-rest classifier: its figures differ
    other = rls_certificate(clf, positive=clf.classes_[0].item())
    assert (other.false_negative, other.false_positive) != pytest.approx(
        (cert.false_negative, cert.false_positive)
    )
    assert interval.feasible  # loose targets
    text = plain(at.success[0].value)
    low, high = (float(v) for v in re.findall(rf"\[({NUMBER}), ({NUMBER})\]", text)[0])
    assert (low, high) == pytest.approx((interval.low, interval.high), rel=1e-3, abs=1e-9)
    chart = at.get("plotly_chart")
    spec = next(c for c in chart if c.proto.id and "candidate" in c.proto.id).proto.spec
    if project == "blobs3":  # two features: the chosen class's offsets are drawn
        assert "Both ends are dashed" in text
        assert spec.count('"dash":"dash"') >= 2
    else:  # a PCA plot draws no boundary, so nothing is said to be dashed
        assert "dashed" not in text and '"dash":"dash"' not in spec


# -- the figure function ---------------------------------------------------------------------
def test_add_offset_band_draws_two_dashed_contours_at_the_offsets():
    xs = np.linspace(-2, 2, 30)
    ys = np.linspace(-1, 1, 20)
    g = xs[None, :] + 0.5 * ys[:, None]  # g = wᵀφ on the grid
    b = 0.3
    F = g - b  # the figure's decision values f = g − b
    fig = pool_figure(
        np.c_[xs[:20], ys], [-1, 1], {0: -1, 19: 1}, grid=(xs, ys, F), confidence_contours=True
    )
    before = len(fig.data)
    out = add_offset_band(fig, (xs, ys, F), (-0.5, 1.25), offset=b, names=("lo", "<hi>"))
    assert out is fig and len(fig.data) == before + 2
    lo, hi = fig.data[-2:]
    for trace, level in ((lo, -0.5), (hi, 1.25)):
        assert isinstance(trace, go.Contour)
        assert trace.contours.start == trace.contours.end == level
        assert trace.contours.coloring == "lines" and trace.line.dash == "dash"
        z = np.asarray(trace.z, dtype=float)
        np.testing.assert_allclose(z, g, atol=1e-4)  # contours of g itself: g = level
    assert (lo.name, hi.name) == ("lo", "&lt;hi&gt;")


def test_add_offset_band_wants_binary_values_and_two_finite_offsets():
    xs = ys = np.linspace(0, 1, 5)
    with pytest.raises(ValueError, match="binary"):
        add_offset_band(go.Figure(), (xs, ys, np.zeros((5, 5, 3))), (0, 1))
    with pytest.raises(ValueError, match="two finite"):
        add_offset_band(go.Figure(), (xs, ys, np.ones((5, 5))), (0, np.nan))
