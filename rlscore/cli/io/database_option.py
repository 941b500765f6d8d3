"""The ``--db`` option of the commands that use a label database (``labels``, ``settings``,
``agreement``, ``negatives``, ``members``, ``create-cluster-project``): one help text, and
:func:`open_existing_store`, which opens a database only once it is known to be an rlscore
label database.

A command never creates or converts a database: opening a missing SQLite file would create
it, and opening an empty file or another program's SQLite database would write the label
tables into it. So a SQLite file is first checked without writing anything — it exists, is
a file, starts with the SQLite header, and (read through a ``mode=ro`` connection) holds the
label tables at this rlscore's schema version — and only then opened as a store. Both
SQLite and PostgreSQL are opened with ``open_store(..., create=False)``, which refuses a
database without the label tables at this schema version before any table is created: a
reachable but empty PostgreSQL database stays empty.
"""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path
from urllib.parse import quote

from rlscore.cli.io.errors import CommandError, one_line
from rlscore.storage import DB_ENV, SCHEMA_VERSION, SQLLabelStore, default_db_path, open_store
from rlscore.storage.backends.urls import check_database_target, is_postgres_url

#: the first 16 bytes of every SQLite 3 database file
SQLITE_HEADER = b"SQLite format 3\x00"


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--db`` (a SQLite file or a ``postgresql://`` URL) to ``parser``."""
    parser.add_argument(
        "--db",
        default=None,
        help=(
            f"label database: a SQLite file or a postgresql:// URL (default: ${DB_ENV}, "
            f"else {default_db_path()}); it must exist: no command creates one"
        ),
    )


def database_target(db: str | None) -> str:
    """The database ``--db`` names: itself, or :func:`~rlscore.storage.default_db_path`."""
    return str(default_db_path()) if db is None else db


def sqlite_problem(path: str | Path) -> str | None:
    """Why the file ``path`` is not an rlscore label database this rlscore can read without
    changing it (None: it is one). Nothing is created or written.

    Parameters
    ----------
    path
        A SQLite file's path.

    Returns
    -------
    str or None
        The problem, naming the file.
    """
    path = Path(path).expanduser()
    if not path.exists():
        hint = "start the app once to create it, or pass --db" if path == default_db_path() else ""
        return f"no label database at {path}" + (f" ({hint})" if hint else "")
    if path.is_dir():
        return f"{path} is a folder, not a label database file"
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    if not head:
        return f"{path} is empty, not an rlscore label database"
    if head != SQLITE_HEADER:
        return f"{path} is not an rlscore label database (not a SQLite file)"
    return _schema_problem(path)


def _schema_problem(path: Path) -> str | None:
    """Read the schema version through a read-only connection (``mode=ro``: SQLite cannot
    create, convert or write the file through it)."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        return f"cannot open {path}: {one_line(exc)}"
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if "schema_info" not in tables or "projects" not in tables:
            return f"{path} is a SQLite database but not an rlscore label database"
        row = conn.execute("SELECT MAX(version) FROM schema_info").fetchone()
    except sqlite3.Error as exc:
        return f"cannot read {path} as a label database: {one_line(exc)}"
    finally:
        conn.close()
    version = None if row is None else row[0]
    if version is None:
        return f"{path} is a SQLite database but not an rlscore label database"
    if version > SCHEMA_VERSION:
        return (
            f"{path} has schema version {version}, newer than this rlscore's "
            f"({SCHEMA_VERSION}): upgrade rlscore"
        )
    if version < SCHEMA_VERSION:
        return (
            f"{path} has schema version {version}, older than this rlscore's "
            f"({SCHEMA_VERSION}): open it once with the app to upgrade it (the command line "
            "does not change a database it reads)"
        )
    return None


def open_existing_store(db: str | None) -> SQLLabelStore:
    """Open the label database ``--db`` names (default :func:`default_db_path`), which must
    already be one.

    Raises
    ------
    CommandError
        A SQLite file that is missing, a folder, empty, not a SQLite file, not an rlscore
        database or of another schema version (:func:`sqlite_problem`); a PostgreSQL URL
        that is invalid, whose server cannot be reached (the message names host and port
        and leaves out the password) or whose database is not a label database at this
        schema version (opened with ``create=False``: an empty database stays empty).
    """
    target = database_target(db)
    try:  # read as a file path, "sqlite:///x" was reported as "no label database at sqlite:/x"
        check_database_target(target)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if not is_postgres_url(target):
        # the file is checked first without even connecting (connecting could write a
        # journal mode into a file that is not ours)
        problem = sqlite_problem(target)
        if problem is not None:
            raise CommandError(problem)
    try:
        return open_store(target, create=False)
    except (ConnectionError, ValueError) as exc:  # NotALabelDatabaseError is a ValueError
        raise CommandError(one_line(exc)) from None


__all__ = [
    "SQLITE_HEADER",
    "add_db_argument",
    "database_target",
    "open_existing_store",
    "sqlite_problem",
]
