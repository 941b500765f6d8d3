"""Labeling sessions: the event log is the truth, the engine is rebuilt from it exactly.

References used here are independent of the session's incremental path: a strategy started
from scratch and taught the final labels, RLS refitted on the labeled set, predictions and
errors recomputed by hand, and sessions reopened from the database (bit-for-bit equality).
"""

import json
import multiprocessing as mp
import signal
import subprocess
import sys
from datetime import datetime

import numpy as np
import pandas as pd
import pytest

import rlscore.core.memory
import rlscore.sessions.session
from rlscore.core.rls import RLSClassifier
from rlscore.data.projects import Project
from rlscore.data.samples import ensure_sample_projects, project_from_sample
from rlscore.query import make_strategy
from rlscore.query.base import QueryStrategy
from rlscore.sessions import (
    LabelingSession,
    LabelLog,
    PoolTooLargeError,
    export_labels,
)
from rlscore.sessions.session import AUTO_LAM_MILESTONES
from rlscore.storage import Event, UnknownProjectError, open_store


def moons_subset(name="moons", n=90) -> Project:
    """A small imbalanced two-moons pool (keeps each test fast)."""
    full = project_from_sample("two_moons")
    rng = np.random.default_rng(1)
    idx = np.sort(
        np.concatenate(
            [
                rng.choice(np.flatnonzero(full.truth == -1), n - 12, replace=False),
                rng.choice(np.flatnonzero(full.truth == 1), 12, replace=False),
            ]
        )
    )
    return Project(
        name=name,
        X=full.X[idx],
        feature_names=full.feature_names,
        ids=[f"m{i}" for i in idx],
        truth=full.truth[idx],
        classes=[-1, 1],
        meta={"sigma": 2.0, "lam": 0.5},
    )


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "labels.sqlite3")
    s.create_project(moons_subset())
    yield s
    s.close()


def session(store, **kw) -> LabelingSession:
    return LabelingSession(store, kw.pop("project", "moons"), kw.pop("strategy", "arls"), **kw)


def assert_same_state(a: LabelingSession, b: LabelingSession) -> None:
    """Bit-for-bit the same labels, engine state, histories and next query."""
    assert a.labels == b.labels and list(a.labels) == list(b.labels)
    assert a.skipped == b.skipped
    assert a.engine.labeled_ == b.engine.labeled_ and a.engine.labels_ == b.engine.labels_
    np.testing.assert_array_equal(a.engine.decision_function(), b.engine.decision_function())
    np.testing.assert_array_equal(a.engine.scores(), b.engine.scores())
    assert a.risk_history == b.risk_history
    assert a.validation_history == b.validation_history
    assert a.change_history == b.change_history
    assert a.lam_ == b.lam_
    assert a.query() == b.query()


def scripted_history(s: LabelingSession) -> None:
    """Labels, a relabel, skips, undos of each kind, clicks on non-query points."""
    truth = s.project.truth
    for _ in range(4):
        i, _score = s.query()
        s.label(i, truth[i])
    q = s.query()[0]
    s.skip(q)
    s.label(5, 1)  # a clicked point, not the query
    s.label(5, -1)  # relabel
    s.undo()  # reverts the relabel: 5 is +1 again
    assert s.labels[5] == 1
    s.label(7, truth[7])
    s.undo()
    s.skip(11)
    s.undo()  # un-skips 11
    for _ in range(3):
        i, _score = s.query()
        s.label(i, truth[i], seconds=2.5)


# -- core semantics --------------------------------------------------------------------------


def test_label_commits_event_before_engine(store):
    s = session(store, annotator="alice")
    i, score = s.query()
    assert np.isfinite(score)
    eid = s.label(i, 1, seconds=3.0)
    ev = store.events("moons")
    assert [e.id for e in ev] == [eid]
    assert (ev[0].point, ev[0].label, ev[0].annotator, ev[0].seconds) == (i, 1, "alice", 3.0)
    assert ev[0].params == {"strategy": "arls", "kernel": "rbf", "sigma": 2.0, "lam": 0.5}
    assert s.labels == {i: 1} and s.n_labeled == 1
    assert s.engine.labeled_ == [i]
    assert len(s.risk_history) == 2  # before any label, after one


def test_engine_matches_strategy_taught_from_scratch(store):
    s = session(store)
    scripted_history(s)
    ref = make_strategy("arls", kernel="rbf", sigma=2.0, lam=0.5)
    ref.start(s.project.X, s.project.classes)
    for i, y in s.labels.items():
        ref.teach(i, y)
    np.testing.assert_allclose(
        s.engine.decision_function(), ref.decision_function(), rtol=1e-9, atol=1e-10
    )
    assert set(s.engine.labeled_) == set(s.labels)
    assert s.query()[0] == ref.next_query(exclude=s.skipped)[0]
    assert s.risk_history[-1] == pytest.approx(ref.estimated_risk(), rel=1e-9)


def test_rebuild_from_log_is_identical(store):
    live = session(store)
    scripted_history(live)
    reopened = session(open_store(store.path))
    assert_same_state(live, reopened)


def test_rebuild_is_identical_with_ties_on_spheres(tmp_path):
    """Spheres is a symmetric grid: the best and second-best scores differ by only ~1e-6
    relative (measured), so a replay that reorders floating-point work could change the query;
    the replay must give the same state bit for bit."""
    with open_store(tmp_path / "db.sqlite3") as st:
        ensure_sample_projects(st)
        live = session(st, project="spheres")
        assert live.auto_label(12) == 12
        live.undo()
        live.label(0, live.project.truth[0])
        again = session(open_store(st.path), project="spheres")
        assert_same_state(live, again)


def test_kill_9_and_reopen_shows_the_same_next_query(store):
    code = (
        "import os, signal, json\n"
        "from rlscore.storage import open_store\n"
        "from rlscore.sessions import LabelingSession\n"
        f"s = LabelingSession(open_store({str(store.path)!r}), 'moons', 'arls')\n"
        "s.auto_label(6); s.skip(s.query()[0]); s.undo(); s.undo(); s.label(3, 1)\n"
        "print(json.dumps({'labels': list(s.labels.items()), 'query': s.query(),\n"
        "                  'risk': s.risk_history}), flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    before = json.loads(proc.stdout)
    s = session(open_store(store.path))
    assert [list(kv) for kv in s.labels.items()] == before["labels"]
    assert list(s.query()) == before["query"]
    assert s.risk_history == before["risk"]
    assert s.n_labeled == len(before["labels"]) >= 5


def test_sync_picks_up_other_tabs(store):
    a = session(store, annotator="a")
    b = session(open_store(store.path), annotator="b")
    assert b.sync() is False
    a.label(3, 1)
    a.skip(4)
    assert b.sync() is True and b.labels == {3: 1} and b.skipped == {4}
    assert b.sync() is False
    b.label(9, -1)
    reverted = a.undo()  # undo is global: reverts b's newer label
    assert reverted.point == 9 and reverted.annotator == "b"
    b.sync()
    assert_same_state(a, b)


def test_two_processes_labeling_the_same_project_lose_nothing(store):
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(2)
    halves = {"left": list(range(0, 40, 2)), "right": list(range(1, 40, 2))}
    procs = [
        ctx.Process(target=_label_points, args=(str(store.path), name, pts, barrier))
        for name, pts in halves.items()
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
        assert p.exitcode == 0
    s = session(store)
    assert set(s.labels) == set(range(40))
    assert all(s.labels[i] == s.project.truth[i] for i in range(40))
    annotators = {e.annotator for e in store.events("moons")}
    assert annotators == {"left", "right"}


def _label_points(path, name, points, barrier):
    s = LabelingSession(open_store(path), "moons", "arls", annotator=name)
    barrier.wait()
    for i in points:
        s.sync()  # as a Streamlit rerun would
        s.label(i, s.project.truth[i])


# -- skip, undo, budget ---------------------------------------------------------------------


def test_skip_semantics(store):
    s = session(store)
    q = s.query()[0]
    s.skip(q)
    assert s.skipped == {q} and s.query()[0] != q
    s.label(q, 1)  # a skipped point can still be labeled by clicking it
    assert q in s.labels and s.skipped == set()
    with pytest.raises(ValueError, match=f"point {q} is labeled"):
        s.skip(q)
    s.undo()  # reverts the label: the skip applies again
    assert s.skipped == {q} and q not in s.labels
    s.undo()
    assert s.skipped == set() and s.query()[0] == q


def test_undo_semantics(store):
    s = session(store)
    with pytest.raises(ValueError, match="nothing to undo"):
        s.undo()
    s.label(1, 1)
    s.label(2, -1)
    s.label(1, -1)  # relabel
    assert s.undo().label == -1 and s.labels == {1: 1, 2: -1}
    assert s.undo().point == 2 and s.labels == {1: 1}
    assert s.undo().point == 1 and s.labels == {}
    assert s.risk_history == [s.risk_history[0]]
    # undone labels are still in the database, marked as undone
    assert [e.kind for e in store.events("moons")] == ["label"] * 3 + ["undo"] * 3


def test_undo_race_between_tabs(store):
    a = session(store)
    b = session(open_store(store.path))
    a.label(1, 1)
    a.label(2, 1)
    b.sync()
    real_sync, calls = b.sync, []

    def stale_sync():  # b decides what to undo before a's undo reaches it
        calls.append(1)
        return False if len(calls) == 1 else real_sync()

    b.sync = stale_sync
    a.undo()
    assert b.undo() is None  # the store refuses to undo the same event twice
    assert a.sync() is False and a.labels == {1: 1} and b.labels == {1: 1}


def test_budget(store):
    s = session(store, budget=3)
    assert s.budget_left == 3
    assert s.auto_label(10) == 3
    assert s.query() is None and s.done and s.budget_left == 0
    s.set_params(budget=5)
    assert s.query() is not None
    with pytest.raises(ValueError, match="budget must be a positive whole number"):
        session(store, budget=-2)
    s.set_params(budget=0)  # 0 = no budget
    assert s.budget is None and s.budget_left is None


def test_query_none_when_pool_exhausted(tmp_path):
    p = moons_subset("tiny", n=14)
    with open_store(tmp_path / "db.sqlite3") as st:
        st.create_project(p)
        s = session(st, project="tiny")
        assert s.auto_label(100) == 14
        assert s.query() is None


def test_invalid_label_and_point(store):
    s = session(store)
    with pytest.raises(ValueError, match="label 3 is not one of the classes \\[-1, 1\\]"):
        s.label(0, 3)
    with pytest.raises(ValueError, match="outside the pool"):
        s.label(500, 1)
    assert store.events("moons") == []


def test_seconds_measured_for_the_query(store):
    s = session(store)
    i, _ = s.query()
    s.label(i, 1)
    assert store.events("moons")[0].seconds >= 0
    s.label(0 if i else 1, 1)  # not the proposed point, no time given
    assert store.events("moons")[1].seconds is None


# -- oracle, validation, stopping -----------------------------------------------------------


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
    assert st["stable"] == (st["prediction_change"] <= 0.01)
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


# -- parameters -------------------------------------------------------------------------------


def test_set_params_rebuilds_like_a_fresh_session(store):
    s = session(store)
    scripted_history(s)
    s.set_params(lam=0.1, sigma=1.5)
    assert s.engine.lam == 0.1 and s.engine.sigma == 1.5
    fresh = session(open_store(store.path), lam=0.1, sigma=1.5)
    assert_same_state(s, fresh)
    s.set_params(strategy="uncertainty")
    assert type(s.engine).__name__ == "UncertaintyQuery"
    assert_same_state(
        s, session(open_store(store.path), strategy="uncertainty", lam=0.1, sigma=1.5)
    )
    # the label events remember the settings in effect
    s.label(50, 1)
    assert store.events("moons")[-1].params["strategy"] == "uncertainty"


def test_invalid_params_keep_the_session_usable(store):
    s = session(store)
    s.auto_label(3)
    before = s.query()
    with pytest.raises(ValueError, match="sigma"):
        s.set_params(sigma=-1.0)
    with pytest.raises(ValueError, match="unknown strategy"):
        s.set_params(strategy="nope")
    with pytest.raises(ValueError, match="lam must be"):
        s.set_params(lam="often")
    assert s.get_params()["sigma"] == 2.0 and s.query() == before
    s.set_params(annotator="zoe")
    s.label(before[0], 1)
    assert store.events("moons")[-1].annotator == "zoe"


def test_class_weight_and_weighted_strategy(store):
    s = session(store, strategy="arls-weighted")
    assert s.engine.class_weight == "balanced"  # the strategy's default is kept
    s.auto_label(4)
    s.set_params(class_weight={-1: 1.0, 1: 5.0})
    assert s.engine.class_weight == {-1: 1.0, 1: 5.0}
    assert store.events("moons")[-1].params["strategy"] == "arls-weighted"


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


def test_pool_too_large_is_refused(store, monkeypatch):
    s = session(store)
    monkeypatch.setattr(rlscore.core.memory, "available_memory_bytes", lambda: 1000)
    with pytest.raises(PoolTooLargeError, match="pool too large.*subsample"):
        session(store)
    with pytest.raises(PoolTooLargeError):
        s.set_params(strategy="uncertainty")
    monkeypatch.undo()
    assert s.strategy_name == "arls" and s.query() is not None


# -- stand-in strategy instance ------------------------------------------------------------


class KernelVote(QueryStrategy):
    """f = Σ k(x, x_j) y_j / (1 + λ); scores |f| — a strategy instance, not a name."""

    def __init__(self, kernel="rbf", sigma=1.0, lam=1.0):
        self.kernel, self.sigma, self.lam = kernel, sigma, lam

    def _start(self, X, K):
        self.K_ = self.pool_kernel(X) if K is None else K
        self.f_ = np.zeros(X.shape[0])

    def _add(self, i, c):
        self.f_ += self.K_[:, i] * self.ova_targets(c)[0] / (1 + self.lam)

    def _remove(self, pos):
        c = self.class_index(self.labels_[pos])
        self.f_ -= self.K_[:, self.labeled_[pos]] * self.ova_targets(c)[0] / (1 + self.lam)

    def scores(self):
        s = np.abs(self.f_)
        s[self.labeled_] = np.nan
        return s

    def estimated_risk(self):
        p = self.predict_proba()
        return float(np.sum(1 - p.max(axis=1)))

    def decision_function(self):
        return self.f_.copy()


def test_strategy_instance(store):
    s = session(store, strategy=KernelVote(), lam=0.25)
    assert s.strategy_name == "KernelVote" and s.engine.lam == 0.25 and s.engine.sigma == 2.0
    scripted_history(s)
    expected = sum(s.engine.K_[:, i] * (1 if y == 1 else -1) for i, y in s.labels.items()) / 1.25
    np.testing.assert_allclose(s.engine.decision_function(), expected, atol=1e-12)
    assert_same_state(s, session(open_store(store.path), strategy=KernelVote(), lam=0.25))


# -- projects going away ------------------------------------------------------------------------


def test_deleted_and_recreated_project(store):
    s = session(store)
    s.label(0, 1)
    store.delete_project("moons")
    with pytest.raises(UnknownProjectError, match="was deleted"):
        s.sync()
    store.create_project(moons_subset())
    assert s.sync() is True and s.labels == {}


# -- export -------------------------------------------------------------------------------------


def test_export_csv_and_json(store):
    s = session(store, annotator="ann")
    scripted_history(s)
    df = pd.read_csv(__import__("io").StringIO(s.export("csv")))
    assert list(df.columns[:10]) == [
        "point_id",
        "index",
        "label",
        "annotator",
        "timestamp",
        "seconds",
        "strategy",
        "kernel",
        "sigma",
        "lam",
    ]
    assert list(df.columns[10:]) == s.project.feature_names
    assert dict(zip(df["index"], df["label"], strict=True)) == s.labels
    assert df["point_id"].tolist() == [s.project.ids[i] for i in s.labels]
    np.testing.assert_allclose(df[s.project.feature_names].to_numpy(), s.project.X[list(s.labels)])
    assert set(df["strategy"]) == {"arls"} and set(df["lam"]) == {0.5}
    assert df["seconds"].iloc[-1] == 2.5
    datetime.fromisoformat(df["timestamp"].iloc[0])  # ISO 8601
    records = json.loads(s.export("json"))
    assert [r["index"] for r in records] == list(s.labels)
    assert records[0]["features"] == dict(
        zip(s.project.feature_names, s.project.X[records[0]["index"]].tolist(), strict=True)
    )
    assert records[0]["annotator"] == "ann"
    # the same text from the log alone (no engine), e.g. for the command line
    assert export_labels(s.project, store.events("moons"), "json") == s.export("json")
    with pytest.raises(ValueError, match="'csv' or 'json'"):
        s.export("xml")


def test_export_prefixes_clashing_feature_names(tmp_path):
    p = Project("clash", np.eye(3), ["label", "x", "lam"], ["a", "b", "c"], None, ["u", "v"])
    log = LabelLog([Event("label", 1, "v", "z", timestamp=0.0, id=1)])
    text = export_labels(p, log, "csv")
    header, row = text.splitlines()
    assert header.split(",")[10:] == ["feature:label", "x", "feature:lam"]
    assert row.startswith("b,1,v,z,1970-01-01T00:00:00+00:00,,")
    assert export_labels(p, log, "csv", include_features=False).splitlines()[0].count(",") == 9


# -- snapshots ------------------------------------------------------------------------------


@pytest.fixture
def always_snapshot(monkeypatch):
    monkeypatch.setattr(rlscore.sessions.session, "SNAPSHOT_MIN_SECONDS", 0.0)
    monkeypatch.setattr(rlscore.sessions.session, "SNAPSHOT_OVERHEAD_RATIO", 0.0)
    return monkeypatch


def test_snapshot_restore_then_replay_is_identical(store, always_snapshot):
    live = session(store)
    live.auto_label(5)
    live.skip(live.query()[0])
    snapshot_files = list(live.snapshot_dir.glob("*.pkl"))
    assert len(snapshot_files) == 1
    taken_at = live.last_event_id
    always_snapshot.setattr(rlscore.sessions.session, "SNAPSHOT_MIN_SECONDS", 1e9)  # no more writes
    scripted_history(live)  # events after the snapshot, undos reaching before it
    live.undo()
    reopened = session(open_store(store.path))
    assert reopened.restored_from_snapshot_ == taken_at < live.last_event_id
    assert_same_state(live, reopened)
    full = session(open_store(store.path), snapshots=False)
    assert full.restored_from_snapshot_ is None
    assert_same_state(live, full)


def test_snapshot_keyed_on_parameters_and_project(store, always_snapshot):
    live = session(store)
    live.auto_label(3)
    assert session(open_store(store.path), lam=0.2).restored_from_snapshot_ is None
    assert session(open_store(store.path)).restored_from_snapshot_ == live.last_event_id
    store.delete_project("moons")
    store.create_project(moons_subset())
    assert session(open_store(store.path)).restored_from_snapshot_ is None


def test_damaged_snapshot_is_ignored(store, always_snapshot):
    live = session(store)
    live.auto_label(4)
    (path,) = live.snapshot_dir.glob("*.pkl")
    path.write_bytes(path.read_bytes()[:100])  # truncated, as after a crash mid-write
    reopened = session(open_store(store.path))
    assert reopened.restored_from_snapshot_ is None
    assert_same_state(live, reopened)


def test_snapshot_eviction_and_opt_out(store, always_snapshot, tmp_path):
    always_snapshot.setattr(rlscore.sessions.session, "SNAPSHOT_KEEP", 2)
    for lam in (0.1, 0.2, 0.3):
        session(store, lam=lam).auto_label(1)
    assert len(list((tmp_path / "labels.sqlite3.snapshots").glob("*.pkl"))) == 2
    s = session(store, snapshots=tmp_path / "elsewhere")
    assert s.snapshot_dir == tmp_path / "elsewhere" and any(s.snapshot_dir.glob("*.pkl"))
    off = session(store, snapshots=False, lam=0.7)
    off.auto_label(1)
    assert off.snapshot_dir is None
