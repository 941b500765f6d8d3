"""Kernel regularized least squares with exact leave-one-out over a whole λ path.

The mathematics is SPEC §1, §3 (Paskov ch. 2–3 and appendix A.2–A.3; Rifkin §7.7). In our λ
convention RLS solves ``(K + λA⁻¹) c = y`` with per-point loss weights ``A = diag(a)``:

* ``M = WKW`` with ``W = A^{1/2}``, ``G = M + λI``, ``d = G⁻¹Wy``, ``c = Wd`` (Paskov 3.21–3.26);
* with an unpenalised offset: ``r = G⁻¹w``, ``b = zᵀr / wᵀr``, ``d = G⁻¹(z − bw)`` (3.31–3.32);
* exact LOO residuals ``y_i − f_{S∖i}(x_i) = c_i / (a_i D_i)`` with ``D_i = [G⁻¹]_ii`` or
  ``[G⁻¹]_ii − r_i²/wᵀr`` (3.27, 3.33, SPEC §3), equivalently ``(y_i − f_i) / (1 − H_ii)``.

:class:`RLSPath` does one symmetric eigendecomposition ``M = QΛQᵀ`` per distinct weight vector
and then, for any λ, gives c, b, the exact LOO values, the LOO errors, Rifkin's LOO bound and
GACV in O(n²) per λ: ``G⁻¹ = Q diag(1/(Λ+λ)) Qᵀ`` and ``diag(G⁻¹) = (Q∘Q)(1/(Λ+λ))``.
Unweighted (or class-dict weighted) one-vs-all shares one decomposition across classes;
balanced one-vs-all needs one per class.

:class:`RLSClassifier` is the scikit-learn estimator built on it (binary and one-vs-all
multiclass, automatic λ by LOO error, class weighting, confidence estimates).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Literal

import numpy as np
import pandas as pd
import scipy.linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from rlscore.core import confidence as _conf
from rlscore.core.kernels import VECTOR_KERNELS, kernel_matrix
from rlscore.core.memory import require_memory, square_matrices_bytes
from rlscore.core.validation import check_positive

KERNELS = (*VECTOR_KERNELS, "precomputed")
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
        (mean ``loo``; SPEC §4 with noise λ).
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
class _Decomposition:
    """``M = WKW = QΛQᵀ`` for one weight vector, with the targets it serves projected."""

    cols: np.ndarray  # target columns using these weights
    a: np.ndarray  # (n,) weights
    w: np.ndarray  # (n,) sqrt(a)
    evals: np.ndarray  # (n,) ascending, clipped at 0
    Q: np.ndarray  # (n, n)
    Q2: np.ndarray | None  # Q∘Q, or None to compute per λ
    Qt_z: np.ndarray  # (n, len(cols)) Qᵀ W y
    Qt_w: np.ndarray  # (n,) Qᵀ w
    zero: np.ndarray  # indices with a_i == 0
    K_zero: np.ndarray  # (len(zero), n) kernel rows of those points


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
        K = np.asarray(K, dtype=np.float64)
        if K.ndim != 2 or K.shape[0] != K.shape[1]:
            raise ValueError(f"the kernel matrix must be square (n, n), got shape {K.shape}")
        n = K.shape[0]
        if n < 2:
            raise ValueError(f"leave-one-out needs at least 2 points, got n_samples = {n}")
        if not np.all(np.isfinite(K)):
            raise ValueError("the kernel matrix contains NaN or infinite values")
        # eigh reads one triangle only: an asymmetric matrix would be silently symmetrised
        if not np.allclose(K, K.T, rtol=1e-8, atol=1e-12 * max(1.0, float(np.abs(K).max()))):
            raise ValueError("the kernel matrix is not symmetric (K must equal K.T)")
        Y = np.asarray(Y, dtype=np.float64)
        Y = Y.reshape(n, -1) if Y.ndim == 1 else Y
        if Y.ndim != 2 or Y.shape[0] != n:
            raise ValueError(f"Y has shape {Y.shape}; expected ({n},) or ({n}, T)")
        if not np.all(np.isfinite(Y)):
            raise ValueError("Y contains NaN or infinite values")
        T = Y.shape[1]
        A = self._weights(weights, n, T)
        self.n, self.T, self.offset, self.Y, self.A = n, T, bool(offset), Y, A
        self.K_diag = np.diag(K).copy()

        groups: list[list[int]] = []
        for t in range(T):
            for g in groups:
                if np.array_equal(A[:, g[0]], A[:, t]):
                    g.append(t)
                    break
            else:
                groups.append([t])
        n_mats = 2 if store_squares is None or store_squares else 1
        require_memory(
            square_matrices_bytes(n, n_mats * len(groups) + 2), "the RLS eigendecompositions"
        )
        if store_squares is None:
            store_squares = square_matrices_bytes(n, 2 * len(groups)) <= _SQUARES_BUDGET
        self.decompositions = [self._decompose(K, Y, A, g, store_squares) for g in groups]

        if error_weights is None:
            e = A[:, 0] if len(groups) == 1 else np.ones(n)
        else:
            e = np.asarray(error_weights, dtype=np.float64)
            if e.shape != (n,) or not np.all(np.isfinite(e)) or np.any(e < 0) or e.sum() <= 0:
                raise ValueError(f"error_weights must be ({n},) finite, ≥ 0, not all 0")
        self.error_weights = e

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

    @staticmethod
    def _decompose(K, Y, A, cols, store_squares) -> _Decomposition:
        a = A[:, cols[0]]
        w = np.sqrt(a)
        M = w[:, None] * K * w[None, :]
        evals, Q = scipy.linalg.eigh(M, overwrite_a=True, check_finite=False, driver="evd")
        del M
        # M is PSD: negative eigenvalues are rounding noise
        np.maximum(evals, 0.0, out=evals)
        zero = np.flatnonzero(a == 0)
        return _Decomposition(
            cols=np.asarray(cols),
            a=a,
            w=w,
            evals=evals,
            Q=Q,
            Q2=Q * Q if store_squares else None,
            Qt_z=Q.T @ (w[:, None] * Y[:, cols]),
            Qt_w=Q.T @ w,
            zero=zero,
            K_zero=K[zero].copy(),
        )

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
        hi = max(float(ev[-1]) for ev in self.eigenvalues())
        if hi <= 0:
            raise ValueError("the weighted kernel matrix is zero: no λ grid can be built")
        tol = self.n * np.finfo(np.float64).eps * hi
        lo = min(float(ev[ev > tol][0]) for ev in self.eigenvalues() if ev[-1] > tol)
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
            H = 1.0 / (dec.evals[:, None] + lams[None, :])  # (n, L)
            g = self._diag_inverse(dec, H)
            trace = dec.evals @ H  # tr(M G⁻¹) per λ
            proj = np.repeat(dec.Qt_z[:, :, None], L, axis=2)  # (n, Tg, L)
            R = None
            if self.offset:
                HW = H * dec.Qt_w[:, None]
                R = dec.Q @ HW  # r = G⁻¹w per λ
                wr = dec.Qt_w @ HW
                bg = (dec.Qt_z.T @ HW) / wr  # (Tg, L)
                proj -= dec.Qt_w[:, None, None] * bg[None, :, :]
                D = g - R * R / wr
                trace = trace + lams * np.sum(HW * HW, axis=0) / wr
                b[dec.cols] = bg
            else:
                D = g
            Tg = dec.cols.size
            d = (dec.Q @ (H[:, None, :] * proj).reshape(n, Tg * L)).reshape(n, Tg, L)
            Cg = dec.w[:, None, None] * d
            coef[:, dec.cols] = Cg
            # y − f = λ A⁻¹ c = λ d / w where w > 0 (SPEC §3); explicit for zero weights
            pos = dec.w > 0
            Rg = np.empty_like(d)
            Rg[pos] = lams * d[pos] / dec.w[pos, None, None]
            if dec.zero.size:
                f_zero = np.einsum("zn,ntl->ztl", dec.K_zero, Cg) + b[dec.cols][None]
                Rg[dec.zero] = self.Y[np.ix_(dec.zero, dec.cols)][:, :, None] - f_zero
            resid[:, dec.cols] = Rg
            one_minus_h[:, dec.cols] = (lams * D)[:, None, :]
            gacv_den[dec.cols] = 1.0 - trace / n
            if with_variance:
                loo_var[:, dec.cols] = self._loo_variance(dec, lams, H, D, R)[:, None, :]
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

    @staticmethod
    def _diag_inverse(dec: _Decomposition, H: np.ndarray) -> np.ndarray:
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
        # λ/a_i for the SPEC's λ, Var = λ + (λ/a_i)·H_ii/(1 − H_ii) with 1 − H_ii = λD_i.
        var = np.empty((self.n, lams.size))
        pos = dec.a > 0
        omh = lams * D[pos]
        var[pos] = lams + (lams / dec.a[pos, None]) * (1.0 - omh) / omh
        if dec.zero.size:
            # a zero-weight point does not influence the fit: its LOO model is the full one
            V = dec.Q.T @ (dec.w[:, None] * dec.K_zero.T)  # (n, zeros)
            var[dec.zero] = self.K_diag[dec.zero, None] + lams - (V * V).T @ H
            if R is not None:
                wR = dec.w[:, None] * R
                var[dec.zero] += (1.0 - dec.K_zero @ wR) ** 2 / wR.sum(axis=0)
        return var

    # -- errors ------------------------------------------------------------------------------
    def errors(self, sol: RLSSolution) -> dict[str, float]:
        """LOO errors of a solution (the columns of :meth:`curve`).

        * ``loo_squared_error`` — ``Σ_t L_tᵀ A_t L_t / (nT)`` with ``L = y − f_{S∖i}``
          (SPEC §3, averaged over the T columns);
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
        L = Y - block["loo"]
        Lg = Y - block["gacv"]
        if self.T == 1:
            wrong = (block["loo"][:, 0] > 0) != (Y[:, 0] > 0)
        else:
            wrong = np.argmax(block["loo"], axis=1) != np.argmax(self.Y, axis=1)[:, None]
        aK = A * self.K_diag[:, None, None]
        # a point within 1e-9 of the threshold has a LOO value within rounding of 0: count it
        flagged = np.any(Y * block["fitted"] <= aK / (aK + lams) + 1e-9, axis=1)
        scale = self.n * self.T
        return {
            "loo_squared_error": np.sum(A * L * L, axis=(0, 1)) / scale,
            "loo_classification_error": (e @ wrong) / e.sum(),
            "loo_bound": (e @ flagged) / e.sum(),
            "gacv": np.sum(A * Lg * Lg, axis=(0, 1)) / scale,
        }

    def curve(self, lams: Sequence[float] | np.ndarray | None = None) -> pd.DataFrame:
        """LOO error curve: one row per λ with the columns of :data:`CURVE_COLUMNS`."""
        lams = self.default_lams() if lams is None else _check_lams(lams)
        # λ blocks keep the (n, T, block) arrays near 32 MB
        step = max(1, int(4e6 // (self.n * self.T)))
        parts = []
        for s in range(0, lams.size, step):
            chunk = lams[s : s + step]
            parts.append(self._errors_block(self._solve_block(chunk), chunk))
        cols = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        return pd.DataFrame({"lam": lams, **cols}, columns=list(CURVE_COLUMNS))

    @staticmethod
    def best_lam(curve: pd.DataFrame, error: str = "classification") -> float:
        """The largest λ attaining the minimum of the chosen LOO error (Paskov §4.1).

        Errors within 1e-12 (relative) of the minimum count as ties.
        """
        if error not in LOO_ERRORS:
            raise ValueError(f"unknown loo_error {error!r}: choose one of {LOO_ERRORS}")
        err = curve[f"loo_{error}_error"].to_numpy()
        lams = curve["lam"].to_numpy()
        best = err <= err.min() + 1e-12 * max(1.0, abs(err.min()))
        return float(lams[best].max())


def _check_lams(lams) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(lams, dtype=np.float64))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("lams must be a non-empty 1-D sequence of numbers")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(f"every λ must be finite and > 0, got {arr[~(arr > 0)][:3].tolist()}")
    return arr


def ova_targets(y_index: np.ndarray, n_classes: int) -> np.ndarray:
    """±1 one-vs-all targets: one column (second class positive) for 2 classes, else T."""
    if n_classes == 2:
        return np.where(y_index == 1, 1.0, -1.0)[:, None]
    Y = -np.ones((y_index.size, n_classes))
    Y[np.arange(y_index.size), y_index] = 1.0
    return Y


def class_weights(
    y_index: np.ndarray, classes: np.ndarray, class_weight
) -> tuple[np.ndarray, np.ndarray]:
    """Per-point loss weights per OvA column, and the per-point weights of the LOO errors.

    SPEC §1: ``"balanced"`` gives OvA classifier t ``n/(2n_t)`` on its class and
    ``n/(2(n − n_t))`` on the rest (binary: ``n/(2n₊)``, ``n/(2n₋)``); its error weights are
    ``n/(T·n_{y_i})`` (mean 1, classes equalised). A dict maps class → weight (missing classes
    weigh 1), used as given for every column.

    Returns
    -------
    (A, e)
        ``A`` (n, 1) for two classes or (n, T) otherwise; ``e`` (n,).
    """
    n, T = y_index.size, classes.size
    cols = 1 if T == 2 else T
    if class_weight is None:
        return np.ones((n, cols)), np.ones(n)
    counts = np.bincount(y_index, minlength=T).astype(np.float64)
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(
                f"class_weight must be None, 'balanced' or a dict, got {class_weight!r}"
            )
        e = n / (T * counts[y_index])
        if T == 2:
            return e[:, None], e
        A = np.empty((n, T))
        for t in range(T):
            A[:, t] = np.where(y_index == t, n / (2 * counts[t]), n / (2 * (n - counts[t])))
        return A, e
    if not isinstance(class_weight, Mapping):
        raise ValueError(f"class_weight must be None, 'balanced' or a dict, got {class_weight!r}")
    known = set(classes.tolist())
    unknown = [k for k in class_weight if k not in known]
    if unknown:
        raise ValueError(
            f"class_weight has labels {unknown} that are not classes of y {classes.tolist()}"
        )
    per_class = np.ones(T)
    for k, c in enumerate(classes.tolist()):
        if c in class_weight:
            per_class[k] = check_positive(class_weight[c], f"class_weight[{c!r}]")
    e = per_class[y_index]
    return np.repeat(e[:, None], cols, axis=1), e


def _kernel_diag(X: np.ndarray, kernel: str, sigma: float, degree: int) -> np.ndarray:
    if kernel == "rbf":
        return np.ones(X.shape[0])
    sq = np.einsum("ij,ij->i", X, X)
    return sq if kernel == "linear" else (1.0 + sq) ** int(degree)


def _fingerprint(*arrays: np.ndarray, params: tuple) -> str:
    """Cheap content hash (O(size)) identifying the data an eigendecomposition was built on."""
    hsh = hashlib.blake2b(repr(params).encode(), digest_size=16)
    for arr in arrays:
        arr = np.ascontiguousarray(arr)
        hsh.update(repr((arr.shape, arr.dtype.str)).encode())
        hsh.update(arr.data)
    return hsh.hexdigest()


class RLSClassifier(ClassifierMixin, BaseEstimator):
    """Kernel RLS classifier with exact leave-one-out, automatic λ and class weighting.

    Binary problems use one RLS with targets ±1 (second class of ``classes_`` positive);
    multiclass problems use one-vs-all (Paskov §2.6). λ follows SPEC §1: ``(K + λA⁻¹)c = y``.

    Parameters
    ----------
    kernel
        ``"rbf"`` ``exp(−‖x−z‖²/(2σ²))``, ``"linear"``, ``"polynomial"`` ``(1 + x·z)^degree``
        or ``"precomputed"`` (``fit(K, y)`` with the (n, n) training kernel, then
        ``predict(K_test)`` with (m, n) kernel values against the training points).
    sigma
        RBF width σ > 0.
    degree
        Polynomial degree (positive integer).
    lam
        λ > 0, or ``"auto"``: the largest λ minimising the ``loo_error`` over the default grid
        (:data:`DEFAULT_N_LAMS` geometric values between the smallest positive and the largest
        eigenvalue of M; Paskov §2.5, §4.1). One λ is shared by all OvA classifiers.
    class_weight
        None, ``"balanced"`` (SPEC §1; one eigendecomposition per class in multiclass) or a
        dict class → weight.
    offset
        Fit an unpenalised offset b per classifier (Paskov 3.28–3.33).
    loo_error
        ``"classification"`` or ``"squared"``: the LOO error ``lam="auto"`` minimises.

    Attributes
    ----------
    classes_ : ndarray (T,)
        The class labels.
    lam_ : float
        The λ used (= ``lam`` or the automatic choice).
    dual_coef_ : ndarray (n,) or (n, T)
        Dual coefficients c (one column per OvA classifier; a vector for binary problems).
    intercept_ : ndarray (1,) or (T,)
        Offsets b (zeros when ``offset=False``).
    loo_decision_ : ndarray (n,) or (n, T)
        Exact leave-one-out decision values ``f_{S∖i}(x_i)`` (same shape as
        ``decision_function(X_train)``).
    loo_variance_ : ndarray (n,) or (n, T)
        Gaussian-process variance at ``x_i`` of the model trained without point i.
    loo_squared_error_, loo_classification_error_, loo_bound_, gacv_ : float
        The LOO errors at ``lam_`` (see :meth:`RLSPath.errors`).
    sample_weights_ : ndarray (n, 1) or (n, T)
        The loss weights ``a_i`` of each OvA classifier (class weights × sample weights).
    X_fit_ : ndarray
        Training inputs (the training kernel when ``kernel="precomputed"``).
    y_fit_ : ndarray (n,)
        Training labels.
    n_features_in_ : int

    Notes
    -----
    The eigendecomposition is cached on the instance, keyed on a content hash of X, y, the
    kernel parameters, the weights and ``offset``: :meth:`loo_curve`, :meth:`predictive_variance`
    and a refit after ``set_params(lam=…)`` on the same data never refactorise.
    """

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float | str = 1.0,
        class_weight: None | str | dict = None,
        offset: bool = False,
        loo_error: str = "classification",
    ) -> None:
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.lam = lam
        self.class_weight = class_weight
        self.offset = offset
        self.loo_error = loo_error

    # -- scikit-learn plumbing ---------------------------------------------------------------
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_path", None)  # rebuilt on demand; keeps pickles O(n·d)
        state.pop("_path_key", None)
        return state

    def _check_params(self) -> None:
        if self.kernel not in KERNELS:
            raise ValueError(f"unknown kernel {self.kernel!r}: choose one of {KERNELS}")
        check_positive(self.sigma, "sigma")
        if (
            isinstance(self.degree, bool)
            or not isinstance(self.degree, Integral | Real)
            or int(self.degree) != self.degree
            or self.degree < 1
        ):
            raise ValueError(f"degree must be a positive integer, got {self.degree!r}")
        if isinstance(self.lam, str):
            if self.lam != "auto":
                raise ValueError(f"lam must be a number > 0 or 'auto', got {self.lam!r}")
        else:
            check_positive(self.lam, "lam")
        if self.loo_error not in LOO_ERRORS:
            raise ValueError(f"unknown loo_error {self.loo_error!r}: choose one of {LOO_ERRORS}")
        if not isinstance(self.offset, bool | np.bool_):
            raise ValueError(f"offset must be True or False, got {self.offset!r}")

    def _kernel(self, X: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        return kernel_matrix(X, Z, kernel=self.kernel, sigma=self.sigma, degree=int(self.degree))

    # -- fitting -----------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None) -> RLSClassifier:
        """Fit RLS at ``lam`` (or choose λ by LOO error when ``lam="auto"``).

        Parameters
        ----------
        X
            (n, d) training inputs, or the (n, n) kernel when ``kernel="precomputed"``.
        y
            (n,) class labels, at least two classes.
        sample_weight
            Optional (n,) non-negative loss weights, multiplied into the class weights. A
            point of weight 0 is equivalent to leaving it out.
        """
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes, y_index = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(
                f"y has only one class ({classes[0]!r}): a classifier needs at least 2 classes"
            )
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"kernel='precomputed' needs the square (n, n) training kernel, got {X.shape}"
            )
        A, e = class_weights(y_index, classes, self.class_weight)
        if sample_weight is not None:
            sw = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
            A = A * sw[:, None]
            e = e * sw
            if np.any(A.sum(axis=0) <= 0):
                raise ValueError("sample_weight is zero for every point: nothing to fit")
            present = np.bincount(y_index[sw > 0], minlength=classes.size) > 0
            if present.sum() < 2:
                raise ValueError(
                    "sample_weight leaves only one class with positive weight: "
                    "a classifier needs at least 2 classes"
                )

        self.classes_ = classes
        self.X_fit_ = X
        self.y_fit_ = y
        self.sample_weights_ = A
        self._error_weights = e
        path = self._ensure_path(y_index, A, e)
        lam = self.lam
        if lam == "auto":
            lam = RLSPath.best_lam(path.curve(), self.loo_error)
        sol = path.solve(float(lam))
        errs = path.errors(sol)
        self._set_solution(sol, errs)
        return self

    def _ensure_path(self, y_index=None, A=None, e=None) -> RLSPath:
        """The cached :class:`RLSPath` for the fitted data, built if missing or stale."""
        if y_index is None:  # rebuilding after unpickling
            _, y_index = np.unique(self.y_fit_, return_inverse=True)
            A, e = self.sample_weights_, self._error_weights
        params = (self.kernel, float(self.sigma), int(self.degree), bool(self.offset))
        key = _fingerprint(self.X_fit_, y_index, A, e, params=params)
        if getattr(self, "_path_key", None) != key:
            self._path = None  # free the old decomposition before building a new one
            K = self.X_fit_ if self.kernel == "precomputed" else self._kernel(self.X_fit_)
            self._path = RLSPath(
                K,
                ova_targets(y_index, self.classes_.size),
                A,
                offset=bool(self.offset),
                error_weights=e,
            )
            self._path_key = key
        return self._path

    def _set_solution(self, sol: RLSSolution, errs: dict[str, float]) -> None:
        binary = self.classes_.size == 2
        shape = (lambda a: a[:, 0]) if binary else (lambda a: a)
        self.lam_ = sol.lam
        self.dual_coef_ = shape(sol.coef)
        self.intercept_ = sol.intercept
        self.loo_decision_ = shape(sol.loo)
        self.loo_variance_ = shape(sol.loo_variance)
        self.loo_squared_error_ = errs["loo_squared_error"]
        self.loo_classification_error_ = errs["loo_classification_error"]
        self.loo_bound_ = errs["loo_bound"]
        self.gacv_ = errs["gacv"]

    # -- λ path ------------------------------------------------------------------------------
    def default_lams(self, num: int = DEFAULT_N_LAMS) -> np.ndarray:
        """The default λ grid of the fitted data (see :meth:`RLSPath.default_lams`)."""
        check_is_fitted(self)
        return self._ensure_path().default_lams(num)

    def loo_curve(self, lams: Sequence[float] | np.ndarray | None = None) -> pd.DataFrame:
        """Exact LOO errors for every λ, reusing the cached eigendecomposition.

        Parameters
        ----------
        lams
            λ values; default :meth:`default_lams`.

        Returns
        -------
        pandas.DataFrame
            One row per λ: ``lam``, ``loo_squared_error``, ``loo_classification_error``,
            ``loo_bound``, ``gacv`` (definitions in :meth:`RLSPath.errors`).
        """
        check_is_fitted(self)
        return self._ensure_path().curve(lams)

    # -- prediction --------------------------------------------------------------------------
    def _test_kernel(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X if self.kernel == "precomputed" else self._kernel(X, self.X_fit_)

    def _decision(self, Kx: np.ndarray) -> np.ndarray:
        C = self.dual_coef_.reshape(self.X_fit_.shape[0], -1)
        F = Kx @ C + self.intercept_
        return F[:, 0] if self.classes_.size == 2 else F

    def decision_function(self, X) -> np.ndarray:
        """Decision values ``f(x) = k(x, X) c + b``: (m,) for binary, (m, T) one-vs-all."""
        return self._decision(self._test_kernel(X))

    def predict(self, X) -> np.ndarray:
        """Predicted labels: ``f > 0`` for binary, the argmax of the OvA outputs otherwise."""
        F = self.decision_function(X)
        return self.classes_[_conf.predicted_index(F)]

    def predict_proba(self, X) -> np.ndarray:
        """Clipped soft scores ``clip((f+1)/2, 0, 1)`` normalised per row, (m, T) (SPEC §4)."""
        return _conf.soft_probabilities(self.decision_function(X))

    def predictive_variance(self, X, *, kernel_diag=None) -> np.ndarray:
        """Gaussian-process variance of each OvA output (Paskov eq. 3.40, SPEC §4).

        ``σ_x² = k(x,x) + λ − k(x,X)(K + λA⁻¹)⁻¹k(X,x)`` with each classifier's own weights;
        with ``offset=True`` the uncertainty of the offset (flat prior) is added:
        ``+ (1 − wᵀG⁻¹Wk)² / wᵀG⁻¹w`` (Rasmussen & Williams §2.7).

        Parameters
        ----------
        X
            Test inputs (or (m, n) kernel values for ``kernel="precomputed"``).
        kernel_diag
            (m,) self-similarities ``k(x, x)``; required with ``kernel="precomputed"``.

        Returns
        -------
        numpy.ndarray
            (m,) for binary, (m, T) one-vs-all.
        """
        Kx = self._test_kernel(X)
        m = Kx.shape[0]
        if self.kernel == "precomputed":
            if kernel_diag is None:
                raise ValueError(
                    "kernel='precomputed' needs kernel_diag=k(x, x) of the test points "
                    "for the Bayes variance"
                )
            kd = np.asarray(kernel_diag, dtype=np.float64)
            if kd.shape != (m,) or not np.all(np.isfinite(kd)):
                raise ValueError(f"kernel_diag must be ({m},) finite values, got {kd.shape}")
        else:
            kd = _kernel_diag(np.asarray(X, dtype=np.float64), self.kernel, self.sigma, self.degree)
        path = self._ensure_path()
        lam = self.lam_
        var = np.empty((m, path.T))
        for dec in path.decompositions:
            h = 1.0 / (dec.evals + lam)
            V = dec.Q.T @ (dec.w[:, None] * Kx.T)  # Qᵀ W k(X, x)
            v = kd + lam - h @ (V * V)
            if path.offset:
                hw = h * dec.Qt_w
                v = v + (1.0 - hw @ V) ** 2 / float(dec.Qt_w @ hw)
            var[:, dec.cols] = v[:, None]
        # rounding can push a tiny variance below 0; the exact value is ≥ λ
        np.maximum(var, lam * 1e-12, out=var)
        return var[:, 0] if self.classes_.size == 2 else var

    def confidence(
        self, X, method: Literal["soft", "gap", "bayes"] = "soft", *, kernel_diag=None
    ) -> np.ndarray:
        """Confidence in the predicted label, (m,) in [0, 1] (Paskov §3.2, SPEC §4).

        Parameters
        ----------
        X
            Test inputs.
        method
            ``"soft"`` clipped soft score of the winner, ``"gap"`` winner minus runner-up,
            ``"bayes"`` Gaussian-process probability of the predicted class.
        kernel_diag
            Only for ``"bayes"`` with ``kernel="precomputed"``: the test points' ``k(x, x)``.
        """
        if method not in _conf.METHODS:
            raise ValueError(f"unknown confidence method {method!r}: choose one of {_conf.METHODS}")
        F = self.decision_function(X)
        var = self.predictive_variance(X, kernel_diag=kernel_diag) if method == "bayes" else None
        return _conf.confidence_scores(F, method, var)
