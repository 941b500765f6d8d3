"""The maximum-margin hyperplane between two ellipsoids: Saketha Nath's problem (2.3) (kernelised
(2.17)–(2.19)), docs/mathematics.md §8 (c).

Each class i is the ellipsoid ``B(μ_i, Σ_i, κ_i) = {z : (z − μ_i)ᵀΣ_i⁻¹(z − μ_i) ≤ κ_i²}``;
a hyperplane ``wᵀx = b`` meets both error-rate targets of
:mod:`rlscore.core.classifiers.error_bounds` when it separates them with the margin of (2.3).
Two solvers: the SOCP (2.5) with cvxpy and Clarabel (:func:`solve_socp`) and the
ellipsoid-distance iteration of §2.3.1 in numpy (:func:`solve_iterative`). Intersecting
ellipsoids mean the targets cannot be met: ``feasible`` is False, a result and not an error.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning

from rlscore.core.classifiers.error_bounds import INFEASIBLE

__all__ = ["EllipsoidSeparation", "solve_iterative", "solve_socp"]


@dataclass(frozen=True)
class EllipsoidSeparation:
    """Solution of (2.3): the hyperplane ``wᵀx = b`` separating the two ellipsoids.

    Attributes
    ----------
    w, b
        The classifier (None when infeasible).
    feasible
        False when the ellipsoids ``B(μ_i, C_i, κ_i)`` intersect (the targets cannot be met).
    converged
        The solver reached its tolerance.
    n_iter
        Iterations (interior-point iterations for the SOCP).
    status
        Solver status or a one-line explanation.
    z
        Closest points ``(z₁, z₂)`` of the two ellipsoids (iterative solver; dual (2.13)).
    seconds
        Wall-clock time of the solve (SOCP: cvxpy's compilation included).
    solver_seconds
        Time inside the numerical solver (SOCP: Clarabel's own solve time).
    """

    w: np.ndarray | None
    b: float | None
    feasible: bool
    converged: bool
    n_iter: int
    status: str
    z: tuple[np.ndarray, np.ndarray] | None = None
    seconds: float = 0.0
    solver_seconds: float = 0.0


def _check_problem(mu1, mu2, S1, S2, kappa1, kappa2):
    mu1 = np.asarray(mu1, dtype=np.float64).ravel()
    mu2 = np.asarray(mu2, dtype=np.float64).ravel()
    S1 = np.asarray(S1, dtype=np.float64)
    S2 = np.asarray(S2, dtype=np.float64)
    p = mu1.size
    if mu2.shape != (p,) or S1.shape != (p, p) or S2.shape != (p, p):
        raise ValueError(
            f"shapes disagree: mu1 {mu1.shape}, mu2 {mu2.shape}, S1 {S1.shape}, S2 {S2.shape}"
        )
    k = np.array([kappa1, kappa2], dtype=np.float64)
    if not np.all(np.isfinite(k)) or np.any(k < 0):
        raise ValueError(
            f"κ must be finite and ≥ 0 (a convex problem; Gaussian moments need η ≤ 1/2), got {k}"
        )
    return mu1, mu2, S1, S2, k


def _sq(v: np.ndarray) -> float:
    return float(v @ v)


def _cholesky(S: np.ndarray, name: str) -> np.ndarray:
    try:
        return np.linalg.cholesky(0.5 * (S + S.T))
    except np.linalg.LinAlgError:
        raise ValueError(f"{name} is not positive definite: use a ridge > 0") from None


def solve_socp(
    mu1, mu2, S1, S2, kappa1: float, kappa2: float, *, tol: float = 1e-9
) -> EllipsoidSeparation:
    """Solve (2.3) in the standard SOCP form (2.5) (kernelised: (2.19)) with cvxpy + Clarabel.

    ``min t  s.t.  ‖w‖ ≤ t,  wᵀμ₁ − b − 1 ≥ κ₁‖C₁ᵀw‖,  b − wᵀμ₂ − 1 ≥ κ₂‖C₂ᵀw‖``
    with ``Σ_i = C_iC_iᵀ`` (Cholesky). Clarabel: a maintained, open-source (Apache-2.0)
    interior-point solver for conic programs (second-order cones natively), cvxpy's default
    for them; cvxpy keeps the program as readable as the thesis's display.

    Parameters
    ----------
    mu1, mu2
        (p,) class means.
    S1, S2
        (p, p) positive-definite class covariances (ridged).
    kappa1, kappa2
        κ ≥ 0 of the two targets.
    tol
        Clarabel's gap and feasibility tolerances.
    """
    import cvxpy as cp  # lazy: a heavy import only this solver needs

    mu1, mu2, S1, S2, k = _check_problem(mu1, mu2, S1, S2, kappa1, kappa2)
    C1, C2 = _cholesky(S1, "S1"), _cholesky(S2, "S2")
    p = mu1.size
    w, b, t = cp.Variable(p), cp.Variable(), cp.Variable()
    constraints = [
        cp.SOC(t, w),
        cp.SOC(mu1 @ w - b - 1.0, k[0] * (C1.T @ w)),
        cp.SOC(b - mu2 @ w - 1.0, k[1] * (C2.T @ w)),
    ]
    problem = cp.Problem(cp.Minimize(t), constraints)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        # cvxpy's generic "may be inaccurate" warning: replaced by ours below
        warnings.filterwarnings("ignore", "Solution may be inaccurate", UserWarning)
        problem.solve(
            solver=cp.CLARABEL, tol_gap_abs=tol, tol_gap_rel=tol, tol_feas=tol, max_iter=500
        )
    seconds = time.perf_counter() - t0
    status = problem.status
    n_iter = int(problem.solver_stats.num_iters or 0)
    inner = float(problem.solver_stats.solve_time or 0.0)
    if status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
        return EllipsoidSeparation(
            None, None, False, True, n_iter, f"{INFEASIBLE} (SOCP {status})",
            seconds=seconds, solver_seconds=inner,
        )  # fmt: skip
    if status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or w.value is None:
        raise RuntimeError(f"the SOCP solver failed: status {status!r}")
    if status == cp.OPTIMAL_INACCURATE:
        # Clarabel met only its reduced tolerances: typical next to infeasibility
        warnings.warn(
            f"SOCP solved to reduced accuracy (tolerance {tol:g} not met; the targets are "
            "close to infeasible)",
            ConvergenceWarning,
            stacklevel=2,
        )
    return EllipsoidSeparation(
        np.asarray(w.value, dtype=np.float64),
        float(b.value),
        True,
        status == cp.OPTIMAL,
        n_iter,
        f"SOCP {status}",
        seconds=seconds,
        solver_seconds=inner,
    )


def solve_iterative(
    mu1,
    mu2,
    S1,
    S2,
    kappa1: float,
    kappa2: float,
    *,
    tol: float = 1e-10,
    max_iter: int = 100_000,
) -> EllipsoidSeparation:
    """Solve (2.3) through its dual (2.13), the distance between two ellipsoids (§2.3.1).

    Lin & Han's iteration as in the thesis: ellipsoids ``q_i(z) = ½zᵀA_iz + b_iᵀz + ρ_i ≤ 0``
    with ``A_i = 2Σ_i⁻¹``, ``b_i = −2Σ_i⁻¹μ_i``, ``ρ_i = μ_iᵀΣ_i⁻¹μ_i − κ_i²``; start from the
    centres ``c_i = μ_i``; each step intersects the segment ``c₁c₂`` with both ellipsoids
    (two scalar quadratics) giving ``z₁, z₂``; stops when ``z₂ − z₁`` is normal to both
    (angles ``θ_i < tol``); otherwise moves ``c_i ← z_i − δ_i∇q_i(z_i)``, ``δ_i = 1/‖A_i‖₂``
    (the largest δ for which the sphere of centre ``c_i`` through ``z_i`` lies inside the
    ellipsoid wherever ``z_i`` is on its boundary). ``t₁ ≥ t₂`` (the segment
    meets both ellipsoids at once) means they intersect: infeasible. Then (2.14), (2.16):
    ``w = 2(z₁ − z₂)/‖z₁ − z₂‖²``, ``b = wᵀz₁ − 1``.

    Cost O(p³) once (``Σ_i⁻¹``), O(p²) per step; the number of steps grows with the
    condition number of the covariances (the sphere radii are tied to ``λ_min(Σ_i)``), so a
    larger ridge converges faster.

    Parameters
    ----------
    mu1, mu2, S1, S2, kappa1, kappa2
        As for :func:`solve_socp`.
    tol
        Stop when both normal angles are below ``tol`` (radians).
    max_iter
        Iteration cap; reaching it gives ``converged=False`` (and a ConvergenceWarning).
    """
    mu1, mu2, S1, S2, k = _check_problem(mu1, mu2, S1, S2, kappa1, kappa2)
    if int(max_iter) < 1:
        raise ValueError(f"max_iter must be ≥ 1, got {max_iter!r}")
    t0 = time.perf_counter()
    pair = _EllipsoidPair(mu1, mu2, S1, S2, k)
    c1, c2 = mu1.copy(), mu2.copy()
    it = 0
    while True:
        it += 1
        chord = pair.chord(c1, c2)
        if isinstance(chord, str):  # the ellipsoids intersect or touch
            seconds = time.perf_counter() - t0
            return EllipsoidSeparation(None, None, False, True, it, chord, None, seconds, seconds)
        if chord.theta < tol or it >= int(max_iter):
            break
        c1, c2 = pair.next_centres(chord)
    seconds = time.perf_counter() - t0
    converged = chord.theta < tol
    dz = chord.z1 - chord.z2
    w = 2.0 * dz / (dz @ dz)  # (2.14)
    b = float(w @ chord.z1 - 1.0)  # (2.16)
    if converged:
        status = f"iterative: converged in {it} steps"
    else:
        status = f"iterative: not converged after {it} steps (angle {chord.theta:.2e} > {tol:g})"
        warnings.warn(status + "; raise max_iter or the ridge", ConvergenceWarning, stacklevel=2)
    z = (chord.z1, chord.z2)
    return EllipsoidSeparation(w, b, True, converged, it, status, z, seconds, seconds)


@dataclass(frozen=True)
class _Chord:
    """One step of Lin & Han's iteration: where the segment between the centres leaves B₁
    (``z1``) and enters B₂ (``z2``), the gradient directions ``Σ_i⁻¹(z_i − μ_i)`` there, and
    the larger angle between ``z₂ − z₁`` and the two normals."""

    z1: np.ndarray
    z2: np.ndarray
    g1: np.ndarray
    g2: np.ndarray
    theta: float


class _EllipsoidPair:
    """The two ellipsoids of (2.13), prepared once for the iteration: ``Σ_i⁻¹``, ``κ_i²`` and
    the step sizes ``δ_i``. Cost O(p³) here, O(p²) per :meth:`chord`."""

    def __init__(self, mu1, mu2, S1, S2, k) -> None:
        p = mu1.size
        self.mu = (mu1, mu2)
        P, step = [], []
        for i, S in enumerate((S1, S2)):
            C = _cholesky(S, f"S{i + 1}")
            P.append(scipy.linalg.cho_solve((C, True), np.eye(p)))  # Σ_i⁻¹ (A_i = 2Σ_i⁻¹)
            # c̄ = z − δ∇q = z − (λ_min/2)·2Σ⁻¹(z − μ): δ_i = 1/‖A_i‖₂ = λ_min(Σ_i)/2
            step.append(float(np.linalg.eigvalsh(0.5 * (S + S.T))[0]))
        self.P, self.step = tuple(P), tuple(step)
        self.ksq = (float(k[0] ** 2), float(k[1] ** 2))
        self.fixed = (k[0] == 0, k[1] == 0)  # η = 1: the ellipsoid is its mean, never moved
        self.tiny = 1e-14 * (1.0 + np.linalg.norm(mu1) + np.linalg.norm(mu2))
        self._M = np.empty((p, 2))  # [e_i, d]: one product Σ_i⁻¹[e_i, d] per ellipsoid

    def chord(self, c1: np.ndarray, c2: np.ndarray) -> _Chord | str:
        """The step from the centres ``c1 ∈ B₁``, ``c2 ∈ B₂``, or why there is no separation."""
        (mu1, mu2), (P1, P2), (k1sq, k2sq) = self.mu, self.P, self.ksq
        M = self._M
        d = c2 - c1
        M[:, 1] = d
        M[:, 0] = c1 - mu1
        R1 = P1 @ M
        e1, Pe1, Pd1 = M[:, 0].copy(), R1[:, 0], R1[:, 1]
        M[:, 0] = c1 - mu2
        R2 = P2 @ M
        e2, Pe2, Pd2 = M[:, 0], R2[:, 0], R2[:, 1]
        # q_i(c₁ + t d) = a t² + 2h t + c (halved standard form): two scalar quadratics
        a1, h1, q1 = Pd1 @ d, Pd1 @ e1, Pe1 @ e1 - k1sq
        a2, h2, q2 = Pd2 @ d, Pd2 @ e2, Pe2 @ e2 - k2sq
        # c₁ is inside B₁: its exit root (the larger); c₂ inside B₂: its entry root (smaller)
        t1 = (-h1 + math.sqrt(max(h1 * h1 - a1 * q1, 0.0))) / a1
        t2 = (-h2 - math.sqrt(max(h2 * h2 - a2 * q2, 0.0))) / a2
        if t1 >= t2:
            return f"{INFEASIBLE} (the ellipsoids intersect)"
        u = (t2 - t1) * d  # z₂ − z₁
        un = math.sqrt(u @ u)
        if un <= self.tiny:
            return f"{INFEASIBLE} (the ellipsoids touch)"
        u /= un
        # gradients ∇q_i(z_i) ∝ Σ_i⁻¹(z_i − μ_i), without another product
        g1, g2 = Pe1 + t1 * Pd1, Pe2 + t2 * Pd2
        # θ via the chord ‖û − n̂‖ = 2 sin(θ/2): accurate for small angles, unlike arccos
        th1 = 0.0 if self.fixed[0] else math.sqrt(_sq(u - g1 / math.sqrt(g1 @ g1)))
        th2 = 0.0 if self.fixed[1] else math.sqrt(_sq(u + g2 / math.sqrt(g2 @ g2)))
        return _Chord(c1 + t1 * d, c1 + t2 * d, g1, g2, max(th1, th2))

    def next_centres(self, chord: _Chord) -> tuple[np.ndarray, np.ndarray]:
        """``c_i ← z_i − δ_i∇q_i(z_i)``: the centres of the spheres inside each ellipsoid that
        touch it at ``z_i`` (a fixed ellipsoid, κ = 0, keeps its mean)."""
        c1 = self.mu[0] if self.fixed[0] else chord.z1 - self.step[0] * chord.g1
        c2 = self.mu[1] if self.fixed[1] else chord.z2 - self.step[1] * chord.g2
        return c1, c2
