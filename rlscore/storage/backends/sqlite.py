"""The label store in SQLite (the embedded default).

:class:`SQLiteLabelStore` is the :class:`~rlscore.storage.sql.store.SQLLabelStore` on the standard
library's ``sqlite3`` in WAL mode (readers never block the writer) with a busy timeout and
one ``BEGIN IMMEDIATE`` transaction per write, so several tabs or processes can write to the
same project without losing an event. Event ids increase in commit order.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from rlscore.storage.sql.connection import SQLDialect
from rlscore.storage.sql.schema import (
    EVENT_TABLE_COLUMNS,
    SCHEMA_VERSION,
    NotALabelDatabaseError,
    table_ddl,
)
from rlscore.storage.sql.store import SQLLabelStore

#: where the label database is when neither an argument nor ``$RLSCORE_DB`` says
DEFAULT_DB = Path.home() / ".local" / "share" / "rlscore" / "labels.sqlite3"
#: milliseconds a writer waits for another writer's transaction before giving up
BUSY_TIMEOUT_MS = 30_000

SQLITE = SQLDialect(
    placeholder="?",
    # AUTOINCREMENT: an id is never handed out again, even after its row was deleted
    id_column="INTEGER PRIMARY KEY AUTOINCREMENT",
    integer="INTEGER",
    real="REAL",
    blob="BLOB",
    # takes the database's write lock at once: the transaction's reads (the stale check)
    # see every committed write, and no other writer commits before it
    begin_write="BEGIN IMMEDIATE",
    lock_row="",
    lock_schema="",
    # lastrowid: RETURNING needs SQLite 3.35, newer than some systems' Python has
    returning_id=False,
    table_exists="SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
    integrity_error=sqlite3.IntegrityError,
    disconnect_errors=(),  # a file does not disconnect
)


class SQLiteLabelStore(SQLLabelStore):
    """:class:`~rlscore.storage.interface.label_store.LabelStore` in one SQLite file (WAL mode, busy
    timeout, schema versioned).

    Parameters
    ----------
    path
        Database file; its directory is created if needed (not with ``create=False``).
    create
        False: only open a file that already holds the label tables at this schema version
        (see :class:`~rlscore.storage.sql.store.SQLLabelStore`); a missing file is refused, not
        created.

    Attributes
    ----------
    path : Path
        The database file (snapshots go next to it, see
        :func:`~rlscore.sessions.state.snapshots.default_snapshot_dir`).
    """

    dialect = SQLITE

    def __init__(self, path: str | os.PathLike, *, create: bool = True):
        self.path = Path(path).expanduser()
        self.location = str(self.path)
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        elif not self.path.is_file():  # connecting would create it
            raise NotALabelDatabaseError(f"no label database at {self.path}")
        super().__init__(create=create)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path,
            timeout=BUSY_TIMEOUT_MS / 1000,
            isolation_level=None,  # explicit BEGIN/COMMIT: one transaction per write
            check_same_thread=False,
        )
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = _switch_to_wal(conn)
        if mode.lower() != "wal":
            raise OSError(f"could not switch {self.path} to WAL mode (got {mode!r})")
        # FULL: a committed event survives a power cut too, not only a killed process
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    def _replace_kind_check(self) -> None:
        """SQLite cannot alter a CHECK constraint: rebuild the events table with the current
        one, keeping every row and id (inside the migration's transaction)."""
        seq = self._db.run("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
        self._db.run("ALTER TABLE events RENAME TO events_old")
        self._db.run(table_ddl(self.dialect, "events"))
        columns = EVENT_TABLE_COLUMNS
        self._db.run(f"INSERT INTO events ({columns}) SELECT {columns} FROM events_old")
        # the old indexes go with the old table; the migration creates them again
        self._db.run("DROP TABLE events_old")
        if seq is not None:  # ids of deleted events (deleted projects) stay used
            self._db.run("DELETE FROM sqlite_sequence WHERE name = 'events'")
            self._db.run("INSERT INTO sqlite_sequence (name, seq) VALUES ('events', ?)", seq)


def _switch_to_wal(conn: sqlite3.Connection) -> str:
    """``PRAGMA journal_mode = WAL``, retried while another process holds the new file's lock:
    SQLite answers "database is locked" at once here instead of waiting for the busy
    timeout (two servers opening a new database at the same moment)."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            return conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.005)  # a backoff between retries, not a wait for an event


__all__ = ["BUSY_TIMEOUT_MS", "DEFAULT_DB", "SCHEMA_VERSION", "SQLITE", "SQLiteLabelStore"]
