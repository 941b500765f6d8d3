"""A-optimal active learning for kernel logistic regression (Yajima & Sato §4–5,
docs/mathematics.md §6).

The model is the transductive KLR over the pool: ``β = K_{:L} α`` with the representer Newton of
:mod:`rlscore.core.klr.newton` (identical to Yajima's sparse formulation on graph kernels, and
valid for any kernel, e.g. RBF). The A-optimal risk of a model is the summed predictive variance of
the class probabilities over the unlabeled pool,

    R = Σ_{j∈U} Σ_c q_jcᵀ H⁻¹ q_jc,   q_jc = s_j^c ⊗ e_j,   H = λ(I⊗K⁻¹) + Z,

(binary: ``R = Σ_j (σ_j(1 − σ_j))² [H⁻¹]_jj``, eq. 4.23). It is evaluated without any
M × M inverse by Sherman–Morrison–Woodbury with the stable symmetric form
``R(λI + Rᵀ(K_LL⊗I)R)⁻¹Rᵀ``, ``Z̄ = RRᵀ`` — the softmax Fisher blocks are singular, so
``Z̄_M`` is never inverted (docs/mathematics.md §6 corrects eqs. 5.28–5.30: off-diagonals are
``−σ^cσ^k``).

A candidate ``k`` is scored by its expected risk ``Σ_c p̂(c|x_k) R(ω^{+(k,c)})``:

* ``mode="exact"`` refits the KLR to convergence for every candidate and label (Yajima's
  definition; warm-started from the current coefficients);
* ``mode="fast"`` takes one Newton step from the current solution instead. Adding the
  candidate's Fisher block to ``H`` is a rank-h update; bordering ``K̄`` by the candidate's row
  and column is the same thing as a Woodbury update of the posterior covariance
  ``Σ = H⁻¹``, which is how it is done here: with ``Σ`` over the pool (from the current ``K̄``)
  the Newton step is ``Δβ = −Σ_{:k}(I + F_kΣ_kk)⁻¹(p_k − t)`` and the new variances are
  ``Σ_jj − Σ_jk A Σ_kj`` with ``A = F'_k(I + Σ_kk F'_k)⁻¹`` (``F'_k`` the candidate's Fisher
  block after the step). The labeled points' Fisher blocks are kept at their current values.
* ``mode="auto"`` is exact for pools up to 400 points with two or three classes and fast
  above; with more classes the pool must be smaller (:func:`exact_mode_affordable`: the exact
  mode's work grows as n²·T²·h, T classes, h = T for softmax).

``candidates=n`` scores only ``n`` candidates per query, the most uncertain ones (largest
entropy) or a random subset (``candidate_rule="random"``); the other points score NaN.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
from threadpoolctl import threadpool_limits

from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.klr.link import fisher_blocks, probabilities
from rlscore.core.klr.newton import LAM_SAFE, KLRConvergenceError, newton_representer
from rlscore.core.klr.posterior import LabeledPosterior, aoptimal_risk_terms, woodbury_core
from rlscore.query.klr.pool import KLRPoolStrategy, MaxEntropyKLR

__all__ = [
    "AOptimalKLR",
    "MaxEntropyKLR",
    "aoptimal_risk_terms",
    "exact_mode_affordable",
    "woodbury_core",
]

#: pools up to this size are scored exactly by mode="auto" (two or three classes)
AUTO_EXACT_MAX_POOL = 400
#: and at most this exact-mode work n²·T²·h (:func:`exact_mode_affordable`): three classes at
#: 400 points, 0.4 s of CPU per exact query with 6 labels (at 400 points binary takes 0.07 s,
#: 4 classes 1.0 s, 10 classes 21 s; 2026-11-29 under load, docs/benchmarks/engine-speed.md)
AUTO_EXACT_MAX_WORK = AUTO_EXACT_MAX_POOL**2 * 3**3
#: cap on the floats of one chunk of candidates (bounds the memory of the batched scoring)
CHUNK_ELEMENTS = 2_000_000


@contextmanager
def _singular_is_lam(lam: float):
    """Report a singular linear system (λ lost in rounding beside the kernel) as a λ error."""
    try:
        yield
    except np.linalg.LinAlgError as err:
        raise KLRConvergenceError(
            f"lam={lam:g} is too small for A-optimal kernel logistic regression: a linear "
            f"system of the risk became numerically singular. Use lam >= {LAM_SAFE:g} "
            f"(typical {LAM_SAFE:g} to 10)."
        ) from err


def exact_mode_affordable(n_pool: int, n_classes: int) -> bool:
    """Whether ``mode="auto"`` scores a pool of ``n_pool`` points and ``n_classes`` classes
    exactly.

    The exact mode refits the KLR for every candidate and label (n·T problems), each with a
    risk over the n pool points in h × h blocks (h = 1 for two classes, T for softmax): its
    work grows as n²·T²·h. Exact while ``n_pool ≤ AUTO_EXACT_MAX_POOL`` and that work is at most
    ``AUTO_EXACT_MAX_WORK`` (three classes at 400 points): every pool of two or three classes up
    to 400 points, four classes up to 259 points, ten up to 65.
    """
    h = 1 if n_classes <= 2 else n_classes
    work = n_pool**2 * n_classes**2 * h
    return n_pool <= AUTO_EXACT_MAX_POOL and work <= AUTO_EXACT_MAX_WORK


# -- shared KLR pool state ----------------------------------------------------------------------
class AOptimalKLR(KLRPoolStrategy):
    """A-optimal query selection with semi-supervised kernel logistic regression
    (docs/mathematics.md §6).

    Parameters
    ----------
    kernel : str
        ``"graph"`` (Yajima's ``(I + tL̃)⁻¹`` on a kNN graph of the pool), another graph kernel
        name (``"regularized"``, ``"normalized_regularized"``, ``"diffusion"``,
        ``"von_neumann"``) or a vector kernel (``"rbf"``, ``"linear"``, ``"polynomial"``).
    sigma, degree : RBF width (docs/mathematics.md §1) and polynomial degree.
    lam : float
        KLR regularisation λ (docs/mathematics.md §6).
    graph_k, graph_t : kNN graph size and graph-kernel scale.
    graph_connect : bool
        Join the kNN graph's connected components by their closest pairs (default True;
        :func:`rlscore.core.kernels.functions.knn_graph`).
    tune : ``"none"`` or ``"loo"``
        Keep ``lam`` and ``graph_t``, or choose them after every label by the LOO log-loss of
        the KLR over a (t, λ) grid (:mod:`rlscore.core.klr.tuning`; t only for the two
        regularized graph kernels).
    graph_solver : ``"dense"`` or ``"cg"``
        Hold a regularized graph kernel as the n × n matrix (default), or solve for its
        columns by conjugate gradients as they are needed (large pools: no n × n matrix;
        use with ``candidates`` and ``risk_points``).
    risk_points : int or None
        Sum the risk over this many pool points drawn once (seeded by ``seed``), not over
        every unlabeled point (None). With ``graph_solver="cg"`` this bounds the diagonal
        entries to solve for.
    mode : ``"exact"``, ``"fast"`` or ``"auto"``
        Refit per candidate and label, or one warm-started Newton step (module docstring);
        ``"auto"`` is exact up to 400 pool points with two or three classes, on smaller pools
        with more (:func:`exact_mode_affordable`).
    candidates : int or None
        Score only this many candidates per query (None: every unlabeled point).
    candidate_rule : ``"uncertainty"`` or ``"random"``
        Which candidates: largest KLR entropy, or uniformly at random (seeded by ``seed`` and
        the number of labels, so the same state gives the same scores).
    seed : int

    Notes
    -----
    ``scores()`` is the expected A-optimal risk after labeling each point (lower is better),
    NaN for labeled points and for points outside the candidate subset.
    ``estimated_risk()`` is the A-optimal risk of the current model.
    """

    near_uniform_effect = (
        "A-optimal acts as a graph-coverage rule now, picking the points of largest prior "
        "variance (far from every label, at the edges of the graph) rather than those that "
        "most reduce the classifier's uncertainty"
    )
    #: candidates per pass of the fast mode's compiled pair kernel (bounds the blocks S'_jk)
    PAIR_CANDIDATES = 512
    #: floats of one risk point's step products in that pass (h × R per candidate): in cache
    PAIR_STEP_ELEMENTS = 32_768

    def __init__(
        self,
        kernel: str = "graph",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float = 0.1,
        graph_k: int = 6,
        graph_t: float | None = None,
        mode: str = "auto",
        candidates: int | None = None,
        candidate_rule: str = "uncertainty",
        seed: int = 0,
        graph_connect: bool = True,
        tune: str = "none",
        graph_solver: str = "dense",
        risk_points: int | None = None,
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.lam = lam
        self.graph_k = graph_k
        self.graph_t = graph_t
        self.mode = mode
        self.candidates = candidates
        self.candidate_rule = candidate_rule
        self.seed = seed
        self.graph_connect = graph_connect
        self.tune = tune
        self.graph_solver = graph_solver
        self.risk_points = risk_points

    def _start(self, X: np.ndarray, K: np.ndarray | None) -> None:
        if self.mode not in ("exact", "fast", "auto"):
            raise ValueError(f"mode must be 'exact', 'fast' or 'auto', got {self.mode!r}")
        if self.candidates is not None and (
            isinstance(self.candidates, bool)
            or not isinstance(self.candidates, int | np.integer)
            or self.candidates < 1
        ):
            raise ValueError(
                f"candidates must be None or a positive integer, got {self.candidates!r}"
            )
        if self.candidate_rule not in ("uncertainty", "random"):
            raise ValueError(
                f"candidate_rule must be 'uncertainty' or 'random', got {self.candidate_rule!r}"
            )
        if self.risk_points is not None and (
            isinstance(self.risk_points, bool)
            or not isinstance(self.risk_points, int | np.integer)
            or self.risk_points < 1
        ):
            raise ValueError(
                f"risk_points must be None or a positive integer, got {self.risk_points!r}"
            )
        super()._start(X, K)
        n = self.n_pool_
        self._risk_sample = None
        if self.risk_points is not None and self.risk_points < n:
            rng = np.random.default_rng([int(self.seed), n])
            self._risk_sample = np.sort(rng.choice(n, size=int(self.risk_points), replace=False))

    @property
    def resolved_mode(self) -> str:
        """``"exact"`` or ``"fast"`` (``"auto"`` resolved on the pool size and the classes)."""
        if self.mode != "auto":
            return self.mode
        return "exact" if exact_mode_affordable(self.n_pool_, self.classes_.size) else "fast"

    # -- risk of the current model --------------------------------------------------------------
    def _risk_terms(self, L, P, U) -> np.ndarray:
        return aoptimal_risk_terms(
            self._K.block(L, L),
            self._K.block(L, U),
            self._K.diagonal(U),
            P[L],
            P[U],
            self._lam,
        )

    def estimated_risk(self) -> float:
        """A-optimal risk of the current KLR over the unlabeled pool (eq. 4.23 / 5.29)."""
        self._check_started()
        with _singular_is_lam(self._lam):
            return float(self._risk_terms(self._L, self._P, self._risk_set()).sum())

    def _risk_set(self) -> np.ndarray:
        """The unlabeled points the risk sums over: all, or those of the risk sample."""
        U = self._unlabeled()
        if self._risk_sample is None:
            return U
        return U[np.isin(U, self._risk_sample)]

    # -- scores ---------------------------------------------------------------------------------
    def candidate_set(self) -> np.ndarray:
        """Pool indices scored at this query (unlabeled, not excluded, maybe subsampled)."""
        self._check_started()
        U = self._unlabeled()
        if self._exclude:
            U = U[~np.isin(U, list(self._exclude))]
        n = self.candidates
        if n is None or n >= U.size:
            return U
        if self.candidate_rule == "random":
            rng = np.random.default_rng([int(self.seed), len(self._L)])
            return np.sort(rng.choice(U, size=int(n), replace=False))
        ent = self._entropy()[U]
        # the n most uncertain, ties to the lower index (a stable sort's first n) without
        # sorting all of U: everything above the n-th entropy, then that entropy's first ones
        nth = np.partition(ent, U.size - int(n))[U.size - int(n)]
        above = np.flatnonzero(ent > nth)
        tied = np.flatnonzero(ent == nth)[: int(n) - above.size]
        return U[np.sort(np.concatenate([above, tied]))]

    def scores(self) -> np.ndarray:
        """Expected A-optimal risk after labeling each candidate; NaN elsewhere."""
        self._check_started()
        cands = self.candidate_set()
        key = (
            tuple(self._L),
            tuple(self._codes),
            tuple(cands.tolist()),
            tuple(sorted(self.get_params().items())),
            (self._lam, self._t),
        )
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1].copy()
        s = np.full(self.n_pool_, np.nan)
        if cands.size:
            # the GEMMs here are skinny (inner dimension l·h) and memory-bound: extra BLAS
            # threads only contend (3× slower on 2 busy cores, measured by aopt_speed.py)
            with threadpool_limits(limits=1, user_api="blas"), _singular_is_lam(self._lam):
                if self.resolved_mode == "exact":
                    risks = self._exact_label_risks(cands)
                else:
                    risks = self._fast_label_risks(cands)
            s[cands] = np.sum(self._label_weights(cands) * risks, axis=1)
        self._cache = (key, s)
        return s.copy()

    def _label_weights(self, cands: np.ndarray) -> np.ndarray:
        """``p̂(c|x_k)`` for every label code c (n_cands, T)."""
        return self.predict_proba()[cands]

    def fast_label_risks(self, cands) -> np.ndarray:
        """One-Newton-step approximation of the risk ``R(ω^{+(k,c)})`` after a full refit (the
        exact mode's), (n_cands, T)."""
        self._check_started()
        return self._fast_label_risks(np.asarray(cands, dtype=np.int64))

    def _risk_positions(self, cands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The risk set U and each candidate's position in it (−1 when outside it)."""
        U = self._risk_set()
        pos = np.searchsorted(U, cands)
        inside = pos < U.size
        inside[inside] = U[pos[inside]] == cands[inside]
        return U, np.where(inside, pos, -1)

    def _exact_label_risks(self, cands: np.ndarray) -> np.ndarray:
        # every (candidate, label) refit is an independent problem: solve them as stacks
        block, lam, h, n_classes, L = self._K.block, self._lam, self._h, self.classes_.size, self._L
        U, pos_in_U = self._risk_positions(cands)
        K_LU = block(L, U)
        l, u = len(L), U.size
        K_LL = block(L, L)
        T_c = np.stack(
            [ova_targets([*self._codes, c], n_classes, negative=0.0) for c in range(n_classes)]
        )
        out = np.empty((cands.size, n_classes))
        per_problem = n_classes * (l + 1) * (u + l + 1) * h * h
        chunk = max(1, CHUNK_ELEMENTS // per_problem)
        for s0 in range(0, cands.size, chunk):
            C = cands[s0 : s0 + chunk]
            m = C.size
            K_LL2 = np.empty((m, l + 1, l + 1))
            K_LL2[:, :l, :l] = K_LL
            K_LL2[:, :l, l] = block(L, C).T
            K_LL2[:, l, :l] = K_LL2[:, :l, l]
            K_LL2[:, l, l] = self._K.diagonal(C)
            K_LU2 = np.empty((m, l + 1, u))
            K_LU2[:, :l] = K_LU
            K_LU2[:, l] = block(C, U)
            # stack (candidate, label) pairs: problem b = r * n_classes + c
            KB = np.repeat(K_LL2, n_classes, axis=0)
            KUB = np.repeat(K_LU2, n_classes, axis=0)
            TB = np.tile(T_c, (m, 1, 1))
            alpha0 = np.zeros_like(TB)
            alpha0[:, :l] = self._alpha
            alpha, _ = newton_representer(KB, TB, lam, alpha0=alpha0)
            P_L = probabilities(KB @ alpha)
            P_U = probabilities(np.swapaxes(KUB, 1, 2) @ alpha)
            terms = aoptimal_risk_terms(KB, KUB, self._K.diagonal(U), P_L, P_U, lam).reshape(
                m, n_classes, u
            )
            # the candidate is labeled after the query: it leaves the sum over U
            own = pos_in_U[s0 : s0 + chunk]
            terms[np.flatnonzero(own >= 0), :, own[own >= 0]] = 0.0
            out[s0 : s0 + m] = terms.sum(axis=-1)
        return out

    def _posterior(self, U: np.ndarray):
        """The current model's posterior covariance over U (Woodbury on the labeled points)."""
        return LabeledPosterior(self._K, self._L, U, self._P[self._L], self._lam)

    def _fast_label_risks(self, cands: np.ndarray) -> np.ndarray:
        # Σ = H⁻¹ is never formed: the posterior gives Σ_kk and the reduced blocks Σ_jk off the
        # softmax null vector a block of risk points at a time, and every pair's arithmetic is
        # one compiled pass (docs/mathematics.md §7, "the fast mode on the m features")
        from rlscore.query.klr.aoptimal_compiled import accumulate_pair_risks  # loads numba

        n_classes = self.classes_.size
        U, pos_in_U = self._risk_positions(cands)
        posterior = self._posterior(U)
        Qp = posterior.basis
        out = np.zeros((cands.size, n_classes))
        step = self._pair_candidates()
        for s0 in range(0, cands.size, step):
            C = cands[s0 : s0 + step]
            S_kk, V = posterior.reduced_at(C)
            X = np.concatenate(self._step_columns(C, S_kk), axis=2)  # (c, h, R)
            Xr = np.ascontiguousarray(np.einsum("ha,khr->ark", Qp, X))
            own_pos = pos_in_U[s0 : s0 + C.size]
            for start, stop, Z in posterior.reduced_blocks(V):
                own = np.where((own_pos >= start) & (own_pos < stop), own_pos - start, -1)
                D, beta = posterior.reduced_diagonal[start:stop], self._beta[U[start:stop]]
                accumulate_pair_risks(Z, D, beta, Xr, Qp, n_classes, own, out[s0 : s0 + C.size])
        return out

    def _pair_candidates(self) -> int:
        """Candidates per pass of the compiled pair kernel: ``PAIR_CANDIDATES`` for up to
        three classes, fewer with more, so that a risk point's step products (h × R per
        candidate, R = T·h) stay within ``PAIR_STEP_ELEMENTS`` floats (in cache)."""
        width = self._h * self.classes_.size * max(self._h, 2)
        return max(1, min(self.PAIR_CANDIDATES, self.PAIR_STEP_ELEMENTS // width))

    def _step_columns(self, C: np.ndarray, S_kk: np.ndarray) -> list[np.ndarray]:
        """Per label c: the Newton step ``v`` (m, h, 1) and the factor ``B`` (m, h, h − 1 or 1)
        of the variance update ``A = BBᵀ`` for the candidates C, whose current posterior
        blocks are ``S_kk`` (m, h, h); in label order ``[v_0, B_0, v_1, B_1, …]``."""
        n_classes, m = self.classes_.size, C.size
        eye = np.eye(self._h)
        # one Newton step from the warm start: Δβ = −Σ_{:k}(I + F_k Σ_kk)⁻¹(p_k − t)
        D = np.linalg.inv(eye + fisher_blocks(self._P[C]) @ S_kk)
        columns = []
        for c in range(n_classes):
            g = self._P[C] - ova_targets(np.full(m, c), n_classes, negative=0.0)
            v = np.einsum("mab,mb->ma", D, g)
            beta_own = self._beta[C] - np.einsum("mab,mb->ma", S_kk, v)
            F_own = fisher_blocks(probabilities(beta_own))
            A = np.linalg.solve(eye + F_own @ S_kk, F_own)  # F'(I + Σ_kk F')⁻¹
            columns += [v[:, :, None], _low_rank_factor(A)]
        return columns


def _low_rank_factor(A: np.ndarray) -> np.ndarray:
    """``B`` with ``A = BBᵀ`` for symmetric PSD blocks (m, h, h), one column fewer if h > 1.

    ``A = (I + F'Σ)⁻¹F'`` inherits the softmax Fisher null vector 1, so its rank is ≤ h − 1;
    dropping the direction of the smallest eigenvalue saves a third of the work for h = 3.
    """
    if A.shape[-1] == 1:
        return np.sqrt(np.maximum(A, 0.0))
    w, V = np.linalg.eigh(0.5 * (A + np.swapaxes(A, -1, -2)))
    return (V * np.sqrt(np.maximum(w, 0.0))[..., None, :])[..., 1:]
