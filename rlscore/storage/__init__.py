"""Persistent storage of projects and of their labeling event logs.

:class:`LabelStore` is the interface the sessions use. :func:`open_store` opens the one that
``$RLSCORE_DB`` (or its argument) names: a file path gives :class:`SQLiteLabelStore` (the
embedded default, one machine), a ``postgresql://`` URL :class:`PostgresLabelStore`
(several app servers on one database). Both are the same :class:`SQLLabelStore`, which runs
its statements on an :class:`~rlscore.storage.sql.connection.SQLConnection`, keeps projects in a
:class:`~rlscore.storage.sql.project_table.ProjectTable` and creates or migrates its tables with
:mod:`rlscore.storage.sql.schema`. A database that cannot be reached raises
:class:`DatabaseUnavailableError` (the store connects again on its next call).
"""

from __future__ import annotations

import os
from pathlib import Path

from rlscore.storage.backends.sqlite import DEFAULT_DB, SQLiteLabelStore
from rlscore.storage.backends.urls import check_database_target, is_postgres_url
from rlscore.storage.interface.events import (
    EVENT_KINDS,
    Event,
    StaleActionError,
    UnknownProjectError,
)
from rlscore.storage.interface.label_store import LabelStore
from rlscore.storage.sql.connection import DatabaseUnavailableError
from rlscore.storage.sql.schema import SCHEMA_VERSION, NotALabelDatabaseError
from rlscore.storage.sql.store import SQLLabelStore

#: environment variable naming the label database: a file path or a PostgreSQL URL
DB_ENV = "RLSCORE_DB"


def default_db_path() -> Path | str:
    """``$RLSCORE_DB`` if set (a URL is returned as is), else the default SQLite file
    ``~/.local/share/rlscore/labels.sqlite3``."""
    env = os.environ.get(DB_ENV)
    if not env:
        return DEFAULT_DB
    return env if is_postgres_url(env) else Path(env).expanduser()


def open_store(target: str | os.PathLike | None = None, *, create: bool = True) -> SQLLabelStore:
    """Open (creating the tables if needed, unless ``create=False``) the label store
    ``target`` names.

    Parameters
    ----------
    target
        A ``postgresql://`` or ``postgres://`` URL (:class:`PostgresLabelStore`), or the
        path of a SQLite file (:class:`SQLiteLabelStore`, created with its folder if
        missing); None: :func:`default_db_path`.
    create
        False: the read-only open of a command that only reads. A database that does not
        already hold the label tables at :data:`SCHEMA_VERSION` is refused before any table
        is created or converted (an empty PostgreSQL database stays empty, a missing SQLite
        file is not created).

    Returns
    -------
    SQLLabelStore

    Raises
    ------
    ValueError
        An invalid PostgreSQL URL, or a URL of another kind (``sqlite:///…``).
    DatabaseUnavailableError
        The PostgreSQL server cannot be reached (a :class:`ConnectionError`; the message
        leaves out the password).
    NotALabelDatabaseError
        With ``create=False``: not a label database at this schema version (a
        :class:`ValueError`).
    """
    target = default_db_path() if target is None else target
    check_database_target(target)
    if is_postgres_url(target):
        from rlscore.storage.backends.postgres import PostgresLabelStore

        return PostgresLabelStore(target, create=create)
    return SQLiteLabelStore(target, create=create)


def __getattr__(name: str):
    # the PostgreSQL store is imported when first asked for: it loads the driver (psycopg),
    # which a SQLite deployment never needs
    if name == "PostgresLabelStore":
        from rlscore.storage.backends.postgres import PostgresLabelStore

        return PostgresLabelStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "PostgresLabelStore"})


__all__ = [
    "DB_ENV",
    "DEFAULT_DB",
    "DatabaseUnavailableError",
    "EVENT_KINDS",
    "SCHEMA_VERSION",
    "Event",
    "LabelStore",
    "NotALabelDatabaseError",
    "PostgresLabelStore",
    "SQLLabelStore",
    "SQLiteLabelStore",
    "StaleActionError",
    "UnknownProjectError",
    "default_db_path",
    "open_store",
]
