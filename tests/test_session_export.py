"""Labeling sessions: the export of the labels, from a session or from the log alone."""

import io
import json
from datetime import datetime

import numpy as np
import pandas as pd
import pytest
from test_session_replay import scripted_history, session

from rlscore.data.projects import Project
from rlscore.sessions import LabelLog, export_labels
from rlscore.storage import Event


def test_export_csv_and_json(store):
    s = session(store, annotator="ann")
    scripted_history(s)
    df = pd.read_csv(io.StringIO(s.export("csv")))
    assert list(df.columns[:10]) == [
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
    ]
    assert list(df.columns[10:]) == s.project.feature_names
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
    with pytest.raises(ValueError, match="'csv' or 'json'"):
        s.export("xml")


def test_export_prefixes_clashing_feature_names(tmp_path):
    p = Project("clash", np.eye(3), ["label", "x", "lam"], ["a", "b", "c"], None, ["u", "v"])
    log = LabelLog([Event("label", 1, "v", "z", timestamp=0.0, id=1)])
    text = export_labels(p, log, "csv")
    header, row = text.splitlines()
    assert header.split(",")[10:] == ["feature:label", "x", "feature:lam"]
    assert row.startswith("b,1,v,z,1970-01-01T00:00:00+00:00,,")
    assert export_labels(p, log, "csv", include_features=False).splitlines()[0].count(",") == 9
