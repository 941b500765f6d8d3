"""The exact side of low-rank ARLS with ``refine``: exact ARLS's lookahead for a shortlist.

Low-rank ARLS (:class:`~rlscore.query.arls.lowrank.LowRankARLS`, docs/mathematics.md §7) scores its
candidates
on the Nyström kernel ``K̃ = ΦΦᵀ``. Exact ARLS's best and second-best expected risks differ by a
median of 4·10⁻⁵ of the score on the benchmark's pool (``benchmarks/large_pools.py``), far below
what K̃ at m = 500 resolves: the two pick the same point on 64–78 of 100 steps, although every
low-rank pick is within 10⁻³ of the exact best. With ``refine = k`` the k candidates of
lowest low-rank score are scored again by the **exact** expected risk of docs/mathematics.md §5, the
quantity
thesis ARLS computes for them, and the best of those is queried.

The exact lookahead of a candidate i needs only the exact predictions ``m = K_{:L} c`` and its
posterior covariance row ``d_i = K_{:i} − K_{:L}(K_LL + λW^L)⁻¹K_{Li}`` (docs/mathematics.md §5).
Both come from
:class:`~rlscore.query.arls.focused.FocusedARLS` without offset on its low-memory path
(:meth:`~rlscore.query.arls.focused.FocusedARLS.covariance_rows`): the kernel columns of the
labeled points and of a block of candidates, O(n (l + b)) memory, never an n × n matrix. The
risk pass over the pool points (or the risk sample) is low-rank ARLS's own, fed the exact rows:
:class:`ExactPosterior` offers the same three things as the feature state (``m``, ``p̂``, the
covariance rows of a block of candidates).
"""

from __future__ import annotations

import numpy as np

from rlscore.query.arls.focused import FocusedARLS
from rlscore.query.protocol.strategy import QueryStrategy

#: the strategy parameters the exact RLS state depends on (fixed from one start to the next;
#: ``clip`` changes only ``p̂`` and follows the strategy live, the risk weights are the
#: strategy's own)
EXACT_PARAMS = ("kernel", "sigma", "degree", "lam", "class_weight")
#: float64 elements of one array of covariance rows (or kernel columns) of a block of
#: candidates, 128 MB: the whole shortlist in one block up to 16 candidates at a million
#: points (one pass over the pool computes their kernel columns; one per candidate was 4×
#: slower there)
EXACT_BLOCK_ELEMENTS = 1 << 24


class ExactPosterior:
    """The exact RLS posterior of a strategy's labels (docs/mathematics.md §5), on the kernel
    columns only.

    Holds a :class:`~rlscore.query.arls.focused.FocusedARLS` (no offset: the thesis's RLS)
    started on the strategy's pool and, after :meth:`follow`, taught exactly its labels. The
    lookahead reads:

    * ``m`` — exact predictions on the pool, (n, T');
    * ``probabilities`` — their ``p̂(y|x)``, (n, T), by the strategy's clipping rule;
    * :meth:`covariance` — the exact covariance rows ``d_i`` of a block of candidates;
    * ``block_size`` — candidates per block: the shortlist, unless a block's rows would exceed
      :data:`EXACT_BLOCK_ELEMENTS` float64 per array (at least one candidate).

    Parameters
    ----------
    params : dict
        The strategy's :data:`EXACT_PARAMS` (kernel, σ, degree, λ, class weights) when it
        started.
    """

    def __init__(self, params: dict) -> None:
        self.params = {k: params[k] for k in EXACT_PARAMS}
        self.scorer_: FocusedARLS | None = None  # started by the first follow
        self.m: np.ndarray | None = None
        self.probabilities: np.ndarray | None = None
        self.block_size = 1

    @staticmethod
    def block_for(n: int, shortlist: int) -> int:
        """Candidates of a shortlist whose covariance rows are computed together on a pool of
        ``n`` points."""
        return max(1, min(shortlist, EXACT_BLOCK_ELEMENTS // n))

    def _scorer(self, n: int, shortlist: int) -> FocusedARLS:
        focus = self.block_for(n, shortlist)
        return FocusedARLS(**self.params, focus=focus, fit_intercept=False)

    def memory_bytes(self, n: int, n_classes: int, n_labels: int, shortlist: int) -> int:
        """Bytes of the exact state on a pool of ``n`` points with ``n_labels`` labels and a
        shortlist of ``shortlist`` candidates: the focused strategy's low-memory budget (one kernel
        column per label, its n-vectors and the rows of one block of candidates,
        :meth:`FocusedARLS.memory_bytes
        <rlscore.query.rls_state.on_kernel.RLSPoolStrategy.memory_bytes>`)."""
        return self._scorer(n, shortlist).memory_bytes(n, n_classes, n_labels)

    def follow(self, strategy: QueryStrategy) -> ExactPosterior:
        """Bring the exact state in step with ``strategy`` (started, same pool); returns self.

        Labels the strategy no longer holds (undo, forget, relabel) are forgotten, new ones
        taught with one build (:meth:`~rlscore.query.protocol.strategy.QueryStrategy.forget`,
        ``teach_many``): the state then equals a fresh start taught the strategy's labels, to
        rounding (the order of the labels may differ).
        """
        scorer = self.scorer_
        if scorer is None:
            scorer = self._scorer(strategy.n_pool_, strategy.refine)
            scorer.start(strategy.X_, strategy.classes_)
            self.scorer_ = scorer
        scorer.set_params(clip=strategy.clip)  # p̂ by the strategy's rule (set_params)
        want = list(zip(strategy.labeled_, strategy.labels_, strict=True))
        have = list(zip(scorer.labeled_, scorer.labels_, strict=True))
        if have != want[: len(have)]:
            keep = set(want)
            for j, label in have:
                if (j, label) not in keep:
                    scorer.forget(j)
        held = set(scorer.labeled_)
        new = [(i, y) for i, y in want if i not in held]
        if new:
            scorer.teach_many([i for i, _ in new], [y for _, y in new])
        self.m = scorer.m_
        self.probabilities = scorer.class_probabilities()
        self.block_size = self.block_for(strategy.n_pool_, strategy.refine)
        return self

    def covariance(self, idx: np.ndarray) -> _ExactCovariance:
        """The exact covariance rows of the candidates ``idx`` (after :meth:`follow`)."""
        return _ExactCovariance(self.scorer_.covariance_rows(idx), idx)


class _ExactCovariance:
    """``d_i`` of a block of candidates, one (b, n) array per group of one-vs-all columns."""

    def __init__(self, rows: list[np.ndarray], idx: np.ndarray) -> None:
        self._rows = rows
        # D_ii per candidate and group, (b, groups)
        self.diagonal = np.column_stack([D[np.arange(idx.size), idx] for D in rows])

    def by_point(self, points) -> list[np.ndarray]:
        """``d_i`` on the pool points ``points``, (p, b) per group."""
        return [D[:, points].T for D in self._rows]

    def by_candidate(self, points) -> list[np.ndarray]:
        """``d_i`` on the pool points ``points``, (b, p) per group."""
        return [D[:, points] for D in self._rows]


__all__ = ["EXACT_PARAMS", "ExactPosterior"]
