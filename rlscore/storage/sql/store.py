"""The label store in SQL: one implementation, parametrised by a small dialect.

:class:`SQLLabelStore` holds everything that does not depend on the database: projects, the
event log (validation, the ``unchanged_since`` stale check, undo targets), claims, settings
and summaries (members, the audit and the trash: :mod:`rlscore.storage.sql.access`). It runs its
statements on an :class:`~rlscore.storage.sql.connection.SQLConnection`
and creates or migrates the versioned schema with :mod:`rlscore.storage.sql.schema`. What does
depend on the database is a :class:`~rlscore.storage.sql.connection.SQLDialect` (placeholders,
column types, how a write transaction begins and locks) and three methods: connecting,
widening the ``kind`` CHECK constraint (schema version 3), and telling a lost connection.
:class:`~rlscore.storage.backends.sqlite.SQLiteLabelStore` and
:class:`~rlscore.storage.backends.postgres.PostgresLabelStore` subclass it.

Every write is one transaction that first serialises against the other writers of the
project — SQLite's ``BEGIN IMMEDIATE`` takes the file's write lock, PostgreSQL locks the
project's row (``SELECT … FOR UPDATE``) — so a stale check and the insert it guards are
atomic across processes and servers, and the event ids of a project increase in commit
order. Both databases speak the same upsert (``INSERT … ON CONFLICT … DO UPDATE``, SQLite
since 3.24).
"""

from __future__ import annotations

import json
import time
from abc import abstractmethod
from typing import Any, ClassVar, Self

import numpy as np

from rlscore.core.conventions.json_values import jsonable, plain_scalar
from rlscore.core.conventions.user_names import check_no_control, user_key
from rlscore.data.projects.project import Project, checked_label
from rlscore.storage.interface.events import EVENT_KINDS, Event, StaleActionError
from rlscore.storage.interface.label_store import LabelStore
from rlscore.storage.sql.access import AccessTables, AuditRecord
from rlscore.storage.sql.connection import SQLConnection, SQLDialect
from rlscore.storage.sql.project_table import ProjectTable
from rlscore.storage.sql.schema import (
    EVENT_COLUMNS,
    SCHEMA_VERSION,
    migrate,
    require_current,
    sql_list,
)

#: the kinds of event an undo can revert
UNDOABLE_KINDS = ("label", "skip", "review")


class SQLLabelStore(LabelStore):
    """:class:`LabelStore` in a SQL database; a subclass gives the :class:`SQLDialect`.

    One connection per store object, shared by threads under a lock (Streamlit reruns run
    in threads); separate processes and servers each open their own store.

    Parameters
    ----------
    create
        True: create the tables of a new database and upgrade an older one; False (the
        read-only open of the commands that only read): refuse, with
        :class:`~rlscore.storage.sql.schema.NotALabelDatabaseError`, a database that is not a
        label database at this schema version, without creating or converting anything.

    Attributes
    ----------
    location : str
        Where the database is, as :func:`~rlscore.storage.open_store` takes it (set by the
        subclass before ``SQLLabelStore.__init__``).
    """

    dialect: ClassVar[SQLDialect]
    location: str

    def __init__(self, *, create: bool = True) -> None:
        self._db = SQLConnection(
            self.dialect, self._connect, self._connection_lost, location=self.location
        )
        self._projects = ProjectTable(self._db)
        self._access = AccessTables(self._db, self._projects)
        try:
            if create:
                migrate(self._db, self.location, self._replace_kind_check)
            else:  # read-only open: refuse, before any DDL, what is not already a label database
                require_current(self._db, self.location)
        except BaseException:
            self._db.conn.close()
            raise

    # -- what a backend provides -----------------------------------------------------------
    @abstractmethod
    def _connect(self) -> Any:
        """A new DB-API connection in autocommit mode (transactions are begun explicitly)."""

    @abstractmethod
    def _replace_kind_check(self) -> None:
        """Make the events table's ``kind`` CHECK accept :data:`EVENT_KINDS` (migration)."""

    def _connection_lost(self) -> bool:
        """Whether the last ``disconnect_errors`` came from a connection that is gone (then
        it is opened again), not from the statement."""
        return False

    @property
    def _conn(self) -> Any:
        """The DB-API connection in use (it changes when a lost one is opened again)."""
        return self._db.conn

    @property
    def schema_version(self) -> int:
        """The schema version of the database (:data:`SCHEMA_VERSION` once opened)."""
        return int(self._db.fetchone("SELECT version FROM schema_info")[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.location!r})"

    # -- projects: rlscore.storage.sql.project_table ------------------------------------------
    def list_projects(self) -> list[str]:
        return self._projects.names()

    def create_project(self, project: Project) -> None:
        self._projects.create(project)

    def load_project(self, name: str) -> Project:
        return self._projects.load(name)

    def project_summaries(self) -> list[dict]:
        return self._projects.summaries()

    def project_uid(self, name: str) -> int | None:
        return self._projects.find_uid(name)

    def delete_project(self, name: str, *, by: str = "") -> None:
        self._access.delete(name, by)

    # -- trash, members and audit: rlscore.storage.sql.access ------------------------------------
    def trash_project(self, name: str, *, by: str = "") -> int:
        return self._access.trash(name, by)

    def trashed_projects(self) -> list[dict]:
        return self._access.trashed()

    def restore_project(self, uid: int, *, by: str = "") -> str:
        return self._access.restore(uid, by)

    def purge_trash(self, before: float, *, by: str = "") -> list[str]:
        return self._access.purge(before, by)

    def members(self, name: str) -> dict[str, str]:
        return self._access.members(self._projects.uid(name))

    def set_member(self, name: str, member: str, role: str, *, by: str = "") -> str | None:
        return self._access.set_member(name, member, role, by)

    def remove_member(self, name: str, member: str, *, by: str = "") -> str:
        return self._access.remove_member(name, member, by)

    def claim_unowned(self, user: str) -> list[str]:
        return self._access.claim_unowned(user)

    def record_audit(self, name: str, action: str, actor: str, details: dict) -> int:
        with self._db.write():
            uid = self._projects.uid(name, lock=True)
            return self._access.record(uid, name, action, actor, details)

    def audit(self, name: str | None = None, *, uid: int | None = None) -> list[AuditRecord]:
        if (name is None) == (uid is None):
            raise ValueError("audit() takes a project's name or its uid (a deleted one's)")
        return self._access.audit(self._projects.uid(name) if uid is None else uid)

    # -- events -----------------------------------------------------------------------------
    def append_event(self, name: str, event: Event, *, unchanged_since: int | None = None) -> int:
        """Validate ``event`` against the project and commit it; returns its id.

        Raises ``ValueError`` for an unknown kind, a point outside the pool, a label (of a
        label or review) not among the classes (a multi-label project's: not a set of them,
        :func:`~rlscore.data.projects.project.checked_label`), or an undo with nothing (or an
        already undone event) to undo; :class:`StaleActionError` when ``unchanged_since`` is given
        and the point changed after that event id (checked inside the write transaction, so
        two servers cannot both pass the check). A label, review or skip releases every
        claim on its point.
        """
        if event.kind not in EVENT_KINDS:
            raise ValueError(f"event kind must be one of {EVENT_KINDS}, got {event.kind!r}")
        annotator = _annotator(event.annotator)
        label = event.label
        timestamp = time.time() if event.timestamp is None else float(event.timestamp)
        with self._db.write():
            uid = self._projects.uid(name, lock=True)
            n, classes, multi_label = self._projects.size_and_classes(uid)
            target = event.target
            if event.kind == "undo":
                target = self._check_undo_target(uid, target)
                point, label = None, None
            else:
                point = event.point
                if isinstance(point, bool) or not isinstance(point, int | np.integer):
                    raise ValueError(f"point index must be an integer, got {point!r}")
                point = int(point)
                if not 0 <= point < n:
                    raise ValueError(f"point index {point} is outside the pool (0 … {n - 1})")
                if event.kind in ("label", "review"):
                    # a label set (tuple) is written as a JSON list, read back as a tuple
                    label = checked_label(label, classes, multi_label)
                else:
                    label = None
                target = None
                if unchanged_since is not None:
                    newer = self._events_on_point(uid, point, int(unchanged_since))
                    if newer:
                        raise StaleActionError(point, newer)
                self._db.run("DELETE FROM claims WHERE project_uid = ? AND point = ?", (uid, point))
            seen = event.seen if event.seen is not None else unchanged_since
            return self._db.insert(
                "INSERT INTO events (project_uid, kind, point, label, target, annotator, "
                "timestamp, seconds, params, seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    uid,
                    event.kind,
                    point,
                    None if label is None else json.dumps(jsonable(label)),
                    target,
                    annotator,
                    timestamp,
                    None if event.seconds is None else float(event.seconds),
                    json.dumps(_plain_params(event.params)),
                    None if seen is None else int(seen),
                ),
            )

    def _events_on_point(self, uid: int, point: int, after: int) -> list[Event]:
        """Events after id ``after`` that touch ``point``: its labels, reviews and skips,
        and undos of any of its events."""
        rows = self._db.run(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE project_uid = ? AND id > ? AND "
            "(point = ? OR (kind = 'undo' AND target IN "
            "(SELECT id FROM events WHERE project_uid = ? AND point = ?))) ORDER BY id",
            (uid, after, point, uid, point),
        ).fetchall()
        return [_event(row) for row in rows]

    def _check_undo_target(self, uid: int, target: int | None) -> int:
        """The event an undo reverts: ``target`` if it is an active (not undone) label,
        review or skip of the project, else the most recent active one when None."""
        active = (
            f"SELECT id FROM events e WHERE project_uid = ? AND kind IN "
            f"({sql_list(UNDOABLE_KINDS)}) "
            "AND NOT EXISTS (SELECT 1 FROM events u WHERE u.kind = 'undo' AND u.target = e.id)"
        )
        if target is None:
            row = self._db.run(active + " ORDER BY id DESC LIMIT 1", (uid,)).fetchone()
            if row is None:
                raise ValueError("nothing to undo: no label, review or skip left")
            return int(row[0])
        row = self._db.run(active + " AND id = ?", (uid, int(target))).fetchone()
        if row is None:
            raise ValueError(
                f"event {target} cannot be undone: it is not a label, review or skip of this "
                "project, or it was undone already"
            )
        return int(target)

    def events(self, name: str, after_id: int = 0) -> list[Event]:
        uid = self._projects.uid(name)
        rows = self._db.fetchall(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE project_uid = ? AND id > ? ORDER BY id",
            (uid, int(after_id)),
        )
        return [_event(row) for row in rows]

    def last_event_id(self, name: str) -> int:
        """Id of the project's newest event (0 if none): a cheap change check."""
        uid = self._projects.uid(name)
        row = self._db.fetchone("SELECT MAX(id) FROM events WHERE project_uid = ?", (uid,))
        return int(row[0] or 0)

    # -- claims -----------------------------------------------------------------------------
    def claim(
        self,
        name: str,
        point: int,
        annotator: str,
        ttl: float,
        *,
        unchanged_since: int | None = None,
    ) -> bool:
        annotator = _annotator(annotator)
        now = time.time()
        with self._db.write():
            uid = self._projects.uid(name, lock=True)
            if unchanged_since is not None:
                newer = self._events_on_point(uid, int(point), int(unchanged_since))
                if newer:
                    raise StaleActionError(int(point), newer)
            self._db.run("DELETE FROM claims WHERE project_uid = ? AND expires <= ?", (uid, now))
            row = self._db.run(
                "SELECT annotator FROM claims WHERE project_uid = ? AND point = ?",
                (uid, int(point)),
            ).fetchone()
            if row is not None and row[0] != annotator:
                return False
            self._db.run(
                "DELETE FROM claims WHERE project_uid = ? AND annotator = ? AND point != ?",
                (uid, annotator, int(point)),
            )
            self._db.run(
                "INSERT INTO claims (project_uid, point, annotator, expires) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (project_uid, point) DO UPDATE SET annotator = excluded.annotator, "
                "expires = excluded.expires",
                (uid, int(point), annotator, now + float(ttl)),
            )
            return True

    def claims(self, name: str) -> dict[int, tuple[str, float]]:
        uid = self._projects.uid(name)
        rows = self._db.fetchall(
            "SELECT point, annotator, expires FROM claims WHERE project_uid = ? AND expires > ?",
            (uid, time.time()),
        )
        return {int(p): (user_key(a), float(e)) for p, a, e in rows}

    def release_claims(self, name: str, annotator: str | None = None) -> None:
        if annotator is not None:
            annotator = _annotator(annotator)
        with self._db.write():
            uid = self._projects.uid(name, lock=True)
            if annotator is None:
                self._db.run("DELETE FROM claims WHERE project_uid = ?", (uid,))
                return
            self._db.run(
                "DELETE FROM claims WHERE project_uid = ? AND annotator = ?", (uid, annotator)
            )

    # -- settings ---------------------------------------------------------------------------
    def load_settings(self, name: str) -> dict | None:
        uid = self._projects.uid(name)
        row = self._db.fetchone("SELECT settings FROM settings WHERE project_uid = ?", (uid,))
        return None if row is None else json.loads(row[0])

    def save_settings(
        self, name: str, settings: dict, *, by: str = "", before: dict | None = None
    ) -> None:
        """Replace the project's saved settings; a change is recorded in the audit (with
        ``by``, who made it), in the same transaction. ``before``: the settings in force
        until now where none are saved (the defaults), which the audit compares with."""
        text = json.dumps(jsonable(settings))
        with self._db.write():
            uid = self._projects.uid(name, lock=True)
            row = self._db.run(
                "SELECT settings FROM settings WHERE project_uid = ?", (uid,)
            ).fetchone()
            old = json.loads(json.dumps(jsonable(before or {})))
            old.update({} if row is None else json.loads(row[0]))
            new = json.loads(text)
            changed = {
                k: [old.get(k), new.get(k)]
                for k in sorted({*old, *new})
                if old.get(k) != new.get(k)
            }
            if row is not None and not changed:
                return  # saved again unchanged: nothing to write or record
            if changed:
                self._access.record(uid, name, "settings", by, changed)
            self._db.run(
                "INSERT INTO settings (project_uid, settings, updated) VALUES (?, ?, ?) "
                "ON CONFLICT (project_uid) DO UPDATE SET settings = excluded.settings, "
                "updated = excluded.updated",
                (uid, text, time.time()),
            )


def _annotator(name: str | None) -> str:
    """An annotator's name as the store writes it: their key
    (:func:`~rlscore.core.conventions.user_names.user_key`; "" for none), so one person under
    two spellings of an address is one annotator. A name holding a control character is
    refused naming the field, on SQLite as on PostgreSQL, which cannot store NUL (the app and
    the commands clean names before)."""
    return user_key(check_no_control(str(name or ""), "annotator name"))


def _event(row: tuple) -> Event:
    """An :class:`Event` from a row of ``EVENT_COLUMNS``."""
    eid, kind, point, label, target, annotator, timestamp, seconds, params, seen = row
    label = None if label is None else json.loads(label)
    return Event(
        kind=kind,
        point=point,
        # a JSON list is a multi-label project's label set: a tuple, as in Python
        label=tuple(label) if isinstance(label, list) else label,
        # read through the key too: a database written before it may hold two spellings of
        # one address, which every reader of the log then sees as the one annotator they are
        annotator=user_key(annotator),
        timestamp=timestamp,
        seconds=seconds,
        params=json.loads(params),
        target=target,
        id=eid,
        seen=seen,
    )


def _plain_params(params: dict) -> dict:
    return {str(k): plain_scalar(v) for k, v in (params or {}).items()}


# SCHEMA_VERSION and SQLDialect are re-exported: code that imports them from here keeps working
__all__ = ["SCHEMA_VERSION", "UNDOABLE_KINDS", "SQLDialect", "SQLLabelStore"]
