"""A small two-moons project, a store holding it, and sessions on it (the session tests)."""

from __future__ import annotations

import numpy as np

from rlscore.data.projects.project import Project
from rlscore.data.samples.bundled import project_from_sample
from rlscore.sessions import LabelingSession
from rlscore.storage import open_store


def moons_subset(name="moons", n=90) -> Project:
    """A small imbalanced two-moons pool (keeps each test fast)."""
    full = project_from_sample("two_moons")
    rng = np.random.default_rng(1)
    idx = np.sort(
        np.concatenate(
            [
                rng.choice(np.flatnonzero(full.truth == -1), n - 12, replace=False),
                rng.choice(np.flatnonzero(full.truth == 1), 12, replace=False),
            ]
        )
    )
    return Project(
        name=name,
        X=full.X[idx],
        feature_names=full.feature_names,
        ids=[f"m{i}" for i in idx],
        truth=full.truth[idx],
        classes=[-1, 1],
        meta={"sigma": 2.0, "lam": 0.5},
    )


def moons_store(tmp_path, target=None):
    """A label database holding :func:`moons_subset` as project ``"moons"``: the SQLite file
    ``labels.sqlite3`` in ``tmp_path``, or ``target`` (a path or a PostgreSQL URL)."""
    s = open_store(tmp_path / "labels.sqlite3" if target is None else target)
    s.create_project(moons_subset())
    return s


def session(store, **kw) -> LabelingSession:
    return LabelingSession(store, kw.pop("project", "moons"), kw.pop("strategy", "arls"), **kw)


def assert_same_state(a: LabelingSession, b: LabelingSession) -> None:
    """Bit-for-bit the same labels, engine state, histories and next query."""
    assert a.labels == b.labels and list(a.labels) == list(b.labels)
    assert a.skipped == b.skipped
    assert a.engine.labeled_ == b.engine.labeled_ and a.engine.labels_ == b.engine.labels_
    np.testing.assert_array_equal(a.engine.decision_function(), b.engine.decision_function())
    np.testing.assert_array_equal(a.engine.scores(), b.engine.scores())
    assert a.risk_history == b.risk_history
    assert a.validation_history == b.validation_history
    assert a.change_history == b.change_history
    assert a.lam_ == b.lam_
    assert a.query(claim=False) == b.query(claim=False)


def scripted_history(s: LabelingSession) -> None:
    """Labels, a relabel, skips, undos of each kind, clicks on non-query points."""
    truth = s.project.truth
    for _ in range(4):
        i, _score = s.query()
        s.label(i, truth[i])
    q = s.query()[0]
    s.skip(q)
    s.label(5, 1)  # a clicked point, not the query
    s.label(5, -1)  # relabel
    s.undo()  # reverts the relabel: 5 is +1 again
    assert s.labels[5] == 1
    s.label(7, truth[7])
    s.undo()
    s.skip(11)
    s.undo()  # un-skips 11
    for _ in range(3):
        i, _score = s.query()
        s.label(i, truth[i], seconds=2.5)
