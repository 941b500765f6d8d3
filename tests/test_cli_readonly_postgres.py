"""Commands that read a label database never create or convert one, on PostgreSQL too (issue 27).

``labels``, ``settings``, ``agreement``, ``negatives`` and ``label-issues`` open their database with
``open_store(url, create=False)``: on a reachable PostgreSQL database that is empty, or holds
an older schema, each ends with exit status 2 and one ``error:`` line, and the database is
left exactly as it was — checked by listing its tables through psycopg, not through rlscore.
"""

from __future__ import annotations

import subprocess

import numpy as np
import psycopg
import pytest

from rlscore.cli import main as cli_main
from rlscore.data.projects.project import Project
from rlscore.storage import SCHEMA_VERSION, NotALabelDatabaseError, open_store

#: every read command, as run against a database named by ``{db}``
READ_COMMANDS = {
    "labels": "labels --db {db}",
    "labels-project": "labels --db {db} --project tiny",
    "settings": "settings --db {db} --project tiny",
    "settings-set": "settings --db {db} --project tiny --set sigma=2",
    "agreement": "agreement --db {db} --project tiny",
    "negatives": "negatives --db {db} --project tiny",
    "label-issues": "label-issues --db {db} --project tiny",
}


def _tables(url: str) -> dict[str, list[tuple]]:
    """Every table of the database's public schema with its rows (sorted), read directly."""
    with psycopg.connect(url, autocommit=True) as conn:
        names = [
            row[0]
            for row in conn.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = 'public' ORDER BY table_name"
            )
        ]
        return {n: sorted(conn.execute(f'SELECT * FROM "{n}"').fetchall()) for n in names}


def _run(command: str, url: str, capsys, monkeypatch) -> subprocess.CompletedProcess:
    monkeypatch.delenv("RLSCORE_DB", raising=False)
    args = command.format(db=url).split()
    capsys.readouterr()
    code = cli_main(args)
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, captured.out, captured.err)


def _one_error(proc: subprocess.CompletedProcess) -> str:
    everything = proc.stdout + proc.stderr
    assert "Traceback" not in everything, everything
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, proc.stderr
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    return errors[0]


@pytest.mark.parametrize("command", list(READ_COMMANDS.values()), ids=list(READ_COMMANDS))
def test_an_empty_postgresql_database_stays_empty(pg_url, command, capsys, monkeypatch):
    assert _tables(pg_url) == {}
    line = _one_error(_run(command, pg_url, capsys, monkeypatch))
    assert "not an rlscore label database" in line, line
    assert _tables(pg_url) == {}


def test_an_older_postgresql_schema_is_not_converted(pg_url, capsys, monkeypatch):
    """A database at an older schema version is named as such and left unchanged (the app,
    not a reading command, upgrades it)."""
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE schema_info (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO schema_info (version) VALUES (%s)", (SCHEMA_VERSION - 1,))
    before = _tables(pg_url)
    for command in READ_COMMANDS.values():
        line = _one_error(_run(command, pg_url, capsys, monkeypatch))
        assert f"schema version {SCHEMA_VERSION - 1}" in line, line
    assert _tables(pg_url) == before


def test_a_label_database_is_still_read(pg_url, capsys, monkeypatch):
    """The read-only open refuses only what it should: a real label database is listed,
    and reading it changes no row."""
    rng = np.random.default_rng(0)
    project = Project(
        name="tiny",
        X=rng.normal(size=(12, 2)),
        feature_names=["a", "b"],
        ids=[f"p{i}" for i in range(12)],
        truth=None,
        classes=["no", "yes"],
    )
    with open_store(pg_url) as store:
        store.create_project(project)
    before = _tables(pg_url)
    proc = _run("labels --db {db}", pg_url, capsys, monkeypatch)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["tiny\t0 labeled of 12"]
    assert _tables(pg_url) == before


def test_open_store_create_false_refuses_before_any_ddl(pg_url, tmp_path):
    """The storage layer itself: ``create=False`` raises NotALabelDatabaseError (a
    ValueError) on an empty PostgreSQL database and on a missing SQLite file, creating
    neither tables nor the file; ``create=True`` (the default) still creates the tables."""
    with pytest.raises(NotALabelDatabaseError, match="not an rlscore label database"):
        open_store(pg_url, create=False)
    assert _tables(pg_url) == {}
    missing = tmp_path / "sub" / "labels.sqlite3"
    with pytest.raises(NotALabelDatabaseError, match="no label database"):
        open_store(missing, create=False)
    assert list(tmp_path.iterdir()) == []
    with open_store(pg_url) as store:
        assert store.schema_version == SCHEMA_VERSION
    with open_store(pg_url, create=False) as store:
        assert store.list_projects() == []
