"""Exports record the Label page's headline at export time (issues 24 and 33), when asked to:
the exact LOO accuracy of the random checks among the labels, with its exact interval."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest
from support.sessions import moons_store, session

from rlscore.core.rls.classifier import RLSClassifier
from rlscore.sessions import LabelingSession, export_labels
from rlscore.sessions.state.settings import save_project_settings
from rlscore.sessions.stopping.accuracy_estimate import (
    ESTIMATE_COLUMNS,
)


def _brute_force_loo(X, labels, sigma, lam, class_weight, checks):
    """Right LOO predictions among ``checks``: each refitted without the point (weight 0)."""
    idx = list(labels)
    y = np.asarray([labels[i] for i in idx])
    hits = 0
    for k in range(len(idx)):
        if idx[k] not in checks:
            continue
        keep = np.ones(len(idx))
        keep[k] = 0.0
        clf = RLSClassifier(sigma=sigma, lam=lam, class_weight=class_weight)
        clf.fit(X[idx], y, sample_weight=keep)
        hits += int(clf.predict(X[[idx[k]]])[0] == y[k])
    return hits


def _labeled_with_checks(store, sigma=2.0, lam=0.5):
    """Four labels by hand (no check), then the oracle's, every second query a check; the
    project's settings are the session's, so the Label page shows its headline."""
    save_project_settings(store, "moons", {"strategy": "uncertainty", "sigma": sigma, "lam": lam})
    s = session(store, strategy="uncertainty", sigma=sigma, lam=lam)
    truth = s.project.truth
    for i in [*np.flatnonzero(truth == 1)[:2], *np.flatnonzero(truth == -1)[:2]]:
        s.label(int(i), truth[i], annotator="ann")
    s.set_params(audit_every=2)
    s.auto_label(12)
    return s


def _expected(s) -> list:
    checks = s._state.log.checks
    weight = s.engine.get_params().get("class_weight")
    k, m = _brute_force_loo(s.project.X, s.labels, 2.0, 0.5, weight, checks), len(checks)
    assert m >= 5 and m < len(s.labels)
    ci = binomtest(k, m).proportion_ci(confidence_level=0.95, method="exact")
    return [k / m, ci.low, ci.high, m, len(s.labels)]


def test_the_estimate_travels_with_every_format(tmp_path):
    store = moons_store(tmp_path)
    s = _labeled_with_checks(store)
    expected = _expected(s)
    n = len(s.labels)

    events = store.events("moons")
    df = pd.read_csv(io.StringIO(export_labels(s.project, events, "csv", estimate=True)))
    assert list(df.columns[-5:]) == list(ESTIMATE_COLUMNS)
    for column, value in zip(ESTIMATE_COLUMNS, expected, strict=True):
        assert df[column].tolist() == pytest.approx([value] * n)
    records = json.loads(export_labels(s.project, events, "json", estimate=True))
    assert [records[0][c] for c in ESTIMATE_COLUMNS] == pytest.approx(expected)
    table = pd.read_parquet(io.BytesIO(export_labels(s.project, events, "parquet", estimate=True)))
    assert table["accuracy_estimate"].tolist() == pytest.approx([expected[0]] * n)
    # without asking, the export is as before
    plain = pd.read_csv(io.StringIO(export_labels(s.project, events, "csv")))
    assert not set(ESTIMATE_COLUMNS) & set(plain.columns)


def test_too_few_labels_export_no_estimate(tmp_path):
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5)
    s.label(0, s.project.truth[0], annotator="ann")
    records = json.loads(export_labels(s.project, store.events("moons"), "json", estimate=True))
    assert records[0]["accuracy_estimate"] is None and records[0]["accuracy_labels"] == 1


def test_without_a_random_check_the_export_has_no_estimate(tmp_path):
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5)
    truth = s.project.truth
    for i in [*np.flatnonzero(truth == 1)[:4], *np.flatnonzero(truth == -1)[:6]]:
        s.label(int(i), truth[i], annotator="ann")  # chosen by hand: no check
    records = json.loads(export_labels(s.project, store.events("moons"), "json", estimate=True))
    assert records[0]["accuracy_estimate"] is None and records[0]["accuracy_checks"] == 0


def test_the_labels_command_records_the_estimate(tmp_path, capsys):
    from rlscore.cli.commands.labels import main

    store = moons_store(tmp_path)
    expected = _expected(_labeled_with_checks(store))
    db = str(tmp_path / "labels.sqlite3")
    assert main(["--db", db, "--project", "moons", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [records[-1][c] for c in ESTIMATE_COLUMNS] == pytest.approx(expected)
    assert main(["--db", db, "--project", "moons", "--no-estimate"]) == 0
    plain = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert not set(ESTIMATE_COLUMNS) & set(plain.columns)


def test_after_a_review_decision_the_export_has_the_label_page_headline(tmp_path):
    # a Review-page decision is written without the learner's settings (review_point with no
    # params): the export's estimate must still be the Label page's, relabel included
    from rlscore.sessions.actions.review import review_point
    from rlscore.sessions.stopping.stopping_view import stopping_view

    store = moons_store(tmp_path)
    s = _labeled_with_checks(store)
    point = next(i for i in reversed(list(s.labels)) if i not in s._state.log.checks)
    review_point(store, "moons", point, -s.labels[point], "rev")  # "Relabel as" on Review
    s.sync()
    assert s._state.log.reviews[point].params == {}
    headline = stopping_view(s).estimate.headline  # what the Label page shows now
    assert headline is not None
    shown = [headline.estimate, headline.low, headline.high, headline.n_checks, len(s.labels)]
    assert shown == pytest.approx(_expected(s))  # the brute-force reference, relabel included

    events = store.events("moons")
    df = pd.read_csv(io.StringIO(export_labels(s.project, events, "csv", estimate=True)))
    for column, value in zip(ESTIMATE_COLUMNS, shown, strict=True):
        assert df[column].tolist() == pytest.approx([value] * len(s.labels))
    # the reviewed row is the reviewer's decision, made without a learner: no settings of
    # its own; the annotator's label it overrode keeps its settings among the annotations
    reviewed = next(r for r in json.loads(export_labels(s.project, events, "json", estimate=True))
                    if r["index"] == point)  # fmt: skip
    assert reviewed["decided_by"] == "review" and reviewed["reviewer"] == "rev"
    assert reviewed["strategy"] is None and reviewed["lam"] is None
    assert [a["strategy"] for a in reviewed["annotations"]] == ["uncertainty"]


def test_the_export_fits_with_the_class_weights_the_label_page_uses(tmp_path):
    # weights set for the project are written with each label; the export's estimate must be
    # fitted with them, as the Label page's is, not with the strategy's default weights (a
    # wide, smooth model on few labels of the rarer class: here the weights change a check)
    from rlscore.sessions.stopping.stopping_view import stopping_view

    weight = {-1: 1.0, 1: 6.0}
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=6.0, lam=5.0, class_weight=weight)
    truth = s.project.truth
    for i in [*np.flatnonzero(truth == 1)[:2], *np.flatnonzero(truth == -1)[:5]]:
        s.label(int(i), truth[i], annotator="ann")
    s.set_params(audit_every=2)
    s.auto_label(14)
    checks = s._state.log.checks
    k = _brute_force_loo(s.project.X, s.labels, 6.0, 5.0, weight, checks)
    assert k != _brute_force_loo(s.project.X, s.labels, 6.0, 5.0, None, checks)
    ci = binomtest(k, len(checks)).proportion_ci(confidence_level=0.95, method="exact")
    expected = [k / len(checks), ci.low, ci.high, len(checks), len(s.labels)]
    headline = stopping_view(s).estimate.headline  # the Label page
    shown = [headline.estimate, headline.low, headline.high, headline.n_checks, len(s.labels)]
    assert shown == pytest.approx(expected)
    df = pd.read_csv(io.StringIO(export_labels(s.project, store.events("moons"), "csv",
                                               estimate=True)))  # fmt: skip
    for column, value in zip(ESTIMATE_COLUMNS, expected, strict=True):
        assert df[column].tolist() == pytest.approx([value] * len(s.labels)), column


def _headline(s) -> list:
    """The Label page's headline of session ``s``, as the export's columns."""
    from rlscore.sessions.stopping.stopping_view import stopping_view

    h = stopping_view(s).estimate.headline
    return [h.estimate, h.low, h.high, h.n_checks, len(s.labels)]


@pytest.mark.parametrize(
    ("labeled", "change"),
    [((2.0, 0.5), {"sigma": 0.2}), ((0.2, 0.01), {"lam_auto": True})],
    ids=["sigma", "auto-lam"],
)
def test_after_a_settings_change_the_exports_carry_the_label_pages_headline(
    tmp_path, capsys, labeled, change
):
    # the page fits its headline with the project's settings as they are now; the exports
    # took the newest label's, so a change (sidebar, Tune's Apply, `settings --set`) made
    # them disagree until the next label
    from rlscore.cli.commands.labels import main
    from rlscore.sessions.team.audit import export_project

    store = moons_store(tmp_path)
    before = _headline(_labeled_with_checks(store, *labeled))
    save_project_settings(store, "moons", change)
    page = LabelingSession.from_settings(store, "moons", snapshots=False)  # the page's session
    shown = _headline(page)
    assert shown[:3] != pytest.approx(before[:3])  # the change moved the headline
    if change.get("lam_auto"):  # the λ the session chose at its milestones
        assert page.lam_ != pytest.approx(labeled[1])
    assert main(["--db", str(tmp_path / "labels.sqlite3"), "--project", "moons",
                 "--format", "json"]) == 0  # fmt: skip
    cli = json.loads(capsys.readouterr().out)
    data_page = json.loads(export_project(store, "moons", None, "json", estimate=True).labels)
    for records in (cli, data_page):
        assert [records[-1][c] for c in ESTIMATE_COLUMNS] == pytest.approx(shown, abs=1e-12)
