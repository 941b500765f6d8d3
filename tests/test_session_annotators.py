"""Annotators in one project: claims on queries, labels bound to the version seen, own undo,
progress; across tabs (one store object), servers (several store objects) and processes."""

from __future__ import annotations

import copy
import multiprocessing as mp
import sqlite3

import numpy as np
import pytest
from support.sessions import moons_store, session

from rlscore.sessions import LabelLog
from rlscore.storage import Event, StaleActionError, open_store
from rlscore.storage.backends.sqlite import SCHEMA_VERSION


def test_annotators_are_shown_different_points_and_keep_theirs(store):
    s = session(store)
    qa, qb = s.query(annotator="ada"), s.query(annotator="bob")
    assert qa[0] != qb[0]
    # the unclaimed proposal is the best point; ada holds it, and bob gets the best point
    # once ada's is labeled with its most probable label (one greedy batch, brute force here)
    best, _ = s.engine.next_query()
    assert qa[0] == best
    twin = copy.deepcopy(s.engine)
    twin.teach(best, twin.classes_[int(np.argmax(twin.predict_proba()[best]))].item())
    assert qb[0] == twin.next_query(exclude={best})[0]
    # a reload (a new session on the same database) shows each the same point again
    fresh = session(store)
    assert fresh.query(annotator="ada") == qa and fresh.query(annotator="bob") == qb
    # the claims are in the database: another server (another connection) sees them
    other = open_store(store.path)
    assert {p: who for p, (who, _) in other.claims("moons").items()} == {
        qa[0]: "ada",
        qb[0]: "bob",
    }


def test_claims_expire_and_free_the_point(tmp_path):
    store = moons_store(tmp_path)
    s = session(store, claim_seconds=-1.0)  # every claim is already expired
    qa = s.query(annotator="ada")
    assert store.claims("moons") == {}
    assert s.query(annotator="bob")[0] == qa[0]


def test_a_label_releases_the_claim_and_the_annotator_gets_a_new_point(store):
    s = session(store)
    qa = s.query(annotator="ada")
    s.label(qa[0], 1, annotator="ada", seen=s.last_event_id)
    assert qa[0] not in store.claims("moons")
    assert s.query(annotator="ada")[0] != qa[0]


def test_a_stale_label_is_refused_and_a_confirmed_relabel_goes_through(store):
    s = session(store)
    p, _ = s.query(annotator="bob")
    seen_by_bob = s.last_event_id
    s.label(p, 1, annotator="ada", seen=s.last_event_id)  # ada labels bob's point first
    with pytest.raises(StaleActionError) as info:
        s.label(p, -1, annotator="bob", seen=seen_by_bob)
    assert info.value.point == p and info.value.events[-1].annotator == "ada"
    assert s.labels == {p: 1}  # nothing written
    s.label(p, -1, annotator="bob", seen=info.value.newest_id)  # bob confirms
    assert s.labels == {p: -1}
    events = store.events("moons")
    assert [(e.annotator, e.label, e.seen) for e in events] == [
        ("ada", 1, seen_by_bob),
        ("bob", -1, info.value.newest_id),
    ]


def test_a_repeated_press_cannot_label_twice_or_another_point(store):
    s = session(store)
    q, _ = s.query(annotator="ada")
    seen = s.last_event_id
    s.label(q, 1, annotator="ada", seen=seen)
    for again in (
        lambda: s.label(q, 1, annotator="ada", seen=seen),
        lambda: s.skip(q, "ada", seen=seen),
    ):
        with pytest.raises(StaleActionError):
            again()
    assert len(store.events("moons")) == 1
    # an undo of the point after it was shown also makes the old view stale
    s.undo("ada")
    with pytest.raises(StaleActionError):
        s.label(q, -1, annotator="ada", seen=seen)


def test_a_skip_of_a_point_labeled_before_it_was_shown_is_refused_as_labeled_not_stale(store):
    s = session(store)
    p, _ = s.query(annotator="ada")
    shown = s.last_event_id
    labeled = s.label(p, 1, annotator="bob", seen=shown)
    with pytest.raises(StaleActionError):  # ada was shown p before bob's label
        s.skip(p, "ada", seen=shown)
    # shown with bob's label (seen is its id): nothing changed since, but p is labeled
    with pytest.raises(ValueError, match=f"point {p} is labeled") as info:
        s.skip(p, "ada", seen=labeled)
    assert not isinstance(info.value, StaleActionError)
    assert [e.kind for e in store.events("moons")] == ["label"]


def test_a_claim_is_written_again_only_once_half_its_time_is_gone(store):
    s = session(store, claim_seconds=600.0)
    p, _ = s.query(annotator="ada")
    _, written = store.claims("moons")[p]
    assert s.query(annotator="ada")[0] == p
    assert store.claims("moons")[p] == ("ada", written)  # most of it left: not rewritten
    # 200 of the 600 seconds left (an expiry set behind the session's back): renewed
    store.claim("moons", p, "ada", 200.0)
    _, short = store.claims("moons")[p]
    assert s.query(annotator="ada")[0] == p
    _, renewed = store.claims("moons")[p]
    assert renewed >= short + 400.0 - 1.0  # about 600 s from now again


def test_a_change_on_another_point_does_not_make_a_view_stale(store):
    s = session(store)
    qa, _ = s.query(annotator="ada")
    qb, _ = s.query(annotator="bob")
    seen = s.last_event_id
    s.label(qb, 1, annotator="bob", seen=seen)
    s.label(qa, -1, annotator="ada", seen=seen)
    assert s.labels == {qb: 1, qa: -1}


def test_undo_reverts_only_your_own_last_action(store):
    s = session(store)
    a1, _ = s.query(annotator="ada")
    s.label(a1, 1, annotator="ada", seen=s.last_event_id)
    b1, _ = s.query(annotator="bob")
    s.label(b1, -1, annotator="bob", seen=s.last_event_id)
    reverted = s.undo("ada")
    assert reverted.point == a1 and s.labels == {b1: -1}
    with pytest.raises(ValueError, match="nothing to undo"):
        s.undo("ada")
    # a stale Undo (its page showed another last action) reverts nothing
    with pytest.raises(ValueError, match="changed after the page was drawn"):
        s.undo("bob", expected=b1 + 10**6)
    assert s.labels == {b1: -1}


def test_progress_and_recent_labels_follow_an_independent_fold(store):
    s = session(store)
    rng = np.random.default_rng(0)
    who = ["ada", "bob", "ada", "cy", "ada", "bob", "ada"]
    for name in who:
        q, _ = s.query(annotator=name)
        s.label(q, int(rng.choice([-1, 1])), annotator=name, seen=s.last_event_id)
    s.undo("bob")
    # independent: count the current label events per annotator from the raw events
    events = store.events("moons")
    undone = {e.target for e in events if e.kind == "undo"}
    current = {}
    for e in events:
        if e.kind == "label" and e.id not in undone:
            current[e.point] = e
    expected = {}
    for e in current.values():
        expected[e.annotator] = expected.get(e.annotator, 0) + 1
    assert s.progress() == expected == {"ada": 4, "bob": 1, "cy": 1}
    assert list(s.progress()) == ["ada", "bob", "cy"]
    recent = s.recent_labels("ada", 3)
    mine = sorted((e for e in current.values() if e.annotator == "ada"), key=lambda e: -e.id)
    assert [e.id for e in recent] == [e.id for e in mine[:3]]


def _label_same_point(path: str, point: int, seen: int, name: str, out) -> None:
    store = open_store(path)
    try:
        store.append_event(
            "moons", Event("label", point=point, label=1, annotator=name), unchanged_since=seen
        )
        out.put((name, "saved"))
    except StaleActionError:
        out.put((name, "refused"))
    finally:
        store.close()


def test_the_version_check_is_atomic_across_processes(tmp_path):
    store = moons_store(tmp_path)
    seen = 0
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [
        ctx.Process(target=_label_same_point, args=(str(store.path), 7, seen, f"w{k}", out))
        for k in range(4)
    ]
    for p in procs:
        p.start()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=120)
    assert sorted(r for _, r in results) == ["refused", "refused", "refused", "saved"]
    assert len(LabelLog(store.events("moons")).labels) == 1


#: the schema of version 1 (rlscore before per-annotator claims), verbatim
_SCHEMA_V1 = """
CREATE TABLE schema_info (version INTEGER NOT NULL);
INSERT INTO schema_info VALUES (1);
CREATE TABLE projects (
    uid INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, created REAL NOT NULL,
    n INTEGER NOT NULL, d INTEGER NOT NULL, feature_names TEXT NOT NULL, ids TEXT NOT NULL,
    classes TEXT NOT NULL, truth TEXT, meta TEXT NOT NULL, X BLOB NOT NULL);
CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_uid INTEGER NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('label', 'skip', 'undo')), point INTEGER, label TEXT,
    target INTEGER, annotator TEXT NOT NULL DEFAULT '', timestamp REAL NOT NULL, seconds REAL,
    params TEXT NOT NULL DEFAULT '{}');
"""


def test_a_version_1_database_opens_and_upgrades_in_place(tmp_path):
    source = moons_store(tmp_path)
    project = source.load_project("moons")
    source.close()
    path = tmp_path / "old.sqlite3"
    con = sqlite3.connect(path)
    con.executescript(_SCHEMA_V1)
    blob = (
        sqlite3.connect(tmp_path / "labels.sqlite3")
        .execute("SELECT feature_names, ids, classes, truth, meta, X FROM projects")
        .fetchone()
    )
    con.execute(
        "INSERT INTO projects (name, created, n, d, feature_names, ids, classes, truth, meta, X) "
        "VALUES ('moons', 0, ?, ?, ?, ?, ?, ?, ?, ?)",
        (project.n, project.X.shape[1], *blob),
    )
    con.execute(
        "INSERT INTO events (project_uid, kind, point, label, annotator, timestamp) "
        "VALUES (1, 'label', 3, '1', 'old', 1.0)"
    )
    con.commit()
    con.close()
    with open_store(path) as store:
        assert store.schema_version == SCHEMA_VERSION == 5
        (e,) = store.events("moons")
        assert (e.point, e.label, e.annotator, e.seen) == (3, 1, "old", None)
        s = session(store)
        assert s.labels == {3: 1}
        q, _ = s.query(annotator="ada")
        s.label(q, -1, annotator="ada", seen=s.last_event_id)
        assert store.events("moons")[-1].seen == 1
    with open_store(path) as store:  # opening again changes nothing
        assert len(store.events("moons")) == 2


def test_undo_shows_the_annotator_the_point_again(store):
    s = session(store)
    q0, _ = s.query(annotator="ada")
    s.label(q0, 1, annotator="ada", seen=s.last_event_id)
    q1, _ = s.query(annotator="ada")
    s.skip(q1, "ada", seen=s.last_event_id)
    assert s.query(annotator="ada")[0] not in (q0, q1)
    s.undo("ada")
    assert s.query(annotator="ada")[0] == q1
    s.undo("ada")
    assert s.query(annotator="ada")[0] == q0
