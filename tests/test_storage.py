"""The label stores, SQLite and PostgreSQL (one SQL implementation): projects round-trip,
events are validated and durable, concurrent writers lose nothing, claims and stale checks
hold across processes, and SQLite files of older schemas upgrade in place.

Every test taking ``store`` or ``db_target`` runs on both backends (tests/conftest.py).
"""

import io
import json
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing

import numpy as np
import pytest
from support.races import claim_attempt, label_attempt, race, run_processes
from support.stores import BARRIER_SECONDS, raw_sql, small_project

from rlscore.data.samples.bundled import ensure_sample_projects, list_samples
from rlscore.storage import (
    DB_ENV,
    Event,
    LabelStore,
    StaleActionError,
    UnknownProjectError,
    default_db_path,
    open_store,
)
from rlscore.storage.backends.sqlite import SCHEMA_VERSION


@pytest.fixture
def store(db_target):
    with open_store(db_target) as s:
        yield s


def test_open_store_path_env_and_default(tmp_path, monkeypatch):
    monkeypatch.setenv(DB_ENV, str(tmp_path / "env" / "db.sqlite3"))
    assert default_db_path() == tmp_path / "env" / "db.sqlite3"
    with open_store() as s:
        assert s.path == tmp_path / "env" / "db.sqlite3" and s.path.exists()
    monkeypatch.delenv(DB_ENV)
    assert default_db_path().name == "labels.sqlite3"
    assert isinstance(open_store(tmp_path / "x.sqlite3"), LabelStore)


@pytest.mark.parametrize(
    ("url", "scheme"),
    [("sqlite:///labels.sqlite3", "sqlite"), ("mysql://ada:s3cret@127.0.0.1/x", "mysql")],
)
def test_a_url_of_another_kind_is_refused_and_creates_nothing(tmp_path, monkeypatch, url, scheme):
    """Read as a file path, ``sqlite:///x`` made a folder ``sqlite:`` holding a new database;
    the error names the scheme and not the rest of the URL (it may hold a password)."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=f"{scheme}:// is not supported") as err:
        open_store(url)
    assert "s3cret" not in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_sqlite_is_in_wal_mode(tmp_path):
    with open_store(tmp_path / "db.sqlite3") as s:
        assert raw_sql(str(s.path), "PRAGMA journal_mode") == [("wal",)]


def test_newer_schema_is_refused(db_target):
    with open_store(db_target) as s:
        assert s.schema_version == SCHEMA_VERSION == 5
    raw_sql(db_target, "UPDATE schema_info SET version = ?", (SCHEMA_VERSION + 1,))
    with pytest.raises(RuntimeError, match="newer than this rlscore"):
        open_store(db_target)


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
    store.create_project(small_project("B"))  # sorted as Python sorts, whatever the collation
    summary = store.project_summaries()
    assert [s["name"] for s in summary] == ["B", "a", "b"] == store.list_projects()
    assert (summary[2]["n"], summary[2]["d"], summary[2]["classes"]) == (5, 3, ["x", "y", "z"])
    assert [s["has_truth"] for s in summary] == [True, False, True]
    assert summary[1]["meta"]["sigma"] == 1.5 and summary[1]["created"] > 1e9
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
    store.append_event("p", Event("label", 0, 1))  # the failed writes left no transaction open


def test_delete_project_removes_events_and_new_project_gets_new_uid(store):
    store.create_project(small_project())
    uid = store.project_uid("p")
    store.append_event("p", Event("label", 0, 1))
    store.claim("p", 1, "ann", 60)
    store.save_settings("p", {"lam": 0.2})
    store.delete_project("p")
    assert store.list_projects() == []
    store.create_project(small_project())
    assert store.project_uid("p") != uid
    assert store.events("p") == [] and store.claims("p") == {}
    assert store.load_settings("p") is None
    for table in ("events", "claims", "settings"):
        assert raw_sql(str(store.path), f"SELECT COUNT(*) FROM {table}") == [(0,)]


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
    # a skip says nothing of the class: a label given with it is not stored
    b = store.append_event("p", Event("skip", np.int64(3), "cat", "bob", timestamp=123.0))
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


# -- reviews ----------------------------------------------------------------------------------
def test_review_events_are_validated_like_labels_and_can_be_undone(store):
    store.create_project(small_project(n=4, classes=("cat", "dog")))
    with pytest.raises(ValueError, match="outside the pool \\(0 … 3\\)"):
        store.append_event("p", Event("review", 4, "cat", "rev"))
    with pytest.raises(ValueError, match="'eel' is not one of the classes"):
        store.append_event("p", Event("review", 0, "eel", "rev"))
    with pytest.raises(ValueError, match="None is not one of the classes"):
        store.append_event("p", Event("review", 0, annotator="rev"))  # a review needs a label
    label = store.append_event("p", Event("label", 0, "cat", "ann"))
    review = store.append_event("p", Event("review", 0, "dog", "rev", seconds=2.0))
    e = store.events("p")[-1]
    assert (e.id, e.kind, e.point, e.label, e.annotator, e.seconds) == (
        review,
        "review",
        0,
        "dog",
        "rev",
        2.0,
    )
    undo = store.append_event("p", Event("undo", annotator="rev"))  # the newest: the review
    assert store.events("p")[-1].target == review
    with pytest.raises(ValueError, match=f"event {review} cannot be undone"):
        store.append_event("p", Event("undo", target=review))
    with pytest.raises(ValueError, match=f"event {undo} cannot be undone"):
        store.append_event("p", Event("undo", target=undo))  # an undo is not undone
    again = store.append_event("p", Event("review", 1, "cat", "rev"))
    store.append_event("p", Event("undo", target=again))  # by id, too
    assert store.append_event("p", Event("undo")) > 0  # then the label
    assert store.events("p")[-1].target == label
    with pytest.raises(ValueError, match="no label, review or skip left"):
        store.append_event("p", Event("undo"))


def test_a_review_is_subject_to_the_stale_check_and_releases_claims(store):
    store.create_project(small_project())
    seen = store.append_event("p", Event("label", 2, 1, "ann"))
    assert store.claim("p", 2, "other", 60)
    newer = store.append_event("p", Event("label", 2, -1, "ann2"), unchanged_since=seen)
    assert 2 not in store.claims("p")  # the label released the claim
    with pytest.raises(StaleActionError) as info:
        store.append_event("p", Event("review", 2, 1, "rev"), unchanged_since=seen)
    assert info.value.newest_id == newer
    assert store.claim("p", 2, "other", 60)
    review = store.append_event("p", Event("review", 2, 1, "rev"), unchanged_since=newer)
    assert store.claims("p") == {} and store.events("p")[-1].seen == newer
    # a review changes the point: a label decided on the older state is refused
    with pytest.raises(StaleActionError) as info:
        store.append_event("p", Event("label", 2, 1, "ann"), unchanged_since=newer)
    assert info.value.newest_id == review


@pytest.mark.parametrize("kind", ["label", "skip", "review"])
def test_an_undo_alone_makes_the_point_stale(store, kind):
    """The only event on the point after ``seen`` is the undo of an earlier one: the undo
    event has no point of its own, so only its target ties it to the point."""
    store.create_project(small_project())
    fields = {"label": 1} if kind != "skip" else {}
    before = store.append_event("p", Event(kind, 2, annotator="ann", **fields))
    other = store.append_event("p", Event("label", 4, 1, "ann2"))
    seen = store.last_event_id("p")
    undo = store.append_event("p", Event("undo", target=before, annotator="ann"))
    for refused in (
        lambda: store.append_event("p", Event("label", 2, -1, "bob"), unchanged_since=seen),
        lambda: store.append_event("p", Event("skip", 2, annotator="bob"), unchanged_since=seen),
        lambda: store.append_event("p", Event("review", 2, -1, "rev"), unchanged_since=seen),
        lambda: store.claim("p", 2, "bob", 60, unchanged_since=seen),
    ):
        with pytest.raises(StaleActionError) as info:
            refused()
        assert info.value.point == 2
        assert [(e.id, e.kind, e.target) for e in info.value.events] == [(undo, "undo", before)]
    assert [e.id for e in store.events("p")] == [before, other, undo]  # nothing written
    assert store.claims("p") == {}
    # the undo targets point 2 only: a view of point 4 built at ``seen`` is still current
    store.append_event("p", Event("label", 4, -1, "bob"), unchanged_since=seen)
    # confirmed against the undo, the label on point 2 goes through
    store.append_event("p", Event("label", 2, -1, "bob"), unchanged_since=undo)


# -- several connections and processes ---------------------------------------------------------
def test_two_connections_see_each_others_events(db_target):
    s1, s2 = open_store(db_target), open_store(db_target)
    s1.create_project(small_project())
    s1.append_event("p", Event("label", 0, 1, "tab1"))
    s2.append_event("p", Event("label", 1, -1, "tab2"))
    assert [e.annotator for e in s1.events("p")] == ["tab1", "tab2"]
    assert s1.events("p") == s2.events("p")
    s1.close()
    s2.close()


def _writer(target: str, n: int, name: str, barrier, out) -> None:
    store = open_store(target)
    barrier.wait(BARRIER_SECONDS)
    read: list[int] = []  # event ids in the order this writer's reads first saw them
    for i in range(n):
        store.append_event("p", Event("label", i % 6, 1 if i % 2 else -1, name, params={"i": i}))
        if i % 10 == 9:
            store.append_event("p", Event("undo", annotator=name))
        # read what the other writer committed, as a session's sync() does between labels
        read += [e.id for e in store.events("p", after_id=max(read, default=0))]
    # ids increase in commit order: reading "after the newest id seen" missed nothing
    complete = [e.id for e in store.events("p") if e.id <= read[-1]] == read
    store.close()
    out.put((name, complete))


def test_concurrent_writers_in_two_processes_lose_nothing(db_target):
    with open_store(db_target) as s:
        s.create_project(small_project())
    n = 60
    complete = run_processes(_writer, {w: (db_target, n) for w in ("A", "B")})
    assert complete == {"A": True, "B": True}
    with open_store(db_target) as s:
        ev = s.events("p")
    for w in ("A", "B"):
        labels = [e.params["i"] for e in ev if e.kind == "label" and e.annotator == w]
        assert labels == list(range(n))  # every label of each writer, in its own order
        assert sum(e.kind == "undo" and e.annotator == w for e in ev) == n // 10
    ids = [e.id for e in ev]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    targets = [e.target for e in ev if e.kind == "undo"]
    assert len(set(targets)) == len(targets)  # no event was undone twice


def _opener(target: str, name: str, barrier, out) -> None:
    barrier.wait(BARRIER_SECONDS)
    with open_store(target) as store:  # creates the tables, unless the other one just did
        store.create_project(small_project(name))
    out.put((name, True))


def test_two_processes_creating_the_tables_at_once(db_target):
    run_processes(_opener, {w: (db_target,) for w in ("A", "B")})
    with open_store(db_target) as s:
        assert s.list_projects() == ["A", "B"] and s.schema_version == SCHEMA_VERSION


def test_claims_hold_across_processes(db_target):
    """Two processes claim the same point, the second while the first is between its look-up
    of the point's claim and its commit (tests/support/races.py): the first wins, every time."""
    race(db_target, claim_attempt)


def test_the_stale_check_is_atomic_across_processes(db_target):
    """Two processes label (or review) the same point, decided on the same state, the second
    while the first is between its stale check and its commit (tests/support/races.py): the
    first is committed, the second refused as stale, every time."""
    race(db_target, label_attempt)
    with open_store(db_target) as s:
        assert [e.annotator for e in s.events("p")] == ["A"] * 6


def test_committed_events_survive_kill_9(db_target):
    with open_store(db_target) as s:
        s.create_project(small_project())
    code = (
        "import os, signal, sys\n"
        "from rlscore.storage import open_store, Event\n"
        f"s = open_store({db_target!r})\n"
        "for i in range(5):\n"
        "    s.append_event('p', Event('label', i, 1, 'victim'))\n"
        "print('written', flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL and "written" in proc.stdout, proc.stderr
    with open_store(db_target) as s:
        assert [e.point for e in s.events("p")] == [0, 1, 2, 3, 4]


# -- SQLite files of older schema versions -----------------------------------------------------
#: the schema of version 2 (rlscore before review events), verbatim
_SCHEMA_V2 = """
CREATE TABLE IF NOT EXISTS schema_info (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS projects (
    uid INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    created REAL NOT NULL,
    n INTEGER NOT NULL,
    d INTEGER NOT NULL,
    feature_names TEXT NOT NULL,
    ids TEXT NOT NULL,
    classes TEXT NOT NULL,
    truth TEXT,
    meta TEXT NOT NULL,
    X BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_uid INTEGER NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('label', 'skip', 'undo')),
    point INTEGER,
    label TEXT,
    target INTEGER,
    annotator TEXT NOT NULL DEFAULT '',
    timestamp REAL NOT NULL,
    seconds REAL,
    params TEXT NOT NULL DEFAULT '{}',
    seen INTEGER
);
CREATE INDEX IF NOT EXISTS events_by_project ON events (project_uid, id);
CREATE INDEX IF NOT EXISTS events_by_target ON events (target);
CREATE INDEX IF NOT EXISTS events_by_point ON events (project_uid, point, id);
CREATE TABLE IF NOT EXISTS claims (
    project_uid INTEGER NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    point INTEGER NOT NULL,
    annotator TEXT NOT NULL,
    expires REAL NOT NULL,
    PRIMARY KEY (project_uid, point)
);
CREATE INDEX IF NOT EXISTS claims_by_annotator ON claims (project_uid, annotator);
CREATE TABLE IF NOT EXISTS settings (
    project_uid INTEGER PRIMARY KEY REFERENCES projects(uid) ON DELETE CASCADE,
    settings TEXT NOT NULL,
    updated REAL NOT NULL
);
"""
#: version 1: version 2 without the ``seen`` column and the claims and settings tables
_SCHEMA_V1 = _SCHEMA_V2.replace(",\n    seen INTEGER", "").split(
    "CREATE TABLE IF NOT EXISTS claims"
)[0]
_OLD_SCHEMAS = {1: _SCHEMA_V1, 2: _SCHEMA_V2}
_OLD_EVENTS = [  # (project uid, kind, point, label, target): project 2 is deleted later
    (1, "label", 0, "1", None),
    (1, "skip", 1, None, None),
    (2, "label", 0, "1", None),
    (1, "label", 2, "-1", None),
    (1, "undo", None, None, 4),
    (2, "label", 1, "-1", None),
]


def _old_database(path, version: int) -> None:
    """A SQLite file of schema ``version`` written as that rlscore wrote it, with two projects,
    events, and the events of a deleted project (its ids must not be handed out again)."""
    project = small_project()
    buf = io.BytesIO()
    np.save(buf, project.X)
    with closing(sqlite3.connect(path)) as con, con:
        con.execute("PRAGMA foreign_keys = ON")  # as rlscore had it: deletes cascade
        con.executescript(_OLD_SCHEMAS[version])
        con.execute("INSERT INTO schema_info (version) VALUES (?)", (version,))
        for name in ("p", "gone"):
            con.execute(
                "INSERT INTO projects (name, created, n, d, feature_names, ids, classes, "
                'truth, meta, X) VALUES (?, 0, 6, 3, \'["a", "b", "c"]\', ?, \'[-1, 1]\', '
                "NULL, '{}', ?)",
                (name, json.dumps(project.ids), buf.getvalue()),
            )
        con.executemany(
            "INSERT INTO events (project_uid, kind, point, label, target, annotator, "
            "timestamp, params) VALUES (?, ?, ?, ?, ?, 'old', 1.0, '{\"lam\": 0.5}')",
            _OLD_EVENTS,
        )
        con.execute("DELETE FROM projects WHERE name = 'gone'")


@pytest.mark.parametrize("version", [1, 2])
def test_old_sqlite_files_upgrade_to_version_3_keeping_every_event(tmp_path, version):
    path = str(tmp_path / f"v{version}.sqlite3")
    _old_database(path, version)
    columns = "id, project_uid, kind, point, label, target, annotator, timestamp, params"
    before = raw_sql(path, f"SELECT {columns} FROM events ORDER BY id")
    assert [row[0] for row in before] == [1, 2, 4, 5]  # 3 and 6 went with project "gone"
    with open_store(path) as store:
        assert store.schema_version == SCHEMA_VERSION == 5
        assert raw_sql(path, f"SELECT {columns} FROM events ORDER BY id") == before
        indexes = {r[0] for r in raw_sql(path, "SELECT name FROM sqlite_master WHERE type='index'")}
        assert {"events_by_project", "events_by_target", "events_by_point"} <= indexes
        assert [(e.id, e.kind, e.target, e.seen) for e in store.events("p")] == [
            (1, "label", None, None),
            (2, "skip", None, None),
            (4, "label", None, None),
            (5, "undo", 4, None),
        ]
        review = store.append_event("p", Event("review", 0, -1, "rev"), unchanged_since=5)
        assert review == 7  # after the deleted project's 6: no id is handed out twice
        assert store.append_event("p", Event("undo")) == 8
        assert store.events("p")[-1].target == review
        assert store.claim("p", 3, "ann", 60) and store.claims("p")[3][0] == "ann"
        store.save_settings("p", {"lam": 0.1})
    with open_store(path) as store:  # opening again changes nothing
        assert store.schema_version == SCHEMA_VERSION and len(store.events("p")) == 6
        assert store.load_settings("p") == {"lam": 0.1}
