"""The SQLite label store: projects round-trip, events are validated and durable, concurrent
writers lose nothing."""

import multiprocessing as mp
import signal
import sqlite3
import subprocess
import sys

import numpy as np
import pytest

from rlscore.data.projects import Project
from rlscore.data.samples import ensure_sample_projects, list_samples
from rlscore.storage import (
    DB_ENV,
    Event,
    LabelStore,
    SQLiteLabelStore,
    UnknownProjectError,
    default_db_path,
    open_store,
)
from rlscore.storage.sqlite import SCHEMA_VERSION


def small_project(name="p", n=6, classes=(-1, 1), truth=True) -> Project:
    rng = np.random.default_rng(0)
    return Project(
        name=name,
        X=rng.normal(size=(n, 3)),
        feature_names=["a", "b", "c"],
        ids=[f"id{i}" for i in range(n)],
        truth=np.array([classes[i % len(classes)] for i in range(n)]) if truth else None,
        classes=list(classes),
        meta={"description": "test", "sigma": 1.5, "lam": 0.3, "image_shape": None},
    )


@pytest.fixture
def store(tmp_path):
    with open_store(tmp_path / "labels.sqlite3") as s:
        yield s


def test_open_store_path_env_and_default(tmp_path, monkeypatch):
    monkeypatch.setenv(DB_ENV, str(tmp_path / "env" / "db.sqlite3"))
    assert default_db_path() == tmp_path / "env" / "db.sqlite3"
    with open_store() as s:
        assert s.path == tmp_path / "env" / "db.sqlite3" and s.path.exists()
    monkeypatch.delenv(DB_ENV)
    assert default_db_path().name == "labels.sqlite3"
    assert isinstance(open_store(tmp_path / "x.sqlite3"), LabelStore)


def test_wal_and_schema_version(store):
    mode = sqlite3.connect(store.path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    assert store.schema_version == SCHEMA_VERSION


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "db.sqlite3"
    open_store(path).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE schema_info SET version = ?", (SCHEMA_VERSION + 1,))
    con.commit()
    con.close()
    with pytest.raises(RuntimeError, match="newer than this rlscore"):
        open_store(path)


def test_project_round_trip(store):
    p = small_project(classes=("cat", "dog", "eel"))
    store.create_project(p)
    q = store.load_project("p")
    np.testing.assert_array_equal(q.X, p.X)
    assert q.X.dtype == np.float64
    for attr in ("feature_names", "ids", "classes", "meta"):
        assert getattr(q, attr) == getattr(p, attr)
    assert q.truth.tolist() == p.truth.tolist()
    assert q.uid is not None and store.project_uid("p") == q.uid
    no_truth = small_project("q", truth=False)
    store.create_project(no_truth)
    assert store.load_project("q").truth is None
    assert store.list_projects() == ["p", "q"]


def test_project_summaries_without_loading_features(store):
    store.create_project(small_project("b", n=5, classes=("x", "y", "z")))
    store.create_project(small_project("a", truth=False))
    summary = store.project_summaries()
    assert [s["name"] for s in summary] == ["a", "b"]
    assert (summary[1]["n"], summary[1]["d"], summary[1]["classes"]) == (5, 3, ["x", "y", "z"])
    assert [s["has_truth"] for s in summary] == [False, True]
    assert summary[0]["meta"]["sigma"] == 1.5 and summary[0]["created"] > 1e9
    # the generic implementation of the interface agrees (except the creation time)
    generic = LabelStore.project_summaries(store)
    assert [{**s, "created": None} for s in summary] == generic


def test_project_name_conflicts_and_unknown(store):
    store.create_project(small_project())
    with pytest.raises(ValueError, match="'p' already exists"):
        store.create_project(small_project())
    with pytest.raises(UnknownProjectError, match="no project named 'zz'.*projects: \\['p'\\]"):
        store.load_project("zz")
    with pytest.raises(UnknownProjectError):
        store.delete_project("zz")
    with pytest.raises(UnknownProjectError):
        store.append_event("zz", Event("label", 0, 1))
    assert store.project_uid("zz") is None


def test_delete_project_removes_events_and_new_project_gets_new_uid(store):
    store.create_project(small_project())
    uid = store.project_uid("p")
    store.append_event("p", Event("label", 0, 1))
    store.delete_project("p")
    assert store.list_projects() == []
    store.create_project(small_project())
    assert store.project_uid("p") != uid
    assert store.events("p") == []
    n_rows = sqlite3.connect(store.path).execute("SELECT COUNT(*) FROM events").fetchone()[0]
    assert n_rows == 0


def test_ensure_sample_projects_is_idempotent(store):
    ensure_sample_projects(store)
    assert store.list_projects() == sorted(list_samples())
    uids = {name: store.project_uid(name) for name in list_samples()}
    ensure_sample_projects(store)
    assert {name: store.project_uid(name) for name in list_samples()} == uids
    spheres = store.load_project("spheres")
    assert spheres.X.shape == (1200, 2) and spheres.meta["sigma"] == 1.7


def test_events_round_trip_and_order(store):
    store.create_project(small_project(classes=("cat", "dog")))
    a = store.append_event(
        "p",
        Event("label", 2, "dog", "alice", seconds=1.5, params={"strategy": "arls", "lam": 0.5}),
    )
    b = store.append_event("p", Event("skip", np.int64(3), annotator="bob", timestamp=123.0))
    c = store.append_event("p", Event("undo", annotator="bob"))
    assert a < b < c
    ev = store.events("p")
    assert [e.id for e in ev] == [a, b, c]
    assert (ev[0].kind, ev[0].point, ev[0].label, ev[0].annotator, ev[0].seconds) == (
        "label",
        2,
        "dog",
        "alice",
        1.5,
    )
    assert ev[0].params == {"strategy": "arls", "lam": 0.5} and ev[0].timestamp > 1e9
    assert (ev[1].kind, ev[1].point, ev[1].label, ev[1].timestamp) == ("skip", 3, None, 123.0)
    assert (ev[2].kind, ev[2].target) == ("undo", b)  # the most recent label or skip
    assert [e.id for e in store.events("p", after_id=a)] == [b, c]
    assert store.last_event_id("p") == c


def test_event_validation(store):
    store.create_project(small_project(n=4))
    with pytest.raises(ValueError, match="kind must be one of"):
        store.append_event("p", Event("relabel", 0, 1))
    with pytest.raises(ValueError, match="outside the pool \\(0 … 3\\)"):
        store.append_event("p", Event("label", 4, 1))
    with pytest.raises(ValueError, match="must be an integer"):
        store.append_event("p", Event("label", "0", 1))
    with pytest.raises(ValueError, match="label 2 is not one of the classes \\[-1, 1\\]"):
        store.append_event("p", Event("label", 0, 2))
    with pytest.raises(ValueError, match="nothing to undo"):
        store.append_event("p", Event("undo"))
    a = store.append_event("p", Event("label", 0, np.int64(1)))  # numpy labels are fine
    store.append_event("p", Event("undo", target=a))
    with pytest.raises(ValueError, match=f"event {a} cannot be undone"):
        store.append_event("p", Event("undo", target=a))
    with pytest.raises(ValueError, match="nothing to undo"):
        store.append_event("p", Event("undo"))
    assert len(store.events("p")) == 2  # rejected events leave no trace


def test_undo_targets_are_resolved_in_a_stack(store):
    store.create_project(small_project())
    ids = [store.append_event("p", Event("label", i, 1)) for i in range(3)]
    u1 = store.append_event("p", Event("undo"))
    u2 = store.append_event("p", Event("undo"))
    targets = {e.id: e.target for e in store.events("p")}
    assert targets[u1] == ids[2] and targets[u2] == ids[1]


def test_two_connections_see_each_others_events(tmp_path):
    path = tmp_path / "db.sqlite3"
    s1, s2 = open_store(path), open_store(path)
    s1.create_project(small_project())
    s1.append_event("p", Event("label", 0, 1, "tab1"))
    s2.append_event("p", Event("label", 1, -1, "tab2"))
    assert [e.annotator for e in s1.events("p")] == ["tab1", "tab2"]
    assert s1.events("p") == s2.events("p")


def _writer(path: str, name: str, n: int, barrier) -> None:
    store = SQLiteLabelStore(path)
    barrier.wait()
    seen = 0
    for i in range(n):
        store.append_event("p", Event("label", i % 6, 1 if i % 2 else -1, name, params={"i": i}))
        if i % 10 == 9:
            store.append_event("p", Event("undo", annotator=name))
        # read what the other writer committed, as a session's sync() does between labels
        seen = max([seen, *(e.id for e in store.events("p", after_id=seen))])
    store.close()


def test_concurrent_writers_in_two_processes_lose_nothing(tmp_path):
    path = str(tmp_path / "db.sqlite3")
    with open_store(path) as s:
        s.create_project(small_project())
    n = 60
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_writer, args=(path, w, n, barrier)) for w in ("A", "B")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    with open_store(path) as s:
        ev = s.events("p")
    for w in ("A", "B"):
        labels = [e.params["i"] for e in ev if e.kind == "label" and e.annotator == w]
        assert labels == list(range(n))  # every label of each writer, in its own order
        assert sum(e.kind == "undo" and e.annotator == w for e in ev) == n // 10
    ids = [e.id for e in ev]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    targets = [e.target for e in ev if e.kind == "undo"]
    assert len(set(targets)) == len(targets)  # no event was undone twice


def test_committed_events_survive_kill_9(tmp_path):
    path = tmp_path / "db.sqlite3"
    with open_store(path) as s:
        s.create_project(small_project())
    code = (
        "import os, signal, sys\n"
        "from rlscore.storage import open_store, Event\n"
        f"s = open_store({str(path)!r})\n"
        "for i in range(5):\n"
        "    s.append_event('p', Event('label', i, 1, 'victim'))\n"
        "print('written', flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL and "written" in proc.stdout
    with open_store(path) as s:
        assert [e.point for e in s.events("p")] == [0, 1, 2, 3, 4]
