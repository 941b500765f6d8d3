"""A throwaway PostgreSQL cluster for the tests, started and removed by the tests themselves.

:class:`PostgresCluster` finds PostgreSQL's server programs (:func:`find_bindir`), runs
``initdb`` into a new temporary folder, starts the server with ``pg_ctl -w`` on a free TCP
port of 127.0.0.1 (its unix socket in that folder, so nothing clashes with a system
server), hands out empty databases and, on :meth:`~PostgresCluster.stop`, stops it
(``-m immediate``: nothing in it is worth a clean shutdown) and deletes the folder.

PostgreSQL refuses to run as root: when this process is root the server programs run as
the ``postgres`` system user (``runuser -u postgres --``), the folder owned by it. The
cluster trusts every local connection: it listens on 127.0.0.1 only, lives as long as the
test session, and holds nothing but test data.

Run as a script, it prints the folder of the server programs (exit status 1 if there is
none): ``tests/run.sh`` asks it whether PostgreSQL needs installing.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the superuser the cluster is created with (also when initdb runs as another user)
SUPERUSER = "postgres"
#: how the tests say how to get PostgreSQL when it is missing
INSTALL_HINT = (
    "PostgreSQL's server programs (initdb, pg_ctl) were not found: install them, e.g. "
    "`apt-get install postgresql` (Debian/Ubuntu; the system service need not run) or "
    "`brew install postgresql`; the tests start a throwaway server of their own"
)
#: settings of a server that holds only test data: no waiting for the disk (a killed client
#: loses nothing either way; only an OS crash would), few resources, enough connections for
#: the store objects the tests leave to the garbage collector
_SETTINGS = {
    "listen_addresses": "'127.0.0.1'",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "max_connections": "200",
    "shared_buffers": "32MB",
    "max_wal_size": "256MB",
    "log_min_messages": "warning",
}


def find_bindir() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None.

    Looks at ``pg_config --bindir`` first (the installation the client library belongs
    to), then the newest ``/usr/lib/postgresql/*/bin`` (Debian and Ubuntu keep the server
    programs there, off ``PATH``), then ``PATH``.
    """
    candidates = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        found = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True)
        if found.returncode == 0 and found.stdout.strip():
            candidates.append(Path(found.stdout.strip()))
    candidates += sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: [int(n) for n in re.findall(r"\d+", p.parent.name)],
        reverse=True,
    )
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(initdb).resolve().parent)
    for bindir in candidates:
        if all(os.access(bindir / prog, os.X_OK) for prog in ("initdb", "pg_ctl")):
            return bindir
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresCluster:
    """A PostgreSQL server of its own in a temporary folder (see the module's docstring).

    Parameters
    ----------
    bindir
        Folder of ``initdb`` and ``pg_ctl`` (default: :func:`find_bindir`).

    Attributes
    ----------
    root : Path
        The temporary folder: ``data/`` (the cluster), the socket and ``server.log``.
    port : int
        The TCP port on 127.0.0.1.
    startup_seconds : float
        How long ``initdb`` and the start took.
    """

    def __init__(self, bindir: Path | None = None) -> None:
        bindir = bindir or find_bindir()
        if bindir is None:
            raise FileNotFoundError(INSTALL_HINT)
        self.bindir = Path(bindir)
        self.root = Path(tempfile.mkdtemp(prefix="rlscore-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = 0
        self.startup_seconds = 0.0
        self._as_postgres = os.geteuid() == 0
        self._admin = None
        self._n_databases = 0
        self._running = False

    # -- running the server programs ---------------------------------------------------------
    def _run(self, program: str, *args: str) -> None:
        cmd = [str(self.bindir / program), *args]
        if self._as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
            raise RuntimeError(
                f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stdout}{done.stderr}{log}"
            )

    def start(self) -> PostgresCluster:
        """``initdb`` and start the server (a few seconds); returns self."""
        started = time.perf_counter()
        if self._as_postgres:
            # root may not run the server: the postgres system user owns the whole folder
            shutil.chown(self.root, "postgres", "postgres")
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",  # a throwaway cluster: do not wait for the disk
        )
        settings = {**_SETTINGS, "unix_socket_directories": f"'{self.root}'"}
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())
        # a free port can be taken by another process before the server binds it: try again
        for attempt in range(3):
            self.port = _free_port()
            try:
                self._run(
                    "pg_ctl",
                    "start",
                    "-w",
                    "-t",
                    "60",
                    "-D",
                    str(self.data),
                    "-l",
                    str(self.log),
                    "-o",
                    f"-p {self.port}",
                )
                break
            except RuntimeError:
                if attempt == 2:
                    raise
        self._running = True
        self.startup_seconds = time.perf_counter() - started
        return self

    def stop(self) -> None:
        """Stop the server at once and delete its folder (safe to call twice)."""
        if self._admin is not None:
            self._admin.close()
            self._admin = None
        if self._running:
            self._running = False
            self._run("pg_ctl", "stop", "-w", "-m", "immediate", "-D", str(self.data))
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PostgresCluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- databases --------------------------------------------------------------------------
    def url(self, dbname: str = "postgres") -> str:
        """The URL of database ``dbname`` (TCP on 127.0.0.1, as a remote server is reached)."""
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{dbname}"

    def _admin_connection(self):
        import psycopg  # only the tests that use the cluster need the driver

        if self._admin is None or self._admin.closed:
            self._admin = psycopg.connect(self.url(), autocommit=True)
        return self._admin

    def create_database(self) -> str:
        """A new empty database; returns its URL."""
        self._n_databases += 1
        name = f"rlscore_test_{self._n_databases}"
        self._admin_connection().execute(f"CREATE DATABASE {name}")  # ~40 ms (measured)
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop the database of ``url``, closing the connections still open to it."""
        name = url.rsplit("/", 1)[1]
        admin = self._admin_connection()
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        admin.execute(f"DROP DATABASE IF EXISTS {name}")


if __name__ == "__main__":
    found = find_bindir()
    print(found or INSTALL_HINT, file=sys.stdout if found else sys.stderr)
    sys.exit(0 if found else 1)
