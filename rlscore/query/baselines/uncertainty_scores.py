"""Pure scoring utilities for the baseline strategies (as scikit-activeml and modAL do).

Each is a function of decision values or class probabilities over the pool and returns one
score per point; the strategies turn them into queries (lower score = queried first).
"""

from __future__ import annotations

import numpy as np

from rlscore.query.protocol.random_order import shuffled


def entropy(P) -> np.ndarray:
    """Entropy in nats of each row of class probabilities (n, T), with 0 · log 0 = 0."""
    P = np.asarray(P, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(P > 0, P * np.log(P), 0.0)
    return -plogp.sum(axis=1)


def random_rank(n: int, seed: int | None) -> np.ndarray:
    """Each point's position in a random order of ``n`` points fixed by ``seed``, (n,): the
    order of :class:`~rlscore.query.protocol.random_order.SparseShuffle` on ``default_rng(seed)``,
    which a
    pool on a cluster draws as far as it needs (:mod:`rlscore.query.cluster.block_query`)."""
    order = shuffled(np.random.default_rng(seed), n)
    rank = np.empty(n)
    rank[order] = np.arange(n)
    return rank
