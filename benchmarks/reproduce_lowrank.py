"""Reproduce the low-rank claims of Rifkin §7.6 and Sheng §4.4 (docs/mathematics.md §7).

**(a) Rifkin, Yeo & Poggio, figs. 7.2–7.3** (usps, faces; ROC curves, ten runs): at equal m,
*rectangle* beats *subset* beats *Nyström* (Nyström = the approximate kernel in place of K for
all n coefficients, then the exact kernel for predictions; see
:mod:`rlscore.core.rls.reduced`). Ours: scikit-learn digits "4 vs rest" (1203 train / 594 test,
stratified) at two RBF widths (a quarter and a half of the median pairwise distance), and a
generated set (``make_classification``, 20 features, 10 000 train / 2 000 test); uniform
landmarks; test accuracy and ROC AUC, mean ± sd over seeds (landmarks and, for digits, the
split). λ: full RLS's automatic λ (LOO classification error) on the digits training set, on a
2 000-point subsample for the generated set scaled by n/2000; Rifkin's λ = ours/ℓ is held fixed,
so *subset* (ℓ = m points) uses λ·m/n.

**(b) Sheng §4.4, fig. 4.3** (six data sets, m = 0.03 n, p = 2 … 20, T = p): relative
Frobenius error ``‖K − K̃‖_F/‖K‖_F`` in percent of standard Nyström (uniform m), Ensemble
Nyström (p uniform subsets of m, uniform weights), k-means Nyström and BoostNyström (exponential
weights, η = 100 on relative errors = η = 1 on percents, d = m/10). Thesis: BoostNyström with
large p beats the others on five of six sets; k-means is unstable (best on Abalone, much worse
on Isolet and S. cerevisiae). Ours: digits (n = 1797) and two generated sets of 5 000 points
(``blobs``: 25 Gaussian clusters in 10-d; ``aniso``: one correlated heavy-tailed cloud in 8-d,
Abalone-like), RBF with σ = the median pairwise distance and a quarter of it (the thesis does
not give its kernel width; the narrower kernel decays more slowly, so errors are larger).
Incomplete Cholesky (``ic``, Rifkin) is shown too. The error is exact (blocked).

Usage: ``python benchmarks/reproduce_lowrank.py [--quick] [--seeds S]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from harness import load_average, pin_blas, report_machine
from sklearn.datasets import load_digits, make_blobs, make_classification
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from rlscore.core.kernels.functions import squared_distances
from rlscore.core.kernels.lowrank import LowRankKernel, relative_frobenius_error
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.core.rls.reduced import ReducedRLSClassifier

METHODS = ("rectangle", "subset", "nystrom")
RULES = ("standard", "ensemble", "kmeans", "boost", "ic")
#: RBF widths of part (b), as fractions of the median pairwise distance
SHENG_WIDTHS = (1.0, 0.25)


def median_distance(X: np.ndarray, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    S = X[rng.choice(X.shape[0], size=min(1000, X.shape[0]), replace=False)]
    d = squared_distances(S)
    return float(np.sqrt(np.median(d[np.triu_indices(S.shape[0], 1)])))


def ms(values) -> str:
    v = np.asarray(values, dtype=float)
    return f"{v.mean():6.3f} ± {v.std(ddof=1) if v.size > 1 else 0.0:5.3f}"


# ---------------------------------------------------------------- (a) Rifkin


def digits_split(seed: int):
    X, y = load_digits(return_X_y=True)
    y = np.where(y == 4, 1, -1)
    return train_test_split(X, y, test_size=0.33, random_state=seed, stratify=y)


def generated_split(n_train: int, seed: int = 0):
    X, y = make_classification(
        n_samples=n_train + 2000, n_features=20, n_informative=8, n_redundant=4,
        n_clusters_per_class=4, class_sep=1.0, flip_y=0.02, random_state=seed,
    )  # fmt: skip
    X = StandardScaler().fit_transform(X)
    return train_test_split(X, np.where(y == 1, 1, -1), test_size=2000, random_state=seed)


def rifkin_table(name, splits, sigma, lam, ms_, seeds, full_acc=None) -> list[dict]:
    """Accuracy and AUC of the three methods per m, mean ± sd over seeds."""
    print(f"\n(a) {name}: σ = {sigma:.3g}, λ = {lam:.3g} (subset: λ·m/n)" + (
        f", full RLS test accuracy {full_acc:.3f}" if full_acc is not None else ""))  # fmt: skip
    print(f"{'m':>5} | " + " | ".join(f"{m + ' acc':>15} | {m + ' AUC':>15}" for m in METHODS)
          + " | order (acc)")  # fmt: skip
    rows = []
    for m in ms_:
        acc = {k: [] for k in METHODS}
        auc = {k: [] for k in METHODS}
        for seed in range(seeds):
            Xtr, Xte, ytr, yte = splits(seed)
            for method in METHODS:
                # Rifkin's λ (= ours / ℓ) is held fixed: subset trains on ℓ = m points
                lam_m = lam * m / ytr.size if method == "subset" else lam
                clf = ReducedRLSClassifier(
                    method=method, sigma=sigma, lam=lam_m, n_landmarks=m, random_state=seed
                ).fit(Xtr, ytr)
                f = clf.decision_function(Xte)
                acc[method].append(float(np.mean(np.where(f > 0, 1, -1) == yte)))
                auc[method].append(float(roc_auc_score(yte, f)))
        order = " > ".join(sorted(METHODS, key=lambda k: -np.mean(acc[k])))
        print(f"{m:>5} | " + " | ".join(f"{ms(acc[k]):>15} | {ms(auc[k]):>15}" for k in METHODS)
              + f" | {order}", flush=True)  # fmt: skip
        rows.append({"set": name, "m": m, "acc": acc, "auc": auc, "order": order})
    return rows


def rifkin(quick: bool, seeds: int) -> list[dict]:
    rows = []
    Xtr, Xte, ytr, yte = digits_split(0)
    med = median_distance(Xtr)
    for frac in (0.25, 0.5):
        sigma = frac * med
        full = RLSClassifier(sigma=sigma, lam="auto").fit(Xtr, ytr)
        full_acc = float(np.mean(full.predict(Xte) == yte))
        ms_ = (16, 64) if quick else (16, 32, 64, 128, 256)
        rows += rifkin_table(
            f"digits 4 vs rest, σ = {frac} × median distance", digits_split, sigma, full.lam_,
            ms_, seeds, full_acc,
        )  # fmt: skip
    n_train = 3000 if quick else 10_000
    data = generated_split(n_train)
    Xtr, _, ytr, _ = data
    sigma = 0.5 * median_distance(Xtr)
    sub = np.random.default_rng(0).choice(n_train, size=2000, replace=False)
    lam = RLSClassifier(sigma=sigma, lam="auto").fit(Xtr[sub], ytr[sub]).lam_ * n_train / 2000
    ms_ = (32, 128) if quick else (32, 64, 128, 256, 512)
    rows += rifkin_table(
        f"generated, n = {n_train} train / 2000 test, σ = 0.5 × median distance",
        lambda seed: data, sigma, lam, ms_, seeds,
    )  # fmt: skip
    return rows


# ---------------------------------------------------------------- (b) Sheng


def sheng_sets(quick: bool) -> list[tuple[str, np.ndarray]]:
    n = 2000 if quick else 5000
    digits = load_digits().data.astype(float)
    blobs, _ = make_blobs(
        n_samples=n, n_features=10, centers=25, cluster_std=1.5, center_box=(-10, 10),
        random_state=1,
    )  # fmt: skip
    rng = np.random.default_rng(2)
    A = rng.normal(size=(8, 8)) * np.geomspace(3, 0.1, 8)
    aniso = rng.standard_t(4, size=(n, 8)) @ A
    return [("digits (1797 × 64)", digits), (f"blobs ({n} × 10)", blobs),
            (f"aniso ({n} × 8)", aniso)]  # fmt: skip


def sheng_error(X, sigma, rule, m, p, seed) -> float:
    """Percent relative Frobenius error of one rule (p only matters for ensemble and boost)."""
    lr = LowRankKernel(
        sigma=sigma, n_landmarks=m, n_subsets=p, random_state=seed,
        landmarks="uniform" if rule == "standard" else rule,
    ).fit(X)  # fmt: skip
    return 100 * relative_frobenius_error(X, lr.features_, sigma=sigma)[0]


def sheng(quick: bool, seeds: int) -> list[dict]:
    ps = (2, 5) if quick else (2, 5, 10, 20)
    rows = []
    for name, X in sheng_sets(quick):
        n = X.shape[0]
        m = max(2, round(0.03 * n))
        med = median_distance(X)
        for frac in SHENG_WIDTHS:
            sigma = frac * med
            print(f"\n(b) {name}: m = 0.03 n = {m}, σ = {frac} × median distance = {sigma:.3g}; "
                  f"% error ‖K − K̃‖_F/‖K‖_F, mean ± sd over {seeds} seeds")  # fmt: skip
            print(f"{'p':>3} | " + " | ".join(f"{r:>15}" for r in RULES) + " | best")
            # standard, k-means and ic do not depend on p: one run per seed serves every p
            fixed = {
                r: [sheng_error(X, sigma, r, m, 1, seed) for seed in range(seeds)]
                for r in ("standard", "kmeans", "ic")
            }
            for p in ps:
                errs = dict(fixed)
                for r in ("ensemble", "boost"):
                    errs[r] = [sheng_error(X, sigma, r, m, p, seed) for seed in range(seeds)]
                best = min(RULES, key=lambda r: np.mean(errs[r]))
                print(f"{p:>3} | " + " | ".join(f"{ms(errs[r]):>15}" for r in RULES)
                      + f" | {best}", flush=True)  # fmt: skip
                rows.append({"set": name, "sigma": frac, "p": p, "errors": errs, "best": best})
    return rows


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sets, fewer m and p")
    parser.add_argument("--seeds", type=int, help="random runs (default 5, quick 2)")
    parser.add_argument("--blas-threads", type=int, default=1, help="BLAS threads (default 1)")
    parser.add_argument("--part", choices=("a", "b", "both"), default="both")
    args = parser.parse_args(argv)
    seeds = args.seeds or (2 if args.quick else 5)
    pin_blas(args.blas_threads)
    report_machine()
    tic = time.perf_counter()
    out = {}
    if args.part in ("a", "both"):
        out["rifkin"] = rifkin(args.quick, seeds)
    if args.part in ("b", "both"):
        out["sheng"] = sheng(args.quick, seeds)
    print(f"\n# {time.perf_counter() - tic:.0f} s; load average: {load_average()}")
    return out


if __name__ == "__main__":
    main()
