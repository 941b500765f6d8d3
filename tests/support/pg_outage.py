"""A PostgreSQL server of its own that a test stops and starts again: a database outage.

:class:`OutageCluster` is a :class:`~pg_cluster.PostgresCluster` (a throwaway server on
127.0.0.1) with :meth:`~OutageCluster.halt` — ``pg_ctl stop -m immediate``, as a crash or an
operator's emergency stop: every connection is cut, nothing is shut down cleanly — and
:meth:`~OutageCluster.resume`, which starts the same cluster again on the same port (crash
recovery replays what was committed). Tests of an outage use their own cluster, never the
session's shared one. :class:`CutStore` cuts the connection at a ``COMMIT``, before or after
the server committed (what a stop at that instant does, on cue).

Unlike the shared cluster, this one commits synchronously (``synchronous_commit = on``, the
server's default): an immediate stop must not lose a commit the client was told of, or the
tests could not tell a store's loss from the server's.
"""

from __future__ import annotations

import psycopg
from pg_cluster import PostgresCluster

from rlscore.storage.backends.postgres import PostgresLabelStore


class OutageCluster(PostgresCluster):
    """A throwaway PostgreSQL server that can be stopped and started again."""

    def start(self) -> OutageCluster:
        """Start the server (see :class:`~pg_cluster.PostgresCluster`), committing
        synchronously."""
        super().start()
        admin = self._admin_connection()
        admin.execute("ALTER SYSTEM SET synchronous_commit = on")
        admin.execute("SELECT pg_reload_conf()")
        return self

    @property
    def running(self) -> bool:
        """Whether the server is up."""
        return self._running

    def halt(self) -> None:
        """Stop the server at once (``pg_ctl stop -m immediate``): the outage begins."""
        if self._admin is not None:  # its connection is cut: a new one after the restart
            self._admin.close()
            self._admin = None
        self._run("pg_ctl", "stop", "-w", "-m", "immediate", "-D", str(self.data))
        self._running = False

    def resume(self) -> None:
        """Start the stopped server again on the same port; returns once it accepts
        connections (``pg_ctl start -w``)."""
        self._run(
            "pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data), "-l", str(self.log),
            "-o", f"-p {self.port}",
        )  # fmt: skip
        self._running = True


class CutConnection:
    """A psycopg connection whose next ``COMMIT`` runs ``store.at_commit(conn)`` instead:
    the connection lost at that moment, before or after the server committed."""

    def __init__(self, conn: psycopg.Connection, store: CutStore):
        self._conn = conn
        self._store = store

    def execute(self, sql, params=()):
        if sql == "COMMIT" and self._store.at_commit is not None:
            cut, self._store.at_commit = self._store.at_commit, None
            return cut(self._conn)
        return self._conn.execute(sql, params)

    def __getattr__(self, name):
        return getattr(self._conn, name)


class CutStore(PostgresLabelStore):
    """A PostgreSQL label store whose next ``COMMIT`` is cut by ``at_commit`` (a function
    of the driver's connection), once."""

    at_commit = None

    def _connect(self):
        return CutConnection(super()._connect(), self)


def connection_lost() -> psycopg.OperationalError:
    """What psycopg raises when the server's answer never comes."""
    return psycopg.OperationalError("server closed the connection unexpectedly")


def committed_then_lost(conn):
    """At ``COMMIT``: the server commits, then the connection is lost before its answer."""
    conn.execute("COMMIT")  # the server has it; its answer never arrives
    conn.close()
    raise connection_lost()


def lost_before_commit(conn):
    """At ``COMMIT``: the connection is lost before the server had it."""
    conn.close()  # the server rolls back the transaction of a closed connection
    raise connection_lost()
