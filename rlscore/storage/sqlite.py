"""The label store in SQLite (the embedded default).

:class:`SQLiteLabelStore` implements :class:`~rlscore.storage.base.LabelStore` with the
standard library's ``sqlite3`` in WAL mode (readers never block the writer) with a busy
timeout, one ``BEGIN IMMEDIATE`` transaction per event, so several tabs or processes can write
to the same project without losing an event. Event ids increase in commit order.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from rlscore.core.serialization import jsonable, plain_scalar
from rlscore.data.projects import Project
from rlscore.storage.base import LabelStore
from rlscore.storage.events import EVENT_KINDS, Event, StaleActionError, UnknownProjectError

#: environment variable naming the database file
DB_ENV = "RLSCORE_DB"
DEFAULT_DB = Path.home() / ".local" / "share" / "rlscore" / "labels.sqlite3"
#: 1: projects and events; 2: events record what was seen, claims, per-project settings
SCHEMA_VERSION = 2
#: milliseconds a writer waits for another writer's transaction before giving up
BUSY_TIMEOUT_MS = 30_000


def default_db_path() -> Path:
    """``$RLSCORE_DB`` if set, else ``~/.local/share/rlscore/labels.sqlite3``."""
    env = os.environ.get(DB_ENV)
    return Path(env).expanduser() if env else DEFAULT_DB


def open_store(path: str | os.PathLike | None = None) -> SQLiteLabelStore:
    """Open (creating if needed) the label store at ``path``, ``$RLSCORE_DB`` or the default."""
    return SQLiteLabelStore(default_db_path() if path is None else path)


_SCHEMA = """
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
#: columns added to existing tables by each schema version (``CREATE … IF NOT EXISTS`` does
#: not touch a table that exists)
_ADDED_COLUMNS = {2: [("events", "seen", "INTEGER")]}
_EVENT_COLUMNS = "id, kind, point, label, target, annotator, timestamp, seconds, params, seen"


def _npy_bytes(X: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(X, dtype=np.float64), allow_pickle=False)
    return buf.getvalue()


class SQLiteLabelStore(LabelStore):
    """:class:`LabelStore` in one SQLite file (WAL mode, busy timeout, schema versioned).

    One connection per store object, shared by threads under a lock (Streamlit reruns run
    in threads). Separate processes each open their own store on the same file.

    Parameters
    ----------
    path
        Database file; its directory is created if needed.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(
            self.path,
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,  # explicit BEGIN/COMMIT: one transaction per event
            check_same_thread=False,
        )
        self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise OSError(f"could not switch {self.path} to WAL mode (got {mode!r})")
        # FULL: a committed event survives a power cut too, not only a killed process
        self._conn.execute("PRAGMA synchronous = FULL")
        self._conn.execute("PRAGMA foreign_keys = ON")
        self._project_info: dict[int, tuple[int, list]] = {}
        self._migrate()

    # -- plumbing ------------------------------------------------------------------------
    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """An immediate (write-locked) transaction, committed on success."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _migrate(self) -> None:
        """Create the tables, or upgrade an older file in place (one transaction)."""
        with self._write() as c:
            row = c.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_info'"
            ).fetchone()
            version = None
            if row is not None:
                found = c.execute("SELECT version FROM schema_info").fetchone()
                version = None if found is None else int(found[0])
            if version is not None and version > SCHEMA_VERSION:
                raise RuntimeError(
                    f"{self.path} has schema version {version}, newer than this rlscore "
                    f"({SCHEMA_VERSION}): upgrade rlscore"
                )
            if version is not None:
                for v in range(version + 1, SCHEMA_VERSION + 1):
                    for table, column, kind in _ADDED_COLUMNS.get(v, []):
                        c.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
            for stmt in filter(str.strip, _SCHEMA.split(";")):
                c.execute(stmt)
            c.execute("DELETE FROM schema_info")
            c.execute("INSERT INTO schema_info (version) VALUES (?)", (SCHEMA_VERSION,))

    @property
    def schema_version(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT version FROM schema_info").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SQLiteLabelStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SQLiteLabelStore({str(self.path)!r})"

    # -- projects ------------------------------------------------------------------------
    def list_projects(self) -> list[str]:
        with self._lock:
            rows = self._conn.execute("SELECT name FROM projects ORDER BY name").fetchall()
        return [r[0] for r in rows]

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
            with self._write() as c:
                c.execute(
                    "INSERT INTO projects (name, created, n, d, feature_names, ids, classes, "
                    "truth, meta, X) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
        except sqlite3.IntegrityError:
            raise ValueError(
                f"a project named {project.name!r} already exists: choose another name "
                "or delete it first"
            ) from None

    def load_project(self, name: str) -> Project:
        with self._lock:
            row = self._conn.execute(
                "SELECT uid, feature_names, ids, classes, truth, meta, X FROM projects "
                "WHERE name = ?",
                (name,),
            ).fetchone()
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
            uid=uid,
        )

    def project_summaries(self) -> list[dict]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT name, n, d, classes, truth IS NOT NULL, meta, created FROM projects "
                "ORDER BY name"
            ).fetchall()
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
            for name, n, d, classes, has_truth, meta, created in rows
        ]

    def project_uid(self, name: str) -> int | None:
        with self._lock:
            row = self._conn.execute("SELECT uid FROM projects WHERE name = ?", (name,)).fetchone()
        return None if row is None else int(row[0])

    def delete_project(self, name: str) -> None:
        with self._write() as c:
            cur = c.execute("DELETE FROM projects WHERE name = ?", (name,))
            if cur.rowcount == 0:
                raise UnknownProjectError(self._unknown(name))

    def _unknown(self, name: str) -> str:
        # no file path: the message is shown in the browser (rlscore.ui.errors)
        return f"no project named {name!r} in the label database; projects: {self.list_projects()}"

    def _uid(self, c: sqlite3.Connection, name: str) -> int:
        row = c.execute("SELECT uid FROM projects WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise UnknownProjectError(self._unknown(name))
        return int(row[0])

    def _size_and_classes(self, c: sqlite3.Connection, uid: int) -> tuple[int, list]:
        if uid not in self._project_info:
            n, classes = c.execute(
                "SELECT n, classes FROM projects WHERE uid = ?", (uid,)
            ).fetchone()
            self._project_info[uid] = (int(n), json.loads(classes))
        return self._project_info[uid]

    # -- events --------------------------------------------------------------------------
    def append_event(self, name: str, event: Event, *, unchanged_since: int | None = None) -> int:
        """Validate ``event`` against the project and commit it; returns its id.

        Raises ``ValueError`` for an unknown kind, a point outside the pool, a label not
        among the classes, or an undo with nothing (or an already undone event) to undo;
        :class:`StaleActionError` when ``unchanged_since`` is given and the point changed
        after that event id (checked inside the write transaction, so two servers cannot
        both pass the check). A label or skip releases every claim on its point.
        """
        if event.kind not in EVENT_KINDS:
            raise ValueError(f"event kind must be one of {EVENT_KINDS}, got {event.kind!r}")
        label = plain_scalar(event.label)
        timestamp = time.time() if event.timestamp is None else float(event.timestamp)
        with self._write() as c:
            uid = self._uid(c, name)
            n, classes = self._size_and_classes(c, uid)
            target = event.target
            if event.kind == "undo":
                target = self._check_undo_target(c, uid, target)
                point, label = None, None
            else:
                point = event.point
                if isinstance(point, bool) or not isinstance(point, int | np.integer):
                    raise ValueError(f"point index must be an integer, got {point!r}")
                point = int(point)
                if not 0 <= point < n:
                    raise ValueError(f"point index {point} is outside the pool (0 … {n - 1})")
                if event.kind == "label" and label not in classes:
                    raise ValueError(f"label {label!r} is not one of the classes {classes}")
                if event.kind == "skip":
                    label = None
                target = None
                if unchanged_since is not None:
                    newer = self._events_on_point(c, uid, point, int(unchanged_since))
                    if newer:
                        raise StaleActionError(point, newer)
                c.execute("DELETE FROM claims WHERE project_uid = ? AND point = ?", (uid, point))
            seen = event.seen if event.seen is not None else unchanged_since
            cur = c.execute(
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
            return int(cur.lastrowid)

    @staticmethod
    def _events_on_point(c: sqlite3.Connection, uid: int, point: int, after: int) -> list[Event]:
        """Events after id ``after`` that touch ``point``: its labels and skips, and undos
        of any of its events."""
        rows = c.execute(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE project_uid = ? AND id > ? AND "
            "(point = ? OR (kind = 'undo' AND target IN "
            "(SELECT id FROM events WHERE project_uid = ? AND point = ?))) ORDER BY id",
            (uid, after, point, uid, point),
        ).fetchall()
        return [_event(row) for row in rows]

    @staticmethod
    def _check_undo_target(c: sqlite3.Connection, uid: int, target: int | None) -> int:
        active = (
            "SELECT id FROM events e WHERE project_uid = ? AND kind IN ('label', 'skip') "
            "AND NOT EXISTS (SELECT 1 FROM events u WHERE u.kind = 'undo' AND u.target = e.id)"
        )
        if target is None:
            row = c.execute(active + " ORDER BY id DESC LIMIT 1", (uid,)).fetchone()
            if row is None:
                raise ValueError("nothing to undo: no label or skip left")
            return int(row[0])
        row = c.execute(active + " AND id = ?", (uid, int(target))).fetchone()
        if row is None:
            raise ValueError(
                f"event {target} cannot be undone: it is not a label or skip of this project, "
                "or it was undone already"
            )
        return int(target)

    def events(self, name: str, after_id: int = 0) -> list[Event]:
        with self._lock:
            uid = self._uid(self._conn, name)
            rows = self._conn.execute(
                f"SELECT {_EVENT_COLUMNS} FROM events WHERE project_uid = ? AND id > ? ORDER BY id",
                (uid, int(after_id)),
            ).fetchall()
        return [_event(row) for row in rows]

    # -- claims ----------------------------------------------------------------------------
    def claim(self, name: str, point: int, annotator: str, ttl: float) -> bool:
        now = time.time()
        with self._write() as c:
            uid = self._uid(c, name)
            c.execute("DELETE FROM claims WHERE project_uid = ? AND expires <= ?", (uid, now))
            row = c.execute(
                "SELECT annotator FROM claims WHERE project_uid = ? AND point = ?",
                (uid, int(point)),
            ).fetchone()
            if row is not None and row[0] != annotator:
                return False
            c.execute(
                "DELETE FROM claims WHERE project_uid = ? AND annotator = ? AND point != ?",
                (uid, annotator, int(point)),
            )
            c.execute(
                "INSERT OR REPLACE INTO claims (project_uid, point, annotator, expires) "
                "VALUES (?, ?, ?, ?)",
                (uid, int(point), annotator, now + float(ttl)),
            )
            return True

    def claims(self, name: str) -> dict[int, tuple[str, float]]:
        with self._lock:
            uid = self._uid(self._conn, name)
            rows = self._conn.execute(
                "SELECT point, annotator, expires FROM claims WHERE project_uid = ? "
                "AND expires > ?",
                (uid, time.time()),
            ).fetchall()
        return {int(p): (a, float(e)) for p, a, e in rows}

    def release_claims(self, name: str, annotator: str) -> None:
        with self._write() as c:
            uid = self._uid(c, name)
            c.execute(
                "DELETE FROM claims WHERE project_uid = ? AND annotator = ?", (uid, annotator)
            )

    # -- settings --------------------------------------------------------------------------
    def load_settings(self, name: str) -> dict | None:
        with self._lock:
            uid = self._uid(self._conn, name)
            row = self._conn.execute(
                "SELECT settings FROM settings WHERE project_uid = ?", (uid,)
            ).fetchone()
        return None if row is None else json.loads(row[0])

    def save_settings(self, name: str, settings: dict) -> None:
        text = json.dumps(jsonable(settings))
        with self._write() as c:
            uid = self._uid(c, name)
            c.execute(
                "INSERT OR REPLACE INTO settings (project_uid, settings, updated) VALUES (?, ?, ?)",
                (uid, text, time.time()),
            )

    def last_event_id(self, name: str) -> int:
        """Id of the project's newest event (0 if none): a cheap change check."""
        with self._lock:
            uid = self._uid(self._conn, name)
            row = self._conn.execute(
                "SELECT MAX(id) FROM events WHERE project_uid = ?", (uid,)
            ).fetchone()
        return int(row[0] or 0)


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


__all__ = [
    "DB_ENV",
    "DEFAULT_DB",
    "Event",
    "LabelStore",
    "SQLiteLabelStore",
    "StaleActionError",
    "UnknownProjectError",
    "default_db_path",
    "open_store",
]
