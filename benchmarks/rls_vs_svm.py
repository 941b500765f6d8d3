"""Benchmark: Rifkin's claim that RLS classification ≈ SVM accuracy (docs/mathematics.md §9).

Rifkin, Yeo & Poggio compare RLSC and the SVM on usps / 20newsgroups, which are not available
offline; here the stand-ins are scikit-learn's bundled sets: digits "4 vs rest", digits
10-class (one-vs-all RLS, SVC's own one-vs-one) and breast cancer.

Both models are tuned with **the same protocol**: ``GridSearchCV`` over the same RBF widths σ
(multiples of the median pairwise distance; SVC's ``gamma = 1/(2σ²)``) × five values of the
regularisation (RLS: λ; SVC: C), scored by accuracy on the same stratified 5 folds. Beside
them, RLS tuned its own way: for each σ, ``RLSClassifier(lam="auto")`` picks λ by exact
leave-one-out over a 50-λ grid from one eigendecomposition, and σ by the lowest LOO error.

Training time covers the whole tuning (and the final refit). Accuracy is on a stratified
held-out 30 % split; several splits are averaged (``--splits``). Features: digits / 16,
breast cancer standardised on the training part.

Usage: ``python benchmarks/rls_vs_svm.py`` (full) or ``--quick``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from harness import load_average, pin_blas, report_machine
from scipy.spatial.distance import pdist
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from rlscore.core.rls.classifier import RLSClassifier


def datasets():
    digits = load_digits()
    cancer = load_breast_cancer()
    return [
        ("digits 4 vs rest", digits.data / 16.0, (digits.target == 4).astype(int), False),
        ("digits 10-class", digits.data / 16.0, digits.target, False),
        ("breast cancer", cancer.data, cancer.target, True),
    ]


def tune_rls_loo(X, y, sigmas):
    """Auto-λ RLS for each σ; keep the σ with the lowest LOO classification error."""
    best = None
    for s in sigmas:
        clf = RLSClassifier(sigma=s, lam="auto").fit(X, y)
        if best is None or clf.loo_classification_error_ < best.loo_classification_error_:
            best = clf
    return best


def grid_search(model, grid: dict, folds, X, y) -> tuple[GridSearchCV, float]:
    search = GridSearchCV(model, grid, cv=folds, scoring="accuracy", n_jobs=1)
    t = time.perf_counter()
    search.fit(X, y)
    return search, time.perf_counter() - t


def run_split(X, y, scale, sigma_factors, Cs, lams, seed):
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
    if scale:
        sc = StandardScaler().fit(Xtr)
        Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
    med = float(np.median(pdist(Xtr)))
    sigmas = med * np.asarray(sigma_factors)
    folds = list(StratifiedKFold(5, shuffle=True, random_state=seed).split(Xtr, ytr))
    out = {"n_train": len(ytr), "n_test": len(yte)}

    rls, out["rls_cv_time"] = grid_search(
        RLSClassifier(), {"sigma": list(sigmas), "lam": list(lams)}, folds, Xtr, ytr
    )
    out["rls_cv_acc"] = float(np.mean(rls.predict(Xte) == yte))
    bp = rls.best_params_
    out["rls_cv_params"] = f"σ={bp['sigma'] / med:.2g}·med λ={bp['lam']:g}"

    gammas = list(1.0 / (2 * sigmas**2))
    svc, out["svc_time"] = grid_search(
        SVC(kernel="rbf"), {"C": list(Cs), "gamma": gammas}, folds, Xtr, ytr
    )
    out["svc_acc"] = float(np.mean(svc.predict(Xte) == yte))
    g = svc.best_params_["gamma"]
    out["svc_params"] = f"σ={np.sqrt(1 / (2 * g)) / med:.2g}·med C={svc.best_params_['C']:g}"

    t = time.perf_counter()
    clf = tune_rls_loo(Xtr, ytr, sigmas)
    out["rls_loo_time"] = time.perf_counter() - t
    out["rls_loo_acc"] = float(np.mean(clf.predict(Xte) == yte))
    out["rls_loo_params"] = f"σ={clf.sigma / med:.2g}·med λ={clf.lam_:.2g}"
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 split, smaller grids")
    parser.add_argument("--splits", type=int, default=None, help="random splits (default 3)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    args = parser.parse_args(argv)
    pin_blas(args.threads)
    report_machine()
    n_splits = args.splits or (1 if args.quick else 3)
    if args.quick:
        factors, Cs, lams = [0.35, 0.7, 1.4], [1, 10, 100], [1e-2, 1e-1, 1]
    else:
        factors = [0.25, 0.35, 0.5, 0.7, 1.0, 1.4, 2.0]
        Cs, lams = [0.1, 1, 10, 100, 1000], [1e-4, 1e-3, 1e-2, 1e-1, 1]
    print(
        f"{n_splits} split(s) 70/30; the same 5 stratified folds and {len(factors)} σ values for "
        f"both grids; RLS λ in {lams}, SVC C in {Cs}\n"
    )
    head = (
        f"{'dataset':<17} {'train/test':>10} {'RLS acc':>8} {'time':>7} {'SVC acc':>8} "
        f"{'time':>7} {'RLS-LOO acc':>11} {'time':>7}  chosen (last split)"
    )
    print(head)
    print("-" * len(head))
    for name, X, y, scale in datasets():
        rows = [run_split(X, y, scale, factors, Cs, lams, seed) for seed in range(n_splits)]

        def mean(key, rows=rows):
            return float(np.mean([r[key] for r in rows]))

        last = rows[-1]
        print(
            f"{name:<17} {last['n_train']:>5}/{last['n_test']:<4} "
            f"{mean('rls_cv_acc'):>8.4f} {mean('rls_cv_time'):>6.1f}s "
            f"{mean('svc_acc'):>8.4f} {mean('svc_time'):>6.1f}s "
            f"{mean('rls_loo_acc'):>11.4f} {mean('rls_loo_time'):>6.1f}s  "
            f"RLS {last['rls_cv_params']}; SVC {last['svc_params']}; "
            f"RLS-LOO {last['rls_loo_params']}",
            flush=True,
        )
    print(
        "\naccuracy: mean over splits on the held-out 30 %; time: mean tuning + final refit per "
        "split (RLS and SVC: 5 folds × grid + refit; RLS-LOO: one eigendecomposition per σ)."
    )
    print(f"# load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
