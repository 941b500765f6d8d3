"""Which kind of label database a target names: a PostgreSQL URL or a SQLite file.

Kept apart from :mod:`rlscore.storage.backends.postgres` so that telling the two apart does not
import the PostgreSQL driver (psycopg, 0.1–0.25 s of import a SQLite deployment never needs).
"""

from __future__ import annotations

import re

#: the URL schemes of a PostgreSQL database
URL_SCHEMES = ("postgresql://", "postgres://")
#: a URL's scheme (``mysql://…``): no file path starts so
_ANY_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")


def is_postgres_url(target: object) -> bool:
    """Whether ``target`` is a ``postgresql://`` or ``postgres://`` URL (a str)."""
    return isinstance(target, str) and target.startswith(URL_SCHEMES)


def check_database_target(target: object) -> None:
    """Refuse a URL that names no database this package opens (``sqlite:///…``,
    ``mysql://…``): read as a file path it would create a folder named after the scheme.

    Raises
    ------
    ValueError
        Naming the scheme only: the rest of a URL may hold a password.
    """
    scheme = _ANY_SCHEME.match(target) if isinstance(target, str) else None
    if scheme and not is_postgres_url(target):
        raise ValueError(
            f"label database: {scheme[1]}:// is not supported; give a SQLite file's path "
            "(not a sqlite:// URL) or a postgresql:// URL"
        )


__all__ = ["URL_SCHEMES", "check_database_target", "is_postgres_url"]
