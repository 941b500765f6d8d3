"""Benchmark: the exact LOO curve over 50 λ from one eigendecomposition, against baselines.

For n = 250, 500, 1000, 2000 points (two moons, RBF σ = 0.5, targets ±1, no offset, no weights)
and the same 50 λ (geometric, 1e-3 … 1e3) everywhere, one run prints side by side:

* ``fit``     — one ``RLSClassifier(lam=…).fit`` (kernel + ``eigh`` + one solve);
* ``curve``   — a fresh ``fit`` + ``loo_curve(lams)``: the whole 50-λ curve from scratch;
* ``cached``  — ``loo_curve(lams)`` again on the fitted estimator (cached decomposition);
* ``KRR fit`` — one scikit-learn ``KernelRidge(alpha=λ).fit`` (a Cholesky solve);
* ``inv/λ``   — exact LOO at ONE λ the direct way: Cholesky + explicit ``G⁻¹`` diagonal
  (``inv×50`` = 50 × that, the direct way to the whole curve);
* ``refits``  — LOO by refitting on n − 1 points, per λ and per left-out point;
* ``GridCV``  — ``GridSearchCV(KernelRidge, cv=LeaveOneOut())`` over the 50 λ.

The last two are O(n⁴) per λ: where the full run is infeasible they are capped to a subset of
left-out points and λ values, timed on that subset, and the full time is **extrapolated**
linearly (marked ``~``). ``max|Δ|`` compares the LOO values (refits) and the LOO mean squared
error per λ (GridCV) on exactly the points and λ that were run.

Every method runs with the same number of BLAS threads (``--threads``, default 1: on a
machine shared with other jobs, multi-threaded OpenBLAS was measured 5–30× slower and erratic).
The timings of ``fit``, ``curve``, ``cached``, ``KRR fit`` and ``inv/λ`` are medians of
``--repeats`` (default 5) runs after one warm-up; ``curve/fit`` is the ratio of the two medians
(``curve`` includes its own fit, so it can never be "faster than one fit"). The refits and
GridCV baselines (seconds to hours) run once. The machine's load average is printed before
and after.

Usage: ``python benchmarks/loo.py`` (full) or ``python benchmarks/loo.py --quick``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.linalg
from harness import load_average, pin_blas, report_machine, timed
from sklearn.datasets import make_moons
from sklearn.kernel_ridge import KernelRidge
from sklearn.model_selection import GridSearchCV, LeaveOneOut

from rlscore.core.kernels.functions import rbf_kernel
from rlscore.core.rls.classifier import RLSClassifier, RLSPath

SIGMA = 0.5
N_LAMS = 50


def brute_loo(K, y, lam, points):
    """``f_{S∖i}(x_i)`` for the given points by refitting on the n − 1 others."""
    n = K.shape[0]
    out = np.empty(len(points))
    for k, i in enumerate(points):
        keep = np.arange(n) != i
        c = scipy.linalg.solve(K[np.ix_(keep, keep)] + lam * np.eye(n - 1), y[keep], assume_a="pos")
        out[k] = K[i, keep] @ c
    return out


def direct_loo_one_lambda(K, y, lam):
    """Exact LOO at one λ without an eigendecomposition: ``c / diag(G⁻¹)`` via Cholesky."""
    n = K.shape[0]
    cf = scipy.linalg.cho_factor(K + lam * np.eye(n))
    G_inv = scipy.linalg.cho_solve(cf, np.eye(n))
    c = G_inv @ y
    return y - c / np.diag(G_inv)


def run(n: int, quick: bool, seed: int = 0, reps: int = 5) -> dict:
    X, yl = make_moons(n, noise=0.2, random_state=seed)
    y = np.where(yl == 1, 1.0, -1.0)
    lams = np.geomspace(1e-3, 1e3, N_LAMS)
    res = {"n": n}

    res["fit"] = timed(lambda: RLSClassifier(sigma=SIGMA, lam=1.0).fit(X, yl), repeats=reps)
    res["curve"] = timed(
        lambda: RLSClassifier(sigma=SIGMA, lam=1.0).fit(X, yl).loo_curve(lams), reps
    )
    clf = RLSClassifier(sigma=SIGMA, lam=1.0).fit(X, yl)
    res["cached"] = timed(lambda: clf.loo_curve(lams), repeats=reps)
    gamma = 1.0 / (2 * SIGMA**2)
    res["krr_fit"] = timed(
        lambda: KernelRidge(alpha=1.0, kernel="rbf", gamma=gamma).fit(X, y), reps
    )
    K = rbf_kernel(X, sigma=SIGMA)
    res["inv_one"] = timed(lambda: direct_loo_one_lambda(K, y, 1.0), repeats=reps)

    path = RLSPath(K, y)
    ours = np.column_stack([path.solve(lam).loo[:, 0] for lam in lams])  # (n, 50)
    res["inv_diff"] = float(
        np.max(np.abs(direct_loo_one_lambda(K, y, 1.0) - path.solve(1.0).loo[:, 0]))
    )

    # (a) per-λ, per-point refits
    rng = np.random.default_rng(seed)
    full_refits = not quick and n <= 250
    pts = (
        np.arange(n) if full_refits else np.sort(rng.choice(n, min(n, 20 if quick else 40), False))
    )
    lam_idx = np.arange(N_LAMS) if full_refits else np.array([10, 35])
    t = time.perf_counter()
    diffs = [np.max(np.abs(brute_loo(K, y, lams[j], pts) - ours[pts, j])) for j in lam_idx]
    elapsed = time.perf_counter() - t
    res["refit_measured"] = elapsed
    res["refit_full"] = elapsed * (n / pts.size) * (N_LAMS / lam_idx.size)
    res["refit_capped"] = not full_refits
    res["refit_scope"] = f"{pts.size}/{n} pts × {lam_idx.size}/{N_LAMS} λ"
    res["refit_diff"] = float(max(diffs))

    # (b) GridSearchCV(KernelRidge, cv=LeaveOneOut())
    full_grid = not quick and n <= 250
    splits = list(LeaveOneOut().split(X))
    gpts = np.arange(n) if full_grid else np.sort(rng.choice(n, min(n, 20 if quick else 40), False))
    glam = np.arange(N_LAMS) if full_grid else np.array([10, 35])
    search = GridSearchCV(
        KernelRidge(kernel="rbf", gamma=gamma),
        {"alpha": lams[glam].tolist()},
        cv=[splits[i] for i in gpts],
        scoring="neg_mean_squared_error",
        refit=False,
        n_jobs=1,
    )
    t = time.perf_counter()
    search.fit(X, y)
    elapsed = time.perf_counter() - t
    res["grid_measured"] = elapsed
    res["grid_full"] = elapsed * (n / gpts.size) * (N_LAMS / glam.size)
    res["grid_capped"] = not full_grid
    res["grid_scope"] = f"{gpts.size}/{n} splits × {glam.size}/{N_LAMS} λ"
    ours_mse = np.mean((y[gpts, None] - ours[np.ix_(gpts, glam)]) ** 2, axis=0)
    res["grid_diff"] = float(np.max(np.abs(-search.cv_results_["mean_test_score"] - ours_mse)))
    return res


def fmt_t(seconds: float, approx: bool = False) -> str:
    if seconds < 1e3:
        text = f"{seconds:.3g} s"
    elif seconds < 36e3:
        text = f"{seconds / 60:.3g} min"
    else:
        text = f"{seconds / 3600:.3g} h"
    return ("~" if approx else "") + text


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 250, 500; tighter caps")
    parser.add_argument("--sizes", type=int, nargs="*", help="override the pool sizes")
    parser.add_argument(
        "--threads", type=int, default=1, help="BLAS threads for every method (default 1)"
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure (median)")
    args = parser.parse_args(argv)
    if args.repeats < 5:
        parser.error("--repeats must be at least 5 (figures are medians)")
    pin_blas(args.threads)
    report_machine()
    report(args)
    print(f"# load average at the end: {load_average()}")


def report(args) -> None:
    sizes = args.sizes or ([250, 500] if args.quick else [250, 500, 1000, 2000])
    print(f"LOO curve over {N_LAMS} λ (geomspace 1e-3..1e3), two moons, RBF σ={SIGMA}, no offset")
    print(
        f"BLAS threads: {args.threads}; fit, curve, cached, KRR fit, inv/λ: median of "
        f"{args.repeats} runs after a warm-up (curve/fit and curve/KRR are ratios of medians); "
        "refits and GridCV: one run (seconds to hours), '~' = extrapolated from a capped run\n"
    )
    head = (
        f"{'n':>5} {'fit':>9} {'curve':>9} {'curve/fit':>9} {'cached':>9} {'KRR fit':>9} "
        f"{'curve/KRR':>9} {'inv/λ':>9} {'inv×50':>9} {'refits':>11} {'×curve':>8} "
        f"{'GridCV':>11} {'×curve':>8}"
    )
    print(head)
    print("-" * len(head))
    rows = []
    for n in sizes:
        r = run(n, args.quick, reps=args.repeats)
        rows.append(r)
        print(
            f"{n:>5} {fmt_t(r['fit']):>9} {fmt_t(r['curve']):>9} {r['curve'] / r['fit']:>9.2f} "
            f"{fmt_t(r['cached']):>9} {fmt_t(r['krr_fit']):>9} {r['curve'] / r['krr_fit']:>9.1f} "
            f"{fmt_t(r['inv_one']):>9} {fmt_t(N_LAMS * r['inv_one'], True):>9} "
            f"{fmt_t(r['refit_full'], r['refit_capped']):>11} "
            f"{r['refit_full'] / r['curve']:>8.0f} {fmt_t(r['grid_full'], r['grid_capped']):>11} "
            f"{r['grid_full'] / r['curve']:>8.0f}",
            flush=True,
        )
    print("\nagreement with the baselines (max absolute difference):")
    for r in rows:
        print(
            f"  n={r['n']:>5}: LOO values vs refits {r['refit_diff']:.2e} ({r['refit_scope']}); "
            f"LOO MSE vs GridSearchCV {r['grid_diff']:.2e} ({r['grid_scope']}); "
            f"vs direct inverse at λ=1 {r['inv_diff']:.2e}"
        )
    print("\ncapped runs: measured time on the subset → extrapolated ×(n/points)×(50/λ)")
    for r in rows:
        if r["refit_capped"] or r["grid_capped"]:
            print(
                f"  n={r['n']:>5}: refits {fmt_t(r['refit_measured'])} measured; "
                f"GridSearchCV {fmt_t(r['grid_measured'])} measured"
            )
    print(
        "\ngoal: 50-λ curve within 3× one fit — 'curve/fit' is against this estimator's fit "
        "(which does the eigendecomposition), 'curve/KRR' against a plain Cholesky fit."
    )


if __name__ == "__main__":
    main()
