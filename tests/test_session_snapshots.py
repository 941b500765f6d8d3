"""Labeling sessions: the snapshot cache gives the state a full replay gives, or nothing.

Reference: the same session replayed in full from the event log (``snapshots=False``).
"""

import pickle
import sqlite3
from contextlib import closing

import pytest
from support.sessions import (
    assert_same_state,
    moons_store,
    moons_subset,
    scripted_history,
    session,
)

import rlscore.sessions.state.snapshots
from rlscore.storage import Event, open_store


@pytest.fixture
def always_snapshot(monkeypatch):
    monkeypatch.setattr(rlscore.sessions.state.snapshots, "SNAPSHOT_MIN_SECONDS", 0.0)
    monkeypatch.setattr(rlscore.sessions.state.snapshots, "SNAPSHOT_OVERHEAD_RATIO", 0.0)
    return monkeypatch


def test_snapshot_restore_then_replay_is_identical(store, always_snapshot):
    live = session(store)
    live.auto_label(5)
    live.skip(live.query()[0])
    snapshot_files = list(live.snapshot_dir.glob("*.pkl"))
    assert len(snapshot_files) == 1
    taken_at = live.last_event_id
    always_snapshot.setattr(
        rlscore.sessions.state.snapshots, "SNAPSHOT_MIN_SECONDS", 1e9
    )  # no more writes
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
    always_snapshot.setattr(rlscore.sessions.state.snapshots, "SNAPSHOT_KEEP", 2)
    for lam in (0.1, 0.2, 0.3):
        session(store, lam=lam).auto_label(1)
    assert len(list((tmp_path / "labels.sqlite3.snapshots").glob("*.pkl"))) == 2
    s = session(store, snapshots=tmp_path / "elsewhere")
    assert s.snapshot_dir == tmp_path / "elsewhere" and any(s.snapshot_dir.glob("*.pkl"))
    off = session(store, snapshots=False, lam=0.7)
    off.auto_label(1)
    assert off.snapshot_dir is None


def test_snapshot_of_other_engine_code_is_not_loaded(store, always_snapshot):
    """Snapshots are keyed on a hash of the engine code, not on the version number: after a
    code change a pickled engine of the old code is never used."""
    live = session(store)
    live.auto_label(5)
    assert session(open_store(store.path)).restored_from_snapshot_ == live.last_event_id
    always_snapshot.setattr(rlscore.sessions.state.snapshots, "engine_code_hash", lambda: "edited")
    reopened = session(open_store(store.path))
    assert reopened.restored_from_snapshot_ is None  # rebuilt from the log
    assert_same_state(live, reopened)


def test_engine_code_hash_is_computed_once_per_process():
    first = rlscore.sessions.state.snapshots.engine_code_hash()
    assert len(first) == 64 and rlscore.sessions.state.snapshots.engine_code_hash() == first
    assert rlscore.sessions.state.snapshots.engine_code_hash.cache_info().misses == 1


def test_snapshot_file_of_another_key_is_not_unpickled(store, always_snapshot):
    a = session(store)
    a.auto_label(3)
    (file_a,) = a.snapshot_dir.glob("*.pkl")
    b = session(open_store(store.path), lam=0.2)
    (file_b,) = set(b.snapshot_dir.glob("*.pkl")) - {file_a}
    file_b.write_bytes(file_a.read_bytes())  # b's file name, a's contents

    def refuse(*args, **kwargs):
        raise AssertionError("a snapshot of another key was unpickled")

    always_snapshot.setattr(pickle, "load", refuse)
    reopened = session(open_store(store.path), lam=0.2)
    assert reopened.restored_from_snapshot_ is None
    assert file_b.read_bytes() != file_a.read_bytes()  # replaced by a snapshot of its own
    always_snapshot.undo()
    assert_same_state(b, reopened)


def test_a_restored_backup_does_not_load_a_snapshot_of_the_lost_history(always_snapshot, tmp_path):
    """A backup restored, then labels that reuse the lost events' ids on other points: the
    snapshot taken before the restore has the same last id but another history (SQLite's
    backup API restores here; the check is the same whichever database)."""
    store = moons_store(tmp_path)
    live = session(store)
    live.auto_label(3)
    backup = tmp_path / "backup.sqlite3"
    with closing(sqlite3.connect(store.path)) as src, closing(sqlite3.connect(backup)) as dst:
        src.backup(dst)
    live.auto_label(3)  # the snapshot now holds events the backup lacks
    taken = live.last_event_id
    assert any(live.snapshot_dir.glob("*.pkl"))
    with closing(sqlite3.connect(backup)) as src, closing(sqlite3.connect(store.path)) as dst:
        src.backup(dst)  # the restore
    restored = open_store(store.path)
    lost = set(live.labels)
    others = [i for i in range(restored.load_project("moons").n) if i not in lost]
    before = restored.events("moons")[-1].id
    for point in others[: taken - before]:
        restored.append_event("moons", Event("label", point=point, label=1, annotator="zoe"))
    assert restored.events("moons")[-1].id == taken  # the same last id, another history
    reopened = session(open_store(store.path))
    assert reopened.restored_from_snapshot_ is None
    assert_same_state(reopened, session(open_store(store.path), snapshots=False))
    assert set(reopened.labels) == set(list(live.labels)[:3]) | set(others[: taken - before])
