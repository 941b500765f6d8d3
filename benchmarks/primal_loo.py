"""Benchmark: the linear-kernel exact LOO curve over 50 λ in the primal (docs/mathematics.md §7).

For d = 20 features and n = 1000 … 100 000 points (a noisy linear rule, targets ±1, no
offset, no weights) and the same 50 λ everywhere, one run prints side by side:

* ``primal``  — ``RLSPath.from_features(X, y).curve(lams)``: one thin SVD of X (O(nd²)) and
  O(nd) per λ, never an n × n matrix;
* ``dense``   — ``RLSPath(X @ X.T, y).curve(lams)``: the eigendecomposition of the n × n kernel
  (what the linear kernel cost before; run up to ``--dense-max`` points);
* ``RidgeCV`` — scikit-learn's ``RidgeCV(alphas=lams, fit_intercept=False,
  store_cv_results=True)``, its efficient exact LOO (``_RidgeGCV``), the peer baseline; its
  ``alpha`` is our λ (``‖y − Xw‖² + α‖w‖²``).

``max|Δ|`` compares the LOO squared error per λ of the primal path with RidgeCV's (and with
the dense path where it ran). Medians of ``--repeats`` runs after one warm-up, BLAS pinned to
one thread, the load average before and after.

Usage: ``python benchmarks/primal_loo.py`` (full) or ``python benchmarks/primal_loo.py --quick``.
"""

from __future__ import annotations

import argparse

import numpy as np
from harness import load_average, pin_blas, report_machine, timed
from sklearn.linear_model import RidgeCV

from rlscore.core.rls.path import RLSPath

D = 20
N_LAMS = 50


def data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    y = np.sign(X @ rng.normal(size=D) + rng.normal(size=n))
    return X, y


def run(n: int, dense_max: int, repeats: int) -> dict:
    X, y = data(n)
    lams = np.geomspace(1e-2, 1e4, N_LAMS)
    row = {"n": n}
    primal = None

    def primal_curve():
        nonlocal primal
        primal = RLSPath.from_features(X, y).curve(lams)

    row["primal"] = timed(primal_curve, repeats)
    ridge = RidgeCV(alphas=lams, fit_intercept=False, store_cv_results=True)
    row["ridgecv"] = timed(lambda: ridge.fit(X, y), repeats)
    ridge_mse = ridge.cv_results_.mean(axis=0)  # (n_alphas,) LOO squared error per λ
    row["vs_ridgecv"] = float(np.abs(primal["loo_squared_error"].to_numpy() - ridge_mse).max())
    if n <= dense_max:
        dense = None

        def dense_curve():
            nonlocal dense
            dense = RLSPath(X @ X.T, y).curve(lams)

        row["dense"] = timed(dense_curve, max(1, repeats // 2))
        row["vs_dense"] = float(np.abs(primal.to_numpy() - dense.to_numpy()).max())
    return row


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 1000 and 5000, 2 repeats")
    parser.add_argument("--repeats", type=int, help="timed runs per method (default 5)")
    parser.add_argument("--dense-max", type=int, default=4000, help="largest n for dense")
    args = parser.parse_args(argv)
    sizes = [1000, 5000] if args.quick else [1000, 2000, 4000, 10_000, 100_000]
    repeats = args.repeats or (2 if args.quick else 5)
    pin_blas(1)
    report_machine()
    print(f"linear kernel, d = {D}, {N_LAMS} λ, exact LOO curve; seconds (median of {repeats})")
    print(f"{'n':>7} | {'primal':>8} | {'RidgeCV':>8} | {'dense':>8} | "
          f"{'max|Δ| RidgeCV':>14} | {'max|Δ| dense':>12}")  # fmt: skip
    print("-" * 74)
    rows = []
    for n in sizes:
        r = run(n, args.dense_max, repeats)
        rows.append(r)
        dense = f"{r['dense']:8.3f}" if "dense" in r else f"{'—':>8}"
        vs_dense = f"{r['vs_dense']:12.1e}" if "vs_dense" in r else f"{'—':>12}"
        print(f"{n:>7} | {r['primal']:8.3f} | {r['ridgecv']:8.3f} | {dense} | "
              f"{r['vs_ridgecv']:14.1e} | {vs_dense}", flush=True)  # fmt: skip
    big = [r for r in rows if r["n"] == 100_000]
    if big:
        ok = big[0]["primal"] <= 1.0
        print(f"goal n = 100 000, d = 20, 50 λ ≤ 1 s: {'met' if ok else 'NOT met'} "
              f"({big[0]['primal']:.3f} s)")  # fmt: skip
    print(f"# load average: {load_average()}")
    return rows


if __name__ == "__main__":
    main()
