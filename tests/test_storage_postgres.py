"""What only the PostgreSQL label store has: URLs (valid, invalid, unreachable, never showing
the password), the features as .npy bytes in BYTEA, reconnecting after a lost connection,
its schema migration, its snapshot folder, and its writers' isolation whatever the server's
default. The rest of the store is tested on both backends in test_storage.py."""

import socket
import time

import numpy as np
import psycopg
import pytest
from support.access import drop_version_5
from support.races import label_attempt, race
from support.sessions import moons_store, session
from support.stores import raw_sql, small_project

import rlscore.sessions.state.snapshots
from rlscore.sessions.state.snapshots import default_snapshot_dir
from rlscore.storage import (
    DB_ENV,
    SCHEMA_VERSION,
    Event,
    PostgresLabelStore,
    default_db_path,
    open_store,
)


@pytest.fixture
def store(pg_url):
    with open_store(pg_url) as s:
        s.create_project(small_project())
        yield s


def test_open_store_takes_both_url_schemes_and_the_environment(pg_url, monkeypatch):
    short = pg_url.replace("postgresql://", "postgres://", 1)
    with open_store(pg_url) as a, open_store(short) as b:
        assert isinstance(a, PostgresLabelStore) and isinstance(b, PostgresLabelStore)
        assert a.path == pg_url and repr(a) == f"PostgresLabelStore({pg_url!r})"
    monkeypatch.setenv(DB_ENV, pg_url)
    assert default_db_path() == pg_url  # a URL is not a path: kept as it is
    with open_store() as s:
        assert isinstance(s, PostgresLabelStore) and s.schema_version == SCHEMA_VERSION


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("postgresql://ann:s3cret@db.example:port/labels", "port 'port' is not a number"),
        ("postgresql://ann:s3cret@db.example/labels?colour=red", "invalid URI query parameter"),
    ],
)
def test_an_invalid_url_is_a_value_error_without_the_password(url, problem):
    with pytest.raises(ValueError, match=problem) as info:
        PostgresLabelStore(url)
    assert "s3" not in str(info.value) and "ann:***@db.example" in str(info.value)
    with pytest.raises(ValueError, match="not a PostgreSQL URL"):
        PostgresLabelStore("mysql://ann:s3cret@db.example/labels")


def _free_port() -> int:
    """A port of 127.0.0.1 nobody listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_libpq_messages_quoting_the_password_are_scrubbed():
    url = f"postgresql://ann:s3 cret@127.0.0.1:{_free_port()}/labels"
    # newer libpq refuses the space, quoting the password; older ones try to connect
    with pytest.raises((ValueError, ConnectionError)) as info:
        PostgresLabelStore(url)
    assert "s3" not in str(info.value) and "ann:***@127.0.0.1" in str(info.value)


def test_an_unreachable_server_is_a_connection_error_without_the_password():
    port = _free_port()
    for url in (
        f"postgresql://ann:s3cret@127.0.0.1:{port}/labels",
        f"postgresql://ann@127.0.0.1:{port}/labels?password=s3cret",
    ):
        with pytest.raises(ConnectionError, match=f"127.0.0.1:{port}/labels.*refused") as info:
            open_store(url)
        assert "s3cret" not in str(info.value) and "***" in str(info.value)
        assert info.value.__cause__ is None and info.value.__suppress_context__


def test_features_are_stored_as_npy_bytes(store, pg_url):
    ((blob,),) = raw_sql(pg_url, "SELECT X FROM projects WHERE name = 'p'")
    assert bytes(blob).startswith(b"\x93NUMPY")
    np.testing.assert_array_equal(store.load_project("p").X, small_project().X)


def _terminate(url: str, pid: int) -> None:
    """End the server process of a connection, as a server restart or an admin would, and
    wait until it is gone."""
    with psycopg.connect(url, autocommit=True) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        deadline = time.monotonic() + 10
        while admin.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone():
            assert time.monotonic() < deadline, f"backend {pid} did not end"


def test_a_lost_connection_is_opened_again(store, pg_url):
    first = store.append_event("p", Event("label", 0, 1))
    for kill in range(2):
        pid = store._conn.info.backend_pid
        _terminate(pg_url, pid)
        if kill == 0:  # a read
            assert [e.id for e in store.events("p")] == [first]
        else:  # a write: nothing was sent yet, so it is safe to begin on a new connection
            store.append_event("p", Event("label", 1, -1))
        assert store._conn.info.backend_pid != pid
    assert len(store.events("p")) == 2
    store.close()
    with pytest.raises(psycopg.OperationalError):  # a closed store stays closed
        store.events("p")


def test_a_database_of_schema_version_2_is_upgraded(store, pg_url):
    """No PostgreSQL database of version 2 was ever written, but the migration is the same
    code path: the CHECK constraint of version 2 is replaced, events kept."""
    label = store.append_event("p", Event("label", 0, 1))
    store.close()
    raw_sql(
        pg_url,
        "ALTER TABLE events DROP CONSTRAINT events_kind_check, ADD CONSTRAINT "
        "events_kind_check CHECK (kind IN ('label', 'skip', 'undo'))",
    )
    raw_sql(pg_url, "ALTER TABLE projects DROP COLUMN items")  # added by version 4
    drop_version_5(pg_url)
    raw_sql(pg_url, "UPDATE schema_info SET version = 2")
    with pytest.raises(psycopg.errors.CheckViolation):
        raw_sql(
            pg_url,
            "INSERT INTO events (project_uid, kind, timestamp) VALUES (1, 'review', 0)",
        )
    with open_store(pg_url) as again:
        assert again.schema_version == SCHEMA_VERSION
        assert [e.id for e in again.events("p")] == [label]
        again.append_event("p", Event("review", 0, -1, "rev"))


def test_writers_are_isolated_whatever_the_server_default(pg_url):
    """A server defaulting to REPEATABLE READ would take a transaction's snapshot before
    the project's row lock is granted, and the stale check would miss the event committed
    meanwhile; the store begins its write transactions READ COMMITTED explicitly."""
    dbname = pg_url.rsplit("/", 1)[1]
    raw_sql(
        pg_url, f"ALTER DATABASE {dbname} SET default_transaction_isolation TO 'repeatable read'"
    )
    race(pg_url, label_attempt)


def test_snapshots_go_to_a_cache_folder_per_database(pg_url, tmp_path, monkeypatch):
    monkeypatch.setattr(rlscore.sessions.state.snapshots, "SNAPSHOT_MIN_SECONDS", 0.0)
    monkeypatch.setattr(rlscore.sessions.state.snapshots, "SNAPSHOT_OVERHEAD_RATIO", 0.0)
    store = moons_store(tmp_path, pg_url)
    port, dbname = pg_url.rsplit(":", 1)[1].split("/")
    # $XDG_CACHE_HOME is the test's folder (the pg_url fixture), ~/.cache by default
    expected = tmp_path / "cache" / "rlscore" / "snapshots" / f"127.0.0.1-{port}-{dbname}"
    assert store.snapshot_dir == default_snapshot_dir(store) == expected
    live = session(store)
    live.auto_label(3)
    assert len(list(expected.glob("*.pkl"))) == 1
    reopened = session(open_store(pg_url))
    assert reopened.restored_from_snapshot_ == live.last_event_id
    store.close()
