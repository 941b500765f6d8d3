"""Backups of a label database, restored and used again (issue 23, docs/deployment.md
"Backups").

PostgreSQL: a database holding a project with labels, a skip, an undo, a review decision,
members, audit records and a soft-deleted project (all written through the public API) is
dumped with ``pg_dump -Fc`` and restored with ``pg_restore`` into a fresh database of the
test cluster, the commands the deployment page gives. SQLite: the file is copied with the
online backup API (Python's ``sqlite3.Connection.backup`` and the ``sqlite3`` shell's
``.backup``) while another connection keeps labeling.

What the restored database holds is checked three ways: every table row for row against the
original, read with the database's own driver (not the store); what the store reads back
against what the test wrote; and labeling goes on in the restored database with event ids
after the restored ones.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import threading
from contextlib import closing
from pathlib import Path

import numpy as np
import psycopg
import pytest
from support.sessions import moons_subset, session

from rlscore.cli import main as cli_main
from rlscore.sessions import LabelLog
from rlscore.sessions.state.settings import save_project_settings
from rlscore.sessions.team.audit import export_project, project_audit
from rlscore.sessions.team.permissions import (
    add_member,
    create_project,
    delete_project,
    restore_project,
)
from rlscore.storage import open_store

OWNER = "olga@example.org"
REVIEWER = "rita@example.org"
ANNOTATOR = "ann@example.org"
#: the tables of the label database (rlscore/storage/sql/schema.py), compared row for row
TABLES = ("schema_info", "projects", "events", "claims", "settings", "members", "audit")


# -- what the test writes ------------------------------------------------------------------------
def write_team_history(target: str) -> dict:
    """A project with everything a team's database holds, written through the public API;
    returns what was written (the reference the restored database is compared with)."""
    with open_store(target) as store:
        create_project(store, moons_subset(), OWNER)
        add_member(store, "moons", REVIEWER, "reviewer", OWNER)
        add_member(store, "moons", ANNOTATOR, "annotator", OWNER)
        save_project_settings(store, "moons", {"lam": 0.25}, user=OWNER)
        s = session(store, annotator=ANNOTATOR, snapshots=False)
        truth = s.project.truth
        written = []  # (id, kind, point, label, annotator) of each acknowledged event
        for _ in range(5):
            i, _score = s.query()
            written.append((s.label(i, truth[i]), "label", i, truth[i], ANNOTATOR))
        skipped = s.query()[0]
        written.append((s.skip(skipped), "skip", skipped, None, ANNOTATOR))
        undone = written[-1][0]
        s.undo(annotator=ANNOTATOR)
        written.append((undone, "undo"))  # its id is the store's; checked by target below
        reviewed = written[0][2]
        decision = int(-truth[reviewed])
        written.append(
            (
                # a session acts as the user it was opened for: the reviewer's own
                session(store, annotator=REVIEWER, snapshots=False).review(reviewed, decision),
                "review",
                reviewed,
                decision,
                REVIEWER,
            )
        )
        export_project(store, "moons", OWNER, "jsonl", include_features=False)
        create_project(store, moons_subset("old"), OWNER)
        delete_project(store, "old", OWNER)
        s.sync()
        labels = dict(s.labels)
    return {
        "events": written,
        "undone": undone,
        "labels": labels,
        "final": {reviewed: decision},
        "members": {OWNER: "owner", REVIEWER: "reviewer", ANNOTATOR: "annotator"},
        "audit": [
            (action, OWNER) for action in ("member", "member", "member", "settings", "export")
        ],
        "trashed": ["old"],
    }


def table_rows(target: str) -> dict[str, list[tuple]]:
    """Every row of every table of the label database, sorted, read with the database's own
    driver (psycopg or sqlite3), independently of the store."""
    rows = {}
    if target.startswith("postgres"):
        with psycopg.connect(target) as con:
            for table in TABLES:
                rows[table] = sorted(map(tuple, con.execute(f"SELECT * FROM {table}")), key=_order)
        return rows
    with closing(sqlite3.connect(target)) as con:
        for table in TABLES:
            rows[table] = sorted(con.execute(f"SELECT * FROM {table}"), key=_order)
    return rows


def _order(row: tuple) -> tuple:
    """Sort key of a row: column by column (each column holds one type, or NULL)."""
    return tuple((False, 0) if value is None else (True, value) for value in row)


def check_reads_back(target: str, written: dict) -> None:
    """What the store reads from ``target`` is what :func:`write_team_history` wrote."""
    with open_store(target, create=False) as store:
        assert store.list_projects() == ["moons"]
        events = store.events("moons")
        undo = [e for e in events if e.kind == "undo"]
        assert len(undo) == 1 and undo[0].target == written["undone"]
        assert [
            (e.id, e.kind, e.point, e.label, e.annotator) for e in events if e.kind != "undo"
        ] == [w for w in written["events"] if w[1] != "undo"]
        assert [e.kind for e in events] == [w[1] for w in written["events"]]
        log = LabelLog(events)
        assert log.labels == written["labels"]
        assert store.members("moons") == written["members"]
        assert [(r.action, r.actor) for r in project_audit(store, "moons")] == written["audit"]
        assert store.load_settings("moons")["lam"] == 0.25
        trashed = store.trashed_projects()
        assert [t["name"] for t in trashed] == written["trashed"]
        assert trashed[0]["members"] == {OWNER: "owner"}
        expected = moons_subset()
        project = store.load_project("moons")
        np.testing.assert_array_equal(project.X, expected.X)
        assert project.ids == expected.ids and project.classes == expected.classes
        np.testing.assert_array_equal(project.truth, expected.truth)
        # the reviewer's decision is the final label of the reviewed point
        ((point, decision),) = written["final"].items()
        s = session(store, annotator=ANNOTATOR, snapshots=False)
        assert s.labels[point] == decision


def check_labeling_goes_on(target: str) -> None:
    """A new label on the restored database gets an id after every restored event, and the
    deleted project can still be brought back."""
    with open_store(target) as store:
        newest = max(e.id for e in store.events("moons"))
        s = session(store, annotator=ANNOTATOR, snapshots=False)
        i, _score = s.query()
        eid = s.label(i, s.project.truth[i])
        assert eid > newest
        assert store.events("moons")[-1].id == eid and store.events("moons")[-1].point == i
        audit_before = max(r.id for r in project_audit(store, "moons"))
        add_member(store, "moons", "new@example.org", "annotator", OWNER)
        assert project_audit(store, "moons")[-1].id > audit_before
        assert restore_project(store, "old", OWNER) == "old"
        assert sorted(store.list_projects()) == ["moons", "old"]


def cli_labels(target: str, out: Path) -> bytes:
    """``python -m rlscore labels --db TARGET --project moons --format jsonl --no-estimate``
    (the check the deployment page runs on a restored database), as bytes."""
    code = cli_main(
        [
            "labels",
            "--db",
            target,
            "--project",
            "moons",
            "--format",
            "jsonl",
            "--no-estimate",
            "--output",
            str(out),
        ]
    )
    assert code == 0
    return out.read_bytes()


# -- PostgreSQL: pg_dump -Fc, pg_restore ---------------------------------------------------------
@pytest.fixture
def restored_url(pg_cluster):
    """A fresh empty database of the test cluster to restore into, dropped afterwards."""
    url = pg_cluster.create_database()
    yield url
    pg_cluster.drop_database(url)


def test_pg_dump_and_pg_restore_keep_everything_and_labeling_goes_on(
    pg_cluster, pg_url, restored_url, tmp_path
):
    written = write_team_history(pg_url)
    dump = tmp_path / "labels.dump"
    # the deployment page's commands, with the cluster's own programs (same major version)
    for cmd in (
        [pg_cluster.bindir / "pg_dump", "-Fc", "-f", dump, pg_url],
        [
            pg_cluster.bindir / "pg_restore",
            "--exit-on-error",
            "--no-owner",
            "-d",
            restored_url,
            dump,
        ],
    ):
        done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

    assert table_rows(restored_url) == table_rows(pg_url)
    check_reads_back(restored_url, written)
    assert cli_labels(restored_url, tmp_path / "after.jsonl") == cli_labels(
        pg_url, tmp_path / "before.jsonl"
    )
    check_labeling_goes_on(restored_url)


# -- SQLite: the online backup API while another connection writes ---------------------------------
def sqlite_python_backup(source: Path, copy: Path) -> None:
    """Python's ``sqlite3.Connection.backup`` (the whole file in one step)."""
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(copy)) as dst:
        src.backup(dst)


def sqlite_shell_backup(source: Path, copy: Path) -> None:
    """``sqlite3 SOURCE ".backup COPY"`` (the sqlite3 command-line shell)."""
    exe = shutil.which("sqlite3")
    if exe is None:
        pytest.skip("the sqlite3 command-line shell is not installed (apt-get install sqlite3)")
    done = subprocess.run([exe, str(source), f".backup {copy}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


class Writer(threading.Thread):
    """Labels points of "moons" as the annotator, through a store of its own, until stopped,
    keeping the id of each acknowledged label; :meth:`wait_for` waits for ``n`` more."""

    def __init__(self, target: Path) -> None:
        super().__init__(daemon=True)
        self.target = target
        self.acknowledged: list[int] = []
        self.error: BaseException | None = None
        self._stop_asked = threading.Event()
        self._progress = threading.Condition()

    def run(self) -> None:
        try:
            with open_store(self.target) as store:
                s = session(store, annotator=ANNOTATOR, snapshots=False)
                truth = s.project.truth
                k = 0
                while not self._stop_asked.is_set():
                    point = k % s.project.n  # relabels after the first round: never runs dry
                    eid = s.label(point, truth[point])
                    with self._progress:
                        self.acknowledged.append(eid)
                        self._progress.notify_all()
                    k += 1
        except BaseException as exc:  # reported by the test
            self.error = exc
            with self._progress:
                self._progress.notify_all()

    def wait_for(self, n: int) -> None:
        target = len(self.acknowledged) + n
        with self._progress:
            done = self._progress.wait_for(
                lambda: len(self.acknowledged) >= target or self.error is not None, timeout=120
            )
        assert done and self.error is None, self.error

    def stop(self) -> None:
        self._stop_asked.set()
        self.join(timeout=120)
        assert self.error is None, self.error


@pytest.mark.parametrize(
    "backup", [sqlite_python_backup, sqlite_shell_backup], ids=["python", "shell"]
)
def test_sqlite_online_backup_while_labeling_is_a_consistent_copy(backup, tmp_path):
    source = tmp_path / "labels.sqlite3"
    copy = tmp_path / "backup.sqlite3"
    written = write_team_history(str(source))
    with open_store(source) as store:
        history = [e.id for e in store.events("moons")]
    writer = Writer(source)
    writer.start()
    try:
        writer.wait_for(3)  # the writer is labeling when the backup starts …
        before = len(writer.acknowledged)
        backup(source, copy)
        writer.wait_for(3)  # … and goes on after it
    finally:
        writer.stop()

    with closing(sqlite3.connect(copy)) as con:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    copied, final = table_rows(str(copy)), table_rows(str(source))
    ids = [row[0] for row in copied["events"]]
    assert [row[0] for row in final["events"]] == history + writer.acknowledged  # none lost
    # the copy is the database at one moment: every event up to some point, none after, and
    # the writer labeled both before the copy was taken and after
    assert copied["events"] == final["events"][: len(ids)]
    assert len(history) + before <= len(ids) < len(final["events"])
    for table in ("schema_info", "projects", "settings", "members", "audit"):
        assert copied[table] == final[table], table

    # the copy without the writer's labels is what the history wrote
    with closing(sqlite3.connect(copy)) as con, con:
        con.execute("DELETE FROM events WHERE id > ?", (history[-1],))
    check_reads_back(str(copy), written)
    check_labeling_goes_on(str(copy))
