"""The label store when its database goes away: the PostgreSQL server is stopped with
``pg_ctl stop -m immediate`` and started again (a server of these tests' own,
:class:`support.pg_outage.OutageCluster`).

While it is down every call raises one typed error, :class:`DatabaseUnavailableError` (a
``ConnectionError`` naming the database without its password); the store connects again by
itself on the first call after it is back; a write tells whether it was committed, and when
its ``COMMIT`` was cut the event is looked up (``find_event``). What is stored is read with a
connection of the test's own (``raw_sql``), not through the store under test.
"""

from __future__ import annotations

import time

import pytest
from support.pg_outage import CutStore, committed_then_lost, connection_lost, lost_before_commit
from support.stores import raw_sql, small_project

from rlscore.storage import DatabaseUnavailableError, Event, open_store

SECRET = "s3cret-outage"


def _with_password(url: str) -> str:
    """``url`` with a password in it (the test server trusts every local connection, so
    it is never checked: only whether it leaks)."""
    return url.replace("postgres@", f"postgres:{SECRET}@")


def _stored(url: str) -> list[tuple]:
    return raw_sql(url, "SELECT id, kind, point, annotator FROM events ORDER BY id")


@pytest.fixture
def outage_url(outage_cluster):
    url = outage_cluster.create_database()
    yield url
    if not outage_cluster.running:  # a test that failed in the outage
        outage_cluster.resume()
    outage_cluster.drop_database(url)


def test_a_stopped_server_raises_the_typed_error_and_the_store_reconnects(
    outage_cluster, outage_url
):
    store = open_store(_with_password(outage_url))
    store.create_project(small_project())
    first = store.append_event("p", Event("label", 0, 1, annotator="ada"), unchanged_since=0)
    outage_cluster.halt()

    with pytest.raises(DatabaseUnavailableError) as read:
        store.events("p")
    with pytest.raises(DatabaseUnavailableError) as write:
        store.append_event("p", Event("label", 1, -1, annotator="ada"), unchanged_since=first)
    with pytest.raises(DatabaseUnavailableError):
        store.ping()
    for exc in (read.value, write.value):
        assert isinstance(exc, ConnectionError)
        said = f"{exc} {exc!r} {exc.args}"
        assert SECRET not in said and "postgres:***@127.0.0.1" in said
        assert "unreachable" in str(exc)
    # the refused write says it was not committed, and what it was
    assert write.value.committed is False
    assert write.value.project == "p" and write.value.after_id == first
    assert (write.value.event.point, write.value.event.timestamp is not None) == (1, True)

    outage_cluster.resume()
    # the same store object, no reopening: its next call connects again
    store.ping()
    assert [e.id for e in store.events("p")] == [first]
    assert _stored(outage_url) == [(first, "label", 0, "ada")]
    assert store.find_event("p", write.value.event, after_id=write.value.after_id) is None
    second = store.append_event("p", Event("label", 1, -1, annotator="ada"), unchanged_since=first)
    assert _stored(outage_url) == [(first, "label", 0, "ada"), (second, "label", 1, "ada")]
    store.close()


@pytest.mark.parametrize("cut", [committed_then_lost, lost_before_commit])
def test_a_cut_commit_is_looked_up_at_once_when_the_server_is_up(outage_url, cut):
    store = CutStore(outage_url)
    store.create_project(small_project())
    store.at_commit = cut
    event = Event("label", 2, 1, annotator="bob")
    if cut is committed_then_lost:
        eid = store.append_event("p", event, unchanged_since=0)
        assert _stored(outage_url) == [(eid, "label", 2, "bob")]
    else:
        with pytest.raises(DatabaseUnavailableError) as info:
            store.append_event("p", event, unchanged_since=0)
        assert info.value.committed is False
        assert _stored(outage_url) == []
    # the store goes on, on its new connection
    store.append_event("p", Event("skip", 3, annotator="bob"))
    assert [row[1] for row in _stored(outage_url)][-1] == "skip"
    store.close()


def test_a_commit_cut_by_the_server_stopping_is_answered_once_it_is_back(
    outage_cluster, outage_url
):
    store = CutStore(outage_url)
    store.create_project(small_project())
    saved = []

    def committed_then_server_stopped(conn):
        conn.execute("COMMIT")
        saved.extend(_stored(outage_url))
        conn.close()
        outage_cluster.halt()
        raise connection_lost()

    store.at_commit = committed_then_server_stopped
    with pytest.raises(DatabaseUnavailableError) as info:
        store.append_event("p", Event("label", 4, -1, annotator="cy"), unchanged_since=0)
    assert info.value.committed is None  # cut at the commit, and no server to ask
    assert info.value.event.timestamp is not None

    outage_cluster.resume()
    found = store.find_event(info.value.project, info.value.event, after_id=info.value.after_id)
    assert saved == [(found, "label", 4, "cy")] == _stored(outage_url)
    store.close()


def test_find_event_tells_a_stored_event_from_one_never_stored(db_target):
    with open_store(db_target) as store:
        store.create_project(small_project())
        written = []
        for k, (kind, point) in enumerate([("label", 0), ("skip", 1), ("label", 2)]):
            event = Event(kind, point, 1 if kind == "label" else None, annotator="ada")
            event.timestamp = 1_700_000_000.123456 + k
            written.append((event, store.append_event("p", event)))
        undo = Event("undo", annotator="ada", timestamp=1_700_000_010.5)
        written.append((undo, store.append_event("p", undo)))
        for event, eid in written:
            assert store.find_event("p", event) == eid
            assert store.find_event("p", event, after_id=eid - 1) == eid
            assert store.find_event("p", event, after_id=eid) is None
        never = Event("label", 0, 1, annotator="ada", timestamp=time.time())
        assert store.find_event("p", never) is None
        other = Event("label", 0, 1, annotator="bob", timestamp=written[0][0].timestamp)
        assert store.find_event("p", other) is None
        with pytest.raises(ValueError, match="timestamp"):
            store.find_event("p", Event("label", 0, 1))
