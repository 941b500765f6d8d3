"""Baseline query strategies over the same incremental RLS state as ARLS.

* :class:`RandomQuery` — passive learning: points in a fixed random order (Paskov's "online RLS
  that selects points at random"; with ``class_weight="balanced"`` his *weighted random*);
* :class:`UncertaintyQuery` — the smallest margin of the RLS predictor;
* :class:`EntropyQuery` — Yajima's most-uncertain query (MUQ): the largest entropy of the
  predicted class probabilities.

They share :class:`~rlscore.query.rls_state.on_kernel.RLSPoolStrategy` (the RLS predictions ``m`` on
the pool, the estimated risk, the class weights), so their curves are comparable with ARLS's. Having
no lookahead, they keep no covariance and refit ``m`` after each label in O(l³ + nl). With a vector
kernel they do not even form the pool kernel: they keep the kernel columns of the labeled points
only, O(n) memory per label (the low-memory path of :mod:`~rlscore.query.rls_state.on_kernel`, sized
by ``memory_bytes``), so they take pools far beyond ARLS's reach; with a graph kernel or a given
``K`` they hold the one n × n kernel. The scores are the pure functions of
:mod:`rlscore.query.baselines.uncertainty_scores`. Ties go to the lowest pool index.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from rlscore.core.rls.confidence import margin
from rlscore.query.baselines.uncertainty_scores import entropy, random_rank
from rlscore.query.protocol.strategy import NoCandidatesError
from rlscore.query.rls_state.on_kernel import RLSPoolStrategy


class _Baseline(RLSPoolStrategy):
    """A strategy without lookahead on the RLS state: no covariance kept (module docstring)."""

    _keeps_covariance = False


class RandomOrder:
    """Queries in a random order of the pool fixed by the strategy's ``seed`` (the order
    survives undo and rebuild): mixed into a strategy before its state's class
    (:class:`RandomQuery`, the multi-label random strategy)."""

    #: each point's position in the random order
    _rank: np.ndarray

    def _start(self, X: np.ndarray, K: np.ndarray | None) -> None:
        super()._start(X, K)
        self._rank = random_rank(X.shape[0], self.seed)

    def uniform_draw(self, exclude: Iterable[int] | None = None) -> int | None:
        """Every query: the next point of a uniformly random order is a uniform draw from the
        unlabeled points (the order does not depend on the labels)."""
        try:
            return self.next_query(exclude)[0]
        except NoCandidatesError:
            return None

    @property
    def uniform_share(self) -> float:
        """Every query is a uniform draw."""
        return 1.0

    def scores(self) -> np.ndarray:
        """The point's position in the random order."""
        self._check_started()
        return _unlabeled_only(self._rank, self.labeled_)


class RandomQuery(RandomOrder, _Baseline):
    """Query the pool in a random order fixed by ``seed`` (the order survives undo/rebuild).

    Parameters as :class:`~rlscore.query.rls_state.on_kernel.RLSPoolStrategy`, plus ``seed`` (int or
    None).
    """

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float = 1.0,
        class_weight=None,
        bias_corrected: bool | None = None,
        clip: bool = True,
        graph_k: int = 6,
        graph_t: float | None = None,
        seed: int | None = 0,
    ):
        super().__init__(
            kernel=kernel,
            sigma=sigma,
            degree=degree,
            lam=lam,
            class_weight=class_weight,
            bias_corrected=bias_corrected,
            clip=clip,
            graph_k=graph_k,
            graph_t=graph_t,
        )
        self.seed = seed


class UncertaintyQuery(_Baseline):
    """Query the point closest to the decision boundary.

    Score = margin ``|f(x)|`` (binary) or the gap between the two largest one-vs-all values
    ``f_(1)(x) − f_(2)(x)`` (multiclass; twice the binary margin when T = 2).
    """

    def scores(self) -> np.ndarray:
        self._check_started()
        return _unlabeled_only(margin(self.decision_function()), self.labeled_)


class EntropyQuery(_Baseline):
    """Yajima's MUQ: query the point whose class probabilities (:meth:`predict_proba`, clipped
    RLS soft scores) have the largest entropy. Score = minus the entropy (nats)."""

    def scores(self) -> np.ndarray:
        self._check_started()
        return _unlabeled_only(-entropy(self.predict_proba()), self.labeled_)


def _unlabeled_only(score: np.ndarray, labeled: list[int]) -> np.ndarray:
    out = np.array(score, dtype=np.float64, copy=True)
    out[labeled] = np.nan
    return out
