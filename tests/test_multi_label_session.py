"""Labeling sessions of a multi-label project: label sets in, the multi-label engine built,
replay of the stored sets after a restart, undo and relabel, review, the histories, and the
single-label-only figures saying "none" instead of failing.

References are independent of the session's incremental path: the multi-label strategy
started from scratch and taught the session's final sets, and a session reopened from the
database (bit-for-bit equality).
"""

import time

import numpy as np
import pytest
from support.multi_label import CLASSES, tagged_project
from support.sessions import assert_same_state

import rlscore.sessions.state.snapshots
from rlscore.core.conventions.label_sets import multi_hot
from rlscore.query import DEFAULT_MULTILABEL_STRATEGY, make_strategy, predicted_sets
from rlscore.sessions import LabelingSession, LabelLog
from rlscore.sessions.actions.dwell import MIN_DWELL_ENV, TooSoonError
from rlscore.sessions.state.settings import project_settings, save_project_settings
from rlscore.sessions.team.permissions import PermissionDeniedError
from rlscore.storage import open_store


@pytest.fixture
def store(tmp_path):
    with open_store(tmp_path / "labels.sqlite3") as s:
        s.create_project(tagged_project(n=40, d=3))
        yield s


def labeled_session(store, **kw) -> LabelingSession:
    """A session with a scripted history: queries labeled with the true sets, an empty set,
    a relabel, an undo, a skip."""
    s = LabelingSession(store, "tags", kw.pop("strategy", "arls"), lam=0.5, snapshots=False, **kw)
    truth = s.project.truth
    for _ in range(6):
        i, _score = s.query()
        s.label(i, list(truth[i]), seconds=1.0)
    s.label(3, [])  # a clicked point: none of these
    s.label(3, ["tech", "sports"])  # relabel, any order
    s.label(8, ["news"])
    s.undo()  # reverts point 8's label
    s.skip(s.query()[0])
    return s


def test_label_sets_reach_the_store_and_the_engine(store):
    s = labeled_session(store)
    assert s.labels[3] == ("sports", "tech") and 8 not in s.labels
    stored = {e.point: e.label for e in store.events("tags") if e.kind == "label"}
    assert stored[3] == ("sports", "tech")
    ref = make_strategy("arls", multi_label=True, kernel="rbf", sigma=1.0, lam=0.5)
    ref.start(s.project.X, CLASSES)
    for i, y in s.labels.items():
        ref.teach(i, y)
    np.testing.assert_allclose(
        s.engine.decision_function(), ref.decision_function(), rtol=1e-9, atol=1e-10
    )
    assert s.query(claim=False)[0] == ref.next_query(exclude=s.skipped)[0]


def test_a_restart_replays_the_same_state(store, tmp_path):
    live = labeled_session(store)
    with open_store(tmp_path / "labels.sqlite3") as again:
        reopened = LabelingSession(again, "tags", "arls", lam=0.5, snapshots=False)
        assert_same_state(live, reopened)


def test_the_default_strategy_is_multi_label_arls_and_others_are_refused(store):
    s = LabelingSession(store, "tags", snapshots=False)
    assert s.strategy_name == DEFAULT_MULTILABEL_STRATEGY == "arls"
    i = s.query()[0]
    s.label(i, ["news"])
    assert store.events("tags")[0].params["strategy"] == "arls"
    with pytest.raises(ValueError, match="'lgc' is not available for multi-label"):
        LabelingSession(store, "tags", "lgc", snapshots=False)
    # the multi-label variants go by their single-label names
    for name in ("arls-focused", "aopt-klr"):
        assert LabelingSession(store, "tags", name, snapshots=False).strategy_name == name
    with pytest.raises(ValueError, match="not available for multi-label"):
        s.set_params(strategy="arls-weighted")
    assert s.strategy_name == "arls"
    # the app's settings of a multi-label project nobody changed name the same default
    assert project_settings(store, "tags")["strategy"] == "arls"


def test_a_single_class_is_refused_in_a_multi_label_session(store):
    s = LabelingSession(store, "tags", "random", snapshots=False)
    with pytest.raises(ValueError, match="this project is multi-label"):
        s.label(0, "news")
    with pytest.raises(ValueError, match=r"unknown class\(es\) \['cats'\]"):
        s.label(0, ["cats"])
    assert store.events("tags") == []


def test_histories_count_changed_sets_and_the_subset_error(store):
    s = labeled_session(store, strategy="uncertainty")
    sets = predicted_sets(s.engine)
    truth = s.project.truth
    unlabeled = [i for i in range(s.project.n) if i not in s.labels]
    wrong = np.mean([sets[i] != truth[i] for i in unlabeled])
    assert s.validation_error() == pytest.approx(wrong)
    assert s.validation_error(balanced=True) is None
    assert len(s.risk_history) == s.n_labeled + 1 == len(s.change_history)
    # the last label's change, by hand: predicted sets before and after it
    before = s.engine.decision_function() > 0
    i = s.query()[0]
    s.label(i, list(truth[i]))
    after = s.engine.decision_function() > 0
    assert s.change_history[-1] == pytest.approx(np.mean((before != after).any(axis=1)))


def test_single_label_figures_say_none(store):
    s = labeled_session(store)
    assert s.loo_errors() == {"loo_error": None, "loo_balanced_error": None}
    report = s.stopping()
    assert report["loo_error"] is None and report["missing_classes"] == []


def test_review_and_majority_take_sets(store):
    s = LabelingSession(store, "tags", "random", overlap=2, snapshots=False, annotator="ann")
    s.label(5, ["news"], annotator="ann")
    s.label(5, ["news", "tech"], annotator="bob")
    s.label(5, ["news"], annotator="cy")
    assert s.labels[5] == ("news",)  # two of three gave this set
    s.review(5, ["tech"], reviewer="ann")
    assert s.labels[5] == ("tech",)
    assert multi_hot([s.labels[5]], CLASSES).tolist() == [[0.0, 0.0, 1.0]]


def test_auto_label_uses_the_true_sets(store):
    s = LabelingSession(store, "tags", "random", snapshots=False)
    assert s.auto_label(5) == 5
    assert all(s.labels[i] == s.project.truth[i] for i in s.labels)


def test_a_snapshot_restores_the_same_state(store, tmp_path, monkeypatch):
    # every state is worth a snapshot here (the small pool replays too fast to earn one)
    monkeypatch.setattr(rlscore.sessions.state.snapshots, "SNAPSHOT_MIN_SECONDS", 0.0)
    snaps = tmp_path / "snaps"
    live = LabelingSession(store, "tags", "arls", lam=0.5, snapshots=snaps)
    for _ in range(8):
        i = live.query()[0]
        live.label(i, list(live.project.truth[i]))
    reopened = LabelingSession(store, "tags", "arls", lam=0.5, snapshots=snaps)
    assert reopened.restored_from_snapshot_ is not None  # then the rest replayed on it
    assert_same_state(live, reopened)


def test_the_dwell_and_the_roles_hold_for_sets(store, monkeypatch):
    monkeypatch.setenv(MIN_DWELL_ENV, "200")  # off outside the browser tests (conftest)
    store.set_member("tags", "ann", "owner")
    s = LabelingSession(store, "tags", "random", snapshots=False, annotator="ann")
    i = s.query()[0]
    with pytest.raises(TooSoonError):  # saved right as the point was drawn
        s.label(i, ["news"], shown_at=time.monotonic())
    with pytest.raises(PermissionDeniedError, match="acts as 'ann'"):  # opened for ann
        s.label(i, ["news"], annotator="eve", shown_at=time.monotonic() - 1.0)
    shared = LabelingSession(store, "tags", "random", snapshots=False, checked=False)  # the app's
    with pytest.raises(PermissionDeniedError, match="annotator"):  # by trying: not a member
        shared.label(i, ["news"], annotator="eve", shown_at=time.monotonic() - 1.0)
    assert [e.kind for e in store.events("tags")] == []
    s.label(i, ["news"], shown_at=time.monotonic() - 1.0)
    assert store.events("tags")[-1].label == ("news",)


@pytest.mark.parametrize("weight", [None, "balanced"])
def test_the_headline_is_the_micro_f1_of_brute_force_refits_on_the_checks(store, weight):
    s = LabelingSession(
        store, "tags", "arls", lam=0.5, audit_every=2, snapshots=False, class_weight=weight
    )
    assert s.engine.get_params()["class_weight"] == weight
    truth = s.project.truth
    assert s.set_accuracy() is None  # no check yet
    for _ in range(16):
        i = s.query()[0]
        s.label(i, list(truth[i]))
    checks = sorted(LabelLog(store.events("tags")).checks)  # the random checks, as stored
    assert len(checks) >= 5
    # each check predicted by a model refitted without it, from scratch
    tp = fp = fn = 0
    for c in checks:
        ref = make_strategy(
            "arls", multi_label=True, kernel="rbf", sigma=1.0, lam=0.5, class_weight=weight
        )
        ref.start(s.project.X, CLASSES)
        for i, y in s.labels.items():
            if i != c:
                ref.teach(i, y)
        pred = set(predicted_sets(ref)[c])
        true = set(s.labels[c])
        tp, fp, fn = tp + len(pred & true), fp + len(pred - true), fn + len(true - pred)
    est = s.set_accuracy()
    assert est.n_checks == len(checks)
    assert est.estimate == pytest.approx(2 * tp / (2 * tp + fp + fn))
    assert est.low <= est.estimate <= est.high


@pytest.mark.parametrize(
    "change, message",
    [
        ({"strategy": "lgc"}, "'lgc' is not available for multi-label"),
    ],  # fmt: skip
)
def test_settings_a_multi_label_project_cannot_use_are_refused_and_ignored_if_stored(
    store, change, message
):
    # refused when set (the CLI's and the sidebar's path) ...
    with pytest.raises(ValueError, match=message):
        save_project_settings(store, "tags", change)
    assert store.load_settings("tags") is None
    # ... and ignored, with the reason, if stored before the check: the project still opens
    store.save_settings("tags", change)
    settings = project_settings(store, "tags")
    assert settings["strategy"] == "arls" and settings["until_stop"] is False
    assert message.split(" is ")[0].strip("'") in next(iter(settings["ignored"].values()))
    LabelingSession.from_settings(store, "tags", snapshots=False).query()
