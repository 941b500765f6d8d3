"""Which labels are random checks (issue 33): the label log keeps them through relabels and
forgets them on undo; a session marks the engine's own uniform draws (a random strategy's every
query, focused ARLS's exploration share) and nothing a score chose."""

from __future__ import annotations

import numpy as np
import pytest
from support.sessions import moons_store, session

from rlscore.query import make_strategy


def _checks_in_log(store) -> set[int]:
    """Points with a label event marked ``audit``, read from the raw events (undo applied)."""
    undone = {e.target for e in store.events("moons") if e.kind == "undo"}
    return {
        e.point
        for e in store.events("moons")
        if e.kind == "label" and e.params.get("audit") and e.id not in undone
    }


def test_a_relabel_keeps_a_check_and_an_undo_forgets_it(tmp_path):
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5)
    s.set_params(audit_every=1)  # every query a random check
    i, _ = s.query(annotator="ann")
    s.label(i, s.project.truth[i], annotator="ann")
    assert s._state.log.checks == {i} == _checks_in_log(store)
    other = next(c for c in s.project.classes if c != s.project.truth[i])
    s.label(i, other, annotator="ann")  # a relabel is no draw, the point stays a check
    assert s._state.log.checks == {i}
    s.undo(annotator="ann")  # back to the first label, still the check
    assert s._state.log.checks == {i}
    s.undo(annotator="ann")  # the check's label undone: no check left
    assert s._state.log.checks == set() == _checks_in_log(store)


@pytest.mark.parametrize(("strategy", "every_label"), [("random", True), ("uncertainty", False)])
def test_a_session_marks_the_engines_uniform_draws_only(tmp_path, strategy, every_label):
    store = moons_store(tmp_path)
    s = session(store, strategy=strategy, sigma=2.0, lam=0.5)
    s.auto_label(15)
    checks = s._state.log.checks
    assert checks == (set(s.labels) if every_label else set())


def test_focused_arls_marks_its_exploration_share(tmp_path):
    store = moons_store(tmp_path)
    s = session(store, strategy="arls-focused", sigma=2.0, lam=0.5, explore=0.5)
    s.auto_label(40)
    order = s._state.log.label_order()
    checks = s._state.log.checks
    # a fresh engine taught the labels before each one tells whether that query explored
    # (the draw is a function of the labels and the seed: FocusedARLS.exploration_position)
    engine = make_strategy("arls-focused", sigma=2.0, lam=0.5, explore=0.5)
    engine.start(s.project.X, list(s.project.classes))
    expected = set()
    for point in order:
        if engine.uniform_draw() == point:
            expected.add(point)
        engine.teach(point, s.labels[point])
    assert checks == expected and 8 <= len(checks) <= 32  # about half, once both classes show
    assert np.isin(list(checks), order).all()
