"""A-optimal active learning for kernel logistic regression (Yajima & Sato §4–5, SPEC §6).

The model is the transductive KLR over the pool: ``β = K_{:L} α`` with the representer
Newton of :mod:`rlscore.core.klr` (identical to Yajima's sparse formulation on graph kernels, and
valid for any kernel, e.g. RBF). The A-optimal risk of a model is the summed predictive
variance of the class probabilities over the unlabeled pool,

    R = Σ_{j∈U} Σ_c q_jcᵀ H⁻¹ q_jc,   q_jc = s_j^c ⊗ e_j,   H = λ(I⊗K⁻¹) + Z,

(binary: ``R = Σ_j (σ_j(1 − σ_j))² [H⁻¹]_jj``, eq. 4.23). It is evaluated without any
M × M inverse by Sherman–Morrison–Woodbury with the stable symmetric form
``R(λI + Rᵀ(K_LL⊗I)R)⁻¹Rᵀ``, ``Z̄ = RRᵀ`` — the softmax Fisher blocks are singular, so
``Z̄_M`` is never inverted (SPEC §6 corrects eqs. 5.28–5.30: off-diagonals are ``−σ^cσ^k``).

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
* ``mode="auto"`` is exact for pools up to 400 points and fast above.

``candidates=n`` scores only ``n`` candidates per query, the most uncertain ones (largest
entropy) or a random subset (``candidate_rule="random"``); the other points score NaN.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
from scipy.special import expit
from threadpoolctl import threadpool_limits

from rlscore.core.encoding import ova_targets
from rlscore.core.klr import (
    LAM_SAFE,
    KLRConvergenceError,
    fisher_blocks,
    fisher_factor,
    newton_representer,
    probabilities,
    whitened_matrix,
)
from rlscore.query.klr_pool import KLRPoolStrategy, MaxEntropyKLR

__all__ = ["AOptimalKLR", "MaxEntropyKLR", "aoptimal_risk_terms", "woodbury_core"]

#: pools up to this size are scored exactly by mode="auto"
AUTO_EXACT_MAX_POOL = 400
#: cap on the floats of one chunk of candidates (bounds the memory of the batched scoring)
_CHUNK_ELEMENTS = 2_000_000


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


# -- the risk -----------------------------------------------------------------------------------
def woodbury_core(K_LL: np.ndarray, P_L: np.ndarray, lam: float) -> np.ndarray:
    """``G = R(λI + Rᵀ(K_LL⊗I)R)⁻¹Rᵀ`` (..., lh, lh, point-major), ``RRᵀ = Z̄`` the Fisher blocks.

    Equal to ``(λZ̄⁻¹ + K_LL)⁻¹`` = ``K̄⁻¹`` of eq. 4.24 when ``Z̄`` is invertible (binary), and
    well defined when it is not. Then ``H⁻¹ = (I⊗K − (I⊗K_{:L}) G (I⊗K_{L:})) / λ``.
    ``P_L`` (..., l, h') are the labeled points' probabilities; leading axes of ``K_LL``
    (..., l, l) and ``P_L`` are independent problems.
    """
    l, h = P_L.shape[-2], P_L.shape[-1]
    lead = P_L.shape[:-2]
    if l == 0:
        return np.zeros((*lead, 0, 0))
    R = fisher_factor(P_L)
    W_inv = np.linalg.inv(whitened_matrix(K_LL, R, lam)).reshape(*lead, l, h, l * h)
    # left: R_i W⁻¹[i, :]; right: (·)[:, j] R_jᵀ
    Y = (R @ W_inv).reshape(*lead, l, h, l, h)
    Y = np.moveaxis(Y, -2, -4).reshape(*lead, l, l * h, h)  # (j, (i, a), d)
    G = Y @ np.swapaxes(R, -1, -2)  # (j, (i, a), e)
    G = np.moveaxis(G.reshape(*lead, l, l, h, h), -4, -2)  # (i, a, j, e)
    return G.reshape(*lead, l * h, l * h)


def _posterior_diag(G, K_LU, k_UU, h, lam) -> np.ndarray:
    """Diagonal blocks ``[H⁻¹]_jj`` (..., u, h, h) for the pool points U."""
    lead, (l, u) = K_LU.shape[:-2], K_LU.shape[-2:]
    post = np.zeros((*lead, u, h, h))
    post[..., np.arange(h), np.arange(h)] = np.asarray(k_UU)[..., None]
    if l:
        # Q[a, e, j] = Σ_{i,i'} K_ij G[(i,a),(i',e)] K_i'j
        Gt = np.swapaxes(G.reshape(*lead, l, h, l, h), -1, -2).reshape(*lead, l * h * h, l)
        GK = (Gt @ K_LU).reshape(*lead, l, h * h, u)
        Q = np.einsum("...iu,...iqu->...uq", K_LU, GK).reshape(*lead, u, h, h)
        post -= Q
    return post / lam


def aoptimal_risk_terms(
    K_LL: np.ndarray,
    K_LU: np.ndarray,
    k_UU: np.ndarray,
    P_L: np.ndarray,
    P_U: np.ndarray,
    lam: float,
) -> np.ndarray:
    """Per-point A-optimal risk ``Σ_c q_jcᵀ H⁻¹ q_jc`` for the points U (SPEC §6 ✔).

    Parameters
    ----------
    K_LL, K_LU, k_UU
        Kernel among the labeled points, between labeled and U, and ``diag(K)`` on U.
    P_L, P_U
        Model probabilities (n, h') of the labeled points and of U: one column (positive
        class) for binary, h columns for softmax. Leading axes (stacks of independent
        problems) are allowed on every argument.
    lam
        Regularisation λ.

    Returns
    -------
    ndarray (..., u)
        ``(1/λ)(‖F_j‖²_F K_jj − tr(F_j² Q_j))``, ``Q_j = (I⊗k̄_j)ᵀ G (I⊗k̄_j)``, ``F_j`` the
        Fisher block; for binary ``(σ_j(1 − σ_j))² [H⁻¹]_jj`` (eq. 4.23 with the 1/λ the paper
        drops).
    """
    h = P_U.shape[-1]
    G = woodbury_core(K_LL, P_L, lam)
    post = _posterior_diag(G, K_LU, k_UU, h, lam)
    F_U = fisher_blocks(P_U)
    return np.einsum("...uab,...uab->...u", post, F_U @ F_U)


# -- shared KLR pool state ----------------------------------------------------------------------
class AOptimalKLR(KLRPoolStrategy):
    """A-optimal query selection with semi-supervised kernel logistic regression (SPEC §6).

    Parameters
    ----------
    kernel : str
        ``"graph"`` (Yajima's ``(I + tL̃)⁻¹`` on a kNN graph of the pool), another graph kernel
        name (``"regularized"``, ``"normalized_regularized"``, ``"diffusion"``,
        ``"von_neumann"``) or a vector kernel (``"rbf"``, ``"linear"``, ``"polynomial"``).
    sigma, degree : RBF width (SPEC §1) and polynomial degree.
    lam : float
        KLR regularisation λ (SPEC §6).
    graph_k, graph_t : kNN graph size and graph-kernel scale.
    mode : ``"exact"``, ``"fast"`` or ``"auto"``
        Refit per candidate and label, or one warm-started Newton step (module docstring);
        ``"auto"`` is exact up to 400 pool points.
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

    risk_name = "Predictive variance (A-optimal)"
    risk_help = (
        "Sum over the unlabeled points of the squared-slope-weighted posterior variance "
        "(σ(1 − σ))² [H⁻¹]_jj of the KLR (Yajima eq. 4.23): smaller means a more certain "
        "model. It is a variance, not a count of errors."
    )

    def __init__(
        self,
        kernel: str = "graph",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float = 0.1,
        graph_k: int = 6,
        graph_t: float = 1.0,
        mode: str = "auto",
        candidates: int | None = None,
        candidate_rule: str = "uncertainty",
        seed: int = 0,
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
        super()._start(X, K)

    @property
    def resolved_mode(self) -> str:
        """``"exact"`` or ``"fast"`` (``"auto"`` resolved on the pool size)."""
        if self.mode != "auto":
            return self.mode
        return "exact" if self.n_pool_ <= AUTO_EXACT_MAX_POOL else "fast"

    # -- risk of the current model --------------------------------------------------------------
    def _risk_terms(self, L, P, U) -> np.ndarray:
        K = self._K
        return aoptimal_risk_terms(
            K[np.ix_(L, L)],
            K[np.ix_(L, U)],
            self._diagK[U],
            P[L],
            P[U],
            self._lam,
        )

    def estimated_risk(self) -> float:
        """A-optimal risk of the current KLR over the unlabeled pool (eq. 4.23 / 5.29)."""
        self._check_started()
        with _singular_is_lam(self._lam):
            return float(self._risk_terms(self._L, self._P, self._unlabeled()).sum())

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
        order = np.argsort(-ent, kind="stable")[: int(n)]
        return np.sort(U[order])

    def scores(self) -> np.ndarray:
        """Expected A-optimal risk after labeling each candidate; NaN elsewhere."""
        self._check_started()
        cands = self.candidate_set()
        key = (
            tuple(self._L),
            tuple(self._codes),
            tuple(cands.tolist()),
            tuple(sorted(self.get_params().items())),
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

    def exact_label_risks(self, cands) -> np.ndarray:
        """Risk ``R(ω^{+(k,c)})`` after a full refit, (n_cands, T) (for tests and reports)."""
        self._check_started()
        return self._exact_label_risks(np.asarray(cands, dtype=np.int64))

    def fast_label_risks(self, cands) -> np.ndarray:
        """One-Newton-step approximation of :meth:`exact_label_risks`, (n_cands, T)."""
        self._check_started()
        return self._fast_label_risks(np.asarray(cands, dtype=np.int64))

    def _scoring_context(self, cands: np.ndarray):
        """Shared inputs of both scorers: K, λ, h, T, L, U, candidates' positions in U, K_LU."""
        U = self._unlabeled()
        L = self._L
        return (
            self._K,
            self._lam,
            self._h,
            self.classes_.size,
            L,
            U,
            np.searchsorted(U, cands),
            self._K[np.ix_(L, U)],
        )

    def _exact_label_risks(self, cands: np.ndarray) -> np.ndarray:
        # every (candidate, label) refit is an independent problem: solve them as stacks
        K, lam, h, n_classes, L, U, pos_in_U, K_LU = self._scoring_context(cands)
        l, u = len(L), U.size
        K_LL = K[np.ix_(L, L)]
        T_c = np.stack(
            [ova_targets([*self._codes, c], n_classes, negative=0.0) for c in range(n_classes)]
        )
        out = np.empty((cands.size, n_classes))
        per_problem = n_classes * (l + 1) * (u + l + 1) * h * h
        chunk = max(1, _CHUNK_ELEMENTS // per_problem)
        for s0 in range(0, cands.size, chunk):
            C = cands[s0 : s0 + chunk]
            m = C.size
            K_LL2 = np.empty((m, l + 1, l + 1))
            K_LL2[:, :l, :l] = K_LL
            K_LL2[:, :l, l] = K[np.ix_(L, C)].T
            K_LL2[:, l, :l] = K_LL2[:, :l, l]
            K_LL2[:, l, l] = self._diagK[C]
            K_LU2 = np.empty((m, l + 1, u))
            K_LU2[:, :l] = K_LU
            K_LU2[:, l] = K[np.ix_(C, U)]
            # stack (candidate, label) pairs: problem b = r * n_classes + c
            KB = np.repeat(K_LL2, n_classes, axis=0)
            KUB = np.repeat(K_LU2, n_classes, axis=0)
            TB = np.tile(T_c, (m, 1, 1))
            alpha0 = np.zeros_like(TB)
            alpha0[:, :l] = self._alpha
            alpha, _ = newton_representer(KB, TB, lam, alpha0=alpha0)
            P_L = probabilities(KB @ alpha)
            P_U = probabilities(np.swapaxes(KUB, 1, 2) @ alpha)
            terms = aoptimal_risk_terms(KB, KUB, self._diagK[U], P_L, P_U, lam).reshape(
                m, n_classes, u
            )
            # the candidate is labeled after the query: it leaves the sum over U
            terms[np.arange(m), :, pos_in_U[s0 : s0 + chunk]] = 0.0
            out[s0 : s0 + m] = terms.sum(axis=-1)
        return out

    def _fast_label_risks(self, cands: np.ndarray) -> np.ndarray:
        # Σ = H⁻¹ is never formed: Σ_jk X = (K_jk X − Σ_i K_ij [G (I⊗K_Lk) X]_i) / λ is one
        # GEMM. Per-pair quantities are stored component-major, (h, …, m, u) planes, so the
        # small class axes are loops over contiguous planes rather than strided reductions.
        K, lam, h, n_classes, L, U, pos_in_U, K_LU = self._scoring_context(cands)
        l, u = len(L), U.size
        G = woodbury_core(K[np.ix_(L, L)], self._P[L], lam)
        G_t = G.reshape(l, h, l, h).transpose(0, 1, 3, 2).reshape(l * h * h, l)
        # [H⁻¹]_jj as planes (h, h, 1, u)
        post_U = np.moveaxis(_posterior_diag(G, K_LU, self._diagK[U], h, lam), 0, -1)[:, :, None]
        beta_U = self._beta[U].T[:, None, :]  # (h, 1, u)
        eye = np.eye(h)
        out = np.empty((cands.size, n_classes))
        chunk = max(1, _CHUNK_ELEMENTS // max(1, 4 * u * h * h))
        for s0 in range(0, cands.size, chunk):
            C = cands[s0 : s0 + chunk]
            m = C.size
            own = (np.arange(m), pos_in_U[s0 : s0 + m])
            K_CU = K[np.ix_(C, U)]
            K_LC = K[np.ix_(L, C)]
            Gk = np.moveaxis((G_t @ K_LC).reshape(l, h, h, m), -1, 0)  # (m, l, h, h)

            def sigma_times(Xk, K_CU=K_CU, Gk=Gk, m=m):
                """``Σ_jk X_k`` for every candidate k and j in U: planes (h, r, m, u)."""
                res = Xk.transpose(1, 2, 0)[..., None] * K_CU
                if l:
                    GX = (Gk @ Xk[:, None]).transpose(2, 3, 0, 1)  # (h, r, m, l)
                    res -= (GX.reshape(-1, l) @ K_LU).reshape(res.shape)
                return res / lam

            S_kk = self._diagK[C][:, None, None] * eye
            if l:
                S_kk = S_kk - np.einsum("im,miab->mab", K_LC, Gk)
            S_kk /= lam
            # one Newton step from the warm start: Δβ = −Σ_{:k}(I + F_k Σ_kk)⁻¹(p_k − t)
            D = np.linalg.inv(eye + fisher_blocks(self._P[C]) @ S_kk)
            for c in range(n_classes):
                g = self._P[C] - ova_targets(np.full(m, c), n_classes, negative=0.0)
                v = np.einsum("mab,mb->ma", D, g)
                beta_own = self._beta[C] - np.einsum("mab,mb->ma", S_kk, v)
                F_own = fisher_blocks(probabilities(beta_own))
                A = np.linalg.solve(eye + F_own @ S_kk, F_own)  # F'(I + Σ_kk F')⁻¹
                P_new = _planes_probabilities(beta_U - sigma_times(v[:, :, None])[:, 0])
                # new variance blocks Σ_jj − (Σ_jk B)(Σ_jk B)ᵀ, A = BBᵀ, weighted by F'_j²
                terms = _trace_fisher_sq(P_new, post_U)
                Y = sigma_times(_low_rank_factor(A))
                for r in range(Y.shape[1]):
                    pY = sum(P_new[a] * Y[a, r] for a in range(h))
                    for a in range(h):
                        FY = (
                            P_new[a] * (Y[a, r] - pY)
                            if h > 1
                            else P_new[0] * (1 - P_new[0]) * Y[0, r]
                        )
                        terms -= FY * FY
                terms[own] = 0.0
                out[s0 : s0 + m, c] = terms.sum(axis=1)
        return out


def _planes_probabilities(B: np.ndarray) -> np.ndarray:
    """Probabilities from decision planes (h, …): logistic if h = 1, softmax over axis 0."""
    if B.shape[0] == 1:
        return expit(B)
    E = np.exp(B - B.max(axis=0))
    E /= E.sum(axis=0)
    return E


def _low_rank_factor(A: np.ndarray) -> np.ndarray:
    """``B`` with ``A = BBᵀ`` for symmetric PSD blocks (m, h, h), one column fewer if h > 1.

    ``A = (I + F'Σ)⁻¹F'`` inherits the softmax Fisher null vector 1, so its rank is ≤ h − 1;
    dropping the direction of the smallest eigenvalue saves a third of the work for h = 3.
    """
    if A.shape[-1] == 1:
        return np.sqrt(np.maximum(A, 0.0))
    w, V = np.linalg.eigh(0.5 * (A + np.swapaxes(A, -1, -2)))
    return (V * np.sqrt(np.maximum(w, 0.0))[..., None, :])[..., 1:]


def _trace_fisher_sq(P: np.ndarray, N: np.ndarray) -> np.ndarray:
    """``tr(F² N)`` for ``F = diag(p) − ppᵀ`` (binary: ``p(1 − p)``) and symmetric ``N``.

    Component-major: ``P`` (h, …) and ``N`` (h, h, …) planes (broadcast together).
    ``= Σ_a p_a² N_aa − 2 (p∘p)ᵀNp + ‖p‖² pᵀNp``: O(h²) planes instead of forming F².
    """
    h = P.shape[0]
    if h == 1:
        q = P[0] * (1.0 - P[0])
        return q * q * N[0, 0]
    q = [P[a] * P[a] for a in range(h)]
    Np = [sum(N[a, b] * P[b] for b in range(h)) for a in range(h)]
    return (
        sum(q[a] * N[a, a] for a in range(h))
        - 2.0 * sum(q[a] * Np[a] for a in range(h))
        + sum(q) * sum(P[a] * Np[a] for a in range(h))
    )
