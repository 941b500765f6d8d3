"""Focused ARLS's exploration share (issue 24 part 5): a share ``explore`` of the queries is
drawn uniformly from the unlabeled pool, by the documented rule (tests/reference/exploration.py),
the others are the exploiting query of the same state, and the draws are a function of the
state (asked twice, after an undo, on a rebuild: the same point)."""

from __future__ import annotations

import numpy as np
import pytest
from reference.exploration import exploratory_pick
from scipy.stats import binomtest, chisquare

from rlscore.query import FocusedARLS, make_strategy
from rlscore.query.arls.focused import DEFAULT_EXPLORE

SIGMA, LAM = 1.1, 0.3


def pool(n=60, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * 1.5
    return X, np.where(X[:, 0] + 0.5 * X[:, 1] > 0.2, 1, -1)


def taught(explore, seed, labels=(0, 1, 2, 3, 4, 5)):
    X, y = pool()
    q = FocusedARLS(sigma=SIGMA, lam=LAM, focus=4, explore=explore, seed=seed).start(X, [-1, 1])
    for i in labels:
        q.teach(i, int(y[i]))
    return q, y


def test_the_picks_follow_the_documented_rule_along_a_run():
    X, y = pool()
    q = FocusedARLS(sigma=SIGMA, lam=LAM, focus=4, explore=0.3, seed=11).start(X, [-1, 1])
    exploit = FocusedARLS(sigma=SIGMA, lam=LAM, focus=4, explore=0.0).start(X, [-1, 1])
    kinds = set()
    for t in range(30):
        exclude = (7, 8, 9) if t % 3 == 0 else ()
        found = np.unique(y[q.labeled_]).size == 2
        explored = exploratory_pick(len(y), q.labeled_, exclude, 0.3, 11, found)
        want = explored if explored is not None else exploit.next_query(exclude)[0]
        assert q.exploration(exclude) == explored
        assert q.next_query(exclude)[0] == want
        kinds.add(explored is None)
        for s in (q, exploit):
            s.teach(want, int(y[want]))
    assert kinds == {True, False}  # both kinds of query happened


@pytest.mark.parametrize("explore", [0.2, 0.5])
def test_the_share_of_exploratory_picks_and_their_uniform_draw(explore):
    # one state, many seeds: the share explored is Binomial(seeds, explore) and each
    # exploratory pick uniform over the unlabeled points not excluded
    exclude = (10, 11)
    counts = np.zeros(60)
    explored = 0
    seeds = 2000
    for seed in range(seeds):
        q, _ = taught(explore, seed)
        i = q.exploration(exclude)
        if i is not None:
            explored += 1
            counts[i] += 1
    assert binomtest(explored, seeds, explore).pvalue > 1e-4
    free = np.setdiff1d(np.arange(60), [0, 1, 2, 3, 4, 5, *exclude])
    assert counts[np.setdiff1d(np.arange(60), free)].sum() == 0  # never labeled or excluded
    assert chisquare(counts[free]).pvalue > 1e-4


def test_no_exploration_is_the_exploiting_query_and_full_exploration_never_is():
    q0, _ = taught(0.0, 5)
    assert q0.exploration() is None
    q1, _ = taught(1.0, 5)
    assert q1.exploration() == exploratory_pick(60, q1.labeled_, (), 1.0, 5)


def test_no_exploration_before_every_class_has_a_label():
    # the search for a missing class is the margins' job: even explore = 1 exploits then
    X, y = pool()
    negatives = [int(i) for i in np.flatnonzero(y == -1)[:3]]
    q, _ = taught(1.0, 4, labels=negatives)
    exploit, _ = taught(0.0, 4, labels=negatives)
    assert q.exploration() is None and q.next_query() == exploit.next_query()
    first_positive = int(np.flatnonzero(y == 1)[0])
    q.teach(first_positive, 1)
    assert q.exploration() is not None


def test_the_draw_is_a_function_of_the_state():
    q, y = taught(0.5, 2)
    first = [q.next_query()[0] for _ in range(3)]
    assert len(set(first)) == 1
    q.teach(first[0], int(y[first[0]]))
    q.undo()
    assert q.next_query()[0] == first[0]
    q.rebuild()
    assert q.next_query()[0] == first[0]
    unseeded, _ = taught(0.5, None)  # fresh entropy, drawn once at start
    assert len({unseeded.next_query()[0] for _ in range(3)}) == 1


@pytest.mark.parametrize(
    ("params", "match"),
    [({"explore": -0.1}, "explore"), ({"explore": 1.5}, "explore"), ({"explore": True}, "explore"),
     ({"explore": "0.1"}, "explore"), ({"seed": 1.5}, "seed"), ({"seed": "a"}, "seed")],
)  # fmt: skip
def test_bad_exploration_parameters_are_refused(params, match):
    X, _ = pool(n=10)
    with pytest.raises(ValueError, match=match):
        FocusedARLS(**params).start(X, [0, 1])


def test_the_registry_default_explores():
    q = make_strategy("arls-focused", sigma=2.0)
    assert q.explore == DEFAULT_EXPLORE > 0 and q.get_params()["seed"] == 0
