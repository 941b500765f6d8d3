"""Which kind of label database a target names: a PostgreSQL URL or a SQLite file.

Kept apart from :mod:`rlscore.storage.backends.postgres` so that telling the two apart does not
import the PostgreSQL driver (psycopg, 0.1–0.25 s of import a SQLite deployment never needs).
"""

from __future__ import annotations

#: the URL schemes of a PostgreSQL database
URL_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(target: object) -> bool:
    """Whether ``target`` is a ``postgresql://`` or ``postgres://`` URL (a str)."""
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


__all__ = ["URL_SCHEMES", "is_postgres_url"]
