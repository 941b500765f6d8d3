"""Kernel regularized least squares over a whole λ path, with exact leave-one-out.

The mathematics is docs/mathematics.md §1, §3 (Paskov ch. 2–3 and appendix A.2–A.3; Rifkin §7.7). In
our λ
convention RLS solves ``(K + λA⁻¹) c = y`` with per-point loss weights ``A = diag(a)``:

* ``M = WKW`` with ``W = A^{1/2}``, ``G = M + λI``, ``d = G⁻¹Wy``, ``c = Wd`` (Paskov 3.21–3.26);
* with an unpenalised offset: ``r = G⁻¹w``, ``b = zᵀr / wᵀr``, ``d = G⁻¹(z − bw)`` (3.31–3.32);
* exact LOO residuals ``y_i − f_{S∖i}(x_i) = c_i / (a_i D_i)`` with ``D_i = [G⁻¹]_ii`` or
  ``[G⁻¹]_ii − r_i²/wᵀr`` (3.27, 3.33, docs/mathematics.md §3), equivalently
  ``(y_i − f_i) / (1 − H_ii)``.

:class:`RLSPath` does one symmetric eigendecomposition ``M = QΛQᵀ`` per distinct weight vector
and then, for any λ, gives c, b, the exact LOO values, the LOO errors, Rifkin's LOO bound and
GACV in O(n²) per λ: ``G⁻¹ = Q diag(1/(Λ+λ)) Qᵀ`` and ``diag(G⁻¹) = (Q∘Q)(1/(Λ+λ))``.
Unweighted (or class-dict weighted) one-vs-all shares one decomposition across classes;
balanced one-vs-all needs one per class. :meth:`RLSPath.from_features` builds the same path
for ``K = ΦΦᵀ`` from a thin SVD of ``WΦ`` (docs/mathematics.md §7: the linear kernel, low-rank
features) in
O(nm²) once and O(nm) per λ, never forming an n × n matrix. The estimator built on it is
:class:`rlscore.core.rls.classifier.RLSClassifier`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import pandas as pd

from rlscore.core.conventions.input_validation import (
    check_kernel_matrix,
    check_points,
    check_positive,
)
from rlscore.core.conventions.memory_budget import require_memory, square_matrices_bytes
from rlscore.core.rls.class_weights import column_groups
from rlscore.core.rls.path_decomposition import (
    Decomposition,
    decompose_features,
    decompose_kernel,
)

LOO_ERRORS = ("classification", "squared")
CURVE_COLUMNS = ("lam", "loo_squared_error", "loo_classification_error", "loo_bound", "gacv")
#: Number of λ values in the default grid (Paskov §2.5: geometric between the extreme
#: eigenvalues of M).
DEFAULT_N_LAMS = 50
# Q∘Q doubles the memory of a decomposition but halves the per-λ cost of diag(G⁻¹):
# keep it unless the decompositions would then exceed this many bytes.
_SQUARES_BUDGET = 2**29


@dataclass
class RLSSolution:
    """RLS at one λ for every target column (see :meth:`RLSPath.solve`).

    All arrays have one column per target (OvA classifier): shape (n, T) or (T,).

    Attributes
    ----------
    lam
        The regularisation parameter.
    coef
        Dual coefficients ``c``; ``f(x) = k(x, X) c + b``.
    intercept
        Offsets ``b`` (zeros without offset).
    fitted
        ``f(x_i)`` on the training points.
    loo
        Exact leave-one-out decision values ``f_{S∖i}(x_i)``.
    loo_variance
        Gaussian-process predictive variance at ``x_i`` of the model trained without point i
        (mean ``loo``; docs/mathematics.md §4 with noise λ).
    gacv
        GACV approximations of the LOO values, ``y − (y − f)/(1 − tr(H)/n)``.
    """

    lam: float
    coef: np.ndarray
    intercept: np.ndarray
    fitted: np.ndarray
    loo: np.ndarray
    loo_variance: np.ndarray
    gacv: np.ndarray


@dataclass
class _DualBlock:
    """One decomposition's solution for several λ (λ on the last axis; Tg its columns)."""

    H: np.ndarray  # (r, L) 1/(Λ + λ)
    D: np.ndarray  # (n, L) [G⁻¹]_ii, projected on the offset complement with offset
    R: np.ndarray | None  # (n, L) G⁻¹w with offset, else None
    coef: np.ndarray  # (n, Tg, L) c
    intercept: np.ndarray  # (Tg, L) b
    resid: np.ndarray  # (n, Tg, L) y − f
    trace: np.ndarray  # (L,) the trace of the hat matrix


class RLSPath:
    """Weighted (offset) RLS for every λ from one eigendecomposition per weight vector.

    Parameters
    ----------
    K
        (n, n) symmetric positive semi-definite kernel matrix of the training points.
    Y
        Targets, (n,) or (n, T): one column per OvA classifier (±1 for classification; any
        real targets work for the solution and the squared errors).
    weights
        Loss weights ``a_i ≥ 0``: None (all 1), (n,) shared by every column, or (n, T) one
        vector per column. Columns with identical weights share one decomposition.
    offset
        Fit an unpenalised offset ``b`` per column.
    error_weights
        (n,) weights of the points in the LOO classification error and the LOO bound
        (``Σ e_i [error_i] / Σ e_i``). Default: the loss weights when they are shared or
        there is one column, otherwise all 1.
    store_squares
        Keep ``Q∘Q`` (faster per λ, twice the memory). Default: when the decompositions stay
        under 512 MB.

    Notes
    -----
    Per λ the cost is O(n² (T + 2)) for each decomposition; building costs one ``eigh`` per
    distinct weight vector (O(n³)). For ±1 targets the classification rule is ``f > 0`` for one
    column and the argmax for several.
    """

    def __init__(
        self,
        K,
        Y,
        weights=None,
        *,
        offset: bool = False,
        error_weights=None,
        store_squares: bool | None = None,
    ) -> None:
        K = check_kernel_matrix(K)
        n = K.shape[0]
        groups = self._setup(n, Y, weights, offset, error_weights)
        self.K_diag = np.diag(K).copy()
        n_mats = 2 if store_squares is None or store_squares else 1
        require_memory(
            square_matrices_bytes(n, n_mats * len(groups) + 2), "the RLS eigendecompositions"
        )
        if store_squares is None:
            store_squares = square_matrices_bytes(n, 2 * len(groups)) <= _SQUARES_BUDGET
        self.decompositions = [
            decompose_kernel(K, self.Y, self.A, g, store_squares) for g in groups
        ]

    @classmethod
    def from_features(
        cls, Phi, Y, weights=None, *, offset: bool = False, error_weights=None
    ) -> RLSPath:
        """The path of the kernel ``K = ΦΦᵀ`` without forming it (the primal path).

        docs/mathematics.md §7 (Rifkin §7.6): with ``WΦ = U S Vᵀ`` (one thin SVD per weight vector,
        O(nm²))
        ``M = U S² Uᵀ`` and ``G⁻¹ = U diag(1/(S² + λ)) Uᵀ + (I − UUᵀ)/λ``, so every λ costs
        O(nm) per target instead of O(n²). ``Φ`` is the data itself for the linear kernel and
        the low-rank features ``K_nm K_mm^{-1/2}`` for a Nyström kernel. The results equal
        those of ``RLSPath(Φ @ Φ.T, …)`` (same parameters and methods).

        Parameters
        ----------
        Phi
            (n, m) features; worthwhile when m < n.
        Y, weights, offset, error_weights
            As for :class:`RLSPath`.
        """
        Phi = np.asarray(Phi, dtype=np.float64)
        if Phi.ndim != 2:
            raise ValueError(f"the features must be a 2-D array (n, m), got shape {Phi.shape}")
        n = check_points(Phi, "the features contain")
        self = cls.__new__(cls)
        groups = self._setup(n, Y, weights, offset, error_weights)
        self.K_diag = np.einsum("ij,ij->i", Phi, Phi)
        self.decompositions = [decompose_features(Phi, self.Y, self.A, g) for g in groups]
        return self

    def _setup(self, n: int, Y, weights, offset: bool, error_weights) -> list:
        """Check and keep the targets, weights and error weights; the weight groups."""
        Y = np.asarray(Y, dtype=np.float64)
        Y = Y.reshape(n, -1) if Y.ndim == 1 else Y
        if Y.ndim != 2 or Y.shape[0] != n:
            raise ValueError(f"Y has shape {Y.shape}; expected ({n},) or ({n}, T)")
        if not np.all(np.isfinite(Y)):
            raise ValueError("Y contains NaN or infinite values")
        T = Y.shape[1]
        A = self._weights(weights, n, T)
        self.n, self.T, self.offset, self.Y, self.A = n, T, bool(offset), Y, A
        groups = column_groups(A.T)
        if error_weights is None:
            e = A[:, 0] if len(groups) == 1 else np.ones(n)
        else:
            e = np.asarray(error_weights, dtype=np.float64)
            if e.shape != (n,) or not np.all(np.isfinite(e)) or np.any(e < 0) or e.sum() <= 0:
                raise ValueError(f"error_weights must be ({n},) finite, ≥ 0, not all 0")
        self.error_weights = e
        return groups

    @staticmethod
    def _weights(weights, n: int, T: int) -> np.ndarray:
        if weights is None:
            return np.ones((n, T))
        a = np.asarray(weights, dtype=np.float64)
        if a.shape == (n,):
            a = np.repeat(a[:, None], T, axis=1)
        if a.shape != (n, T):
            raise ValueError(f"weights have shape {a.shape}; expected ({n},) or ({n}, {T})")
        if not np.all(np.isfinite(a)) or np.any(a < 0):
            raise ValueError("weights must be finite and ≥ 0")
        if np.any(a.sum(axis=0) <= 0):
            raise ValueError("every target column needs at least one point with weight > 0")
        return a

    # -- λ grid ------------------------------------------------------------------------------
    def eigenvalues(self) -> list[np.ndarray]:
        """Eigenvalues of ``M = WKW`` (ascending), one array per distinct weight vector."""
        return [dec.evals for dec in self.decompositions]

    def default_lams(self, num: int = DEFAULT_N_LAMS) -> np.ndarray:
        """Geometric λ grid from the smallest positive to the largest eigenvalue of M.

        Paskov §2.5. "Positive" means above ``n · ε · λ_max`` (smaller ones are rounding
        noise); with several decompositions the grid spans all of them.
        """
        if isinstance(num, bool) or not isinstance(num, Integral) or num < 1:
            raise ValueError(f"num must be a positive integer, got {num!r}")
        # a thin decomposition of a zero matrix has no eigenvalues at all
        evs = [ev for ev in self.eigenvalues() if ev.size]
        hi = max((float(ev[-1]) for ev in evs), default=0.0)
        if hi <= 0:
            raise ValueError("the weighted kernel matrix is zero: no λ grid can be built")
        tol = self.n * np.finfo(np.float64).eps * hi
        lo = min(float(ev[ev > tol][0]) for ev in evs if ev[-1] > tol)
        return np.geomspace(lo, hi, int(num))

    # -- solutions -------------------------------------------------------------------------
    def solve(self, lam: float) -> RLSSolution:
        """Coefficients, offsets, fitted values and exact LOO values at ``lam``."""
        lam = check_positive(lam, "lam")
        block = self._solve_block(np.array([lam]), with_variance=True)
        return RLSSolution(lam=lam, **{k: v[..., 0] for k, v in block.items()})

    def _solve_block(self, lams: np.ndarray, with_variance: bool = False) -> dict:
        """All solution arrays for several λ at once, λ on the last axis.

        Batching λ turns the per-λ matrix-vector products into matrix-matrix products
        (O(n²) per λ either way, but BLAS-3 speed).
        """
        n, T, L = self.n, self.T, lams.size
        coef, resid = np.empty((n, T, L)), np.empty((n, T, L))
        b = np.zeros((T, L))
        one_minus_h = np.empty((n, T, L))  # 1 − H_ii = λ D_i
        gacv_den = np.empty((T, L))
        loo_var = np.empty((n, T, L)) if with_variance else None
        for dec in self.decompositions:
            part = self._dual_block(dec, lams)
            coef[:, dec.cols] = part.coef
            b[dec.cols] = part.intercept
            resid[:, dec.cols] = part.resid
            one_minus_h[:, dec.cols] = (lams * part.D)[:, None, :]
            gacv_den[dec.cols] = 1.0 - part.trace / n
            if with_variance:
                loo_var[:, dec.cols] = self._loo_variance(dec, lams, part.H, part.D, part.R)[
                    :, None, :
                ]
        Y = self.Y[:, :, None]
        out = {
            "coef": coef,
            "intercept": b,
            "fitted": Y - resid,
            "loo": Y - resid / one_minus_h,
            "gacv": Y - resid / gacv_den[None],
        }
        if with_variance:
            out["loo_variance"] = loo_var
        return out

    def loo(self, lam: float) -> np.ndarray:
        """(n, T) the exact LOO values ``f_{S∖i}(x_i)`` at ``lam``: :meth:`solve`'s ``loo``
        without the coefficients, variances and GACV."""
        return self._loo_block(np.array([check_positive(lam, "lam")]))[:, :, 0]

    def _loo_block(self, lams: np.ndarray) -> np.ndarray:
        """(n, T, L) the exact LOO values for several λ: the ``loo`` of :meth:`_solve_block`,
        by the same arithmetic, without the arrays the λ search does not read."""
        loo = np.empty((self.n, self.T, lams.size))
        for dec in self.decompositions:
            part = self._dual_block(dec, lams)
            Y = self.Y[:, dec.cols, None]
            loo[:, dec.cols] = Y - part.resid / (lams * part.D)[:, None, :]
        return loo

    def _dual_block(self, dec: Decomposition, lams: np.ndarray) -> _DualBlock:
        """One decomposition's solution for several λ (docs/mathematics.md §1, §3)."""
        n, L = self.n, lams.size
        thin = dec.w_perp is not None
        H = 1.0 / (dec.evals[:, None] + lams[None, :])  # (r, L)
        g = self._diag_inverse(dec, H)
        trace = dec.evals @ H  # tr(M G⁻¹) per λ (0 on the complement)
        if thin:
            g += dec.diag_perp[:, None] / lams
        r = dec.evals.size
        proj = np.repeat(dec.Qt_z[:, :, None], L, axis=2)  # (r, Tg, L)
        R, bg = None, np.zeros((dec.cols.size, L))
        if self.offset:
            HW = H * dec.Qt_w[:, None]
            R = dec.Q @ HW  # r = G⁻¹w per λ
            wr = dec.Qt_w @ HW
            zr = dec.Qt_z.T @ HW
            outside = 0.0  # |w outside span(Q)|²
            if thin:
                outside = dec.w_perp @ dec.w_perp
                R += dec.w_perp[:, None] / lams
                wr = wr + outside / lams
                zr += (dec.z_perp.T @ dec.w_perp)[:, None] / lams
            bg = zr / wr  # (Tg, L)
            proj -= dec.Qt_w[:, None, None] * bg[None, :, :]
            D = g - R * R / wr
            trace = trace + (lams * np.sum(HW * HW, axis=0) + outside / lams) / wr
        else:
            D = g
        Tg = dec.cols.size
        d = (dec.Q @ (H[:, None, :] * proj).reshape(r, Tg * L)).reshape(n, Tg, L)
        if thin:
            d += (dec.z_perp[:, :, None] - dec.w_perp[:, None, None] * bg[None]) / lams
        Cg = dec.w[:, None, None] * d
        # y − f = λ A⁻¹ c = λ d / w where w > 0 (docs/mathematics.md §3); explicit for zero
        # weights
        pos = dec.w > 0
        Rg = np.empty_like(d)
        Rg[pos] = lams * d[pos] / dec.w[pos, None, None]
        if dec.zero.size:
            f_zero = np.einsum("zn,ntl->ztl", dec.K_zero, Cg) + bg[None]
            Rg[dec.zero] = self.Y[np.ix_(dec.zero, dec.cols)][:, :, None] - f_zero
        return _DualBlock(H=H, D=D, R=R, coef=Cg, intercept=bg, resid=Rg, trace=trace)

    @staticmethod
    def _diag_inverse(dec: Decomposition, H: np.ndarray) -> np.ndarray:
        """``diag(G⁻¹) = (Q∘Q) h`` for every column h of H."""
        if dec.Q2 is not None:
            return dec.Q2 @ H
        out = np.empty((dec.Q.shape[0], H.shape[1]))
        step = 512  # rows of Q∘Q formed at a time
        for s in range(0, out.shape[0], step):
            q = dec.Q[s : s + step]
            out[s : s + step] = (q * q) @ H
        return out

    def _loo_variance(self, dec, lams, H, D, R) -> np.ndarray:
        # The precision of the noisy targets is Σ⁻¹ = W G⁻¹ W (projected on the offset
        # complement with offset), so Var(y_i | y_{−i}) = 1/(a_i D_i) and, swapping the noise
        # λ/a_i for the λ of docs/mathematics.md §1, Var = λ + (λ/a_i)·H_ii/(1 − H_ii) with
        # 1 − H_ii = λD_i.
        var = np.empty((self.n, lams.size))
        pos = dec.a > 0
        omh = lams * D[pos]
        var[pos] = lams + (lams / dec.a[pos, None]) * (1.0 - omh) / omh
        if dec.zero.size:
            # a zero-weight point does not influence the fit: its LOO model is the full one
            u = dec.w[:, None] * dec.K_zero.T  # (n, zeros): kᵀW G⁻¹ W k is the variance drop
            V = dec.Q.T @ u
            var[dec.zero] = self.K_diag[dec.zero, None] + lams - (V * V).T @ H
            if dec.w_perp is not None:
                u_perp = u - dec.Q @ V
                var[dec.zero] -= np.sum(u_perp * u_perp, axis=0)[:, None] / lams
            if R is not None:
                wR = dec.w[:, None] * R
                var[dec.zero] += (1.0 - dec.K_zero @ wR) ** 2 / wR.sum(axis=0)
        return var

    # -- errors ------------------------------------------------------------------------------
    def errors(self, sol: RLSSolution) -> dict[str, float]:
        """LOO errors of a solution (the columns of :meth:`curve`).

        * ``loo_squared_error`` — ``Σ_t L_tᵀ A_t L_t / (nT)`` with ``L = y − f_{S∖i}``
          (docs/mathematics.md §3, averaged over the T columns);
        * ``loo_classification_error`` — weighted fraction ``Σ e_i [wrong_i] / Σ e_i`` of LOO
          misclassifications (sign for one column, argmax for several);
        * ``loo_bound`` — Rifkin §7.7 bound, weighted the same way: point i counts when some
          column has ``y_i f(x_i) ≤ a_i K_ii / (a_i K_ii + λ)``. Without offset it is a proven
          upper bound of ``loo_classification_error`` (also with weights and for the argmax);
          with an offset it is Rifkin's formula evaluated at the offset solution, not a bound.
          Margins within 1e-9 of the threshold count (their LOO value is 0 up to rounding);
        * ``gacv`` — the GACV approximation of ``loo_squared_error`` (trace of the hat matrix
          instead of its diagonal; the hat matrix includes the offset).
        """
        block = {k: getattr(sol, k)[..., None] for k in ("fitted", "loo", "gacv")}
        return {k: float(v[0]) for k, v in self._errors_block(block, np.array([sol.lam])).items()}

    def _errors_block(self, block: dict, lams: np.ndarray) -> dict[str, np.ndarray]:
        e, Y, A = self.error_weights, self.Y[:, :, None], self.A[:, :, None]
        Lg = Y - block["gacv"]
        aK = A * self.K_diag[:, None, None]
        # a point within 1e-9 of the threshold has a LOO value within rounding of 0: count it
        flagged = np.any(Y * block["fitted"] <= aK / (aK + lams) + 1e-9, axis=1)
        return {
            "loo_squared_error": self._loo_error(block["loo"], "squared"),
            "loo_classification_error": self._loo_error(block["loo"], "classification"),
            "loo_bound": (e @ flagged) / e.sum(),
            "gacv": np.sum(A * Lg * Lg, axis=(0, 1)) / (self.n * self.T),
        }

    def _loo_error(self, loo: np.ndarray, error: str) -> np.ndarray:
        """(L,) the ``loo_squared_error`` or ``loo_classification_error`` (:meth:`errors`)
        of (n, T, L) LOO values."""
        Y = self.Y[:, :, None]
        if error == "squared":
            L = Y - loo
            return np.sum(self.A[:, :, None] * L * L, axis=(0, 1)) / (self.n * self.T)
        if self.T == 1:
            wrong = (loo[:, 0] > 0) != (Y[:, 0] > 0)
        else:
            wrong = np.argmax(loo, axis=1) != np.argmax(self.Y, axis=1)[:, None]
        return (self.error_weights @ wrong) / self.error_weights.sum()

    def _lam_chunks(self, lams: np.ndarray) -> list[np.ndarray]:
        """``lams`` in blocks that keep the (n, T, block) arrays near 32 MB."""
        step = max(1, int(4e6 // (self.n * self.T)))
        return [lams[s : s + step] for s in range(0, lams.size, step)]

    def curve(self, lams: Sequence[float] | np.ndarray | None = None) -> pd.DataFrame:
        """LOO error curve: one row per λ with the columns of :data:`CURVE_COLUMNS`."""
        lams = self.default_lams() if lams is None else _check_lams(lams)
        parts = [self._errors_block(self._solve_block(c), c) for c in self._lam_chunks(lams)]
        cols = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        return pd.DataFrame({"lam": lams, **cols}, columns=list(CURVE_COLUMNS))

    def best_loo_lam(
        self, error: str = "classification", lams: Sequence[float] | np.ndarray | None = None
    ) -> float:
        """``best_lam(curve(lams), error)``, computing the chosen LOO error only.

        Parameters
        ----------
        error
            ``"classification"`` or ``"squared"`` (:meth:`errors`).
        lams
            λ values; default :meth:`default_lams`.

        Returns
        -------
        float
            The largest λ attaining the minimum of that error (:meth:`best_lam`).
        """
        if error not in LOO_ERRORS:
            raise ValueError(f"unknown loo_error {error!r}: choose one of {LOO_ERRORS}")
        lams = self.default_lams() if lams is None else _check_lams(lams)
        # the λ search reads the LOO values only: the coefficients, fitted values, GACV and
        # bound of :meth:`curve` would cost as much again
        err = np.concatenate(
            [self._loo_error(self._loo_block(c), error) for c in self._lam_chunks(lams)]
        )
        return self._best(lams, err)

    @staticmethod
    def best_lam(curve: pd.DataFrame, error: str = "classification") -> float:
        """The largest λ attaining the minimum of the chosen LOO error (Paskov §4.1).

        Errors within 1e-12 (relative) of the minimum count as ties.
        """
        if error not in LOO_ERRORS:
            raise ValueError(f"unknown loo_error {error!r}: choose one of {LOO_ERRORS}")
        return RLSPath._best(curve["lam"].to_numpy(), curve[f"loo_{error}_error"].to_numpy())

    @staticmethod
    def _best(lams: np.ndarray, err: np.ndarray) -> float:
        best = err <= err.min() + 1e-12 * max(1.0, abs(err.min()))
        return float(lams[best].max())


def check_lam_bounds(bounds) -> tuple[float, float]:
    """``bounds`` as ``(low, high)`` floats with ``0 < low ≤ high < ∞``, or ``ValueError``."""
    if isinstance(bounds, str) or not isinstance(bounds, Sequence) or len(bounds) != 2:
        raise ValueError(f"lam_bounds must be a pair (low, high), got {bounds!r}")
    low, high = (check_positive(b, "each end of lam_bounds") for b in bounds)
    if low > high:
        raise ValueError(f"lam_bounds must have low <= high, got {bounds!r}")
    return low, high


def lams_within(lams: Sequence[float] | np.ndarray, bounds: tuple[float, float]) -> np.ndarray:
    """The sorted distinct λ of ``lams``, each beyond ``bounds`` moved to its nearer end.

    The automatic λ is chosen among these when it must stay in a range (an app's λ slider):
    far below the data's scale the LOO errors can still look best while the model's values at
    new points are rounding noise (docs/mathematics.md §3, "The λ grid").
    """
    low, high = check_lam_bounds(bounds)
    return np.unique(np.clip(_check_lams(lams), low, high))


def _check_lams(lams) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(lams, dtype=np.float64))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("lams must be a non-empty 1-D sequence of numbers")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"every λ must be finite and > 0, got {arr[~(arr > 0)][:3].tolist()}")
    return arr
