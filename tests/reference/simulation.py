"""Labeling with an oracle, written out as a plain loop without :mod:`rlscore.experiments`.

A reference for :func:`rlscore.experiments.simulation.simulate.simulate` and
:func:`rlscore.experiments.comparison.compare.compare_strategies`: each run starts its own strategy
on the pool (its own kernel, no sharing), teaches the initial labels one by one, then asks, answers
with the truth and measures the error on the pool points not labeled yet (docs/mathematics.md: the
transductive error, and the class-balanced error as the mean of the per-class error rates).
"""

from __future__ import annotations

import numpy as np

from rlscore.query import make_strategy


def pool_errors(y: np.ndarray, prediction: np.ndarray, labeled) -> tuple[float, float]:
    """Plain and class-balanced error on the points not in ``labeled``."""
    rest = np.setdiff1d(np.arange(y.size), np.asarray(list(labeled), dtype=int))
    wrong = prediction[rest] != y[rest]
    per_class = [wrong[y[rest] == c].mean() for c in np.unique(y[rest])]
    return float(wrong.mean()), float(np.mean(per_class))


def oracle_run(X, y, name: str, params: dict, *, seed: int, queries: int, init: int) -> list:
    """One run: per step (step 0, after the ``init`` labels drawn with ``default_rng(seed)``,
    first) a dict of ``index``, ``score``, ``n_labels``, ``estimated_risk``,
    ``validation_error`` and ``balanced_error``."""
    q = make_strategy(name, **params)
    if "seed" in q.get_params():
        q.set_params(seed=seed)
    q.start(X, sorted(set(y.tolist())))
    labeled = []

    def record(index, score) -> dict:
        error, balanced = pool_errors(y, q.predict(), labeled)
        return {
            "index": index,
            "score": score,
            "n_labels": len(labeled),
            "estimated_risk": q.estimated_risk(),
            "validation_error": error,
            "balanced_error": balanced,
        }

    for i in np.random.default_rng(seed).choice(X.shape[0], size=init, replace=False):
        q.teach(int(i), y[i])
        labeled.append(int(i))
    steps = [record(None, None)]
    for _ in range(queries):
        i, score = q.next_query()
        q.teach(i, y[i])
        labeled.append(int(i))
        steps.append(record(i, score))
    return steps
