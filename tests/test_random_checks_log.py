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


def test_a_teammates_held_point_does_not_lose_the_draws(tmp_path):
    # a tester: with a teammate holding a point, none of 60 labels was marked a check — the
    # draw was made on the state that believes the held point labeled (the greedy batch rule),
    # and the label was matched against the engine's own state's draw, another point
    store = moons_store(tmp_path)
    s = session(store, strategy="arls-focused", sigma=2.0, lam=0.5, explore=0.5)
    held, _ = s.query(annotator="bob")  # bob holds his point while ada labels
    handed = []
    for _ in range(40):
        i, _ = s.query(annotator="ada")
        handed.append(i)
        s.label(i, s.project.truth[i], annotator="ada")
    checks = s._state.log.checks
    # the reference: a fresh engine taught ada's labels before each one and bob's held point
    # (any class: the draw depends on the count of labels and the open points only,
    # FocusedARLS.exploration_position) draws, among the points bob does not hold, what ada
    # was handed whenever that query explored
    expected = set()
    taught = {}
    for i in handed:
        engine = make_strategy("arls-focused", sigma=2.0, lam=0.5, explore=0.5)
        engine.start(s.project.X, list(s.project.classes))
        for p, y in taught.items():
            engine.teach(p, y)
        engine.teach(held, s.project.classes[0])
        if engine.uniform_draw() == i:
            expected.add(i)
        taught[i] = s.labels[i]
    assert checks == expected and 8 <= len(checks) <= 32
    assert held not in checks


@pytest.mark.parametrize("annotator", [None, "ada"])
def test_a_point_picked_by_hand_is_no_check_even_where_the_engine_would_draw_it(
    tmp_path, annotator
):
    # a tester: labeling by hand (a plot click, Find items) the very point the engine would
    # draw next stored it as a random check; a check is a point handed out as one
    store = moons_store(tmp_path)
    s = session(store, strategy="arls-focused", sigma=2.0, lam=0.5, explore=1.0)
    truth = s.project.truth
    for c in s.project.classes:  # one label of each class: from then on every query explores
        i = int(np.flatnonzero(truth == c)[0])
        s.label(i, truth[i], annotator=annotator)
    draw = s.engine.uniform_draw()
    assert draw is not None
    s.label(draw, truth[draw], annotator=annotator)  # picked by hand, never handed out
    assert draw not in s._state.log.checks
    i, _ = s.query(annotator=annotator)  # handed out: the engine's draw, a check
    assert s.is_random_check(i, annotator)
    s.label(i, truth[i], annotator=annotator)
    assert s._state.log.checks == {i}


def test_an_undone_check_labeled_again_is_still_a_check(tmp_path):
    # a tester: undoing a random check's label and labeling the point again (it comes back as
    # the annotator's query) dropped it from the checks
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5)
    s.set_params(audit_every=2)
    truth = s.project.truth
    i, _ = s.query(annotator="ann")
    s.label(i, truth[i], annotator="ann")  # label 1: the strategy's
    j, _ = s.query(annotator="ann")  # label 2: a random check
    assert s.is_random_check(j, "ann")
    s.label(j, truth[j], annotator="ann")
    assert s._state.log.checks == {j}
    s.undo(annotator="ann")
    assert s._state.log.checks == set()
    assert s.query(annotator="ann")[0] == j and s.is_random_check(j, "ann")
    other = next(c for c in s.project.classes if c != truth[j])
    s.label(j, other, annotator="ann")  # another label, the same draw
    assert s._state.log.checks == {j} == _checks_in_log(store)
