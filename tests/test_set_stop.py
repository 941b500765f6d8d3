"""The stop rule of a multi-label project, ``set-agreement`` (docs/multilabel.md §6): its curve
against kernel ridge refits from scratch (scikit-learn's KernelRidge and f1_score), its stop
against a loop written from the rule's words, undo and reload, and the budget "until the stop
rule fires" ending labeling on the Label page (Streamlit's AppTest)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_multilabel_classification
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics import f1_score
from support.app import app_page, ok

from rlscore.data.projects.project import Project
from rlscore.experiments.simulation.multilabel import simulate_multilabel
from rlscore.sessions import LabelingSession, save_project_settings
from rlscore.sessions.stopping.set_stop import (
    SET_STOP_PARAMS,
    classes_in_no_set,
    first_set_stop,
    set_stop_curves,
    set_stop_decision,
)
from rlscore.sessions.stopping.stop_rule import MIN_STOP_LABELS
from rlscore.sessions.stopping.stopping_view import stop_rule_fired, stopping_view
from rlscore.storage import open_store
from rlscore.ui.label import refresh

CLASSES = ["a", "b", "c", "d"]
SIGMA, LAM = 3.0, 0.5
LAG, WINDOW, THRESHOLD = (SET_STOP_PARAMS[k] for k in ("lag", "window", "threshold"))


def sets_project(n: int = 140, seed: int = 0, name: str = "sets") -> Project:
    X, Y = make_multilabel_classification(
        n_samples=n, n_features=5, n_classes=len(CLASSES), n_labels=2, random_state=seed
    )
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    truth = [[c for c, on in zip(CLASSES, row, strict=True) if on] for row in Y]
    return Project(
        name=name, X=X, feature_names=[f"f{j}" for j in range(X.shape[1])],
        ids=[f"p{i}" for i in range(n)], truth=truth, classes=CLASSES, meta={"sigma": SIGMA},
        multi_label=True,
    )  # fmt: skip


def blobs_project(n: int = 120, name: str = "blobs") -> Project:
    """Four far-apart blobs, each with its own set (the empty one among them): an easy task
    whose predicted sets settle well within 100 labels."""
    rng = np.random.default_rng(0)
    blob_sets = [["a"], ["a", "b"], ["c", "d"], []]
    centres = 6.0 * np.eye(4)[:, :3]
    which = np.arange(n) % 4
    X = centres[which] + rng.normal(scale=0.5, size=(n, 3))
    return Project(
        name=name, X=X, feature_names=["f0", "f1", "f2"], ids=[f"b{i}" for i in range(n)],
        truth=[blob_sets[k] for k in which], classes=CLASSES, meta={"sigma": SIGMA},
        multi_label=True,
    )  # fmt: skip


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("RLSCORE_MIN_DWELL_MS", "0")
    with open_store(tmp_path / "labels.sqlite3") as s:
        s.create_project(sets_project())
        s.create_project(blobs_project())
        yield s


def labeled(store, k: int, project: str = "sets") -> LabelingSession:
    s = LabelingSession(store, project, "arls", sigma=SIGMA, lam=LAM, snapshots=False)
    truth = s.project.truth
    for _ in range(k):
        i = s.query()[0]
        s.label(i, list(truth[i]))
    return s


def reference_members(s: LabelingSession, n: int) -> np.ndarray:
    """Memberships on the pool (the stop set of a pool under 1000 points) of kernel ridge with
    ±1 targets per class on the first ``n`` labels, refitted from scratch."""
    return refit_members(s.project.X, list(s.labels.items())[:n])


def refit_members(X: np.ndarray, order: list) -> np.ndarray:
    """:func:`reference_members` of the labels ``order`` ((point, set) pairs) on the pool X."""
    Y = np.array([[1.0 if c in set(label) else -1.0 for c in CLASSES] for _, label in order])
    model = KernelRidge(alpha=LAM, kernel="rbf", gamma=1.0 / (2 * SIGMA**2))
    model.fit(X[[i for i, _ in order]], Y)
    return model.predict(X) > 0


def reference_stop(agreement: np.ndarray, ready: int) -> int | None:
    """The rule in words: the first step from ``ready`` on whose last ``WINDOW`` comparisons,
    ``LAG`` labels apart, average at least ``THRESHOLD``."""
    for t in range(ready, len(agreement)):
        steps = [t - LAG * j for j in range(WINDOW)]
        if min(steps) >= 0 and not np.isnan(agreement[steps]).any():
            if np.mean(agreement[steps]) >= THRESHOLD:
                return t
    return None


def test_the_curve_is_the_micro_f1_of_successive_refits_from_scratch(store):
    # the rule as its benchmark validated it (docs/benchmarks/multilabel.md, "Stopping")
    assert SET_STOP_PARAMS == {"lag": 20, "window": 4, "threshold": 0.98}
    s = labeled(store, 45)
    curves = set_stop_curves(s)
    assert curves.n_labels == list(range(46))  # entry n: the first n labels
    members = {n: reference_members(s, n) for n in range(2, 46)}
    for n in range(46):
        if n < 2:
            assert curves.members[n] is None
            continue
        np.testing.assert_array_equal(curves.members[n], members[n])
        if n - LAG >= 2:
            ref = f1_score(members[n], members[n - LAG], average="micro", zero_division=0.0)
            assert curves.agreement[n] == pytest.approx(ref, abs=1e-12)
        else:
            assert np.isnan(curves.agreement[n])
    seen = [set() for _ in range(46)]
    for n, (_, label) in enumerate(s.labels.items(), start=1):
        seen[n] = seen[n - 1] | set(label)
    assert curves.all_classes == [len(x) == len(CLASSES) for x in seen]


def test_the_rule_fires_where_its_words_say_and_the_budget_ends_there(store):
    s = labeled(store, 100, "blobs")
    curves = set_stop_curves(s)
    ready = next(n for n in range(len(curves)) if n >= MIN_STOP_LABELS and curves.all_classes[n])
    fired = reference_stop(np.asarray(curves.agreement), ready)
    assert fired is not None, "this easy task should settle within 100 labels"
    assert first_set_stop(curves) == fired
    decision = set_stop_decision(curves, len(CLASSES))
    assert decision.stop and decision.fired_at_labels == fired
    assert stop_rule_fired(s)
    # before the stop the advice is "keep going", with a count that moves with the curve
    early = LabelingSession(store, "blobs", "arls", sigma=SIGMA, lam=LAM, snapshots=False)
    while len(early.labels) > fired - 1:
        early.undo()
    assert not stop_rule_fired(early)
    before = set_stop_decision(set_stop_curves(early), len(CLASSES))
    assert not before.stop and before.message.startswith("keep going")
    with pytest.raises(ValueError, match="set-agreement"):
        stopping_view(early)  # the single-label panel's view says where the rule is


def test_an_undo_and_a_reload_give_the_curves_of_a_fresh_session(store):
    s = labeled(store, 30)
    set_stop_curves(s)  # recorded up to 30 labels
    s.undo()
    s.undo()
    i = s.query()[0]
    s.label(i, [])  # a different last label: the tail is recomputed
    after = set_stop_curves(s)
    fresh = LabelingSession(store, "sets", "arls", sigma=SIGMA, lam=LAM, snapshots=False)
    again = set_stop_curves(fresh)
    assert after.n_labels == again.n_labels
    np.testing.assert_array_equal(after.agreement, again.agreement)
    for a, b in zip(after.members, again.members, strict=True):
        assert (a is None and b is None) or np.array_equal(a, b)


def test_the_label_page_shows_the_advice_and_until_stop_ends_labeling(store, tmp_path, monkeypatch):
    save_project_settings(
        store, "blobs", {"strategy": "arls", "sigma": SIGMA, "lam": LAM, "until_stop": True}
    )
    s = labeled(store, 100, "blobs")
    assert stop_rule_fired(s)
    monkeypatch.setenv("RLSCORE_DB", str(tmp_path / "labels.sqlite3"))
    at = app_page("label.py")
    at.query_params["project"] = "blobs"
    at.query_params["annotator"] = "ada"
    ok(at.run())
    assert not at.error, [e.value for e in at.error]
    assert any(x.value.startswith("You can stop: the set-agreement rule fired") for x in at.success)
    assert any("Done: the stop rule fired" in x.value for x in at.success)
    until = at.sidebar.toggle(key="w_until_stop")
    assert not until.disabled and until.value is True
    assert not _set_buttons(at)
    # each tab can go on anyway (a tester's multi-label panel offered no way on)
    at.button(key="go_on_after_stop").click()
    ok(at.run())
    assert _set_buttons(at)
    with open_store(tmp_path / "labels.sqlite3") as store:
        assert len(store.events("blobs")) == 100  # going on labeled nothing by itself


def test_auto_label_stops_where_the_rule_fires_unless_told_otherwise(store):
    # Auto-label labeled on past the stop of a project "until the stop rule fires"
    s = LabelingSession(store, "blobs", "arls", sigma=SIGMA, lam=LAM, snapshots=False)
    done = s.auto_label(len(s.project.X), until_stop=True)
    fresh = LabelingSession(store, "blobs", "arls", sigma=SIGMA, lam=LAM, snapshots=False)
    curves = set_stop_curves(fresh)
    ready = next(n for n in range(len(curves)) if n >= MIN_STOP_LABELS and curves.all_classes[n])
    assert done == len(fresh.labels) == reference_stop(np.asarray(curves.agreement), ready)
    assert s.auto_label(5, until_stop=True) == 0  # stopped, as the Label page's panel
    assert s.auto_label(5) == 5  # going on anyway


def test_the_label_pages_auto_label_stops_at_the_multi_label_rule(store, tmp_path, monkeypatch):
    save_project_settings(
        store, "blobs", {"strategy": "arls", "sigma": SIGMA, "lam": LAM, "until_stop": True}
    )
    # AppTest runs the whole page at a click, the panel (which shows the notice) first, and
    # then the page run the click asks for; a browser reruns the figures' fragment only, and
    # that page run shows it
    monkeypatch.setattr(refresh, "follow_page_run", lambda: None)
    monkeypatch.setenv("RLSCORE_DB", str(tmp_path / "labels.sqlite3"))
    at = app_page("label.py")
    at.query_params["project"] = "blobs"
    at.query_params["annotator"] = "ada"
    ok(at.run())
    at.number_input(key="n_auto").set_value(120)
    ok(at.run())
    at.button(key="auto").click()
    ok(at.run())
    n = len(LabelingSession(store, "blobs", "arls", snapshots=False).labels)
    assert 0 < n < 120
    notices = " ".join(x.value for x in at.success)
    assert f"Auto-labeled {n} points with the truth. Stopped there: the stop rule" in notices
    assert "Done: the stop rule fired" in notices
    assert at.button(key="auto").disabled
    at.button(key="go_on_after_stop").click()
    ok(at.run())
    assert not at.button(key="auto").disabled


def _set_buttons(at) -> list:
    """The Label page's class toggles and Save of a multi-label point."""
    return [b for b in at.button if b.key and b.key.startswith("label_")]


def test_a_simulated_run_stops_where_refits_from_scratch_say(store):
    project = store.load_project("blobs")
    X, truth = project.X, [tuple(t) for t in project.truth]
    params = {"sigma": SIGMA, "lam": LAM}
    result = simulate_multilabel(X, truth, CLASSES, "arls", queries=100, init=5, params=params)
    run = result.runs[0]
    order = [(i, truth[i]) for i in run.init] + [
        (st.index, truth[st.index]) for st in run.steps[1:]
    ]
    members = [refit_members(X, order[: 5 + t]) for t in range(len(run.steps))]
    agreement = np.full(len(members), np.nan)
    for t in range(LAG, len(members)):
        agreement[t] = f1_score(members[t], members[t - LAG], average="micro", zero_division=0.0)
    seen = [set().union(*(set(y) for _, y in order[: 5 + t])) for t in range(len(members))]
    ready = next(t for t in range(len(members)) if 5 + t >= MIN_STOP_LABELS and len(seen[t]) == 4)
    fired = reference_stop(agreement, ready)
    assert fired is not None
    assert run.stop == {"rule": "set-agreement", "step": fired, "n_labels": 5 + fired}
    short = simulate_multilabel(
        X, truth, CLASSES, "arls", queries=100, init=5, params=params, until_stop=True
    )
    assert [st.index for st in short.runs[0].steps] == [st.index for st in run.steps[: fired + 1]]
    assert short.runs[0].stop == run.stop


def test_the_advice_counts_the_classes_in_no_label_set(store):
    # it said "some class is in no label set yet" without how many (an exploratory test);
    # the count is written by hand from the labels given, not from the code's union
    s = LabelingSession(store, "blobs", "arls", sigma=SIGMA, lam=LAM, snapshots=False)
    truth = s.project.truth
    s.label(0, list(truth[0]))  # blob 0: {"a"}
    s.label(3, list(truth[3]))  # blob 3: the empty set
    assert (list(truth[0]), list(truth[3])) == (["a"], [])
    assert classes_in_no_set(s) == 3  # b, c and d
    decision = set_stop_decision(set_stop_curves(s), len(CLASSES), classes_in_no_set(s))
    assert decision.message == "keep going: 3 classes are in no label set yet"
    s.label(1, list(truth[1]))  # {"a", "b"}
    s.label(2, list(truth[2]))  # {"c", "d"}: every class now
    assert classes_in_no_set(s) == 0
