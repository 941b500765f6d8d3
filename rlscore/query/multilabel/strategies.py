"""The multi-label query strategies: ARLS's risk summed over the labels, its focused variant,
the smallest per-label margin and random.

All run on the shared state of :class:`~rlscore.query.multilabel.state.MultiLabelStrategy`
(docs/multilabel.md §3):

* :class:`MultiLabelARLS` — the thesis' expected risk after one more label (Paskov §3.3,
  docs/mathematics.md §5), the binary risk of each class's classifier summed over the classes.
  With one shared covariance a label set moves class l's classifier by its own target only,
  ``f_l' = m_l + d_i (y_l − m_il)/s_i``, so the expectation over the 2^L label sets is the sum of
  L binary expectations: ``Σ_l Σ_{y=±1} p̂_l(y|x_i) R̂_l(f_l^{+(i,y)})`` in O(L n²) per query;
* :class:`MultiLabelFocusedARLS` — that expected risk on the ``focus`` unlabeled points with the
  smallest per-label margin ``min_l |f_l(x)|``;
* :class:`MultiLabelUncertainty` — the smallest per-label margin;
* :class:`MultiLabelRandom` — a random order fixed by ``seed`` (passive learning).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from rlscore.query.arls.thesis import NUMPY_LOOKAHEAD, hypothetical_risks
from rlscore.query.baselines.strategies import RandomOrder, _unlabeled_only
from rlscore.query.multilabel.state import MultiLabelStrategy
from rlscore.query.protocol.strategy import NoCandidatesError

#: candidates per query of focused multi-label ARLS by default
DEFAULT_FOCUS = 50
#: points scored for focused ARLS's first query, when no margin ranks them yet
COLD_START_CANDIDATES = 1000


class MultiLabelARLS(MultiLabelStrategy):
    """Multi-label ARLS: the expected summed binary risk after one more label (module
    docstring). Parameters as :class:`~rlscore.query.multilabel.state.MultiLabelStrategy`."""

    def scores(self) -> np.ndarray:
        self._check_started()
        if self._scores_cache is not None and self._scores_cache[0] == self._version:
            return self._scores_cache[1].copy()
        out = np.full(self.n_pool_, np.nan)
        free = np.ones(self.n_pool_, dtype=bool)
        free[self.labeled_] = False
        idx = np.flatnonzero(free)
        if idx.size:
            out[idx] = self.expected_risks(idx)
        self._scores_cache = (self._version, out)
        return out.copy()

    def expected_risks(self, idx: np.ndarray) -> np.ndarray:
        """``Σ_l Σ_{y=±1} p̂_l(y|x_i) R̂_l(f_l^{+(i,y)})`` for the candidates ``idx``, (b,).

        The candidates go in blocks of at most :data:`NUMPY_LOOKAHEAD` covariance entries;
        each label's hypothetical classifiers are scored by the binary risk of ARLS
        (:func:`~rlscore.query.arls.thesis.hypothetical_risks`)."""
        idx = np.asarray(idx, dtype=np.intp)
        n = self.n_pool_
        step = max(1, NUMPY_LOOKAHEAD // n)
        out = np.zeros(idx.size)
        for a in range(0, idx.size, step):
            block = idx[a : a + step]
            buffer = np.empty((block.size, n))
            for g, D in enumerate(self._Ds):
                rows = D[block]
                for col in np.flatnonzero(self._group_of == g):
                    self._add_class_risks(out[a : a + block.size], block, rows, col, buffer)
        return out

    def _add_class_risks(self, out, block, rows, col: int, buffer) -> None:
        """Add class ``col``'s ``Σ_{y=±1} p̂(y|x_i) R̂(f^{+(i,y)})`` of the candidates ``block``
        to ``out``; ``rows``: their rows of the class's covariance. The new label weighs what
        a member (non-member) of the class weighs now, ``s_i = D_ii + λ/a(y)``."""
        one_group, unit = np.zeros(1, dtype=np.intp), np.ones(2)
        d_ii = rows[np.arange(block.size), block]
        m = self._m[:, col : col + 1]
        m_i = m[block, 0]
        positive = np.clip((m_i + 1.0) / 2.0, 0.0, 1.0)
        for y, p, side in ((1.0, positive, 1), (-1.0, 1.0 - positive, 0)):
            alpha = ((y - m_i) / (d_ii + self._lam / self._side[side, col]))[:, None]
            risk = hypothetical_risks([rows], alpha, m, one_group, unit, clip=True, out=buffer)
            out += p * risk


class MultiLabelFocusedARLS(MultiLabelARLS):
    """Multi-label ARLS on the ``focus`` unlabeled points with the smallest per-label margin
    ``min_l |f_l(x)|`` (ties to the lowest pool index); the others score NaN.

    Parameters as :class:`~rlscore.query.multilabel.state.MultiLabelStrategy`, plus
    ``focus`` (int ≥ 1, default :data:`DEFAULT_FOCUS`). Before any label every margin is 0 and
    up to :data:`COLD_START_CANDIDATES` points are scored. The candidates are drawn among the
    points not excluded by :meth:`next_query`, so an exclusion never empties the draw.
    """

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float = 1.0,
        graph_k: int = 6,
        graph_t: float | None = None,
        class_weight: None | str = None,
        focus: int = DEFAULT_FOCUS,
    ):
        super().__init__(
            kernel=kernel, sigma=sigma, degree=degree, lam=lam, graph_k=graph_k, graph_t=graph_t,
            class_weight=class_weight,
        )  # fmt: skip
        self.focus = focus

    def _start(self, X: np.ndarray, K: np.ndarray | None) -> None:
        if isinstance(self.focus, bool) or not isinstance(self.focus, int | np.integer):
            raise ValueError(f"focus must be an integer ≥ 1, got {self.focus!r}")
        if self.focus < 1:
            raise ValueError(f"focus must be an integer ≥ 1, got {self.focus!r}")
        super()._start(X, K)

    def scores(self, exclude: Iterable[int] | None = None) -> np.ndarray:
        """The expected risk of each candidate (module docstring), NaN elsewhere."""
        self._check_started()
        free = np.ones(self.n_pool_, dtype=bool)
        free[self.labeled_] = False
        if exclude is not None:
            ex = np.fromiter((int(e) for e in exclude), dtype=np.int64)
            free[ex[(ex >= 0) & (ex < self.n_pool_)]] = False
        idx = np.flatnonzero(free)
        count = self.focus if self.labeled_ else max(self.focus, COLD_START_CANDIDATES)
        if idx.size > count:
            # stable: ties to the lowest pool index
            idx = np.sort(idx[np.argsort(self.margins()[idx], kind="stable")[:count]])
        out = np.full(self.n_pool_, np.nan)
        if idx.size:
            out[idx] = self.expected_risks(idx)
        return out

    def next_query(self, exclude: Iterable[int] | None = None) -> tuple[int, float]:
        """The candidate of lowest expected risk, the candidates drawn among the points not
        in ``exclude``."""
        s = self.scores(exclude)
        if np.isnan(s).all():
            raise NoCandidatesError("no candidate left: every point is labeled or skipped")
        i = int(np.nanargmin(s))
        return i, float(s[i])


class MultiLabelUncertainty(MultiLabelStrategy):
    """Query the smallest per-label margin ``min_l |f_l(x)|``: the point some class is least
    sure of. Keeps no covariance (the predictions are refitted after each label)."""

    _keeps_covariance = False

    def scores(self) -> np.ndarray:
        self._check_started()
        return _unlabeled_only(self.margins(), self.labeled_)


class MultiLabelRandom(RandomOrder, MultiLabelStrategy):
    """Query the pool in a random order fixed by ``seed`` (the order survives undo/rebuild;
    :class:`~rlscore.query.baselines.strategies.RandomOrder`, as the single-label random
    strategy).

    Parameters as :class:`~rlscore.query.multilabel.state.MultiLabelStrategy`, plus ``seed``
    (int or None).
    """

    _keeps_covariance = False

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float = 1.0,
        graph_k: int = 6,
        graph_t: float | None = None,
        class_weight: None | str = None,
        seed: int | None = 0,
    ):
        super().__init__(
            kernel=kernel, sigma=sigma, degree=degree, lam=lam, graph_k=graph_k, graph_t=graph_t,
            class_weight=class_weight,
        )  # fmt: skip
        self.seed = seed


__all__ = [
    "COLD_START_CANDIDATES",
    "DEFAULT_FOCUS",
    "MultiLabelARLS",
    "MultiLabelFocusedARLS",
    "MultiLabelRandom",
    "MultiLabelUncertainty",
]
