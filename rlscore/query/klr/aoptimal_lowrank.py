"""A-optimal KLR on low-rank features: large pools without an n × n kernel
(docs/mathematics.md §6–§7).

The kernel is the Nyström ``K̃ = ΦΦᵀ`` of :class:`~rlscore.core.kernels.lowrank.LowRankKernel`
(``Φ`` n × m; the pool itself for a linear kernel with d < n), held as its features
(:class:`~rlscore.core.kernels.blocks.FeatureKernel`): the KLR, its A-optimal risk and the
candidates' scores are those of :class:`~rlscore.query.klr.aoptimal.AOptimalKLR` on ``K̃``.
The posterior covariance is taken by Woodbury on whichever is smaller: the l labeled points
(:class:`~rlscore.core.klr.posterior.LabeledPosterior`, while ``l < m``) or the m features
(:class:`~rlscore.core.klr.posterior.FeaturePosterior`, the (hm × hm) covariance of the
primal weights), so a fast-mode query costs O(c·u·T·h²·min(l, m)) for c candidates, u risk
points and T classes (h = 1 for two, T otherwise) and stops growing with the labels. On the
m features the blocks are taken off the softmax null vector (h' = h − 1 coordinates, 1 for
two classes) and the per-pair arithmetic is one compiled pass
(:mod:`rlscore.query.klr.aoptimal_compiled`): O(u·m·(c·h'² + m·h'(h' + 1)/4)) per query,
about 0.85 s of CPU at n = 100 000, m = 500, 1000 labels, T = 3, 20 000 risk points; a whole
label step, refit included, 0.92 s (0.33 s with two classes: ``benchmarks/aopt_speed.py
--label-step``). The refit after a label begins from this posterior's precision
(:meth:`LowRankAOptimalKLR._newton_matrix`), and Φ's rows of the risk sample are kept
(:meth:`LowRankAOptimalKLR._sample_rows`). Memory is O(nm); the default scores 200
candidates (the most uncertain ones), and ``risk_points`` bounds u on large pools.
"""

from __future__ import annotations

import numpy as np

from rlscore.core.conventions.input_validation import check_matrix
from rlscore.core.kernels.blocks import FeatureKernel
from rlscore.core.kernels.functions import VECTOR_KERNELS
from rlscore.core.kernels.lowrank import LowRankKernel
from rlscore.core.klr.link import fisher_blocks
from rlscore.core.klr.newton import FeatureJacobian
from rlscore.core.klr.posterior import FeaturePosterior
from rlscore.query.klr.aoptimal import AOptimalKLR

__all__ = ["LowRankAOptimalKLR"]


class LowRankAOptimalKLR(AOptimalKLR):
    """A-optimal query selection with KLR on Nyström features (no n × n matrix).

    Parameters
    ----------
    kernel : {"rbf", "polynomial", "linear"}
        A vector kernel (a graph kernel is an n × n inverse, not a low-rank map).
    sigma, degree : RBF width (docs/mathematics.md §1) and polynomial degree.
    lam : float — KLR regularisation λ.
    n_landmarks, landmarks, random_state
        The Nyström features (:class:`~rlscore.core.kernels.lowrank.LowRankKernel`).
    mode, candidates, candidate_rule, seed, risk_points
        As :class:`~rlscore.query.klr.aoptimal.AOptimalKLR` (``candidates=200`` by default).
    tune : ``"none"`` or ``"loo"`` — λ by the LOO log-loss rule (:mod:`rlscore.core.klr.tuning`).

    Attributes (after :meth:`start`)
    --------------------------------
    features_ : ndarray (n, m) — Φ, with ``K̃ = ΦΦᵀ``.
    lowrank_ : LowRankKernel or None — the fitted feature map (None when Φ is the pool).
    """

    # the features are most of the state and replaying the labels is cheap: no snapshots
    snapshot_worthy = False
    _kernel_params = ("kernel", "sigma", "degree", "n_landmarks", "landmarks", "random_state")

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float = 0.1,
        n_landmarks: int = 200,
        landmarks: str = "uniform",
        random_state: int | None = 0,
        mode: str = "auto",
        candidates: int | None = 200,
        candidate_rule: str = "uncertainty",
        seed: int = 0,
        tune: str = "none",
        risk_points: int | None = None,
    ):
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.lam = lam
        self.n_landmarks = n_landmarks
        self.landmarks = landmarks
        self.random_state = random_state
        self.mode = mode
        self.candidates = candidates
        self.candidate_rule = candidate_rule
        self.seed = seed
        self.tune = tune
        self.risk_points = risk_points

    def needs_pool_kernel(self) -> bool:
        """False: the features come from the pool, an n × n kernel is never used."""
        return False

    def _initial_kernel(self, X: np.ndarray, K: np.ndarray | None) -> FeatureKernel:
        if self.kernel not in VECTOR_KERNELS:
            raise ValueError(
                f"{type(self).__name__} needs a vector kernel {VECTOR_KERNELS}, got "
                f"{self.kernel!r} (a graph kernel is an n × n inverse, not a low-rank map)"
            )
        if self.kernel == "linear" and X.shape[1] < X.shape[0]:
            self.lowrank_ = None
            self.features_ = X  # K = XXᵀ exactly
        else:
            self.lowrank_ = LowRankKernel(
                kernel=self.kernel,
                sigma=self.sigma,
                degree=int(self.degree),
                n_landmarks=int(self.n_landmarks),
                landmarks=self.landmarks,
                random_state=self.random_state,
            ).fit(X)
            self.features_ = self.lowrank_.features_
        return FeatureKernel(self.features_)

    def _posterior(self, U: np.ndarray):
        """The posterior covariance by Woodbury on the m features (docs/mathematics.md §7) once the
        labels
        outnumber them, else on the labeled points: the smaller inner dimension of the
        products (``benchmarks/aopt_speed.py --lowrank``). Kept for the current model."""
        if len(self._L) < self.features_.shape[1]:
            return super()._posterior(U)
        key = (tuple(self._L), tuple(self._codes), self._lam, id(self.features_), U.size)
        cached = getattr(self, "_posterior_cache", None)
        if cached is None or cached[0] != key or not np.array_equal(cached[1].U, U):
            P_L, rows = self._P[self._L], self._sample_rows(U)
            post = FeaturePosterior(self.features_, self._L, U, P_L, self._lam, rows=rows)
            cached = self._posterior_cache = (key, post)
        return cached[1]

    def _sample_rows(self, U: np.ndarray):
        """``(Φ_S, positions of U in S)`` for a risk sample S ⊇ U of at most half the pool: Φ_S
        gathered once for the strategy's features and sample, so that a posterior reads Φ_U
        from it rather than gathering it anew at every label (None: no sample, or a large one,
        which the posterior reads in place from Φ)."""
        S = self._risk_sample
        if S is None or S.size > self.features_.shape[0] // 2:
            return None
        kept = getattr(self, "_sample_cache", None)
        if kept is None or kept[0] is not self.features_ or kept[1] is not S:
            kept = self._sample_cache = (self.features_, S, self.features_[S])
        pos = np.minimum(np.searchsorted(S, U), S.size - 1)
        return (kept[2], pos) if np.array_equal(S[pos], U) else None

    def _newton_matrix(self, L: list[int], phi_L, lam: float) -> FeatureJacobian | None:
        """The refit's Newton matrix at the warm start when labels were taught since the last
        posterior was made (a label step: the query made it): the inverse of its reduced
        precision, extended by the new labels' terms (:meth:`FeatureJacobian.extended`), so
        that the refit begins without a factorisation of its own; None otherwise."""
        cached, old = getattr(self, "_posterior_cache", None), self._L
        new = len(L) - len(old)
        if cached is None or cached[0][:3] != (tuple(old), tuple(self._codes), lam):
            return None
        post = cached[1]
        g = post.basis.shape[1]
        if L[: len(old)] != old or not 0 < new * g <= self.features_.shape[1] // 4:
            return None
        if "_reduced_covariance" not in post.__dict__ or post.features is not self.features_:
            return None
        S = post._reduced_covariance  # the inverse of that G: solving is one product

        def solve_old(rhs):
            return S @ rhs

        return FeatureJacobian.extended(phi_L, post._F, solve_old, self._P[L[-new:]], lam)

    def _risk_terms(self, L, P, U) -> np.ndarray:
        if list(L) != list(self._L) or P is not self._P:
            return super()._risk_terms(L, P, U)
        F_U = fisher_blocks(P[U])
        return np.einsum("uab,uab->u", self._posterior(U).diagonal(), F_U @ F_U)

    def transform(self, Z) -> np.ndarray:
        """Features ``φ(z)`` of any points (n_z, m)."""
        self._check_started()
        Z = check_matrix(Z, "Z")
        if Z.shape[1] != self.X_.shape[1]:
            raise ValueError(f"Z has {Z.shape[1]} features but the pool has {self.X_.shape[1]}")
        return Z if self.lowrank_ is None else self.lowrank_.transform(Z)

    def decision_function_at(self, Z) -> np.ndarray:
        """KLR decision values at new points ``Z``: ``φ(Z) Φ_Lᵀ α``."""
        phi = self.transform(Z)
        if self._L:
            f = phi @ (self.features_[self._L].T @ self._alpha)
        else:
            f = np.zeros((phi.shape[0], self._h))
        return f[:, 0] if self._h == 1 else f
