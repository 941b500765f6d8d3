"""ARLS on low-rank features: the lookahead of docs/mathematics.md §5 for pools of 10⁵–10⁶ points
(docs/mathematics.md §7).

The state (predictions ``m``, the r × r ``C = I − P`` per group of one-vs-all columns) is
:class:`~rlscore.query.rls_state.on_features.FeaturePoolStrategy`. For a candidate i and a label y
the hypothetical classifier is ``f' = m + d_i (y − m_i)/s_i`` with ``d_i = Φ C φ_i`` and ``s_i =
φ_iᵀ C φ_i + λ/w_y``, exactly as dense ARLS on ``K = ΦΦᵀ``; the decision values of c candidates on s
pool points are one product ``Φ_S C Φ_Cᵀ`` (s × c, O(s c r)), computed in blocks of at most 512
candidates × a few thousand pool points, so the memory stays O((s + c) r + block) and no n × n
matrix is ever formed.

Two subsamplings make a query on a million points affordable (docs/mathematics.md §7):

* ``candidates = k`` scores k candidates: the ⌊k/2⌋ with the smallest margin of the current
  predictions (``|m|`` for two classes, the gap between the two largest one-vs-all outputs
  otherwise) and the others uniformly at random among the remaining unlabeled points;
* ``risk_sample = s`` estimates each hypothetical risk ``R̂(f') = Σ_{z∈X} ρ(z)`` from s pool
  points drawn uniformly without replacement: ``R̂ ≈ (n/s) Σ_{z∈S} ρ(z)``.

Both draws are seeded by ``random_state`` and the labeled set, so a state always queries the
same point (a replayed session is reproduced).

``refine = k`` re-scores the k candidates of lowest low-rank score by exact ARLS's expected risk
(the exact kernel, on the same risk points) and queries the best of them
(:mod:`~rlscore.query.arls.refined`): exact and low-rank ARLS's best candidates are near ties
that K̃ at m = 500 does not resolve, while the exact best is nearly always among the few
low-rank best. The lookahead below runs on any *posterior* — the features' (``d_i = Φ C φ_i``)
or the exact one (:class:`~rlscore.query.arls.refined.ExactPosterior`) — which provides the
predictions ``m``, their ``p̂`` and the covariance rows of a block of candidates.
"""

from __future__ import annotations

import sys
from numbers import Integral

import numpy as np

from rlscore.core.rls.confidence import margin
from rlscore.query.arls import thesis
from rlscore.query.arls.focused import smallest
from rlscore.query.arls.refined import ExactPosterior
from rlscore.query.arls.thesis import hypothetical_risks
from rlscore.query.protocol.random_order import SparseShuffle
from rlscore.query.protocol.strategy import NoCandidatesError
from rlscore.query.rls_state.on_features import (
    DEFAULT_LANDMARKS,
    UNSUPPORTED_BYTES,
    WORK_ELEMENTS,
    FeaturePoolStrategy,
)
from rlscore.query.rls_state.on_kernel import LABEL_BUDGET
from rlscore.query.rls_state.weighted import pool_risk

#: candidates whose lookahead is computed together (one BLAS product per block of pool points)
CANDIDATE_BLOCK = 512
#: SeedSequence words that keep the two draws of a state independent (the candidates', the
#: risk points'); :class:`~rlscore.query.cluster.block_query.BlockQuery` makes the same draws
CANDIDATE_DRAW, RISK_DRAW = 1, 2
#: the precision of a sampled lookahead's covariance rows on the low-rank features (``by_point``):
#: single. Their rounding (about 10⁻⁷ of an entry) moved the scores by at most 3·10⁻⁹ of their
#: value, far below the risk sample's standard error, and picked the same point at 160 of 160
#: queries at 10⁵ and 10⁶ points; the product that makes them, most of a query's time at 10⁵
#: points, takes half as long (docs/benchmarks/app-latency.md, "Single-precision covariance rows")
SAMPLED_ROWS_DTYPE = np.float32


def draw_generator(random_state: int | None, draw: int, labeled) -> np.random.Generator:
    """The generator of one draw of a state: seeded by ``random_state``, the draw
    (:data:`CANDIDATE_DRAW`, :data:`RISK_DRAW`) and the labeled set, so a state always draws
    the same points (None: fresh randomness). Shared by :class:`LowRankARLS` and the client
    of a pool on a cluster (:class:`~rlscore.query.cluster.block_query.BlockQuery`)."""
    if random_state is None:
        return np.random.default_rng()
    words = [int(random_state), draw, *sorted(int(i) for i in labeled)]
    return np.random.default_rng(np.random.SeedSequence(words))


def scaled_estimates(
    total: np.ndarray, squares: np.ndarray, n: int, s: int
) -> tuple[np.ndarray, np.ndarray]:
    """The candidates' scores and their standard errors from the lookahead's sums over ``s``
    risk points of a pool of ``n`` (:func:`lookahead_sums`): the sum scaled to the pool,
    ``n/s · Σ g``, and ``n · sd(g)/√s · √(1 − s/n)`` (zeros when ``s == n``: no sample)."""
    scores = total * (n / s)
    if s == n:
        return scores, np.zeros_like(scores)
    # sample variance of the per-point expected risk g over S, without replacement
    var = np.maximum(squares - total**2 / s, 0.0) / max(s - 1, 1)
    return scores, n * np.sqrt(var / s * (1.0 - s / n))


class LowRankARLS(FeaturePoolStrategy):
    """ARLS on low-rank (Nyström) features: the expected risk of every candidate without an
    n × n matrix (docs/mathematics.md §5, §7).

    ``scores()[i] = Σ_y p̂(y|x_i)/w_y · R̂^w(f^{+(i,y)})`` (eqs. 3.48, 3.50) as
    :class:`~rlscore.query.arls.thesis.ARLS`; with ``candidates=None`` and ``risk_sample=None`` the
    scores equal dense ARLS run on the pool kernel ``K = ΦΦᵀ`` of the features. Cost per query
    O(c s r + c s T²) for c candidates and s risk points (O(n² r) with neither subsampling).

    Parameters
    ----------
    kernel, sigma, degree, lam, class_weight, bias_corrected, clip
        As :class:`~rlscore.query.arls.thesis.ARLS` (vector kernels only).
    n_landmarks : int
        Landmarks of the Nyström features (default 500).
    landmarks : str
        Landmark rule of :class:`~rlscore.core.kernels.lowrank.LowRankKernel` (default ``"kmeans"``,
        :data:`~rlscore.query.rls_state.on_features.DEFAULT_LANDMARKS`).
    candidates : int or None
        Score only this many candidates (half the most uncertain by margin, half uniformly at
        random among the rest); None scores every unlabeled point. ``scores()`` is NaN for
        the points not scored.
    risk_sample : int or None
        Estimate each hypothetical pool risk on this many uniformly drawn pool points; None
        (or at least n) uses the whole pool.
    refine : int or None
        Re-score this many candidates — those of lowest low-rank score — by exact ARLS's
        expected risk (the exact kernel, docs/mathematics.md §5; on the same risk points, so with
        ``risk_sample`` the exact score is estimated on the same sample) and query the best of
        them (:meth:`next_query`, :meth:`refined_scores`). The exact side keeps the kernel
        columns of the labeled points, O(n l) memory (:meth:`memory_bytes`), and costs
        O(n l k) per query on top of the lookahead. None (default): no exact re-scoring.
    random_state : int or None
        Seed of the landmarks and of both draws (None: fresh randomness at every query).

    Attributes
    ----------
    risk_standard_error_ : float
        After :meth:`next_query`: the standard error of the chosen candidate's score due to
        the risk sample (0 without ``risk_sample``; with ``refine``, of its exact score). The
        score is ``n · mean_{z∈S} g(z)`` with ``g(z) = Σ_y p̂(y|x_i)/w_y ρ_y(z)`` the
        candidate's expected per-point risk, so ``SE = n · sd(g) / √s · √(1 − s/n)`` (sample
        standard deviation over S, finite-pool correction for drawing without replacement).
        :meth:`standard_errors` gives it for every scored candidate.

    Notes
    -----
    With ``refine`` the strategy's model stays the Nyström RLS: :meth:`decision_function`,
    :meth:`class_probabilities`, :meth:`estimated_risk`, ``decision_function_at`` and
    :meth:`scores` are those of ``refine=None``. The exact predictions exist (the exact side
    keeps them), but one strategy reports one classifier: switching ``refine`` on or off
    (``set_params``, no rebuild) changes which point is queried, never the predictions shown
    or their risk, and the shortlist is drawn by the Nyström ``p̂`` it is scored with. Trained
    on the same labels the two classifiers differ by 0.2–0.4 points of test accuracy at
    m = 500 (``benchmarks/large_pools.py``).
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
        n_landmarks: int = 500,
        landmarks: str = DEFAULT_LANDMARKS,
        candidates: int | None = None,
        risk_sample: int | None = None,
        refine: int | None = None,
        random_state: int | None = 0,
    ):
        super().__init__(
            kernel=kernel,
            sigma=sigma,
            degree=degree,
            lam=lam,
            class_weight=class_weight,
            bias_corrected=bias_corrected,
            clip=clip,
            n_landmarks=n_landmarks,
            landmarks=landmarks,
            random_state=random_state,
        )
        self.candidates = candidates
        self.risk_sample = risk_sample
        self.refine = refine

    risk_standard_error_: float
    #: the exact posterior of the labels, for ``refine`` (:mod:`~rlscore.query.arls.refined`)
    _exact: ExactPosterior
    #: (state key, exclusion, exact scores and standard errors) of the last refinement
    _refined_cache: tuple | None

    def _check_params(self, n: int) -> None:
        super()._check_params(n)
        for name in ("candidates", "risk_sample", "refine"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, Integral) or v < 1):
                raise ValueError(f"{name} must be a positive integer or None, got {v!r}")

    def _start(self, X: np.ndarray, K: np.ndarray | None) -> None:
        super()._start(X, K)
        # the exact side is built on the first refinement, with the parameters of this start
        self._exact = ExactPosterior(self.get_params())
        self._refined_cache = None

    def memory_bytes(self, n: int, n_classes: int = 2, n_labels: int = LABEL_BUDGET) -> int:
        """Bytes the strategy needs on a pool of ``n`` points (no n × n matrix).

        :meth:`FeaturePoolStrategy.memory_bytes
        <rlscore.query.rls_state.on_features.FeaturePoolStrategy.memory_bytes>`, plus with
        ``refine`` the exact side: ``8 n (l + 8 T + b (3 + T))`` for the kernel columns of ``l =
        min(n_labels, n)`` labeled points (by default
        :data:`~rlscore.query.rls_state.on_kernel.LABEL_BUDGET` = 500, the budget of every
        low-memory strategy: 4 GB at a million points), its predictions and probabilities, and the
        rows of one block of ``b`` ≤ ``refine`` candidates
        (:data:`~rlscore.query.arls.refined.EXACT_BLOCK_ELEMENTS`).
        """
        own = super().memory_bytes(n, n_classes)
        if self.refine is None or own >= UNSUPPORTED_BYTES:
            return own
        exact = ExactPosterior(self.get_params())
        return own + exact.memory_bytes(n, n_classes, n_labels, self.refine)

    # -- queries ---------------------------------------------------------------------------
    def scores(self) -> np.ndarray:
        """Expected risk of each scored candidate, lower is better; NaN for labeled points
        and for the points not scored (``candidates``). With ``candidates``, these are the
        scores of the last draw in this state (a :meth:`next_query` with ``exclude`` draws
        among the points not excluded), so the score of the last query can be looked up."""
        self._check_started()
        return self._latest()[0].copy()

    def standard_errors(self) -> np.ndarray:
        """Standard error of each score due to the risk sample (see the class docstring):
        0 without ``risk_sample``, NaN where :meth:`scores` is NaN."""
        self._check_started()
        return self._latest()[1].copy()

    def refined_scores(self) -> np.ndarray:
        """Exact ARLS's expected risk (docs/mathematics.md §5, the exact kernel) of the ``refine``
        candidates
        of lowest :meth:`scores`, on the same risk points; NaN for every other point (all NaN
        with ``refine=None``). As :meth:`scores`, those of the last query in this state."""
        self._check_started()
        if self.refine is None:
            return np.full(self.n_pool_, np.nan)
        cache = self._refined_cache
        if cache is None or cache[0] != self._refined_key():
            self._refined((), self._scored(())[0])
        return self._refined_cache[2][0].copy()

    def next_query(self, exclude=None) -> tuple[int, float]:
        """The best scored candidate not in ``exclude``, and its score; the candidates are
        drawn among the points not excluded, so an exclusion never empties the draw. With
        ``refine``: the candidate of lowest exact score among the shortlist, and that score."""
        self._check_started()
        ex = ()
        if exclude is not None:
            ex = tuple(sorted({int(e) for e in exclude if 0 <= int(e) < self.n_pool_}))
        if self.candidates is None:
            # every unlabeled point is scored: the exclusion only masks, no new lookahead
            s, se = self._scored(())
            s = s.copy()
            s[list(ex)] = np.nan
        else:
            s, se = self._scored(ex)
        if np.isnan(s).all():
            raise NoCandidatesError("no candidate left: every point is labeled or skipped")
        if self.refine is not None:
            s, se = self._refined(ex, s)
        i = int(np.nanargmin(s))
        self.risk_standard_error_ = float(se[i])
        return i, float(s[i])

    def candidate_indices(self, exclude=()) -> np.ndarray:
        """The pool indices scored in this state (sorted): every unlabeled point not in
        ``exclude``, or the ``candidates`` drawn among them."""
        self._check_started()
        free = np.ones(self.n_pool_, dtype=bool)
        free[self.labeled_] = False
        free[list(exclude)] = False
        pool = np.flatnonzero(free)
        k = self.candidates
        if k is None or k >= pool.size:
            return pool
        rng = self._rng(CANDIDATE_DRAW)
        half = k // 2
        if self.labeled_:
            # the smallest margins, ties to the lowest index (the summary pass of a pool on
            # a cluster ranks the same way)
            uncertain = smallest(margin(self.decision_function())[pool], half)
        else:
            # no label: every margin is 0, a tie broken at random, in O(k) memory (a pool
            # on a cluster makes the same draw without an n-vector)
            uncertain = SparseShuffle(rng, pool.size).take(half)
        rest = np.ones(pool.size, dtype=bool)
        rest[uncertain] = False
        drawn = rng.choice(np.flatnonzero(rest), k - half, replace=False)
        return np.sort(pool[np.concatenate([uncertain, drawn])])

    def risk_points(self) -> np.ndarray | None:
        """The pool points the hypothetical risks are summed over (sorted); None for all."""
        self._check_started()
        s = self.risk_sample
        if s is None or s >= self.n_pool_:
            return None
        return np.sort(self._rng(RISK_DRAW).choice(self.n_pool_, s, replace=False))

    def _rng(self, draw: int) -> np.random.Generator:
        """A generator seeded by ``random_state``, the draw and the labeled set."""
        return draw_generator(self.random_state, draw, self.labeled_)

    def _state_key(self) -> tuple:
        """What the scores depend on besides an exclusion: the labels (through the version)
        and the parameters of the draws and the risk (set_params changes them without a
        rebuild)."""
        params = (self.candidates, self.risk_sample, self.random_state, self.clip)
        return (self._version, params, self.bias_corrected)

    def _latest(self) -> tuple[np.ndarray, np.ndarray]:
        """The last scores computed in this state, whatever their exclusion; else a draw."""
        cache = self._scores_cache
        if cache is not None and cache[0] == self._state_key():
            return cache[2]
        return self._scored(())

    def _scored(self, exclude: tuple) -> tuple[np.ndarray, np.ndarray]:
        """Scores and standard errors (n,) for this state and exclusion, cached."""
        key = self._state_key()
        cache = self._scores_cache
        if cache is not None and cache[0] == key and cache[1] == exclude:
            return cache[2]
        cand = self.candidate_indices(exclude)
        out = self._estimates(cand, self.risk_points(), _FeaturePosterior(self))
        self._scores_cache = (key, exclude, out)
        return out

    def _refined_key(self) -> tuple:
        return (self._state_key(), self.refine)

    def _refined(self, exclude: tuple, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exact scores and standard errors (n,) of the ``refine`` lowest ``scores`` (the
        low-rank ones of this state and exclusion; ties to the lowest index), cached."""
        key = self._refined_key()
        cache = self._refined_cache
        if cache is not None and cache[0] == key and cache[1] == exclude:
            return cache[2]
        scored = np.flatnonzero(~np.isnan(scores))
        best = scored[np.argsort(scores[scored], kind="stable")[: self.refine]]
        exact = self._exact.follow(self)
        out = self._estimates(np.sort(best), self.risk_points(), exact)
        self._refined_cache = (key, exclude, out)
        return out

    def _estimates(self, cand: np.ndarray, S: np.ndarray | None, posterior) -> tuple:
        """Scores of the candidates ``cand`` on the risk points ``S`` (None: the pool) under a
        posterior, and their standard errors, as (n,) arrays NaN elsewhere."""
        n = self.n_pool_
        s = n if S is None else S.size
        total, squares = self._lookahead(cand, S, posterior)
        scores = np.full(n, np.nan)
        errors = np.full(n, np.nan)
        scores[cand], errors[cand] = scaled_estimates(total, squares, n, s)
        return scores, errors

    def _lookahead(
        self, cand: np.ndarray, S: np.ndarray | None, posterior=None
    ) -> tuple[np.ndarray, np.ndarray]:
        """:func:`lookahead_sums` under the features' posterior (default) or ``posterior``."""
        if posterior is None:
            posterior = _FeaturePosterior(self)
        return lookahead_sums(self, cand, S, posterior)


def lookahead_sums(
    strategy: LowRankARLS, cand: np.ndarray, S: np.ndarray | None, posterior
) -> tuple[np.ndarray, np.ndarray]:
    """``Σ_{z∈S} g_i(z)`` and ``Σ_{z∈S} g_i(z)²`` for every candidate i, where
    ``g_i(z) = Σ_y p̂(y|x_i)/w_y ρ(f^{+(i,y)}, z)`` and ρ is the per-point term of the pool
    risk (:func:`~rlscore.query.rls_state.on_kernel.pool_risk` applied to single points).

    ``strategy`` is read for ``classes_``, ``clip``, ``n_pool_`` (the rows of ``m`` summed
    over when ``S`` is None) and
    :meth:`~rlscore.query.rls_state.weighted.WeightedRLSStrategy.lookahead_terms` only, so a pool
    held elsewhere in row blocks runs the same sums block by block
    (:func:`rlscore.query.cluster.block_lookahead.block_lookahead`). ``posterior`` gives ``m``,
    ``p̂``, the covariance rows of a block of candidates and the block size: the features'
    (:class:`_FeaturePosterior`) or the exact one
    (:class:`~rlscore.query.arls.refined.ExactPosterior`); the weights and the risk are the
    strategy's (the exact side is taught the same labels, so it has the same weights).
    """
    T = strategy.classes_.size
    m = posterior.m
    Tm = m.shape[1]
    clip = strategy.clip
    # 1/w_y (T,), λ/a_t(y) (T', T), targets (T, T'), the group of each column
    inv_w, lam_w, targets, group_of = strategy.lookahead_terms()
    q = posterior.probabilities[cand] * inv_w  # p̂(y|x_i)/w_y, (c, T)
    n_points = strategy.n_pool_ if S is None else S.size
    total = np.zeros(cand.size)
    squares = np.zeros(cand.size)
    block = posterior.block_size
    compiled = S is not None and _compiled_pass(cand.size * n_points, Tm)
    if compiled:
        from rlscore.query.arls.fused_lookahead import point_risk_sums
    for a in range(0, cand.size, block):
        idx = cand[a : a + block]
        b = idx.size
        cov = posterior.covariance(idx)
        dii = cov.diagonal[:, group_of]
        # α = (y − m_i)/s_i per label y and column t, (b, T')
        alphas = [(targets[y] - m[idx]) / (dii + lam_w[:, y]) for y in range(T)]
        step = max(1, WORK_ELEMENTS // (b * Tm))
        for z in range(0, n_points, step):
            rows = slice(z, z + step) if S is None else S[z : z + step]
            m_rows = m[rows]
            if S is None:
                # no sampling error to estimate: each classifier's risk summed over the
                # points at once (candidates × points, ARLS's layout), no per-point terms
                Dt = cov.by_candidate(rows)  # (b, p)
                for y in range(T):
                    risk = hypothetical_risks(Dt, alphas[y], m_rows, group_of, inv_w, clip=clip)
                    total[a : a + b] += q[a : a + b, y] * risk
                continue
            Ds = cov.by_point(rows)  # d_i on these pool points, (p, b)
            if compiled:
                point_risk_sums(
                    Ds, group_of, alphas, m_rows, q[a : a + b], inv_w, clip,
                    total[a : a + b], squares[a : a + b],
                )  # fmt: skip
                continue
            g = np.zeros(Ds[0].shape)
            for y in range(T):
                g += q[a : a + b, y] * _point_risks(Ds, alphas[y], m_rows, group_of, inv_w, clip)
            total[a : a + b] += g.sum(axis=0)
            np.square(g, out=g)
            squares[a : a + b] += g.sum(axis=0)
    return total, squares


#: whether a large binary lookahead may still skip loading numba (:func:`_compiled_pass`)
_binary_may_defer = True


def _compiled_pass(pairs: int, columns: int) -> bool:
    """Whether a sampled lookahead of ``pairs`` (candidate, point) pairs runs its sums in the
    compiled pass (:func:`~rlscore.query.arls.fused_lookahead.point_risk_sums`), not numpy.

    A small one runs in numpy (:data:`~rlscore.query.arls.thesis.NUMPY_LOOKAHEAD`), a large one
    compiled — except the first large binary one in a process that has not loaded numba yet:
    its numpy sums (0.27 s at the app's 500 candidates × 20 000 points) cost less than loading
    numba (0.5 s of CPU), so a large pool's first page does not wait for numba; the next
    query loads it (docs/benchmarks/engine-speed.md). With three classes and more the numpy
    sums cost 1.5 s and up: compiled at once."""
    global _binary_may_defer
    if pairs <= thesis.NUMPY_LOOKAHEAD:
        return False
    if columns == 1 and _binary_may_defer and "numba" not in sys.modules:
        _binary_may_defer = False
        return False
    return True


def _point_risks(Ds, alpha, m_rows, group_of, inv_w, clip: bool) -> np.ndarray:
    """Per-point risk ρ(z) of the hypothetical classifiers ``m + d_i α_i`` (p, b)."""
    p, b = Ds[0].shape
    if m_rows.shape[1] == 1:
        F = Ds[0] * alpha[:, 0]
        F += m_rows
        # each (point, candidate) pair as its own one-point pool: the per-point risk
        return pool_risk(F.reshape(-1, 1), inv_w, clip=clip).reshape(p, b)
    Tm = m_rows.shape[1]
    F = np.empty((p, b, Tm))
    for t in range(Tm):  # (f' + 1)/2 = d_i α/2 + (m + 1)/2
        np.multiply(Ds[group_of[t]], 0.5 * alpha[:, t], out=F[:, :, t])
    F += 0.5 * (m_rows[:, None, :] + 1.0)
    risk = pool_risk(F.reshape(-1, Tm, 1), inv_w, clip=clip, halved=True)
    return risk.reshape(p, b)


class _FeaturePosterior:
    """The Nyström state as the lookahead reads it: ``m``, its ``p̂`` and ``d_i = Φ C φ_i``
    (the other posterior is :class:`~rlscore.query.arls.refined.ExactPosterior`)."""

    block_size = CANDIDATE_BLOCK

    def __init__(self, strategy: LowRankARLS) -> None:
        self.m = strategy._m
        self.probabilities = strategy.class_probabilities()
        self._phi, self._Cs = strategy.features_, strategy._Cs

    def covariance(self, idx: np.ndarray) -> _FeatureCovariance:
        return _FeatureCovariance(self._phi, self._Cs, idx)


def sampled_rows(features: np.ndarray, points, R: list[np.ndarray]) -> list[np.ndarray]:
    """``d_i = Φ_p r_i`` of a block of candidates on the pool points ``points``: one (p, b)
    array per group's ``R`` (r, b), in :data:`SAMPLED_ROWS_DTYPE`. Shared by the in-memory
    engine and the blocks of a pool on a cluster
    (:mod:`~rlscore.query.cluster.block_lookahead`)."""
    rows = features[points].astype(SAMPLED_ROWS_DTYPE)
    return [rows @ r.astype(SAMPLED_ROWS_DTYPE, copy=False) for r in R]


class _FeatureCovariance:
    """``d_i = Φ r_i``, ``r_i = C φ_i``, of a block of candidates on any pool points."""

    def __init__(self, phi: np.ndarray, Cs: list[np.ndarray], idx: np.ndarray) -> None:
        phi_c = phi[idx]  # (b, r)
        self._phi = phi
        self._R = [C @ phi_c.T for C in Cs]  # r_i = C φ_i, (r, b) per group
        self._R_sampled = [R.astype(SAMPLED_ROWS_DTYPE) for R in self._R]
        # d_ii = φ_iᵀ C φ_i, (b, groups)
        self.diagonal = np.column_stack([np.einsum("ij,ji->i", phi_c, R) for R in self._R])

    def by_point(self, points) -> list[np.ndarray]:
        """``d_i`` on the pool points ``points``, (p, b) per group, in
        :data:`SAMPLED_ROWS_DTYPE`."""
        return sampled_rows(self._phi, points, self._R_sampled)

    def by_candidate(self, points) -> list[np.ndarray]:
        """``d_i`` on the pool points ``points``, (b, p) per group."""
        return [R.T @ self._phi[points].T for R in self._R]


__all__ = [
    "CANDIDATE_BLOCK",
    "CANDIDATE_DRAW",
    "RISK_DRAW",
    "SAMPLED_ROWS_DTYPE",
    "LowRankARLS",
    "draw_generator",
    "lookahead_sums",
    "sampled_rows",
    "scaled_estimates",
]
