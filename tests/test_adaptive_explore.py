"""The adaptive exploration shares of benchmarks/adaptive_explore.py (issue 33 item 5): the LOO
predictions they read equal brute-force refits, the labels they count as checks are the
engine's own uniform draws, the share is the rule's formula, the coin follows the share, and
the explore draws stay uniform over the unlabeled pool whatever the share."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from reference.exploration import exploratory_pick
from scipy.stats import binom, chisquare

from rlscore.core.rls.confidence import predicted_index
from rlscore.query import STRATEGIES, FocusedARLS, make_strategy

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import adaptive_explore  # noqa: E402
from adaptive_explore import AdaptiveExplore, loo_predicted  # noqa: E402

SIGMA, LAM = 1.1, 0.3


def pool(n=60, seed=3, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2)) * 1.5
    if classes == 2:
        return X, (X[:, 0] + 0.5 * X[:, 1] > 0.2).astype(int)
    return X, np.digitize(X[:, 0], [-0.7, 0.7])


def taught(rule, seed, labels=(0, 1, 2, 3, 4, 5), explore=0.2, classes=2):
    X, y = pool(classes=classes)
    q = AdaptiveExplore(rule=rule, sigma=SIGMA, lam=LAM, focus=4, explore=explore, seed=seed)
    q.start(X, list(range(classes)))
    for i in labels:
        q.teach(i, int(y[i]))
    return q, y


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_loo_predictions_equal_refits_without_the_point(classes, fit_intercept):
    X, y = pool(classes=classes)
    labels = list(range(14))
    subset = np.array([0, 2, 3, 5, 8, 9, 11, 13])

    def refit(keep):
        r = FocusedARLS(sigma=SIGMA, lam=LAM, fit_intercept=fit_intercept, explore=0.0)
        r.start(X, list(range(classes)))
        r.teach_many(keep, [int(y[i]) for i in keep])
        return r

    q = refit(labels)
    for chosen, got in (
        (labels, loo_predicted(q)),
        ([labels[k] for k in subset], loo_predicted(q, subset)),
    ):
        want = []
        for i in chosen:
            r = refit([k for k in chosen if k != i])
            want.append(int(predicted_index(r.decision_function()[i : i + 1])[0]))
        assert got.tolist() == want


@pytest.mark.parametrize("rule", adaptive_explore.RULES)
def test_the_checks_are_the_engines_uniform_draws_along_a_run(rule):
    X, y = pool(n=80)
    q = AdaptiveExplore(rule=rule, sigma=SIGMA, lam=LAM, focus=4, seed=7).start(X, [0, 1])
    q.teach_many([int(np.flatnonzero(y == 0)[0]), int(np.flatnonzero(y == 1)[0])], [0, 1])
    drawn, candidate = [False, False], [False, False]
    for _ in range(40):
        share = q.exploration_share()
        # the documented draw, given the rule's share (tests/reference/exploration.py)
        assert q.exploration() == exploratory_pick(80, q.labeled_, (), share, 7)
        d = q.uniform_draw()
        i, _ = q.next_query()
        drawn.append(d == i)
        # the step's uniform candidate, whatever the coin: the draw with share 1
        candidate.append(i == exploratory_pick(80, q.labeled_, (), 1.0, 7))
        q.teach(i, int(y[i]))
    checks = q.checks().tolist()
    assert checks == candidate
    # every explore draw is a check; a check that was no draw is an exploiting pick that
    # happened to be its step's candidate (chance 1/free points per step)
    assert all(c for c, d in zip(checks, drawn, strict=True) if d)
    assert 0 < sum(drawn) and sum(checks) - sum(drawn) <= 2


def ran(rule, seed, queries=15):
    """The strategy after ``queries`` of its own queries from one label per class."""
    X, y = pool()
    q = AdaptiveExplore(rule=rule, sigma=SIGMA, lam=LAM, focus=4, seed=seed).start(X, [0, 1])
    q.teach_many([int(np.flatnonzero(y == 0)[0]), int(np.flatnonzero(y == 1)[0])], [0, 1])
    for _ in range(queries):
        i, _ = q.next_query()
        q.teach(i, int(y[i]))
    return q, y


def test_the_share_is_the_rules_formula():
    # the same labels under every rule (the rules read one state); the formulas by hand, the
    # Beta tail by the binomial identity P(Beta(a+1, b+1) ≤ ½) = P(Binomial(a+b+1, ½) ≥ a+1)
    seen = set()
    for seed in range(30):
        q, y = ran("stall", seed, queries=seed % 8)
        shares = {}
        for rule in adaptive_explore.RULES:
            q.rule = rule
            shares[rule] = q.exploration_share()
        checks = q.checks()
        m = int(checks.sum())
        codes = y[q.labeled_]
        wrong = int((loo_predicted(q)[checks] != codes[checks]).sum())
        assert shares["error"] == pytest.approx(0.2 + 0.8 * (wrong + 1) / (m + 2))
        if m == 0:
            seen.add("none")
            got = (shares["stall"], shares["thompson"], shares["seeded"])
            assert got == pytest.approx((0.2, 0.6, 1.0))
            continue
        right = loo_predicted(q)[checks] == codes[checks]
        alone = loo_predicted(q, np.flatnonzero(checks)) == codes[checks]
        a, b = int((right & ~alone).sum()), int((~right & alone).sum())
        seen.add("tie" if a == b else "strategy" if a > b else "checks")
        worse = binom.sf(a, a + b + 1, 0.5)
        assert shares["thompson"] == pytest.approx(0.2 + 0.8 * worse)
        assert shares["stall"] == pytest.approx(0.2 + 0.8 * max(0.0, 2 * worse - 1))
        assert shares["seeded"] == shares["stall"]
    assert {"none", "strategy"} <= seen


def test_a_share_that_drifted_from_the_floor_is_followed_by_the_coin_and_the_draws_stay_uniform():
    # one labeled set, many seeds: the explored count matches the sum of the rule's shares
    # (Poisson binomial, far from the floor 0.2 here) and the draws are uniform over the
    # unlabeled points not excluded
    exclude = (10, 11)
    seeds = 1500
    counts = np.zeros(60)
    shares, explored = [], 0
    for seed in range(seeds):
        q, _ = taught("thompson", seed)
        shares.append(q.exploration_share())
        i = q.exploration(exclude)
        if i is not None:
            explored += 1
            counts[i] += 1
    p = np.asarray(shares)
    assert p.mean() > 0.5  # mostly no check among hand-picked labels: the share is 0.6
    assert abs(explored - p.sum()) < 4 * np.sqrt((p * (1 - p)).sum())
    free = np.setdiff1d(np.arange(60), [0, 1, 2, 3, 4, 5, *exclude])
    assert counts[np.setdiff1d(np.arange(60), free)].sum() == 0
    assert chisquare(counts[free]).pvalue > 1e-4


def test_the_share_is_a_function_of_the_state():
    a, y = taught("thompson", 4, labels=tuple(range(12)))
    X, _ = pool()
    b = AdaptiveExplore(rule="thompson", sigma=SIGMA, lam=LAM, focus=4, seed=4).start(X, [0, 1])
    b.teach_many(list(range(12)), [int(v) for v in y[:12]])
    assert a.exploration_share() == b.exploration_share()
    assert a.next_query()[0] == b.next_query()[0]
    a.teach(20, int(y[20]))
    a.undo()
    assert a.exploration_share() == b.exploration_share()
    assert a.next_query()[0] == b.next_query()[0]


def test_the_registry_builds_it_with_every_parameter_and_refuses_an_unknown_rule(monkeypatch):
    # the registry of this process is left as it was: other tests list its strategies
    monkeypatch.setitem(STRATEGIES, adaptive_explore.NAME, None)
    adaptive_explore.register()
    q = make_strategy(adaptive_explore.NAME, rule="thompson", sigma=2.0, explore=0.3, focus=5)
    assert type(q) is AdaptiveExplore and q.rule == "thompson"
    assert (q.sigma, q.explore, q.focus) == (2.0, 0.3, 5)
    X, _ = pool()
    with pytest.raises(ValueError, match="rule must be one of"):
        AdaptiveExplore(rule="greedy").start(X, [0, 1])


def test_the_summary_reads_the_worst_task_and_the_lead_from_the_runs():
    # two tasks, three seeds, curves made up so that each figure is known by hand
    rng = np.random.default_rng(0)
    runs, curves = [], {}
    for spec in ("arls-focused", "random", "uncertainty"):
        for task in ("a", "b"):
            for seed in range(3):
                c = rng.random(5).tolist()
                curves[spec, task, seed] = c
                runs.append({"strategy": spec, "dataset": task, "seed": seed, "accuracy": c})

    def by_hand(base, task, of):
        return np.mean(
            [of(curves["arls-focused", task, s]) - of(curves[base, task, s]) for s in range(3)]
        )

    line = adaptive_explore.summary(runs, ["a", "b"])[0]
    for name, of in (("AULC", np.mean), ("final", lambda c: c[-1])):
        vs_random = {t: 100 * by_hand("random", t, of) for t in "ab"}
        worst = min(vs_random, key=vs_random.get)
        lead = 100 * np.mean([by_hand("uncertainty", t, of) for t in "ab"])
        assert f"{name}: worst − random {vs_random[worst]:+.2f} ({worst}," in line
        assert f"mean − uncertainty {lead:+.2f}" in line.split(f"{name}:")[1]
