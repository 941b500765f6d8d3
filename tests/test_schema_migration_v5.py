"""Schema version 5 (members, audit, trash): a database of version 4, written as rlscore 4
wrote it, is upgraded in place on SQLite and PostgreSQL, keeping every project, event and
setting, and its projects stay open (no members: nothing is checked)."""

from __future__ import annotations

import pytest
from support.access import dump, v4_database
from support.stores import raw_sql

from rlscore.sessions.team.permissions import (
    claim_ownership,
    delete_project,
    require,
    restore_project,
)
from rlscore.storage import SCHEMA_VERSION, Event, NotALabelDatabaseError, open_store


def test_the_version_is_5():
    assert SCHEMA_VERSION == 5


def test_a_version_4_database_is_upgraded_keeping_everything(db_target):
    v4_database(db_target)
    events_before = raw_sql(
        db_target, "SELECT id, kind, point, label, target, annotator FROM events ORDER BY id"
    )
    with pytest.raises(NotALabelDatabaseError, match="schema version 4, older"):
        open_store(db_target, create=False)  # a read-only open changes nothing
    assert raw_sql(db_target, "SELECT version FROM schema_info") == [(4,)]
    with open_store(db_target) as store:
        assert store.schema_version == 5
        assert store.list_projects() == ["p", "q"]
        events = store.events("p")
        assert [(e.id, e.kind, e.point, e.target, e.annotator) for e in events] == [
            (i, k, p, t, a) for i, k, p, _, t, a in events_before
        ]
        assert [e.label for e in events] == [1, -1, 1, None]
        assert store.load_settings("p") == {"lam": 0.25}
        assert store.load_project("q").X.shape == (4, 3)
        # open projects: today's behaviour, nothing checked
        assert store.members("p") == {} and store.audit("p") == []
        require(store, "p", None, "delete")
        # the new tables and columns work
        assert claim_ownership(store, "olga@example.org") == ["p", "q"]
        delete_project(store, "q", "olga@example.org")
        assert store.list_projects() == ["p"]
        assert restore_project(store, "q", "olga@example.org") == "q"
    after = dump(db_target)
    assert {m[:3] for m in after["members"]} == {
        (uid, "olga@example.org", "owner") for uid, *_ in after["projects"]
    }
    assert [a[3] for a in after["audit"]] == ["member", "member", "delete", "restore"]
    with open_store(db_target, create=False) as again:  # now current: read-only opens work
        assert again.schema_version == 5 and again.list_projects() == ["p", "q"]


def test_a_new_event_after_the_upgrade_gets_a_new_id(db_target):
    """Ids are never reused across the upgrade (the events table is not rebuilt)."""
    v4_database(db_target)
    ((last,),) = raw_sql(db_target, "SELECT MAX(id) FROM events")
    with open_store(db_target) as store:
        assert store.append_event("p", Event("label", 3, 1, "ann")) > last
