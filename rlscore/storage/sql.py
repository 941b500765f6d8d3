"""The label store in SQL: one implementation, parametrised by a small dialect.

:class:`SQLLabelStore` holds everything that does not depend on the database: projects, the
event log (validation, the ``unchanged_since`` stale check, undo targets), claims, settings,
summaries and the versioned schema with its migrations. What does depend on it is a
:class:`SQLDialect` (placeholders, column types, how a write transaction begins and locks)
and three methods: connecting, widening the ``kind`` CHECK constraint (schema version 3),
and telling a lost connection. :class:`~rlscore.storage.sqlite.SQLiteLabelStore` and
:class:`~rlscore.storage.postgres.PostgresLabelStore` subclass it.

Every write is one transaction that first serialises against the other writers of the
project — SQLite's ``BEGIN IMMEDIATE`` takes the file's write lock, PostgreSQL locks the
project's row (``SELECT … FOR UPDATE``) — so a stale check and the insert it guards are
atomic across processes and servers, and the event ids of a project increase in commit
order. Both databases speak the same upsert (``INSERT … ON CONFLICT … DO UPDATE``, SQLite
since 3.24).
"""

from __future__ import annotations

import io
import json
import threading
import time
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar, Self, TypeVar

import numpy as np

from rlscore.core.serialization import jsonable, plain_scalar
from rlscore.data.projects import Project
from rlscore.storage.base import LabelStore
from rlscore.storage.events import EVENT_KINDS, Event, StaleActionError, UnknownProjectError

#: 1: projects and events; 2: events record what was seen, claims, per-project settings;
#: 3: review events
SCHEMA_VERSION = 3
#: the kinds of event an undo can revert
UNDOABLE_KINDS = ("label", "skip", "review")

_T = TypeVar("_T")


@dataclass(frozen=True)
class SQLDialect:
    """What differs between the SQL databases a :class:`SQLLabelStore` runs on.

    Attributes
    ----------
    placeholder : str
        The driver's parameter marker; the store's statements are written with ``?``.
    id_column : str
        Type and constraints of an auto-increasing primary key (never reusing an id).
    integer, real, blob : str
        Column types of a 64-bit integer, a double and a byte string.
    begin_write : str
        The statement that begins a write transaction.
    lock_row : str
        Appended to the ``SELECT`` of a project's row in a write transaction: it locks the
        row until the commit ("" where ``begin_write`` already locks the database).
    lock_schema : str
        Run first in a migration, so that two processes do not migrate at once ("" where
        ``begin_write`` already excludes other writers).
    returning_id : bool
        Inserts report the new id by ``RETURNING id`` (else by the cursor's ``lastrowid``).
    table_exists : str
        A query giving one row if the table named by its parameter exists.
    integrity_error : type
        What the driver raises when a constraint (a taken project name) refuses a write.
    disconnect_errors : tuple of type
        What the driver raises when the connection was lost (see
        :meth:`SQLLabelStore._connection_lost`).
    """

    placeholder: str
    id_column: str
    integer: str
    real: str
    blob: str
    begin_write: str
    lock_row: str
    lock_schema: str
    returning_id: bool
    table_exists: str
    integrity_error: type[Exception]
    disconnect_errors: tuple[type[Exception], ...]


def _sql_list(values: Sequence[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


#: the CHECK constraint on an event's kind, named so that it can be replaced
KIND_CHECK = f"CONSTRAINT events_kind_check CHECK (kind IN ({_sql_list(EVENT_KINDS)}))"
#: the tables of the current schema, with the dialect's types as ``{integer}`` etc.
_TABLES = {
    "schema_info": "CREATE TABLE IF NOT EXISTS schema_info (version INTEGER NOT NULL)",
    "projects": """CREATE TABLE IF NOT EXISTS projects (
    uid {id_column},
    name TEXT NOT NULL UNIQUE,
    created {real} NOT NULL,
    n INTEGER NOT NULL,
    d INTEGER NOT NULL,
    feature_names TEXT NOT NULL,
    ids TEXT NOT NULL,
    classes TEXT NOT NULL,
    truth TEXT,
    meta TEXT NOT NULL,
    X {blob} NOT NULL
)""",
    "events": """CREATE TABLE IF NOT EXISTS events (
    id {id_column},
    project_uid {integer} NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    kind TEXT NOT NULL {kind_check},
    point {integer},
    label TEXT,
    target {integer},
    annotator TEXT NOT NULL DEFAULT '',
    timestamp {real} NOT NULL,
    seconds {real},
    params TEXT NOT NULL DEFAULT '{{}}',
    seen {integer}
)""",
    "claims": """CREATE TABLE IF NOT EXISTS claims (
    project_uid {integer} NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    point {integer} NOT NULL,
    annotator TEXT NOT NULL,
    expires {real} NOT NULL,
    PRIMARY KEY (project_uid, point)
)""",
    "settings": """CREATE TABLE IF NOT EXISTS settings (
    project_uid {integer} PRIMARY KEY REFERENCES projects(uid) ON DELETE CASCADE,
    settings TEXT NOT NULL,
    updated {real} NOT NULL
)""",
}
_INDEXES = (
    "CREATE INDEX IF NOT EXISTS events_by_project ON events (project_uid, id)",
    "CREATE INDEX IF NOT EXISTS events_by_target ON events (target)",
    "CREATE INDEX IF NOT EXISTS events_by_point ON events (project_uid, point, id)",
    "CREATE INDEX IF NOT EXISTS claims_by_annotator ON claims (project_uid, annotator)",
)
#: what :meth:`SQLLabelStore.events` reads of an event
_EVENT_COLUMNS = "id, kind, point, label, target, annotator, timestamp, seconds, params, seen"
#: every column of the events table (what a rebuild of the table copies)
EVENT_TABLE_COLUMNS = "id, project_uid, " + _EVENT_COLUMNS.removeprefix("id, ")


def _npy_bytes(X: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(X, dtype=np.float64), allow_pickle=False)
    return buf.getvalue()


class SQLLabelStore(LabelStore):
    """:class:`LabelStore` in a SQL database; a subclass gives the :class:`SQLDialect`.

    One connection per store object, shared by threads under a lock (Streamlit reruns run
    in threads); separate processes and servers each open their own store.

    Attributes
    ----------
    location : str
        Where the database is, as :func:`~rlscore.storage.open_store` takes it (set by the
        subclass before ``SQLLabelStore.__init__``).
    """

    dialect: ClassVar[SQLDialect]
    location: str

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._closed = False
        self._writing = False  # inside _write(): a lost connection lost the transaction too
        self._project_info: dict[int, tuple[int, list]] = {}
        self._conn = self._connect()
        try:
            self._migrate()
        except BaseException:
            self._conn.close()
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

    # -- plumbing ---------------------------------------------------------------------------
    def _run(self, sql: str, params: Sequence = ()) -> Any:
        """Execute one statement written with ``?`` markers; the caller holds the lock."""
        if self.dialect.placeholder != "?":
            sql = sql.replace("?", self.dialect.placeholder)
        return self._conn.execute(sql, params)

    def _retry(self, action: Callable[[], _T]) -> _T:
        """``action()``, repeated once on a new connection if the connection was lost.

        Only for what is safe to repeat: a read, or the beginning of a transaction. Inside a
        transaction the error propagates: its earlier statements are lost with the
        connection (and a write interrupted at its commit may or may not be committed).
        """
        try:
            return action()
        except self.dialect.disconnect_errors:
            if self._closed or self._writing or not self._connection_lost():
                raise
            self._conn = self._connect()
            return action()

    def _fetchone(self, sql: str, params: Sequence = ()) -> tuple | None:
        with self._lock:
            return self._retry(lambda: self._run(sql, params).fetchone())

    def _fetchall(self, sql: str, params: Sequence = ()) -> list[tuple]:
        with self._lock:
            return self._retry(lambda: self._run(sql, params).fetchall())

    @contextmanager
    def _write(self) -> Iterator[None]:
        """A write transaction (see the module's docstring), committed on success."""
        with self._lock:
            self._retry(lambda: self._run(self.dialect.begin_write))
            self._writing = True
            try:
                yield
            except BaseException:
                try:
                    self._run("ROLLBACK")
                except self.dialect.disconnect_errors:
                    pass  # the server rolls back the transaction of a lost connection
                raise
            else:
                self._run("COMMIT")
            finally:
                self._writing = False

    def _insert(self, sql: str, params: Sequence) -> int:
        """Run an ``INSERT`` into a table with an ``id`` column; returns the new id."""
        if self.dialect.returning_id:
            return int(self._run(sql + " RETURNING id", params).fetchone()[0])
        return int(self._run(sql, params).lastrowid)

    # -- schema -----------------------------------------------------------------------------
    def _ddl(self, table: str) -> str:
        """The ``CREATE TABLE`` statement of ``table`` in this dialect."""
        d = self.dialect
        return _TABLES[table].format(
            id_column=d.id_column,
            integer=d.integer,
            real=d.real,
            blob=d.blob,
            kind_check=KIND_CHECK,
        )

    def _stored_version(self) -> int | None:
        if self._fetchone(self.dialect.table_exists, ("schema_info",)) is None:
            return None
        row = self._fetchone("SELECT version FROM schema_info")
        return None if row is None else int(row[0])

    def _migrate(self) -> None:
        """Create the tables, or upgrade an older database in place (one transaction)."""
        if self._stored_version() == SCHEMA_VERSION:
            return  # the usual case: no write, no lock
        with self._write():
            if self.dialect.lock_schema:
                self._run(self.dialect.lock_schema)
            version = self._stored_version()  # again: another process may have migrated
            if version == SCHEMA_VERSION:
                return
            if version is not None and version > SCHEMA_VERSION:
                raise RuntimeError(
                    f"{self.location} has schema version {version}, newer than this rlscore "
                    f"({SCHEMA_VERSION}): upgrade rlscore"
                )
            if version is not None:
                for v in range(version + 1, SCHEMA_VERSION + 1):
                    self._upgrade_to(v)
            # creates what is missing (all of it, or the tables and indexes of newer versions)
            for stmt in [*map(self._ddl, _TABLES), *_INDEXES]:
                self._run(stmt)
            self._run("DELETE FROM schema_info")
            self._run("INSERT INTO schema_info (version) VALUES (?)", (SCHEMA_VERSION,))

    def _upgrade_to(self, version: int) -> None:
        """Change the existing tables of schema ``version - 1`` to ``version`` (new tables
        and indexes are created afterwards)."""
        if version == 2:  # events record the newest event id the annotator had seen
            self._run(f"ALTER TABLE events ADD COLUMN seen {self.dialect.integer}")
        elif version == 3:  # review events
            self._replace_kind_check()

    @property
    def schema_version(self) -> int:
        """The schema version of the database (:data:`SCHEMA_VERSION` once opened)."""
        return int(self._fetchone("SELECT version FROM schema_info")[0])

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.location!r})"

    # -- projects ---------------------------------------------------------------------------
    def list_projects(self) -> list[str]:
        # sorted here: the database's collation may not sort as Python does
        return sorted(r[0] for r in self._fetchall("SELECT name FROM projects"))

    def create_project(self, project: Project) -> None:
        truth = project.truth
        truth = None if truth is None else json.dumps([plain_scalar(t) for t in truth])
        row = (
            project.name,
            time.time(),
            project.n,
            int(project.X.shape[1]),
            json.dumps(project.feature_names),
            json.dumps(project.ids),
            json.dumps(project.classes),
            truth,
            json.dumps(project.meta),
            _npy_bytes(project.X),
        )
        try:
            with self._write():
                self._run(
                    "INSERT INTO projects (name, created, n, d, feature_names, ids, classes, "
                    "truth, meta, X) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
        except self.dialect.integrity_error:
            raise ValueError(
                f"a project named {project.name!r} already exists: choose another name "
                "or delete it first"
            ) from None

    def load_project(self, name: str) -> Project:
        row = self._fetchone(
            "SELECT uid, feature_names, ids, classes, truth, meta, X FROM projects WHERE name = ?",
            (name,),
        )
        if row is None:
            raise UnknownProjectError(self._unknown(name))
        uid, feature_names, ids, classes, truth, meta, blob = row
        return Project(
            name=name,
            X=np.load(io.BytesIO(blob), allow_pickle=False),
            feature_names=json.loads(feature_names),
            ids=json.loads(ids),
            truth=None if truth is None else np.asarray(json.loads(truth), dtype=object),
            classes=json.loads(classes),
            meta=json.loads(meta),
            uid=int(uid),
        )

    def project_summaries(self) -> list[dict]:
        rows = self._fetchall(
            "SELECT name, n, d, classes, truth IS NOT NULL, meta, created FROM projects"
        )
        return [
            {
                "name": name,
                "n": int(n),
                "d": int(d),
                "classes": json.loads(classes),
                "has_truth": bool(has_truth),
                "meta": json.loads(meta),
                "created": float(created),
            }
            for name, n, d, classes, has_truth, meta, created in sorted(rows)
        ]

    def project_uid(self, name: str) -> int | None:
        row = self._fetchone("SELECT uid FROM projects WHERE name = ?", (name,))
        return None if row is None else int(row[0])

    def delete_project(self, name: str) -> None:
        with self._write():
            if self._run("DELETE FROM projects WHERE name = ?", (name,)).rowcount == 0:
                raise UnknownProjectError(self._unknown(name))

    def _unknown(self, name: str) -> str:
        # no file path or URL: the message is shown in the browser (rlscore.ui.errors)
        return f"no project named {name!r} in the label database; projects: {self.list_projects()}"

    def _uid(self, name: str, *, lock: bool = False) -> int:
        """The project's uid; with ``lock`` (in a write transaction) also the dialect's lock
        of its row, which serialises the project's writers until the commit."""
        sql = "SELECT uid FROM projects WHERE name = ?"
        if lock:  # inside _write(), which holds self._lock
            row = self._run(sql + self.dialect.lock_row, (name,)).fetchone()
        else:
            row = self._fetchone(sql, (name,))
        if row is None:
            raise UnknownProjectError(self._unknown(name))
        return int(row[0])

    def _size_and_classes(self, uid: int) -> tuple[int, list]:
        if uid not in self._project_info:  # uids are never reused: the cache stays valid
            n, classes = self._run(
                "SELECT n, classes FROM projects WHERE uid = ?", (uid,)
            ).fetchone()
            self._project_info[uid] = (int(n), json.loads(classes))
        return self._project_info[uid]

    # -- events -----------------------------------------------------------------------------
    def append_event(self, name: str, event: Event, *, unchanged_since: int | None = None) -> int:
        """Validate ``event`` against the project and commit it; returns its id.

        Raises ``ValueError`` for an unknown kind, a point outside the pool, a label (of a
        label or review) not among the classes, or an undo with nothing (or an already
        undone event) to undo; :class:`StaleActionError` when ``unchanged_since`` is given
        and the point changed after that event id (checked inside the write transaction, so
        two servers cannot both pass the check). A label, review or skip releases every
        claim on its point.
        """
        if event.kind not in EVENT_KINDS:
            raise ValueError(f"event kind must be one of {EVENT_KINDS}, got {event.kind!r}")
        label = plain_scalar(event.label)
        timestamp = time.time() if event.timestamp is None else float(event.timestamp)
        with self._write():
            uid = self._uid(name, lock=True)
            n, classes = self._size_and_classes(uid)
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
                if event.kind in ("label", "review") and label not in classes:
                    raise ValueError(f"label {label!r} is not one of the classes {classes}")
                if event.kind == "skip":
                    label = None
                target = None
                if unchanged_since is not None:
                    newer = self._events_on_point(uid, point, int(unchanged_since))
                    if newer:
                        raise StaleActionError(point, newer)
                self._run("DELETE FROM claims WHERE project_uid = ? AND point = ?", (uid, point))
            seen = event.seen if event.seen is not None else unchanged_since
            return self._insert(
                "INSERT INTO events (project_uid, kind, point, label, target, annotator, "
                "timestamp, seconds, params, seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    uid,
                    event.kind,
                    point,
                    None if label is None else json.dumps(label),
                    target,
                    str(event.annotator or ""),
                    timestamp,
                    None if event.seconds is None else float(event.seconds),
                    json.dumps(_plain_params(event.params)),
                    None if seen is None else int(seen),
                ),
            )

    def _events_on_point(self, uid: int, point: int, after: int) -> list[Event]:
        """Events after id ``after`` that touch ``point``: its labels, reviews and skips,
        and undos of any of its events."""
        rows = self._run(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE project_uid = ? AND id > ? AND "
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
            f"({_sql_list(UNDOABLE_KINDS)}) "
            "AND NOT EXISTS (SELECT 1 FROM events u WHERE u.kind = 'undo' AND u.target = e.id)"
        )
        if target is None:
            row = self._run(active + " ORDER BY id DESC LIMIT 1", (uid,)).fetchone()
            if row is None:
                raise ValueError("nothing to undo: no label, review or skip left")
            return int(row[0])
        row = self._run(active + " AND id = ?", (uid, int(target))).fetchone()
        if row is None:
            raise ValueError(
                f"event {target} cannot be undone: it is not a label, review or skip of this "
                "project, or it was undone already"
            )
        return int(target)

    def events(self, name: str, after_id: int = 0) -> list[Event]:
        uid = self._uid(name)
        rows = self._fetchall(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE project_uid = ? AND id > ? ORDER BY id",
            (uid, int(after_id)),
        )
        return [_event(row) for row in rows]

    def last_event_id(self, name: str) -> int:
        """Id of the project's newest event (0 if none): a cheap change check."""
        uid = self._uid(name)
        row = self._fetchone("SELECT MAX(id) FROM events WHERE project_uid = ?", (uid,))
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
        now = time.time()
        with self._write():
            uid = self._uid(name, lock=True)
            if unchanged_since is not None:
                newer = self._events_on_point(uid, int(point), int(unchanged_since))
                if newer:
                    raise StaleActionError(int(point), newer)
            self._run("DELETE FROM claims WHERE project_uid = ? AND expires <= ?", (uid, now))
            row = self._run(
                "SELECT annotator FROM claims WHERE project_uid = ? AND point = ?",
                (uid, int(point)),
            ).fetchone()
            if row is not None and row[0] != annotator:
                return False
            self._run(
                "DELETE FROM claims WHERE project_uid = ? AND annotator = ? AND point != ?",
                (uid, annotator, int(point)),
            )
            self._run(
                "INSERT INTO claims (project_uid, point, annotator, expires) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (project_uid, point) DO UPDATE SET annotator = excluded.annotator, "
                "expires = excluded.expires",
                (uid, int(point), annotator, now + float(ttl)),
            )
            return True

    def claims(self, name: str) -> dict[int, tuple[str, float]]:
        uid = self._uid(name)
        rows = self._fetchall(
            "SELECT point, annotator, expires FROM claims WHERE project_uid = ? AND expires > ?",
            (uid, time.time()),
        )
        return {int(p): (a, float(e)) for p, a, e in rows}

    def release_claims(self, name: str, annotator: str) -> None:
        with self._write():
            uid = self._uid(name, lock=True)
            self._run(
                "DELETE FROM claims WHERE project_uid = ? AND annotator = ?", (uid, annotator)
            )

    # -- settings ---------------------------------------------------------------------------
    def load_settings(self, name: str) -> dict | None:
        uid = self._uid(name)
        row = self._fetchone("SELECT settings FROM settings WHERE project_uid = ?", (uid,))
        return None if row is None else json.loads(row[0])

    def save_settings(self, name: str, settings: dict) -> None:
        text = json.dumps(jsonable(settings))
        with self._write():
            uid = self._uid(name, lock=True)
            self._run(
                "INSERT INTO settings (project_uid, settings, updated) VALUES (?, ?, ?) "
                "ON CONFLICT (project_uid) DO UPDATE SET settings = excluded.settings, "
                "updated = excluded.updated",
                (uid, text, time.time()),
            )


def _event(row: tuple) -> Event:
    """An :class:`Event` from a row of ``_EVENT_COLUMNS``."""
    eid, kind, point, label, target, annotator, timestamp, seconds, params, seen = row
    return Event(
        kind=kind,
        point=point,
        label=None if label is None else json.loads(label),
        annotator=annotator,
        timestamp=timestamp,
        seconds=seconds,
        params=json.loads(params),
        target=target,
        id=eid,
        seen=seen,
    )


def _plain_params(params: dict) -> dict:
    return {str(k): plain_scalar(v) for k, v in (params or {}).items()}


__all__ = ["SCHEMA_VERSION", "UNDOABLE_KINDS", "SQLDialect", "SQLLabelStore"]
