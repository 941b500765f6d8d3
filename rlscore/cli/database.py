"""The ``--db`` option of the commands that read a label database (``labels``,
``agreement``, ``negatives``): one help text, one check that a named file exists."""

from __future__ import annotations

import argparse
from pathlib import Path

from rlscore.storage import DB_ENV, default_db_path
from rlscore.storage.postgres import is_postgres_url


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--db`` (a SQLite file or a ``postgresql://`` URL) to ``parser``."""
    parser.add_argument(
        "--db",
        default=None,
        help=(
            f"label database: a SQLite file or a postgresql:// URL (default: ${DB_ENV}, "
            f"else {default_db_path()})"
        ),
    )


def database_to_read(db: str | None) -> tuple[str, str | None]:
    """The database to open for ``--db``, and an error when a named file does not exist
    (opening it would create an empty one)."""
    if db is None:
        return str(default_db_path()), None
    if not is_postgres_url(db) and not Path(db).expanduser().is_file():
        return db, f"no label database at {db}"
    return db, None


__all__ = ["add_db_argument", "database_to_read"]
