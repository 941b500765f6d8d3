"""Exports record the accuracy estimate at export time (issue 24), when asked to."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from rlscore.core.evaluation.accuracy_interval import wilson_interval
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.sessions import export_labels
from rlscore.sessions.stopping.accuracy_estimate import (
    ESTIMATE_COLUMNS,
)
from tests.support.sessions import moons_store, session


def _brute_force_loo(X, labels, sigma, lam, class_weight):
    idx = list(labels)
    y = np.asarray([labels[i] for i in idx])
    hits = 0
    for k in range(len(idx)):
        keep = np.ones(len(idx))
        keep[k] = 0.0
        clf = RLSClassifier(sigma=sigma, lam=lam, class_weight=class_weight)
        clf.fit(X[idx], y, sample_weight=keep)
        hits += int(clf.predict(X[[idx[k]]])[0] == y[k])
    return hits


def test_the_estimate_travels_with_every_format(tmp_path):
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5)
    truth = s.project.truth
    for i in [*np.flatnonzero(truth == 1)[:3], *np.flatnonzero(truth == -1)[:9]]:
        s.label(int(i), truth[i], annotator="ann")
    weight = s.engine.get_params().get("class_weight")
    k = _brute_force_loo(s.project.X, s.labels, 2.0, 0.5, weight)
    n = len(s.labels)
    expected = [k / n, *wilson_interval(k, n), n]

    events = store.events("moons")
    df = pd.read_csv(io.StringIO(export_labels(s.project, events, "csv", estimate=True)))
    assert list(df.columns[-4:]) == list(ESTIMATE_COLUMNS)
    for column, value in zip(ESTIMATE_COLUMNS, expected, strict=True):
        assert df[column].tolist() == pytest.approx([value] * n)
    records = json.loads(export_labels(s.project, events, "json", estimate=True))
    assert [records[0][c] for c in ESTIMATE_COLUMNS] == pytest.approx(expected)
    table = pd.read_parquet(io.BytesIO(export_labels(s.project, events, "parquet", estimate=True)))
    assert table["accuracy_estimate"].tolist() == pytest.approx([k / n] * n)
    # without asking, the export is as before
    plain = pd.read_csv(io.StringIO(export_labels(s.project, events, "csv")))
    assert not set(ESTIMATE_COLUMNS) & set(plain.columns)


def test_too_few_labels_export_no_estimate(tmp_path):
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5)
    s.label(0, s.project.truth[0], annotator="ann")
    records = json.loads(export_labels(s.project, store.events("moons"), "json", estimate=True))
    assert records[0]["accuracy_estimate"] is None and records[0]["accuracy_labels"] == 1


def test_the_labels_command_records_the_estimate(tmp_path, capsys):
    from rlscore.cli.commands.labels import main

    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5)
    truth = s.project.truth
    for i in [*np.flatnonzero(truth == 1)[:4], *np.flatnonzero(truth == -1)[:6]]:
        s.label(int(i), truth[i], annotator="ann")
    weight = s.engine.get_params().get("class_weight")
    k, n = _brute_force_loo(s.project.X, s.labels, 2.0, 0.5, weight), len(s.labels)
    db = str(tmp_path / "labels.sqlite3")
    assert main(["--db", db, "--project", "moons", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [records[-1][c] for c in ESTIMATE_COLUMNS] == pytest.approx(
        [k / n, *wilson_interval(k, n), n]
    )
    assert main(["--db", db, "--project", "moons", "--no-estimate"]) == 0
    plain = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert not set(ESTIMATE_COLUMNS) & set(plain.columns)
