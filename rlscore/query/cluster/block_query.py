"""The client of a pool held as row blocks of features by other processes (a cluster):
:class:`BlockQuery`, a query strategy that runs the block passes and finishes the query.

:class:`BlockQuery` keeps the labels, the labeled rows' features and the state built from them
(no n-vector of the pool unless every free point is a candidate), runs the passes of
:mod:`~rlscore.query.cluster.block_passes` and :mod:`~rlscore.query.cluster.block_lookahead`
through a ``map_blocks`` callable (:data:`~rlscore.query.cluster.block_passes.MapBlocks`;
:class:`rlscore.data.cluster.parquet_pool.ClusterPool` runs it on Dask workers) and finishes the
query. Its picks and risks are those of the in-memory engine on the same features:
:class:`~rlscore.query.arls.lowrank.LowRankARLS` and
:class:`~rlscore.query.arls.focused.FocusedARLS`,
:class:`~rlscore.query.baselines.strategies.UncertaintyQuery`,
:class:`~rlscore.query.baselines.strategies.EntropyQuery`,
:class:`~rlscore.query.baselines.strategies.RandomQuery` with ``kernel="linear"`` on Φ (the same
RLS: ``K = ΦΦᵀ``). Focused ARLS is the summary pass ranking by margin (its ``focus`` candidates) and
the lookahead pass on them over every row, with its offset ``b`` in the predictions and an affine
term in the covariance rows (:class:`BlockQuery`). The random draws are the in-memory engine's, made
on the client from the seed, the labeled set and the pool size by the same functions
(:func:`~rlscore.query.arls.lowrank.draw_generator`,
:func:`~rlscore.query.arls.focused.cold_start_positions`,
:meth:`~rlscore.query.arls.focused.FocusedARLS.exploration_position`), so they do not depend on how
the pool is split. A drawn position among the free points becomes a pool index by a search in the
sorted labeled set, without an n-vector; low-rank ARLS's draw before any label and the random
strategy's order are prefixes of a random order of the pool drawn on demand
(:class:`~rlscore.query.protocol.random_order.SparseShuffle`: O(k) memory for k points drawn,
whatever n).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager

import numpy as np

from rlscore.core.rls.confidence import soft_probabilities
from rlscore.query.arls.focused import (
    DEFAULT_EXPLORE,
    DEFAULT_FOCUS,
    DEFAULT_OFFSET_PRECISION,
    FocusedARLS,
    cold_start_positions,
)
from rlscore.query.arls.lowrank import (
    CANDIDATE_BLOCK,
    CANDIDATE_DRAW,
    RISK_DRAW,
    draw_generator,
    scaled_estimates,
)
from rlscore.query.cluster.block_lookahead import block_lookahead
from rlscore.query.cluster.block_passes import (
    BlockPredictions,
    MapBlocks,
    base_rule_scores,
    block_decisions,
    block_extent,
    block_histogram,
    block_predicted_positions,
    block_rows,
    block_summary,
)
from rlscore.query.protocol.random_order import SparseShuffle, first_outside
from rlscore.query.protocol.strategy import NoCandidatesError
from rlscore.query.rls_state.on_features import FeaturePoolStrategy
from rlscore.query.rls_state.weighted import unclipped_probabilities

#: strategies with a block pass
BLOCK_STRATEGIES = ("arls-lowrank", "arls-focused", "uncertainty", "entropy", "random")
#: what the summary pass ranks the rows by, per strategy (None: no ranking)
_RANKING = {
    "arls-lowrank": "margin",
    "arls-focused": "margin",
    "uncertainty": "margin",
    "entropy": "entropy",
}


def _class_probabilities(m: np.ndarray, clip: bool) -> np.ndarray:
    """``p̂`` of predictions ``m`` (k, T') as
    :meth:`~rlscore.query.rls_state.weighted.WeightedRLSStrategy.class_probabilities` makes them
    on the pool: clipped and normalised, or the raw ``(f + 1)/2`` with ``clip=False``."""
    f = base_rule_scores(m)
    return soft_probabilities(f) if clip else unclipped_probabilities(f)


class _LabeledState(FeaturePoolStrategy):
    """The RLS state in features of the labeled rows alone: started on their features (after
    two zero rows, never labeled, so that a state without labels exists) with Φ given."""

    def pool_features(self, X: np.ndarray) -> tuple[np.ndarray, None]:
        return X, None  # the rows are features already


def _nth_free(out: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The pool indices of the points at ``positions`` among those not in the sorted ``out``
    (pool order): what ``flatnonzero(free)[positions]`` gives, without an n-vector."""
    positions = np.asarray(positions, dtype=np.intp)
    return positions + np.searchsorted(out - np.arange(out.size), positions, side="right")


class BlockQuery:
    """A query strategy on features held as row blocks elsewhere (module docstring).

    Parameters
    ----------
    map_blocks : callable
        ``map_blocks(fn, *args)`` → ``[fn(Φ_b, offset_b, *args) for b in blocks]``.
    n_pool : int
        Rows of the pool (the blocks' rows in order).
    classes : sequence
        The session's classes (2 or more).
    strategy : {"arls-lowrank", "arls-focused", "uncertainty", "entropy", "random"}
        The in-memory strategy reproduced.
    lam, class_weight, bias_corrected, clip
        As :class:`~rlscore.query.rls_state.on_features.FeaturePoolStrategy`.
    candidates, risk_sample, random_state
        As :class:`~rlscore.query.arls.lowrank.LowRankARLS` (low-rank ARLS only).
    focus, fit_intercept, explore, offset_precision
        As :class:`~rlscore.query.arls.focused.FocusedARLS` (focused ARLS only).
    seed : int or None
        As :class:`~rlscore.query.baselines.strategies.RandomQuery` and, for focused ARLS, the seed
        of its exploration's draws (None: fresh entropy, drawn once here).

    Focused ARLS keeps its state as the in-memory engine does: a
    :class:`~rlscore.query.arls.focused.FocusedARLS` with ``kernel="linear"`` taught the
    labeled rows (its weights, offsets, solves and exploration draws are the in-memory
    engine's on ``K = ΦΦᵀ``), turned into the primal ``w = Φ_Lᵀ c`` and, for the shortlist,
    ``d_i = Φ r_i + t_i`` with ``r_i = φ_i − Φ_Lᵀ G⁻¹ Φ_L φ_i − u t_i``, ``u = Φ_Lᵀ G⁻¹ 1``,
    ``t_i = (1 − φ_iᵀu)/(1ᵀG⁻¹1 + P)`` when the offset is fitted (``u``, ``t`` = 0 otherwise):
    the covariance rows ``D_{C:} + r rᵀ/(1ᵀG⁻¹1 + P)`` of
    :meth:`~rlscore.query.arls.focused.FocusedARLS.covariance_rows` written in features.
    """

    def __init__(
        self,
        map_blocks: MapBlocks,
        n_pool: int,
        classes: Sequence,
        strategy: str = "arls-lowrank",
        *,
        lam: float = 1.0,
        class_weight=None,
        bias_corrected: bool | None = None,
        clip: bool = True,
        candidates: int | None = None,
        risk_sample: int | None = None,
        random_state: int | None = 0,
        seed: int | None = 0,
        focus: int = DEFAULT_FOCUS,
        fit_intercept: bool = True,
        explore: float = DEFAULT_EXPLORE,
        offset_precision: float = DEFAULT_OFFSET_PRECISION,
    ) -> None:
        if strategy not in BLOCK_STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}: choose one of {BLOCK_STRATEGIES}")
        self._map = map_blocks
        self.n_pool_ = int(n_pool)
        self.strategy = strategy
        self.candidates, self.risk_sample = candidates, risk_sample
        self.random_state, self.seed = random_state, seed
        self._params = dict(
            kernel="linear", lam=lam, class_weight=class_weight,
            bias_corrected=bias_corrected, clip=clip,
        )  # fmt: skip
        if strategy == "arls-focused":
            # seed None: fresh entropy drawn once, so the draws stay a function of the
            # labels across the state's rebuilds (as FocusedARLS draws it once at start)
            entropy = np.random.SeedSequence(seed).entropy
            self._params.update(
                focus=focus, fit_intercept=fit_intercept, explore=explore, seed=entropy,
                offset_precision=offset_precision,
            )  # fmt: skip
        else:
            self._params.update(random_state=random_state)
        self.classes_ = np.asarray(list(classes))
        self.labeled_: list[int] = []
        self.labels_: list = []
        self._rows = np.empty((0, 0))
        self._state = self._build()
        self._order = None
        if strategy == "random":
            # RandomQuery's order (rlscore.query.baselines.uncertainty_scores.random_rank), fixed by
            # the seed whatever the blocks, drawn only as far as the labeled and excluded points
            # reach
            self._order = SparseShuffle(np.random.default_rng(seed), self.n_pool_)
        self._summary: tuple | None = None
        self.risk_standard_error_ = 0.0

    # -- labels ---------------------------------------------------------------------------
    def teach(self, i: int, y) -> None:
        """Teach label ``y`` at pool index ``i`` (the row's features are fetched once)."""
        self.teach_many([i], [y])

    def teach_many(self, indices, labels) -> None:
        """Teach several labels with one fetch of their rows and one build."""
        idx = [int(i) for i in indices]
        if any(not 0 <= i < self.n_pool_ for i in idx) or len(set(idx)) < len(idx):
            raise ValueError("indices must be distinct pool indices")
        if set(idx) & set(self.labeled_):
            raise ValueError("a point is labeled already")
        unknown = [y for y in labels if y not in set(self.classes_.tolist())]
        if unknown:
            raise ValueError(
                f"labels {unknown!r} are not among the classes {self.classes_.tolist()}"
            )
        new = self.rows(idx)
        self._rows = new if not self.labeled_ else np.vstack([self._rows, new])
        self.labeled_ += idx
        self.labels_ += list(labels)
        self._state = self._build()

    def forget(self, i: int) -> None:
        """Remove the label of point ``i`` (undo): the state is rebuilt from the others."""
        pos = self.labeled_.index(int(i))
        self._rows = np.delete(self._rows, pos, axis=0)
        del self.labeled_[pos], self.labels_[pos]
        self._state = self._build()

    def _build(self) -> _LabeledState | FocusedARLS:
        """The state of the labels: :class:`FeaturePoolStrategy` (focused ARLS:
        :class:`FocusedARLS` on ``K = ΦΦᵀ``) taught the labeled rows."""
        r = self._rows.shape[1] if self.labeled_ else 1
        pad = np.zeros((2, r))
        X = np.vstack([pad, self._rows]) if self.labeled_ else pad
        kind = FocusedARLS if self.strategy == "arls-focused" else _LabeledState
        state = kind(**self._params).start(X, self.classes_)
        if self.labeled_:
            state.teach_many(range(2, 2 + len(self.labeled_)), self.labels_)
        self._primal = None
        if kind is FocusedARLS and self.labeled_:
            c, b = state.dual_solution()
            self._primal = (self._rows.T @ c, b)  # w = Φ_Lᵀ c: f = Φ w + b
        self._summary = None
        return state

    def rows(self, indices) -> np.ndarray:
        """The features of pool rows ``indices`` (in that order), one pass over the blocks."""
        idx = np.asarray(indices, dtype=np.intp)
        order = np.argsort(idx, kind="stable")
        parts = [p for p in self._map(block_rows, idx[order]) if p.size]
        out = np.empty((idx.size, parts[0].shape[1]))
        out[order] = np.vstack(parts)
        return out

    # -- passes ---------------------------------------------------------------------------
    def coefficients(self) -> np.ndarray:
        """Primal coefficients ``w`` (r, T') of the labels (zeros before any)."""
        if not self.labeled_:
            return np.zeros((self._n_features(), self.intercept().size))
        if self._primal is not None:
            return self._primal[0]
        return self._state.coef_

    def intercept(self) -> np.ndarray:
        """The offsets ``b`` (T',) of the predictions ``Φ w + b``: focused ARLS's (zeros
        until its offset is fitted), zeros for the other strategies."""
        if self._primal is not None:
            return self._primal[1]
        return np.zeros(len(self._state.lookahead_terms()[3]))

    def decisions(self, features: np.ndarray) -> np.ndarray:
        """Decision values ``φ w + b`` of rows given by their features, (k, T')."""
        return features @ self.coefficients() + self.intercept()

    def _n_features(self) -> int:
        if not hasattr(self, "_r"):
            self._r = self.rows([0]).shape[1]
        return self._r

    def _summarize(self, exclude: np.ndarray, k: int) -> tuple[float, np.ndarray, np.ndarray]:
        ranking = _RANKING.get(self.strategy)
        inv_w = self._state.lookahead_terms()[0]
        coef, clip = self.coefficients(), self._state.clip
        b = self._primal[1] if self._primal is not None else None
        parts = self._map(block_summary, coef, inv_w, clip, ranking, k, exclude, b)
        risk = float(sum(p[0] for p in parts))
        idx = np.concatenate([p[1] for p in parts])
        score = np.concatenate([p[2] for p in parts])
        best = np.lexsort((idx, score))[:k]
        return risk, idx[best], score[best]

    def decision_values(self) -> np.ndarray:
        """``Φ w`` on every pool row, (n, T'): one pass, n × T' floats to the client (the
        in-memory strategy's ``decision_function``, before dropping a single column)."""
        b = self._primal[1] if self._primal is not None else None
        return np.vstack(self._map(block_decisions, self.coefficients(), b))

    def predicted_positions(self) -> np.ndarray:
        """The position in ``classes_`` of every pool row's predicted class, (n,) in the
        smallest integer dtype: ``predicted_index`` of :meth:`decision_values` (ties to the
        first class, two classes by the sign), computed on the blocks, so only n bytes reach
        the client (up to 256 classes) instead of n × T' floats."""
        b = self._primal[1] if self._primal is not None else None
        T = self.classes_.size
        lookup = np.arange(T, dtype=np.min_scalar_type(T - 1))
        return np.concatenate(self._map(block_predicted_positions, self.coefficients(), b, lookup))

    def pool_predictions(
        self, errors: Callable[[], AbstractContextManager] | None = None
    ) -> BlockPredictions:
        """The pool's predicted classes under the current labels, as the state that makes
        them (:class:`BlockPredictions`; no pass now): what a session's history keeps per
        label. ``errors``: the context each later pass runs in."""
        b = self._primal[1] if self._primal is not None else None
        return BlockPredictions(self._map, self.n_pool_, self.coefficients(), b, errors)

    def density(
        self, center: np.ndarray, axes: np.ndarray, bins: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every pool row projected to 2-D by ``(φ − center) A`` (``axes`` A: r × 2) and
        counted on a ``bins`` × ``bins`` grid over their extent, in two passes (the extent,
        then the counts): ``x_edges``, ``y_edges`` (bins + 1,) and the counts (bins, bins),
        int64, row-major over (y, x), as
        :func:`rlscore.viz.plane.geometry.density_grid` of the projected rows (an axis where every
        row has the same coordinate spans one unit from it). Only the grid reaches here."""
        if isinstance(bins, bool) or not isinstance(bins, int | np.integer) or bins < 1:
            raise ValueError(f"bins must be a positive integer, got {bins!r}")
        center = np.asarray(center, dtype=np.float64).reshape(-1)
        axes = np.asarray(axes, dtype=np.float64).reshape(center.size, 2)
        extents = np.array(self._map(block_extent, center, axes))
        lo, hi = np.nanmin(extents[:, 0], axis=0), np.nanmax(extents[:, 1], axis=0)
        if not np.isfinite(lo).all():
            lo, hi = np.zeros(2), np.ones(2)  # no finite row: an empty unit grid
        span = np.where(hi > lo, hi - lo, 1.0)
        x_edges, y_edges = (lo[k] + span[k] * np.arange(bins + 1) / bins for k in range(2))
        # lo + (hi − lo) may round below hi: the largest row would then be left out
        x_edges[-1], y_edges[-1] = np.where(hi > lo, hi, lo + 1.0)
        parts = self._map(block_histogram, center, axes, x_edges, y_edges)
        return x_edges, y_edges, np.sum(parts, axis=0)

    def estimated_risk(self) -> float:
        """``R̂(f)`` of the current classifier on the whole pool (eqs. 3.47, 3.49)."""
        if self._summary is None:
            self._summary = self._summarize(np.asarray(sorted(self.labeled_), np.intp), 0)
        return self._summary[0]

    def next_query(self, exclude=None) -> tuple[int, float]:
        """The in-memory strategy's pick and score; the summary pass also gives the risk."""
        ex = set() if exclude is None else {int(e) for e in exclude if 0 <= int(e) < self.n_pool_}
        ex_only = tuple(sorted(ex))
        out = np.asarray(sorted(ex | set(self.labeled_)), dtype=np.intp)
        if out.size >= self.n_pool_:
            raise NoCandidatesError("no candidate left: every point is labeled or skipped")
        if self.strategy == "random":
            self.estimated_risk()
            i, pos = first_outside(self._order, out)
            return i, float(pos)
        if self.strategy == "arls-focused":
            return self._focused(out, ex)
        if self.strategy != "arls-lowrank":
            risk, idx, score = self._summarize(out, 1)
            self._summary = (risk, idx, score) if not ex else self._summary
            return int(idx[0]), float(score[0])
        return self._arls(out, ex_only)

    # -- ARLS -----------------------------------------------------------------------------
    def _rng(self, draw: int) -> np.random.Generator:
        """LowRankARLS's generator of a draw (:func:`.arls_lowrank.draw_generator`)."""
        return draw_generator(self.random_state, draw, self.labeled_)

    def candidate_indices(self, out: np.ndarray) -> np.ndarray:
        """LowRankARLS's candidates: the ⌊k/2⌋ smallest margins among the free points (from
        the blocks) and k − ⌊k/2⌋ drawn among the other free points (on the client)."""
        n_free = self.n_pool_ - out.size
        k = self.candidates
        if k is None or k >= n_free:
            free = np.ones(self.n_pool_, dtype=bool)
            free[out] = False
            return np.flatnonzero(free)
        half = k // 2
        rng = self._rng(CANDIDATE_DRAW)
        if self.labeled_:
            risk, uncertain, _ = self._summarize(out, half)
            if out.size == len(self.labeled_):
                self._summary = (risk, uncertain, None)
        else:
            # no label: every margin is 0, a tie the in-memory engine breaks by the first
            # points of a random order of the free points: the same draw, made here
            uncertain = np.sort(_nth_free(out, SparseShuffle(rng, n_free).take(half)))
        # position j among the points neither out nor uncertain: the j-th of the complement
        drawn = _nth_free(np.union1d(out, uncertain), rng.choice(n_free - half, k - half, False))
        return np.sort(np.concatenate([uncertain, drawn]))

    def risk_points(self) -> np.ndarray | None:
        """LowRankARLS's risk points (sorted), None for the whole pool."""
        s = self.risk_sample
        if s is None or s >= self.n_pool_:
            return None
        return np.sort(self._rng(RISK_DRAW).choice(self.n_pool_, s, replace=False))

    def _lookahead_pass(
        self, cand: np.ndarray, phi_c: np.ndarray, R: list, shift, S: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The candidates' ``Σ_z g_i(z)``, ``Σ_z g_i(z)²`` over the blocks (risk points ``S``,
        None: every row) given ``d_i = Φ r_i + t_i`` by ``R`` and ``shift`` (None: t = 0)."""
        st = self._state
        b = self._primal[1] if self._primal is not None else None
        m_c = self.decisions(phi_c)
        diagonal = np.column_stack([np.einsum("ij,ji->i", phi_c, r) for r in R])
        if shift is not None:
            diagonal += shift
        payload = dict(
            m=m_c, probabilities=_class_probabilities(m_c, st.clip), R=R, diagonal=diagonal,
            shift=shift, intercept=b, block_size=CANDIDATE_BLOCK,
        )  # fmt: skip
        parts = self._map(
            block_lookahead, self.coefficients(), payload, st.lookahead_terms(),
            self.classes_.size, st.clip, S,
        )  # fmt: skip
        return np.sum([p[0] for p in parts], axis=0), np.sum([p[1] for p in parts], axis=0)

    def _arls(self, out: np.ndarray, ex: tuple) -> tuple[int, float]:
        cand = self.candidate_indices(out)
        if cand.size == 0:
            raise NoCandidatesError("no candidate left: every point is labeled or skipped")
        phi_c = self.rows(cand)
        R = [C @ phi_c.T for C in self._state.cores_] if self.labeled_ else [phi_c.T.copy()]
        S = self.risk_points()
        total, squares = self._lookahead_pass(cand, phi_c, R, None, S)
        n = self.n_pool_
        scores, errors = scaled_estimates(total, squares, n, n if S is None else S.size)
        best = int(np.argmin(scores))
        self.risk_standard_error_ = float(errors[best])
        return int(cand[best]), float(scores[best])

    # -- focused ARLS ---------------------------------------------------------------------
    def focused_candidates(self, out: np.ndarray) -> np.ndarray:
        """FocusedARLS's candidates among the points not in the sorted ``out`` (sorted): the
        ``focus`` smallest margins (the summary pass, ties to the lowest index), or before
        any label the cold start's points
        (:func:`~rlscore.query.arls.focused.cold_start_positions`)."""
        if self.labeled_:
            risk, idx, _ = self._summarize(out, int(self._params["focus"]))
            if out.size == len(self.labeled_):
                self._summary = (risk, idx, None)
            return np.sort(idx)
        n_free = self.n_pool_ - out.size
        positions = cold_start_positions(n_free)
        return _nth_free(out, np.arange(n_free) if positions is None else positions)

    def focused_covariance(self, phi_c: np.ndarray) -> tuple[list, np.ndarray | None]:
        """``R`` (one (r, c) array per group) and the shifts ``t`` (c, groups; None without
        the offset) of ``d_i = Φ r_i + t_i`` for candidates of features ``phi_c`` (class
        docstring), from :meth:`~rlscore.query.arls.focused.FocusedARLS.covariance_solves`."""
        if not self.labeled_:
            return [phi_c.T.copy()] * len(set(self._state.lookahead_terms()[3])), None
        st, phi_L, c = self._state, self._rows, phi_c.shape[0]
        offset = st.offset_active_
        R, shift = [], []
        for B in st.covariance_solves(phi_L @ phi_c.T):
            r = phi_c.T - phi_L.T @ B[:, :c]  # φ_i − Φ_Lᵀ G⁻¹ Φ_L φ_i
            if offset:
                u = phi_L.T @ B[:, c]  # Φ_Lᵀ G⁻¹ 1
                t = (1.0 - phi_c @ u) / (B[:, c].sum() + st.offset_precision_)
                r -= np.outer(u, t)
                shift.append(t)
            R.append(r)
        return R, np.column_stack(shift) if offset else None

    def _focused(self, out: np.ndarray, ex: tuple) -> tuple[int, float]:
        """FocusedARLS.next_query: the exploratory draw (a position among the free points,
        made by the state), else the candidate of lowest expected risk (ties to the lowest
        index); an exploring query returns its point's score, NaN when it is no candidate."""
        explored = self._state.exploration_position(self.n_pool_ - out.size)
        cand = self.focused_candidates(out)
        phi_c = self.rows(cand)
        R, shift = self.focused_covariance(phi_c)
        scores = self._lookahead_pass(cand, phi_c, R, shift, None)[0]
        self.risk_standard_error_ = 0.0
        if explored is not None:
            i = int(_nth_free(out, [explored])[0])
            hit = np.flatnonzero(cand == i)
            return i, float(scores[hit[0]]) if hit.size else float("nan")
        best = int(np.argmin(scores))
        return int(cand[best]), float(scores[best])


__all__ = ["BLOCK_STRATEGIES", "BlockQuery"]
