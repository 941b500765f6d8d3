"""The Tune page in Streamlit's AppTest: the top row, applying σ and λ, failures as messages.

Each test uses its own label database (``RLSCORE_DB`` in a temporary directory); the labels
are written to it directly, and the applied settings read back from it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from reference.rls import balanced, brute_loo
from reference.tuning import rbf
from streamlit.testing.v1 import AppTest
from support.markdown import BOLD_NAME, IMAGE_NAME, assert_shown_as_text, markdown_texts, plain
from support.tune_page import label_some, run_page

from rlscore.core.klr.newton import KLRConvergenceError
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.data.projects.project import Project
from rlscore.data.samples.bundled import ensure_sample_projects, load_sample
from rlscore.sessions.state.settings import (
    LAM_LOG_RANGE,
    SIGMA_LOG_RANGE,
    project_settings,
    save_project_settings,
)
from rlscore.storage import Event, open_store
from rlscore.ui.shell.params import slider_value

TOP_ROW = {"tune_log_sigma", "tune_log_lam", "tune_method", "apply", "apply_auto"}


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    return path


def keys(block) -> set[str]:
    """The user keys of the widgets inside ``block``."""
    return {node.key for node in block if getattr(node, "key", None)}


def top_row(at: AppTest):
    """The first row of columns on the page."""
    return next(b for b in at.main.children.values() if b.type == "flex_container")


def test_apply_buttons_sit_beside_the_sliders(db):
    label_some(db)
    at = run_page()
    rows = [b for b in at.main.children.values() if b.type == "flex_container"]
    assert keys(rows[0]) == TOP_ROW  # sliders, confidence, both buttons: one row
    assert [c.type for c in rows[0].children.values()] == ["column"] * 4
    assert {"loo_curve", "candidate"} <= keys(rows[1])  # the figures come below
    assert not at.button(key="apply_auto").disabled


def test_without_enough_labels_the_buttons_stay_on_top(db):
    at = run_page()
    assert keys(top_row(at)) == TOP_ROW
    assert any("Label at least 3 points" in i.value for i in at.info)
    assert not at.button(key="apply").disabled
    assert at.button(key="apply_auto").disabled  # no curve, no automatic λ


def test_apply_saves_the_candidate_for_the_project(db):
    label_some(db)
    at = run_page()
    at.slider(key="tune_log_lam").set_value(0.5)
    at.slider(key="tune_log_sigma").set_value(-0.5)
    at.run()
    at.button(key="apply").click()
    at.run()
    assert not at.exception
    assert "Applied σ = 0.3162, λ = 3.162" in at.success[0].value
    with open_store(db) as store:
        saved = project_settings(store, "two_moons")
    assert saved["sigma"] == pytest.approx(10**-0.5) and saved["lam"] == pytest.approx(10**0.5)
    assert not saved["lam_auto"]
    # the automatic λ shown on its button is the one applied
    auto = float(at.button(key="apply_auto").label.rsplit("=", 1)[1])
    at.button(key="apply_auto").click()
    at.run()
    with open_store(db) as store:
        assert project_settings(store, "two_moons")["lam"] == pytest.approx(auto, rel=5e-3)


def test_the_automatic_lam_applied_is_one_the_sliders_show(db):
    # a tester applied σ = 100 with the automatic λ = 1.8e-12: the sliders sat at their floor
    # and the Label page drew no boundary (the model's values at new points were noise);
    # here the least LOO error lies at λ ≈ 3e-6, below the λ slider's floor
    label_some(db)
    at = run_page()
    at.slider(key="tune_log_sigma").set_value(SIGMA_LOG_RANGE[1])
    at.run()
    button = at.button(key="apply_auto")
    assert "within the λ slider's range (0.0001 to 1000)" in button.help
    shown = float(button.label.rsplit("=", 1)[1])
    assert 10 ** LAM_LOG_RANGE[0] <= shown <= 10 ** LAM_LOG_RANGE[1]
    button.click()
    at.run()
    assert not at.exception
    with open_store(db) as store:
        saved = project_settings(store, "two_moons")
    assert saved["sigma"] == pytest.approx(100.0) and not saved["lam_auto"]
    assert saved["lam"] == pytest.approx(shown, rel=5e-3)
    # the λ slider stands at the applied λ (its position is log₁₀ λ to 0.01), not at an end
    assert at.slider(key="tune_log_lam").value == pytest.approx(math.log10(saved["lam"]), abs=5e-3)


@pytest.mark.parametrize("class_weight", ["balanced", None])
def test_the_loo_errors_say_when_they_are_class_weighted(db, class_weight):
    # a tester read "classification 19.2 %" as a share of 30 labels: it was the balanced
    # class-weighted error, while 6 of the 30 LOO predictions (20 %) were wrong
    with open_store(db) as store:
        ensure_sample_projects(store)
        save_project_settings(store, "two_moons", {"class_weight": class_weight})
        project = store.load_project("two_moons")
        negatives = np.flatnonzero(project.truth == -1)[:12]
        positives = np.flatnonzero(project.truth == 1)[:4]
        labels = {int(i): -1 for i in negatives} | {int(i): 1 for i in positives}
        for i in negatives[:3]:  # some wrong labels: LOO errors to count
            labels[int(i)] = 1
        for i, c in labels.items():
            store.append_event("two_moons", Event("label", i, c, "ann"))
    at = run_page()
    at.slider(key="tune_log_sigma").set_value(0.0)
    at.slider(key="tune_log_lam").set_value(-1.0)
    at.run()
    assert not at.exception
    # the LOO predictions by refitting without each point (tests/reference/rls.py)
    idx = list(labels)
    y = np.array([labels[i] for i in idx])
    y_index = (y == 1).astype(int)
    a = balanced(y_index, 2)[:, 0] if class_weight else np.ones(y.size)
    loo = brute_loo(rbf(project.X[idx], 1.0), np.where(y == 1, 1.0, -1.0), a, 0.1, offset=False)
    wrong = (loo > 0) != (y == 1)
    weighted = a @ wrong / a.sum()
    assert wrong.sum() > 0 and (weighted != wrong.mean()) == bool(class_weight)
    caption = next(plain(c.value) for c in at.caption if "Exact LOO on" in c.value)
    legend = [
        t.get("name", "") for c in at.get("plotly_chart") for t in json.loads(c.proto.spec)["data"]
    ]
    assert f"classification {weighted:.1%}" in caption
    if class_weight:
        assert (
            f"both class-weighted; {wrong.sum()} of the {y.size} labeled points wrong "
            f"({wrong.mean():.1%})" in caption
        )
        assert {
            "LOO squared error (class-weighted)",
            "LOO classification error (class-weighted)",
        } <= set(legend)
    else:
        assert "class-weighted" not in caption and not any("class-weighted" in n for n in legend)
        assert {"LOO squared error", "LOO classification error"} <= set(legend)


def test_a_refused_apply_is_a_message(db, monkeypatch):
    label_some(db)

    def refuse(**changes):
        raise ValueError(f"not saved for {IMAGE_NAME}")

    monkeypatch.setattr("rlscore.ui.shell.params.update_params", refuse)
    at = run_page()
    at.button(key="apply").click()
    at.run()
    assert not at.exception
    assert f"Not applied: not saved for {IMAGE_NAME}" in plain(at.error[0].value)
    assert_shown_as_text(at, IMAGE_NAME)


@pytest.mark.parametrize(
    "error",
    [
        np.linalg.LinAlgError("Singular matrix"),
        MemoryError("cannot allocate 80 GiB"),
        KLRConvergenceError("no convergence in 100 steps"),
        ValueError(f"bad candidate {IMAGE_NAME}"),
        RuntimeError("unexpected"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_failed_fit_is_a_message_and_the_sliders_stay(db, monkeypatch, error):
    label_some(db)

    fit = RLSClassifier.fit

    def fail(self, X, y, sample_weight=None):
        raise error

    monkeypatch.setattr(RLSClassifier, "fit", fail)
    at = run_page()
    assert len(at.error) == 1
    message = plain(at.error[0].value)
    assert message.startswith("Fitting RLS with σ = ") and " failed: " in message
    assert any("Move the σ or λ slider" in i.value for i in at.info)
    if IMAGE_NAME in str(error):  # its text is shown, escaped
        assert_shown_as_text(at, IMAGE_NAME)
    assert keys(top_row(at)) == TOP_ROW
    assert not at.button(key="apply").disabled and at.button(key="apply_auto").disabled
    assert not at.get("plotly_chart")
    # another candidate that fits draws the curves again
    monkeypatch.setattr(RLSClassifier, "fit", fit)
    at.slider(key="tune_log_lam").set_value(0.0)
    at.run()
    assert not at.exception and not at.error
    assert {"loo_curve", "candidate", "confidence_hist", "reliability"} <= keys(at.main)


def test_a_failed_figure_is_a_message(db, monkeypatch):
    label_some(db)

    def fail(self, X, method="soft"):
        raise MemoryError("no room for the pool's confidence")

    monkeypatch.setattr(RLSClassifier, "confidence", fail)
    at = run_page()
    assert not at.exception
    assert plain(at.error[0].value).startswith("Drawing the candidate failed: Not enough memory")
    assert keys(top_row(at)) == TOP_ROW
    assert not at.button(key="apply_auto").disabled  # the fit itself worked
    assert "loo_curve" in keys(at.main)


def test_names_are_shown_as_text(db):
    ds = load_sample("two_moons")
    names = {-1: BOLD_NAME, 1: "plain"}
    with open_store(db) as store:
        ensure_sample_projects(store)
        truth = [names[int(v)] for v in ds.y[:60]]
        store.create_project(
            Project(IMAGE_NAME, ds.X[:60], ["a", "b"], [str(i) for i in range(60)], truth,
                    list(names.values()))
        )  # fmt: skip
    label_some(db, IMAGE_NAME)
    at = run_page(IMAGE_NAME)
    assert at.session_state["params"]["project"] == IMAGE_NAME
    assert plain(at.title[0].value) == f"Tune σ and λ · {IMAGE_NAME}"
    assert_shown_as_text(at, IMAGE_NAME)
    assert not any(BOLD_NAME in t for t in markdown_texts(at))
    assert "loo_curve" in keys(at.main)


@pytest.mark.parametrize(
    ("position", "setting", "expected"),
    [
        (-4.0, 1e-6, 1e-6),  # untouched at the range's end: the exact setting, outside it
        (-0.52, 0.3, 0.3),  # untouched inside the range (log₁₀ 0.3 rounds to -0.52)
        (-0.5, 0.3, 10**-0.5),  # moved
        (-3.95, 1e-6, 10**-3.95),  # moved away from the end
    ],
)
def test_a_slider_stands_for_the_setting_until_moved(position, setting, expected):
    assert slider_value(position, setting, LAM_LOG_RANGE) == pytest.approx(expected, rel=1e-12)
