"""The label database's tables and their versions: creation, and migration in place.

The schema is versioned in the table ``schema_info``. :func:`migrate` creates the tables of a
new database, upgrades an older one one version at a time (one transaction), and refuses a
database written by a newer rlscore; :func:`require_current` (the read-only open) only checks
the version, writing nothing. Version 1: projects and events; 2: events record what
was seen, claims, per-project settings; 3: review events; 4: projects keep their items (what
the annotator sees: texts, image paths, context values); 5: members with roles, the audit, and
the trash of deleted projects (:mod:`rlscore.storage.sql.access`). The statements are written once,
with the dialect's column types filled in by :func:`table_ddl`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rlscore.storage.interface.events import EVENT_KINDS
from rlscore.storage.sql.access import AUDIT_ACTIONS, ROLES
from rlscore.storage.sql.connection import SQLConnection, SQLDialect

#: 1: projects and events; 2: events record what was seen, claims, per-project settings;
#: 3: review events; 4: projects keep their items (:mod:`rlscore.data.items.columns`); 5: members,
#: audit, trash (:mod:`rlscore.storage.sql.access`)
SCHEMA_VERSION = 5


def sql_list(values: Sequence[str]) -> str:
    """``'a', 'b'``: constant strings (never user input) as a SQL list."""
    return ", ".join(f"'{v}'" for v in values)


#: the CHECK constraint on an event's kind, named so that it can be replaced
KIND_CHECK = f"CONSTRAINT events_kind_check CHECK (kind IN ({sql_list(EVENT_KINDS)}))"
#: the tables of the current schema, with the dialect's types as ``{integer}`` etc.
_TABLES = {
    "schema_info": "CREATE TABLE IF NOT EXISTS schema_info (version INTEGER NOT NULL)",
    "projects": """CREATE TABLE IF NOT EXISTS projects (
    uid {id_column},
    name TEXT NOT NULL UNIQUE,
    created {real} NOT NULL,
    n INTEGER NOT NULL,
    d INTEGER NOT NULL,
    feature_names TEXT NOT NULL,
    ids TEXT NOT NULL,
    classes TEXT NOT NULL,
    truth TEXT,
    meta TEXT NOT NULL,
    X {blob} NOT NULL,
    items TEXT,
    deleted {real},
    deleted_name TEXT,
    deleted_by TEXT
)""",
    "events": """CREATE TABLE IF NOT EXISTS events (
    id {id_column},
    project_uid {integer} NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    kind TEXT NOT NULL {kind_check},
    point {integer},
    label TEXT,
    target {integer},
    annotator TEXT NOT NULL DEFAULT '',
    timestamp {real} NOT NULL,
    seconds {real},
    params TEXT NOT NULL DEFAULT '{{}}',
    seen {integer}
)""",
    "claims": """CREATE TABLE IF NOT EXISTS claims (
    project_uid {integer} NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    point {integer} NOT NULL,
    annotator TEXT NOT NULL,
    expires {real} NOT NULL,
    PRIMARY KEY (project_uid, point)
)""",
    "settings": """CREATE TABLE IF NOT EXISTS settings (
    project_uid {integer} PRIMARY KEY REFERENCES projects(uid) ON DELETE CASCADE,
    settings TEXT NOT NULL,
    updated {real} NOT NULL
)""",
    "members": f"""CREATE TABLE IF NOT EXISTS members (
    project_uid {{integer}} NOT NULL REFERENCES projects(uid) ON DELETE CASCADE,
    member TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ({sql_list(ROLES)})),
    added {{real}} NOT NULL,
    added_by TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (project_uid, member)
)""",
    # no foreign key: the record of a deletion outlives the project
    "audit": f"""CREATE TABLE IF NOT EXISTS audit (
    id {{id_column}},
    project_uid {{integer}} NOT NULL,
    project TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ({sql_list(AUDIT_ACTIONS)})),
    actor TEXT NOT NULL DEFAULT '',
    timestamp {{real}} NOT NULL,
    details TEXT NOT NULL DEFAULT '{{{{}}}}'
)""",
}
_INDEXES = (
    "CREATE INDEX IF NOT EXISTS events_by_project ON events (project_uid, id)",
    "CREATE INDEX IF NOT EXISTS events_by_target ON events (target)",
    "CREATE INDEX IF NOT EXISTS events_by_point ON events (project_uid, point, id)",
    "CREATE INDEX IF NOT EXISTS claims_by_annotator ON claims (project_uid, annotator)",
    "CREATE INDEX IF NOT EXISTS audit_by_project ON audit (project_uid, id)",
)
#: what the store reads of an event (:meth:`~rlscore.storage.sql.store.SQLLabelStore.events`)
EVENT_COLUMNS = "id, kind, point, label, target, annotator, timestamp, seconds, params, seen"
#: every column of the events table (what a rebuild of the table copies)
EVENT_TABLE_COLUMNS = "id, project_uid, " + EVENT_COLUMNS.removeprefix("id, ")


def table_ddl(dialect: SQLDialect, table: str) -> str:
    """The ``CREATE TABLE`` statement of ``table`` in ``dialect``."""
    return _TABLES[table].format(
        id_column=dialect.id_column,
        integer=dialect.integer,
        real=dialect.real,
        blob=dialect.blob,
        kind_check=KIND_CHECK,
    )


def stored_version(db: SQLConnection) -> int | None:
    """The schema version the database records; None for a new (empty) database."""
    if db.fetchone(db.dialect.table_exists, ("schema_info",)) is None:
        return None
    row = db.fetchone("SELECT version FROM schema_info")
    return None if row is None else int(row[0])


class NotALabelDatabaseError(ValueError):
    """A database opened read-only (``create=False``) that is not an rlscore label database
    at this rlscore's schema version: it is left as it is."""


def require_current(db: SQLConnection, location: str) -> None:
    """Check, without writing anything, that the database holds the label tables at
    :data:`SCHEMA_VERSION` (the read-only open: nothing is created or converted).

    Parameters
    ----------
    db
        The connection to the database.
    location
        Where the database is (named in the error).

    Raises
    ------
    NotALabelDatabaseError
        No ``schema_info`` (an empty database or another program's), or another version.
    """
    version = stored_version(db)
    if version == SCHEMA_VERSION:
        return
    if version is None:
        raise NotALabelDatabaseError(
            f"{location} is not an rlscore label database (it has no schema_info table); "
            "start the app on it once to create the tables"
        )
    if version > SCHEMA_VERSION:
        raise NotALabelDatabaseError(
            f"{location} has schema version {version}, newer than this rlscore's "
            f"({SCHEMA_VERSION}): upgrade rlscore"
        )
    raise NotALabelDatabaseError(
        f"{location} has schema version {version}, older than this rlscore's "
        f"({SCHEMA_VERSION}): open it once with the app to upgrade it (a read-only open "
        "does not change a database)"
    )


def migrate(db: SQLConnection, location: str, replace_kind_check: Callable[[], None]) -> None:
    """Create the tables, or upgrade an older database in place (one transaction).

    Parameters
    ----------
    db
        The connection to the database.
    location
        Where the database is (named in the error about a newer schema).
    replace_kind_check
        Makes the events table's ``kind`` CHECK accept :data:`EVENT_KINDS`, inside the
        migration's transaction (how depends on the database: version 3).

    Raises
    ------
    RuntimeError
        The database has a newer schema than this rlscore knows.
    """
    if stored_version(db) == SCHEMA_VERSION:
        return  # the usual case: no write, no lock
    with db.write():
        if db.dialect.lock_schema:
            db.run(db.dialect.lock_schema)
        version = stored_version(db)  # again: another process may have migrated
        if version == SCHEMA_VERSION:
            return
        if version is not None and version > SCHEMA_VERSION:
            raise RuntimeError(
                f"{location} has schema version {version}, newer than this rlscore "
                f"({SCHEMA_VERSION}): upgrade rlscore"
            )
        if version is not None:
            for v in range(version + 1, SCHEMA_VERSION + 1):
                _upgrade_to(db, v, replace_kind_check)
        # creates what is missing (all of it, or the tables and indexes of newer versions)
        for stmt in [*(table_ddl(db.dialect, t) for t in _TABLES), *_INDEXES]:
            db.run(stmt)
        db.run("DELETE FROM schema_info")
        db.run("INSERT INTO schema_info (version) VALUES (?)", (SCHEMA_VERSION,))


def _upgrade_to(db: SQLConnection, version: int, replace_kind_check: Callable[[], None]) -> None:
    """Change the existing tables of schema ``version - 1`` to ``version`` (new tables and
    indexes are created afterwards)."""
    if version == 2:  # events record the newest event id the annotator had seen
        db.run(f"ALTER TABLE events ADD COLUMN seen {db.dialect.integer}")
    elif version == 3:  # review events
        replace_kind_check()
    elif version == 4:  # items (JSON, NULL for a project without them: all older projects)
        db.run("ALTER TABLE projects ADD COLUMN items TEXT")
    elif version == 5:  # the trash (members and audit are new tables, created afterwards)
        for column, kind in (("deleted", db.dialect.real), ("deleted_name", "TEXT"),
                             ("deleted_by", "TEXT")):  # fmt: skip
            db.run(f"ALTER TABLE projects ADD COLUMN {column} {kind}")


__all__ = [
    "EVENT_COLUMNS",
    "EVENT_TABLE_COLUMNS",
    "KIND_CHECK",
    "SCHEMA_VERSION",
    "NotALabelDatabaseError",
    "migrate",
    "require_current",
    "sql_list",
    "stored_version",
    "table_ddl",
]
