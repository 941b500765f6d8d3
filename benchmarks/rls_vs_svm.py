"""Benchmark: Rifkin's claim that RLS classification ≈ SVM accuracy (SPEC §9).

Rifkin, Yeo & Poggio compare RLSC and the SVM on usps / 20newsgroups, which are not available
offline; here the stand-ins are scikit-learn's bundled sets: digits "4 vs rest", digits
10-class (one-vs-all RLS, SVC's own one-vs-one) and breast cancer.

Both sides are tuned over the same RBF widths σ (multiples of the median pairwise distance;
SVC's ``gamma = 1/(2σ²)``):

* **RLS** — ``RLSClassifier(lam="auto")`` for each σ: λ is the largest minimiser of the exact
  LOO classification error over the default 50-λ grid (one eigendecomposition per σ); σ is the
  one with the lowest LOO error. With and without the unpenalised offset.
* **SVC** — ``GridSearchCV(SVC(kernel="rbf"), C × gamma, cv=5)``.

Training time covers the whole tuning (and the final refit). Accuracy is on a stratified
held-out 30 % split; several splits are averaged (``--splits``). Features: digits / 16,
breast cancer standardised on the training part.

Usage: ``python benchmarks/rls_vs_svm.py`` (full) or ``--quick``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.spatial.distance import pdist
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

from rlscore.core.rls import RLSClassifier


def datasets():
    digits = load_digits()
    cancer = load_breast_cancer()
    return [
        ("digits 4 vs rest", digits.data / 16.0, (digits.target == 4).astype(int), False),
        ("digits 10-class", digits.data / 16.0, digits.target, False),
        ("breast cancer", cancer.data, cancer.target, True),
    ]


def tune_rls(X, y, sigmas, offset):
    """Auto-λ RLS for each σ; keep the σ with the lowest LOO classification error."""
    best = None
    for s in sigmas:
        clf = RLSClassifier(sigma=s, lam="auto", offset=offset).fit(X, y)
        if best is None or clf.loo_classification_error_ < best.loo_classification_error_:
            best = clf
    return best


def run_split(X, y, scale, sigma_factors, Cs, seed):
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
    if scale:
        sc = StandardScaler().fit(Xtr)
        Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
    med = float(np.median(pdist(Xtr)))
    sigmas = med * np.asarray(sigma_factors)
    out = {"n_train": len(ytr), "n_test": len(yte)}
    for offset in (False, True):
        t = time.perf_counter()
        clf = tune_rls(Xtr, ytr, sigmas, offset)
        out[f"rls{int(offset)}_time"] = time.perf_counter() - t
        out[f"rls{int(offset)}_acc"] = float(np.mean(clf.predict(Xte) == yte))
        out[f"rls{int(offset)}_params"] = f"σ={clf.sigma / med:.2g}·med λ={clf.lam_:.2g}"
    grid = GridSearchCV(
        SVC(kernel="rbf"), {"C": list(Cs), "gamma": list(1.0 / (2 * sigmas**2))}, cv=5, n_jobs=1
    )
    t = time.perf_counter()
    grid.fit(Xtr, ytr)
    out["svc_time"] = time.perf_counter() - t
    out["svc_acc"] = float(np.mean(grid.predict(Xte) == yte))
    g = grid.best_params_["gamma"]
    out["svc_params"] = f"σ={np.sqrt(1 / (2 * g)) / med:.2g}·med C={grid.best_params_['C']:g}"
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 split, smaller grids")
    parser.add_argument("--splits", type=int, default=None, help="random splits (default 3)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    args = parser.parse_args(argv)
    n_splits = args.splits or (1 if args.quick else 3)
    if args.quick:
        factors, Cs = [0.35, 0.7, 1.4], [1, 10, 100]
    else:
        factors, Cs = [0.25, 0.35, 0.5, 0.7, 1.0, 1.4, 2.0], [0.1, 1, 10, 100, 1000]
    print(
        f"RLS (auto λ by exact LOO, σ by LOO) vs SVC (5-fold grid), {n_splits} split(s) 70/30, "
        f"{len(factors)} σ values, SVC C in {Cs}, BLAS threads {args.threads}\n"
    )
    head = (
        f"{'dataset':<17} {'train/test':>10} {'RLS acc':>8} {'time':>7} {'RLS+b acc':>9} "
        f"{'time':>7} {'SVC acc':>8} {'time':>7}  chosen (last split)"
    )
    print(head)
    print("-" * len(head))
    with threadpool_limits(args.threads):
        for name, X, y, scale in datasets():
            rows = [run_split(X, y, scale, factors, Cs, seed) for seed in range(n_splits)]

            def mean(key, rows=rows):
                return float(np.mean([r[key] for r in rows]))

            last = rows[-1]
            print(
                f"{name:<17} {last['n_train']:>5}/{last['n_test']:<4} "
                f"{mean('rls0_acc'):>8.4f} {mean('rls0_time'):>6.2f}s "
                f"{mean('rls1_acc'):>9.4f} {mean('rls1_time'):>6.2f}s "
                f"{mean('svc_acc'):>8.4f} {mean('svc_time'):>6.2f}s  "
                f"RLS {last['rls0_params']}; RLS+b {last['rls1_params']}; "
                f"SVC {last['svc_params']}",
                flush=True,
            )
    print(
        "\naccuracy: mean over splits on the held-out 30 %; time: mean tuning + training time "
        "per split (RLS: one eigendecomposition per σ; SVC: 5 folds × grid + refit)."
    )


if __name__ == "__main__":
    main()
