"""One connection to a SQL database, shared by threads: statements, retries, transactions.

:class:`SQLConnection` is what :class:`~rlscore.storage.sql.store.SQLLabelStore` and the schema
migrations (:mod:`rlscore.storage.sql.schema`) run their statements on. Statements are written
with ``?`` markers and translated to the driver's; a read, or the beginning of a
transaction, is repeated once on a new connection when the connection was lost (a server
restart); a write is one explicit transaction, begun as :class:`SQLDialect` says.

A lost connection that cannot be replaced (the server is down) raises one typed error,
:class:`DatabaseUnavailableError`, whatever the driver said, and the next call connects
again: no broken connection is kept. A write interrupted by it says whether it was
committed: not when the connection was lost before the ``COMMIT``, unknown when it was lost
during the ``COMMIT`` (the caller looks for what it wrote once the database is back, e.g.
:meth:`~rlscore.storage.interface.label_store.LabelStore.find_event`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

_T = TypeVar("_T")


class DatabaseUnavailableError(ConnectionError):
    """The label database cannot be reached (its server is down, restarting or unreachable).

    The store connects again on its next call; nothing needs reopening.

    Parameters
    ----------
    location
        Where the database is, without its password.
    reason
        The driver's reason, on one line and without secrets.
    committed
        For an interrupted write: False when it was not committed (the connection was lost
        before its ``COMMIT``: the server rolls it back), None when that is unknown (lost
        during the ``COMMIT``), True when it was found committed after all.

    Attributes
    ----------
    location, reason, committed
        As given.
    project : str or None
        Set by :meth:`~rlscore.storage.backends.postgres.PostgresLabelStore.append_event`: the
        project of the interrupted event.
    event : Event or None
        The interrupted event, with the timestamp it was written with: pass it to
        :meth:`~rlscore.storage.interface.label_store.LabelStore.find_event` once the database is
        back to learn whether it was saved.
    after_id : int
        The interrupted event's id, if it was saved, is greater than this.
    """

    def __init__(self, location: str, reason: str = "", committed: bool | None = False):
        self.location = location
        self.reason = reason
        self.committed = committed
        self.project: str | None = None
        self.event: Any = None
        self.after_id = 0
        text = f"the label database {location} is unreachable"
        super().__init__(f"{text} ({reason})" if reason else text)


@dataclass(frozen=True)
class SQLDialect:
    """What differs between the SQL databases a :class:`~rlscore.storage.sql.store.SQLLabelStore`
    runs on.

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
        What the driver raises when the connection was lost (see :class:`SQLConnection`).
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


class SQLConnection:
    """A DB-API connection under a lock (Streamlit reruns run in threads).

    Parameters
    ----------
    dialect
        The database's :class:`SQLDialect`.
    connect
        Opens a new DB-API connection in autocommit mode (transactions are begun
        explicitly); called now, and again when the connection was lost.
    connection_lost
        Whether the last of ``dialect.disconnect_errors`` came from a connection that is
        gone (then it is opened again), not from the statement.
    location
        Where the database is, without its password (named in
        :class:`DatabaseUnavailableError`).

    Attributes
    ----------
    conn
        The DB-API connection in use.
    lock : threading.RLock
        Held by every statement; a write transaction holds it until its commit.
    """

    def __init__(
        self,
        dialect: SQLDialect,
        connect: Callable[[], Any],
        connection_lost: Callable[[], bool],
        *,
        location: str = "",
    ) -> None:
        self.dialect = dialect
        self._connect = connect
        self._connection_lost = connection_lost
        self.location = location
        self.lock = threading.RLock()
        self._closed = False
        self._writing = False  # inside write(): a lost connection lost the transaction too
        self.conn = connect()

    def run(self, sql: str, params: Sequence = ()) -> Any:
        """Execute one statement written with ``?`` markers; the caller holds the lock."""
        if self.dialect.placeholder != "?":
            sql = sql.replace("?", self.dialect.placeholder)
        return self.conn.execute(sql, params)

    def _unavailable(self, exc: BaseException, committed: bool | None = False):
        """The :class:`DatabaseUnavailableError` that replaces the driver's ``exc``."""
        if isinstance(exc, DatabaseUnavailableError):
            exc.committed = committed
            return exc
        # the driver's message on one line (it names the server's state, not the password:
        # connecting, where libpq may quote the URL, is scrubbed by the store's connect)
        reason = "connection lost: " + " ".join(str(exc).split())
        return DatabaseUnavailableError(self.location, reason, committed)

    def _reconnect(self) -> None:
        """Replace the lost connection (:class:`DatabaseUnavailableError` if the server
        still cannot be reached; the next call tries again)."""
        try:
            self.conn = self._connect()
        except self.dialect.disconnect_errors as exc:
            raise self._unavailable(exc) from None

    def _retry(self, action: Callable[[], _T]) -> _T:
        """``action()``, repeated once on a new connection if the connection was lost.

        Only for what is safe to repeat: a read, or the beginning of a transaction. Inside a
        transaction the error propagates: its earlier statements are lost with the
        connection (and a write interrupted at its commit may or may not be committed).
        A connection lost by an earlier call is replaced first.
        """
        if self._closed or self._writing:  # inside a transaction: never on a new connection
            return action()
        if self._connection_lost():  # lost by an earlier call: no stale connection is used
            self._reconnect()
        try:
            return action()
        except self.dialect.disconnect_errors:
            if not self._connection_lost():
                raise
        self._reconnect()
        try:
            return action()
        except self.dialect.disconnect_errors as exc:
            if not self._connection_lost():
                raise
            raise self._unavailable(exc) from None

    def fetchone(self, sql: str, params: Sequence = ()) -> tuple | None:
        """The first row of a read (retried on a new connection if the old one was lost)."""
        with self.lock:
            return self._retry(lambda: self.run(sql, params).fetchone())

    def fetchall(self, sql: str, params: Sequence = ()) -> list[tuple]:
        """Every row of a read (retried on a new connection if the old one was lost)."""
        with self.lock:
            return self._retry(lambda: self.run(sql, params).fetchall())

    @contextmanager
    def write(self) -> Iterator[None]:
        """A write transaction (see :mod:`rlscore.storage.sql.store`), committed on success.

        Raises :class:`DatabaseUnavailableError` when the connection is lost: with
        ``committed`` False before the ``COMMIT`` (the server rolls the transaction back),
        None during it (it may or may not be committed).
        """
        with self.lock:
            self._retry(lambda: self.run(self.dialect.begin_write))
            self._writing = True
            try:
                yield
            except BaseException as exc:
                try:
                    self.run("ROLLBACK")
                except self.dialect.disconnect_errors:
                    pass  # the server rolls back the transaction of a lost connection
                if isinstance(exc, self.dialect.disconnect_errors) and self._connection_lost():
                    raise self._unavailable(exc, committed=False) from None
                raise
            else:
                try:
                    self.run("COMMIT")
                except self.dialect.disconnect_errors as exc:
                    if not self._connection_lost():
                        raise
                    raise self._unavailable(exc, committed=None) from None
            finally:
                self._writing = False

    def insert(self, sql: str, params: Sequence) -> int:
        """Run an ``INSERT`` into a table with an ``id`` column; returns the new id."""
        if self.dialect.returning_id:
            return int(self.run(sql + " RETURNING id", params).fetchone()[0])
        return int(self.run(sql, params).lastrowid)

    def close(self) -> None:
        """Close the connection for good (a lost connection is no longer reopened)."""
        with self.lock:
            self._closed = True
            self.conn.close()


__all__ = ["DatabaseUnavailableError", "SQLConnection", "SQLDialect"]
