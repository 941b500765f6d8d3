"""The export of a multi-label project's labels (the ``labels`` command and
:func:`export_labels`): the ``|``-joined label, one 0/1 column per class and every annotator's
set in CSV and Parquet, lists in JSON; each checked against the sets written to the store."""

import io
import json

import pandas as pd
import pytest
from support.multi_label import CLASSES, tagged_project

from rlscore.cli.commands.labels import main
from rlscore.core.conventions.label_sets import parse_label_set
from rlscore.sessions import LabelingSession
from rlscore.sessions.views.export import export_labels
from rlscore.storage import Event, open_store

#: (point, label set, annotator) written in this order; the undo reverts the last one
WRITTEN = [
    (0, ["tech", "news"], "ann"),
    (1, [], "ann"),
    (3, ["sports"], "bob"),
    (1, ["sports", "tech"], "bob"),
    (4, ["news"], "ann"),
]


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "labels.sqlite3"
    with open_store(path) as s:
        s.create_project(tagged_project())
        for point, labels, who in WRITTEN:
            s.append_event("tags", Event("label", point, labels, who, seconds=1.0))
        s.append_event("tags", Event("undo"))  # point 4 unlabeled again
    return path


#: the final sets, by hand: point 1's latest label is bob's
FINAL = {0: ("news", "tech"), 3: ("sports",), 1: ("sports", "tech")}


def test_csv_has_the_joined_set_and_a_column_per_class(db, capsys):
    assert main(["--db", str(db), "--project", "tags", "--no-estimate"]) == 0
    df = pd.read_csv(io.StringIO(capsys.readouterr().out), keep_default_na=False)
    assert df["index"].tolist() == [0, 3, 1]
    got = {i: parse_label_set(t, CLASSES) for i, t in zip(df["index"], df["label"], strict=True)}
    assert got == FINAL
    for c in CLASSES:
        assert df[f"label:{c}"].tolist() == [int(c in FINAL[i]) for i in df["index"]]
    # every annotator's own set; an empty set and no label read alike here (JSON tells them apart)
    assert df["label[ann]"].tolist() == ["news|tech", "", ""]
    assert df["label[bob]"].tolist() == ["", "sports", "sports|tech"]


def test_json_keeps_the_sets_as_lists(db, capsys):
    assert main(["--db", str(db), "--project", "tags", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {r["index"]: tuple(r["label"]) for r in records} == FINAL
    point1 = next(r for r in records if r["index"] == 1)
    assert {a["annotator"]: a["label"] for a in point1["annotations"]} == {
        "ann": [],
        "bob": ["sports", "tech"],
    }
    assert not any(k.startswith("accuracy") for k in records[0])  # single-label only, yet


def test_parquet_columns(db):
    with open_store(db) as s:
        data = export_labels(s.load_project("tags"), s.events("tags"), "parquet")
    df = pd.read_parquet(io.BytesIO(data))
    assert dict(zip(df["index"], df["label"], strict=True)) == {
        0: "news|tech",
        3: "sports",
        1: "sports|tech",
    }
    assert df[[f"label:{c}" for c in CLASSES]].to_numpy().tolist() == [
        [int(c in FINAL[i]) for c in CLASSES] for i in df["index"]
    ]


def test_the_list_marks_a_multi_label_project(db, capsys):
    assert main(["--db", str(db)]) == 0
    assert capsys.readouterr().out.splitlines() == ["tags\t3 labeled of 7\tmulti-label"]


def test_the_export_carries_the_label_pages_micro_f1_headline(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RLSCORE_MIN_DWELL_MS", "0")
    path = tmp_path / "checked.sqlite3"
    with open_store(path) as store:
        store.create_project(tagged_project(n=40, d=3))
        s = LabelingSession(store, "tags", "arls", lam=0.5, audit_every=2, snapshots=False)
        truth = s.project.truth
        assert s.set_accuracy() is None
        for _ in range(16):
            i = s.query()[0]
            s.label(i, list(truth[i]))
        shown = s.set_accuracy()  # the Label page's headline (its own test: brute-force refits)
    assert shown is not None and shown.n_checks >= 5
    assert main(["--db", str(path), "--project", "tags", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 16
    for row in rows:
        assert row["micro_f1_estimate"] == pytest.approx(shown.estimate, abs=1e-12)
        assert row["micro_f1_low"] == pytest.approx(shown.low, abs=1e-12)
        assert row["micro_f1_high"] == pytest.approx(shown.high, abs=1e-12)
        assert row["micro_f1_checks"] == shown.n_checks and row["micro_f1_labels"] == 16
    assert main(["--db", str(path), "--project", "tags", "--no-estimate"]) == 0
    assert "micro_f1" not in capsys.readouterr().out


def test_after_a_settings_change_the_export_carries_the_label_pages_micro_f1(
    tmp_path, monkeypatch, capsys
):
    # the tester's `settings --set sigma=3 --set lam=0.01`: the page showed the micro-F1 of
    # the new settings, the exports that of the newest label's until the next label
    from rlscore.sessions.state.settings import save_project_settings
    from rlscore.sessions.team.audit import export_project

    monkeypatch.setenv("RLSCORE_MIN_DWELL_MS", "0")
    path = tmp_path / "checked.sqlite3"
    with open_store(path) as store:
        store.create_project(tagged_project(n=40, d=3))
        save_project_settings(store, "tags", {"lam": 0.5, "audit_every": 2})
        s = LabelingSession.from_settings(store, "tags", snapshots=False)
        truth = s.project.truth
        for _ in range(16):
            i = s.query()[0]
            s.label(i, list(truth[i]))
        before = s.set_accuracy()
        save_project_settings(store, "tags", {"sigma": 3.0, "lam": 0.01})
        shown = LabelingSession.from_settings(store, "tags", snapshots=False).set_accuracy()
        data_page = json.loads(export_project(store, "tags", None, "json", estimate=True).labels)
    assert shown is not None and shown.n_checks >= 5
    assert (shown.estimate, shown.low, shown.high) != pytest.approx(
        (before.estimate, before.low, before.high)
    )
    assert main(["--db", str(path), "--project", "tags", "--format", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    for rows in (cli, data_page):
        row = rows[-1]
        assert row["micro_f1_estimate"] == pytest.approx(shown.estimate, abs=1e-12)
        assert row["micro_f1_low"] == pytest.approx(shown.low, abs=1e-12)
        assert row["micro_f1_high"] == pytest.approx(shown.high, abs=1e-12)
        assert row["micro_f1_checks"] == shown.n_checks and row["micro_f1_labels"] == 16
