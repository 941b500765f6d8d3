"""Labeling sessions: the commands (label, skip, undo, the oracle) and the per-caller budget."""

import types

import pytest
from support.sessions import moons_subset, session

import rlscore.sessions.team.handout
from rlscore.storage import open_store


def test_skip_semantics(store):
    s = session(store)
    q = s.query()[0]
    s.skip(q)
    assert s.skipped == {q} and s.query()[0] != q
    s.label(q, 1)  # a skipped point can still be labeled by clicking it
    assert q in s.labels and s.skipped == set()
    with pytest.raises(ValueError, match=f"point {q} is labeled"):
        s.skip(q)
    s.undo()  # reverts the label: the skip applies again
    assert s.skipped == {q} and q not in s.labels
    s.undo()
    assert s.skipped == set() and s.query()[0] == q


def test_undo_semantics(store):
    s = session(store)
    with pytest.raises(ValueError, match="nothing to undo"):
        s.undo()
    s.label(1, 1)
    s.label(2, -1)
    s.label(1, -1)  # relabel
    assert s.undo().label == -1 and s.labels == {1: 1, 2: -1}
    assert s.undo().point == 2 and s.labels == {1: 1}
    assert s.undo().point == 1 and s.labels == {}
    assert s.risk_history == [s.risk_history[0]]
    # undone labels are still in the database, marked as undone
    assert [e.kind for e in store.events("moons")] == ["label"] * 3 + ["undo"] * 3


def test_undo_race_between_tabs(store):
    a = session(store)
    b = session(open_store(store.path))
    a.label(1, 1)
    a.label(2, 1)
    b.sync()
    real_sync, calls = b.sync, []

    def stale_sync():  # b decides what to undo before a's undo reaches it
        calls.append(1)
        return False if len(calls) == 1 else real_sync()

    b.sync = stale_sync
    a.undo()
    assert b.undo() is None  # the store refuses to undo the same event twice
    assert a.sync() is False and a.labels == {1: 1} and b.labels == {1: 1}


def test_budget_is_per_caller(store):
    """Two tabs sharing one cached session, with budgets 3 and 5: each sees its own."""
    s = session(store)
    assert s.budget_left(3) == 3 and s.budget_left(5) == 5 and s.budget_left() is None
    assert s.auto_label(10, budget=3) == 3
    assert s.query(3) is None and s.done(3) and s.budget_left(3) == 0
    q = s.query(5)
    assert q is not None and not s.done(5) and s.budget_left(5) == 2
    assert s.query(3) is None  # the other tab asking did not change this one's budget
    assert s.query(0) == q and s.query() == q  # 0: no budget; and no default budget here
    assert s.auto_label(10, budget=5) == 2 and s.n_labeled == 5
    with pytest.raises(ValueError, match="budget is per caller"):
        s.set_params(budget=4)
    with pytest.raises(ValueError, match="budget must be a positive whole number"):
        s.query(-2)


def test_default_budget_for_python_callers(store):
    s = session(store, budget=2)
    assert s.budget == 2 and s.get_params()["budget"] == 2 and s.budget_left() == 2
    assert s.auto_label(10) == 2 and s.done() and s.query() is None
    assert s.query(4) is not None and s.budget_left(4) == 2  # a caller's own budget wins
    assert s.budget == 2
    with pytest.raises(ValueError, match="budget must be a positive whole number"):
        session(store, budget=-2)


def test_query_none_when_pool_exhausted(tmp_path):
    p = moons_subset("tiny", n=14)
    with open_store(tmp_path / "db.sqlite3") as st:
        st.create_project(p)
        s = session(st, project="tiny")
        assert s.auto_label(100) == 14
        assert s.query() is None


def test_invalid_label_and_point(store):
    s = session(store)
    with pytest.raises(ValueError, match="label 3 is not one of the classes \\[-1, 1\\]"):
        s.label(0, 3)
    with pytest.raises(ValueError, match="outside the pool"):
        s.label(500, 1)
    assert store.events("moons") == []


def test_seconds_measured_for_the_query(store, monkeypatch):
    """The time on a proposed point runs from its first proposal to the label (a clock the
    test moves: nothing depends on how fast the machine is), to the millisecond; a point
    that was not proposed gets no time."""
    now = [1000.0]
    monkeypatch.setattr(
        rlscore.sessions.team.handout, "time", types.SimpleNamespace(monotonic=lambda: now[0])
    )
    s = session(store)
    i, _ = s.query()
    now[0] += 4.0
    assert s.query()[0] == i  # proposed again (a rerun): the clock keeps running from 1000
    now[0] += 8.0004
    s.label(i, 1)
    assert store.events("moons")[0].seconds == 12.0
    j, _ = s.query()
    now[0] += 0.25
    s.label(j, 1)
    assert store.events("moons")[1].seconds == 0.25
    s.label(0 if i else 1, 1)  # not the proposed point, no time given
    assert store.events("moons")[2].seconds is None
