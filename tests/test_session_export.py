"""Labeling sessions: the export of the labels, from a session or from the log alone."""

import csv
import io
import json
from datetime import datetime

import numpy as np
import pandas as pd
import pytest
from support.sessions import scripted_history, session

from rlscore.data.projects.project import Project
from rlscore.sessions import LabelLog, export_labels
from rlscore.sessions.views.export import csv_cell
from rlscore.storage import Event


def test_export_csv_and_json(store):
    s = session(store, annotator="ann")
    scripted_history(s)
    df = pd.read_csv(io.StringIO(s.export("csv")))
    assert list(df.columns[:13]) == [
        "point_id",
        "index",
        "label",
        "annotator",
        "timestamp",
        "seconds",
        "strategy",
        "kernel",
        "sigma",
        "lam",
        "decided_by",
        "reviewer",
        "n_annotators",
    ]
    assert list(df.columns[13:15]) == ["label[ann]", "seconds[ann]"]
    assert list(df.columns[15:]) == s.project.feature_names
    assert (df["label[ann]"] == df["label"]).all() and set(df["decided_by"]) == {"latest"}
    assert dict(zip(df["index"], df["label"], strict=True)) == s.labels
    assert df["point_id"].tolist() == [s.project.ids[i] for i in s.labels]
    np.testing.assert_allclose(df[s.project.feature_names].to_numpy(), s.project.X[list(s.labels)])
    assert set(df["strategy"]) == {"arls"} and set(df["lam"]) == {0.5}
    assert df["seconds"].iloc[-1] == 2.5
    datetime.fromisoformat(df["timestamp"].iloc[0])  # ISO 8601
    records = json.loads(s.export("json"))
    assert [r["index"] for r in records] == list(s.labels)
    assert records[0]["features"] == dict(
        zip(s.project.feature_names, s.project.X[records[0]["index"]].tolist(), strict=True)
    )
    assert records[0]["annotator"] == "ann"
    # the same text from the log alone (no engine), e.g. for the command line
    assert export_labels(s.project, store.events("moons"), "json") == s.export("json")
    with pytest.raises(ValueError, match="export format must be one of"):
        s.export("xml")


def test_export_prefixes_clashing_feature_names(tmp_path):
    p = Project("clash", np.eye(3), ["label", "x", "lam"], ["a", "b", "c"], None, ["u", "v"])
    log = LabelLog([Event("label", 1, "v", "z", timestamp=0.0, id=1)])
    text = export_labels(p, log, "csv")
    header, row = text.splitlines()
    assert header.split(",")[13:] == ["label[z]", "seconds[z]", "feature:label", "x", "feature:lam"]
    assert row.startswith("b,1,v,z,1970-01-01T00:00:00+00:00,,")
    assert export_labels(p, log, "csv", include_features=False).splitlines()[0].count(",") == 14


def _injection_project() -> tuple[Project, LabelLog]:
    """Labels whose id, class, annotator, strategy and feature name a spreadsheet would run as
    formulas, beside a numeric class ``-1`` and numeric-looking text ``+3``."""
    X = np.array([[-0.5, 2.0], [1.0, -3.25], [0.0, 0.0]])
    p = Project(
        "inj",
        X,
        ["=cmd|' /C calc'!A0", "w"],
        ['=HYPERLINK("http://x")', "+3", "\tp"],
        None,
        ["@SUM(1)", -1, "ok"],
    )
    log = LabelLog(
        [
            Event("label", 0, "@SUM(1)", "+cmd", timestamp=0.0, id=1, params={"strategy": "-x"}),
            Event("label", 1, -1, "-1", timestamp=1.0, seconds=-0.5, id=2),
            Event("label", 2, "ok", "\rann\r=1+1", timestamp=2.0, id=3),
        ]
    )
    return p, log


def test_export_csv_escapes_formulas_but_not_numbers():
    p, log = _injection_project()
    text = export_labels(p, log, "csv")
    reader = csv.DictReader(io.StringIO(text))
    feature = "'=cmd|' /C calc'!A0"
    assert reader.fieldnames[-2:] == [feature, "w"]
    rows = list(reader)
    assert [r["point_id"] for r in rows] == ['\'=HYPERLINK("http://x")', "+3", "'\tp"]
    assert [r["label"] for r in rows] == ["'@SUM(1)", "-1", "ok"]
    # a line break inside a cell stays inside it (the cell is quoted): no row starts "=1+1"
    assert [r["annotator"] for r in rows] == ["'+cmd", "-1", "'\rann\r=1+1"]
    assert rows[0]["strategy"] == "'-x"
    # numbers stay numbers: features, seconds, the numeric class
    assert [r[feature] for r in rows] == ["-0.5", "1.0", "0.0"]
    assert [r["w"] for r in rows] == ["2.0", "-3.25", "0.0"]
    assert rows[1]["seconds"] == "-0.5"
    # no cell of the file starts a formula unless it is a plain number
    for row in [reader.fieldnames, *(r.values() for r in rows)]:
        for cell in row:
            if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                float(cell)


def test_export_json_keeps_the_raw_strings():
    p, log = _injection_project()
    records = json.loads(export_labels(p, log, "json"))
    assert [r["point_id"] for r in records] == ['=HYPERLINK("http://x")', "+3", "\tp"]
    assert [r["label"] for r in records] == ["@SUM(1)", -1, "ok"]
    assert [r["annotator"] for r in records] == ["+cmd", "-1", "\rann\r=1+1"]
    assert records[0]["strategy"] == "-x"
    assert list(records[0]["features"]) == ["=cmd|' /C calc'!A0", "w"]


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("=1+1", "'=1+1"),
        ("-1+cmd", "'-1+cmd"),
        ("-inf", "'-inf"),
        ("@", "'@"),
        ("-1", "-1"),
        ("+3", "+3"),
        ("-0.5e-3", "-0.5e-3"),
        ("a=b", "a=b"),
        ("", ""),
        (-2, -2),
        (-0.5, -0.5),
    ],
)
def test_csv_cell(value, cell):
    assert csv_cell(value) == cell


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_a_project_that_names_its_classes_exports_the_names_beside_the_values(fmt):
    """The bundled samples name their classes ("benign" for −1): the annotators clicked the
    names, and the export had only −1 and 1 (an exploratory test)."""
    X = np.arange(8, dtype=float).reshape(4, 2)
    meta = {"class_names": {"-1": "benign", "1": "malignant"}}
    project = Project("p", X, ["a", "b"], list("wxyz"), None, [-1, 1], meta=meta)
    events = [Event("label", 2, 1, "ann", id=1), Event("label", 0, -1, "ann", id=2)]
    out = export_labels(project, events, fmt, include_features=False)
    if fmt == "json":
        got = [(r["label"], r["label_name"]) for r in json.loads(out)]
    else:
        df = pd.read_parquet(io.BytesIO(out)) if fmt == "parquet" else pd.read_csv(io.StringIO(out))
        assert list(df.columns).index("label_name") == 13  # right after the fixed columns
        got = list(zip(df["label"], df["label_name"], strict=True))
    assert got == [(1, "malignant"), (-1, "benign")]
    plain = Project("q", X, ["a", "b"], list("wxyz"), None, [-1, 1])
    assert "label_name" not in export_labels(plain, events, "csv", include_features=False)
