"""What the exact leave-one-out with balanced weights recounted costs, against its floors.

``RLSClassifier(class_weight="balanced")`` gives the LOO values of the refits without each
point with the class weights recounted on the others (``rlscore/core/rls/fold_weights.py``,
docs/mathematics.md §3, "Exact leave-one-out with balanced weights"): two more
eigendecompositions per one-vs-all column than the model's own. Printed per case (two moons
or blobs of ``T`` classes, RBF σ by the median rule, an offset, ``lam="auto"`` over the
50-λ grid), each the median of ``--repeats`` fits after one warm-up, one BLAS thread:

* ``balanced`` — the fit with balanced weights (its LOO values recounted);
* ``fixed`` — what the fit cost before the recount: the kernel and the path with the
  full-data balanced weights held fixed (:class:`~rlscore.core.rls.path.RLSPath`: one
  decomposition per weight vector), its λ search and solution;
* ``refits`` — the LOO values the naive way at the chosen λ: for each point, the weighted RLS
  with an offset refitted from scratch on the others with the weights recounted
  (``numpy.linalg.solve`` of the bordered system, no code shared with the engine), on
  ``--refit-points`` points, extrapolated to all n (marked ``~``);
* ``max|Δ|`` — the largest difference between the engine's LOO values and the refits'.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/fold_weights.py [--repeats 9]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import load_average, pin_blas, report_machine  # noqa: E402

pin_blas(1)

import numpy as np  # noqa: E402
from sklearn.datasets import make_blobs, make_moons  # noqa: E402

from rlscore.core.rls.classifier import RLSClassifier  # noqa: E402
from rlscore.core.rls.path import RLSPath  # noqa: E402

#: (name, n, classes)
CASES = (("two moons", 150, 2), ("two moons", 600, 2), ("blobs", 150, 10))


def data(name: str, n: int, T: int) -> tuple[np.ndarray, np.ndarray]:
    """Imbalanced points: a quarter of the moons positive, blobs of uneven sizes."""
    rng = np.random.default_rng(0)
    if name == "two moons":
        X, y = make_moons(4 * n, noise=0.2, random_state=0)
        keep = np.r_[rng.choice(np.flatnonzero(y == 1), n // 4, replace=False),
                     rng.choice(np.flatnonzero(y == 0), n - n // 4, replace=False)]  # fmt: skip
        return X[keep], y[keep]
    sizes = np.maximum(
        2, rng.multinomial(n - 2 * T, np.linspace(1, 3, T) / np.linspace(1, 3, T).sum()) + 2
    )
    X, y = make_blobs(sizes.tolist(), n_features=4, cluster_std=2.5, random_state=0)
    return X, y


def median_seconds(fn, repeats: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return float(np.median(times))


def balanced_weights(y: np.ndarray, T: int) -> np.ndarray:
    """(n, T') each point's balanced loss weight per one-vs-all column, written out."""
    n = y.size
    cols = [1] if T == 2 else range(T)
    W = np.empty((n, len(cols)))
    for k, c in enumerate(cols):
        pos = y == c
        W[:, k] = np.where(pos, n / (2 * pos.sum()), n / (2 * (~pos).sum()))
    return W


def rbf(X: np.ndarray, sigma: float) -> np.ndarray:
    sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    return np.exp(-sq / (2.0 * sigma**2))


def fixed_weight_fit(X: np.ndarray, y: np.ndarray, T: int, sigma: float) -> None:
    """The fit before the recount: the kernel and the fixed-weight path, λ by LOO."""
    cols = [1] if T == 2 else list(range(T))
    Y = np.column_stack([np.where(y == c, 1.0, -1.0) for c in cols])
    path = RLSPath(rbf(X, sigma), Y, balanced_weights(y, T), offset=True)
    path.solve(path.best_loo_lam("classification", path.default_lams()))


def refit_loo(K: np.ndarray, y: np.ndarray, T: int, lam: float, points) -> np.ndarray:
    """The LOO one-vs-all values of ``points`` by refits with the weights recounted."""
    n = y.size
    cols = [1] if T == 2 else list(range(T))
    out = np.empty((len(points), len(cols)))
    for r, i in enumerate(points):
        rest = np.flatnonzero(np.arange(n) != i)
        A = balanced_weights(y[rest], T)
        for k, c in enumerate(cols):
            target = np.where(y[rest] == c, 1.0, -1.0)
            G = K[np.ix_(rest, rest)] + lam * np.diag(1.0 / A[:, k])
            border = np.block([[G, np.ones((rest.size, 1))], [np.ones((1, rest.size)), 0.0]])
            sol = np.linalg.solve(border, np.append(target, 0.0))
            out[r, k] = K[i, rest] @ sol[:-1] + sol[-1]
    return out


def measure(name: str, n: int, T: int, repeats: int, refit_points: int) -> dict:
    """One case's figures (module docstring): seconds and the largest difference."""
    X, y = data(name, n, T)
    params = dict(sigma="median", lam="auto", offset=True)
    balanced = median_seconds(
        lambda: RLSClassifier(class_weight="balanced", **params).fit(X, y), repeats
    )
    sigma = RLSClassifier(**params).fit(X, y).sigma_
    fixed = median_seconds(lambda: fixed_weight_fit(X, y, T, sigma), repeats)
    clf = RLSClassifier(class_weight="balanced", **params).fit(X, y)
    points = np.random.default_rng(1).choice(n, min(n, refit_points), replace=False)
    t = time.process_time()
    ref = refit_loo(rbf(X, clf.sigma_), y, T, clf.lam_, points)
    naive = (time.process_time() - t) * n / points.size
    got = clf.loo_decision_.reshape(n, -1)[points]
    return {"balanced": balanced, "fixed": fixed, "refits": naive,
            "max_diff": float(np.max(np.abs(got - ref)))}  # fmt: skip


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9, help="fits per median (≥ 5)")
    parser.add_argument("--refit-points", type=int, default=30, help="points refitted naively")
    args = parser.parse_args(argv)
    if args.repeats < 5:
        parser.error("--repeats must be at least 5 (figures are medians)")
    report_machine()
    print(f"{'case':<22} {'balanced':>10} {'fixed':>10} {'×fixed':>7} {'refits':>10} {'max|Δ|':>9}")
    for name, n, T in CASES:
        r = measure(name, n, T, args.repeats, args.refit_points)
        label = f"{name} n={n} T={T}"
        print(
            f"{label:<22} {r['balanced'] * 1e3:>8.1f}ms {r['fixed'] * 1e3:>8.1f}ms "
            f"{r['balanced'] / r['fixed']:>7.2f} ~{r['refits']:>8.2f}s {r['max_diff']:>9.1e}",
            flush=True,
        )
    print(f"# load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
