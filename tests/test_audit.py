"""The audit of issue 23: settings changes, membership changes, exports and deletions are
records with who and when, readable by ``project_audit`` and exported with the labels (every
format read back with its own reader and compared to the records)."""

from __future__ import annotations

import csv
import io
import json
import time

import pyarrow.parquet as pq
import pytest
from support.sessions import session

from rlscore.sessions.state.settings import save_project_settings
from rlscore.sessions.team.audit import (
    AUDIT_COLUMNS,
    audit_rows,
    export_audit,
    export_project,
    project_audit,
)
from rlscore.sessions.team.permissions import (
    add_member,
    delete_project,
    remove_member,
    restore_project,
)

OWNER = "olga@example.org"


def test_every_sensitive_action_is_recorded_with_who_and_when(store):
    start = time.time()
    add_member(store, "moons", OWNER, "owner", None)
    add_member(store, "moons", "Rita@Example.org", "reviewer", OWNER)
    add_member(store, "moons", "rita@example.org", "annotator", OWNER)  # a change of role
    remove_member(store, "moons", "rita@example.org", OWNER)
    save_project_settings(store, "moons", {"lam": 0.2}, user=OWNER)
    save_project_settings(store, "moons", {"lam": 0.2}, user=OWNER)  # no change: no record
    save_project_settings(store, "moons", {"lam": 0.3, "budget": 5}, user=OWNER)
    export_project(store, "moons", OWNER, "jsonl", include_features=False)
    delete_project(store, "moons", OWNER)
    restore_project(store, "moons", OWNER)
    records = project_audit(store, "moons")
    assert [(r.action, r.actor) for r in records] == [
        ("member", ""),
        ("member", OWNER),
        ("member", OWNER),
        ("member", OWNER),
        ("settings", OWNER),
        ("settings", OWNER),
        ("export", OWNER),
        ("delete", OWNER),
        ("restore", OWNER),
    ]
    assert [r.details.get("role") for r in records[:4]] == ["owner", "reviewer", "annotator", None]
    assert records[2].details["previous"] == "reviewer"
    assert records[3].details == {"member": "rita@example.org", "role": None,
                                  "previous": "annotator"}  # fmt: skip
    # the first change is against the settings in force (the project's λ), not "None → value"
    # for every default the first save writes
    lam_before = store.load_project("moons").meta["lam"]
    assert records[4].details == {"lam": [lam_before, 0.2]}
    assert records[5].details == {"budget": [0, 5], "lam": [0.2, 0.3]}
    assert records[6].details == {"format": "jsonl", "include_features": False}
    assert records[7].details == {"recoverable": True}
    ids = [r.id for r in records]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(start <= r.timestamp <= time.time() for r in records)
    assert {r.project for r in records} == {"moons"}


def test_a_hard_delete_is_recorded_and_the_record_outlives_the_project(store):
    uid = store.project_uid("moons")
    store.delete_project("moons", by="admin")
    (record,) = project_audit(store, uid=uid)
    assert (record.action, record.actor, record.details) == ("delete", "admin",
                                                             {"recoverable": False})  # fmt: skip


def test_labels_reviews_and_undos_stay_in_the_event_log_not_the_audit(store):
    s = session(store, snapshots=False)
    s.label(0, s.project.truth[0], annotator="a")
    s.review(0, s.project.truth[0], reviewer="r")
    s.undo(annotator="r")
    assert project_audit(store, "moons") == []


def test_project_audit_takes_a_name_or_a_uid(store):
    for kw in ({"project": "moons", "uid": 1}, {}):
        with pytest.raises(ValueError, match="name or its uid"):
            project_audit(store, **kw)


@pytest.fixture
def audited(store):
    add_member(store, "moons", OWNER, "owner", None)
    # an actor and a detail a spreadsheet would run as formulas
    add_member(store, "moons", "=HYPERLINK(1)", "annotator", OWNER)
    save_project_settings(store, "moons", {"lam": 0.125}, user=OWNER)
    return project_audit(store, "moons")


def test_the_exported_audit_reads_back_in_every_format(audited):
    rows = audit_rows(audited)
    assert [list(r) for r in rows] == [list(AUDIT_COLUMNS)] * len(rows)
    assert json.loads(export_audit(audited, "json")) == rows
    lines = export_audit(audited, "jsonl").splitlines()
    assert [json.loads(line) for line in lines] == rows
    table = pq.read_table(io.BytesIO(export_audit(audited, "parquet"))).to_pylist()
    assert table == [{**r, "details": json.dumps(r["details"])} for r in rows]
    read = list(csv.DictReader(io.StringIO(export_audit(audited, "csv"))))
    assert [int(r["id"]) for r in read] == [r.id for r in audited]
    assert [json.loads(r["details"]) for r in read] == [r.details for r in audited]
    assert [r["time"] for r in read] == [r["time"] for r in rows]
    # the detail naming the new member starts with "{": it stays; none is a formula
    assert all(not v.startswith(("=", "+", "-", "@")) for r in read for v in r.values())
    with pytest.raises(ValueError, match="export format"):
        export_audit(audited, "xlsx")


def test_export_project_gives_the_labels_and_the_audit_with_this_export(store):
    s = session(store, snapshots=False)
    s.label(0, s.project.truth[0], annotator="a")
    out = export_project(store, "moons", None, "csv", include_features=False)
    assert out.labels == s.export("csv", include_features=False)
    (row,) = list(csv.DictReader(io.StringIO(out.audit)))
    assert (row["action"], row["actor"]) == ("export", "")
    with pytest.raises(ValueError, match="export format"):
        export_project(store, "moons", None, "xlsx")
    assert len(project_audit(store, "moons")) == 1  # a refused format is not recorded
