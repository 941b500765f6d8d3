"""Reproduce Sheng §2.3.1, Table 2.1 (simulated data): BDLDA and T-BDLDA (docs/mathematics.md §8).

**Thesis settings** (seed 001, §2.3.1 and the caption of Table 2.1): two Gaussian classes
``N(μ_A, K)``, ``N(μ_B, K)``, ``μ_A = 0``; 𝓛 = 5, MaxGrow = 3, MaxFeature = 20, 𝒩 = 5;
error rates from "10-fold cross validation 50 times", mean (sd).

* *block diagonal*: P = 10 000, ``μ_B = 0.5`` on the first 200 features; K has 100 blocks of
  100 × 100 Toeplitz ``ρ^|i−j|`` with ``|ρ| = 0.9``, the sign alternating from block to block
  (eq. 2.10); 220 samples;
* *diagonal*: P = 10 000, ``μ_B = 0.5`` on the first 100 features, ``K = I``; 220 samples;
* *Toeplitz*: P = 1 000, ``μ_Bj = e^{−0.05 j}``, K Toeplitz with first row
  ``(1, −1/2, 2/5, 0, …, 0)`` (positive definite: its smallest eigenvalue is ≈ 0.044);
  120 samples.

**Where the thesis is silent** (our choices): classes of equal size (110/110, 60/60); a fresh
data set per repetition (seed) with one stratified 10-fold split of it, so the sd covers data
and split (the thesis's sd is close to the binomial sd of one 220-sample run, which suggests the
same); the first block has ``+ρ``; prescreening threshold one third of the largest
``|d_i/σ_i|`` with ``c = 0`` (§2.2.3: "in the experiments, we use 1/3 max"); treelets on the
prescreened features, one Jacobi rotation per level (Lee et al.), so 𝓛 = 5 touches at most 10
features (a deeper tree, ``--levels``, probes the reading "level = tree depth").

**Baselines** (ours; the thesis compares SeqDLDA, NSC and SCRDA, whose numbers are printed):
scikit-learn's shrinkage LDA (``solver="lsqr", shrinkage="auto"``: per-class Ledoit–Wolf on
standardised features, prior-weighted). With P = 10 000 scikit-learn forms and solves the 10 000 ×
10 000 covariance (minutes per fit), so the benchmark solves the *same* estimator through Woodbury's
identity (the shrunk covariance is diagonal + rank n) and checks it against scikit-learn itself on
the first fold of each data set (first 2 000 features), printing the largest difference of decision
values. RLS: :class:`rlscore.core.rls.classifier.RLSClassifier`, linear kernel, offset, λ =
``"auto"`` (largest λ of least exact-LOO classification error on the default grid of the training
fold).

Usage: ``python benchmarks/reproduce_sheng_bdlda.py [--quick] [--seeds S] [--datasets ...]``
(``--quick``: 3 seeds). ``main()`` returns the table rows.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import cache

import numpy as np
from harness import pin_blas, report_machine
from scipy.linalg import cho_factor, cho_solve, toeplitz
from scipy.special import ndtr
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import StratifiedKFold

from rlscore.core.classifiers.bdlda import BDLDA
from rlscore.core.rls.classifier import RLSClassifier

#: Table 2.1 of the thesis: error rate % (sd %)
THESIS = {
    "block": {
        "T-BDLDA": "< 0.45 (0)",
        "BDLDA": "0.36 (0.19)",
        "SeqDLDA": "19.64 (1.5)",
        "NSC": "18.15 (1.34)",
        "SCRDA": "9.45 (1.23)",
    },
    "diagonal": {
        "T-BDLDA": "3.41 (1.14)",
        "BDLDA": "3.57 (1.09)",
        "SeqDLDA": "2.57 (0.83)",
        "NSC": "6.89 (1.12)",
        "SCRDA": "1.97 (0.62)",
    },
    "toeplitz": {
        "T-BDLDA": "3.17 (0.95)",
        "BDLDA": "4.51 (1.02)",
        "SeqDLDA": "8.97 (1.71)",
        "NSC": "10.82 (1.74)",
        "SCRDA": "10.2 (1.37)",
    },
}
TITLES = {
    "block": "block-diagonal K (P = 10 000, n = 220)",
    "diagonal": "diagonal K (P = 10 000, n = 220)",
    "toeplitz": "Toeplitz K (P = 1 000, n = 120)",
}
THESIS_PARAMS = {"max_grow": 3, "max_features": 20, "n_models": 5}


# ------------------------------------------------------------------------------------ data


def _labels(n: int) -> np.ndarray:
    return np.repeat([0, 1], [n - n // 2, n // 2])  # 0 = class A (μ_A = 0), 1 = class B


def make_block(seed: int, n: int = 220, blocks: int = 100, size: int = 100, rho: float = 0.9):
    """Eq. 2.10: AR(1) blocks ``(±ρ)^|i−j|`` with alternating signs; μ_B = 0.5 on 200 features."""
    rng = np.random.default_rng(seed)
    y = _labels(n)
    r = rho * np.where(np.arange(blocks) % 2 == 0, 1.0, -1.0)  # +ρ, −ρ, +ρ, …
    E = rng.standard_normal((n, blocks, size))
    Z = np.empty_like(E)
    Z[:, :, 0] = E[:, :, 0]
    innov = np.sqrt(1.0 - rho**2)
    for t in range(1, size):  # the stationary AR(1) has exactly the Toeplitz ρ^|i−j| covariance
        Z[:, :, t] = r * Z[:, :, t - 1] + innov * E[:, :, t]
    X = Z.reshape(n, blocks * size)
    X[y == 1, :200] += 0.5
    return X, y


def make_diagonal(seed: int, n: int = 220, p: int = 10_000):
    """K = I, μ_B = 0.5 on the first 100 features."""
    rng = np.random.default_rng(seed)
    y = _labels(n)
    X = rng.standard_normal((n, p))
    X[y == 1, :100] += 0.5
    return X, y


@cache
def _toeplitz_factor(p: int) -> np.ndarray:
    row = np.zeros(p)
    row[:3] = 1.0, -0.5, 0.4
    return np.linalg.cholesky(toeplitz(row))


def make_toeplitz(seed: int, n: int = 120, p: int = 1000, gamma: float = 0.05):
    """K Toeplitz (1, −1/2, 2/5, 0, …), μ_Bj = e^{−γj}, j = 1 … P."""
    rng = np.random.default_rng(seed)
    y = _labels(n)
    X = rng.standard_normal((n, p)) @ _toeplitz_factor(p).T
    X[y == 1] += np.exp(-gamma * np.arange(1, p + 1))
    return X, y


DATASETS: dict[str, Callable[[int], tuple[np.ndarray, np.ndarray]]] = {
    "block": make_block,
    "diagonal": make_diagonal,
    "toeplitz": make_toeplitz,
}


def true_model(name: str, F: int) -> tuple[np.ndarray, np.ndarray]:
    """``μ_B`` and K on the first F features (where all three data sets keep their signal)."""
    if name == "diagonal":
        return np.where(np.arange(F) < 100, 0.5, 0.0), np.eye(F)
    if name == "block":
        r = np.where(np.arange(F) // 100 % 2 == 0, 0.9, -0.9)
        lag = np.abs(np.subtract.outer(np.arange(F), np.arange(F)))
        same = np.equal.outer(np.arange(F) // 100, np.arange(F) // 100)
        return np.where(np.arange(F) < 200, 0.5, 0.0), np.where(same, r[:, None] ** lag, 0.0)
    row = np.zeros(F)
    row[:3] = 1.0, -0.5, 0.4
    return np.exp(-0.05 * np.arange(1, F + 1)), toeplitz(row)


def bayes_error(name: str) -> float:
    """Error % of the Bayes rule of the stated model, ``Φ(−Δ/2)`` with ``Δ² = μ_BᵀK⁻¹μ_B``."""
    mu, K = true_model(name, 1000 if name == "toeplitz" else 400)  # μ_B = 0 beyond
    return 100.0 * float(ndtr(-np.sqrt(mu @ np.linalg.solve(K, mu)) / 2))


def oracle_error(name: str, n_per_class: int, draws: int = 2000) -> tuple[float, int]:
    """Expected error % of LDA given the *true* K and the best first-F features, means estimated.

    ``w = K_F⁻¹(m̂_B − m̂_A)``, midpoint threshold, means from ``n_per_class`` points per class
    (a 10-fold training fold); best over F. A practical floor: a method that must also estimate
    K and choose the features is not expected to beat it.
    """
    rng = np.random.default_rng(0)
    best = (np.inf, 0)
    for F in (10, 20, 40, 60, 100, 200):
        mu, K = true_model(name, F)
        L = np.linalg.cholesky(K)
        mb = mu[:, None] + L @ rng.standard_normal((F, draws)) / np.sqrt(n_per_class)
        ma = L @ rng.standard_normal((F, draws)) / np.sqrt(n_per_class)
        W = np.linalg.solve(K, mb - ma)
        s = np.sqrt(np.einsum("fr,fr->r", W, K @ W))
        c = (ma + mb) / 2
        err_b = ndtr(-np.einsum("fr,fr->r", W, mu[:, None] - c) / s)
        err_a = ndtr(-np.einsum("fr,fr->r", W, c) / s)
        best = min(best, (100.0 * float(np.mean((err_a + err_b) / 2)), F))
    return best


# ----------------------------------------------------------- scikit-learn's shrinkage LDA, fast


def ledoit_wolf_shrinkage_gram(Z: np.ndarray) -> float:
    """scikit-learn's ``ledoit_wolf_shrinkage`` of centred Z (n × p) in O(n²p), not O(np²).

    ``Σ (ZᵀZ)²_ij = ‖ZZᵀ‖²_F`` and ``Σ_ij (Z²ᵀZ²)_ij = Σ_k (Σ_i Z²_ki)²``.
    """
    n, p = Z.shape
    Z2 = Z**2
    trace = Z2.sum(axis=0) / n
    mu = trace.sum() / p
    G = Z @ Z.T
    delta_ = float(np.sum(G**2)) / n**2
    beta_ = float(np.sum(Z2.sum(axis=1) ** 2))
    beta = (beta_ / n - delta_) / (p * n)
    delta = (delta_ - 2.0 * mu * trace.sum() + p * mu**2) / p
    beta = min(beta, delta)
    return 0.0 if beta == 0 else beta / delta


class WoodburyShrinkageLDA:
    """``LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")`` for p ≫ n.

    Per class k (scikit-learn's ``_cov`` with ``"auto"``): standardise, Ledoit–Wolf shrink
    with ``α_k`` toward ``μ_k I``, scale back: ``Σ_k = (1 − α_k) S_k + α_k μ_k diag(s_k²)``;
    ``Σ = Σ_k π_k Σ_k = D + UUᵀ`` (D diagonal, U of rank ≤ n), solved by Woodbury.
    """

    def fit(self, X: np.ndarray, y: np.ndarray) -> WoodburyShrinkageLDA:
        self.classes_ = np.unique(y)
        n, p = X.shape
        priors = np.array([np.mean(y == c) for c in self.classes_])
        means = np.array([X[y == c].mean(axis=0) for c in self.classes_])
        D = np.zeros(p)
        U = []
        for k, c in enumerate(self.classes_):
            Xc = X[y == c] - means[k]
            nk = Xc.shape[0]
            scale = Xc.std(axis=0)
            scale[scale < 10 * np.finfo(float).eps] = 1.0  # StandardScaler's constant rule
            Zs = Xc / scale
            alpha = ledoit_wolf_shrinkage_gram(Zs)
            mu = float((Zs**2).sum()) / (nk * p)
            D += priors[k] * alpha * mu * scale**2
            U.append(np.sqrt(priors[k] * (1.0 - alpha) / nk) * Xc.T)
        U = np.hstack(U)  # p × n
        if np.any(D <= 0):
            raise ValueError("zero shrinkage: the Woodbury form needs a positive diagonal")
        DiU = U / D[:, None]
        core = cho_factor(np.eye(U.shape[1]) + U.T @ DiU)
        M = means.T / D[:, None]  # D⁻¹M, then subtract the rank-n correction
        coef = (M - DiU @ cho_solve(core, U.T @ M)).T
        intercept = -0.5 * np.einsum("kp,kp->k", means, coef) + np.log(priors)
        self.coef_ = (coef[1] - coef[0])[None, :]
        self.intercept_ = np.array([intercept[1] - intercept[0]])
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return X @ self.coef_[0] + self.intercept_[0]

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


def check_against_sklearn(X: np.ndarray, y: np.ndarray, p_max: int = 2000) -> float:
    """Largest |Δ decision| / max |decision| between the Woodbury form and scikit-learn."""
    X = X[:, :p_max]
    train, test = next(StratifiedKFold(10, shuffle=True, random_state=0).split(X, y))
    sk = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto").fit(X[train], y[train])
    ours = WoodburyShrinkageLDA().fit(X[train], y[train])
    a, b = sk.decision_function(X[test]), ours.decision_function(X[test])
    return float(np.max(np.abs(a - b)) / np.max(np.abs(a)))


# ------------------------------------------------------------------------------- experiment


def methods(levels: list[int]) -> dict[str, Callable[[], object]]:
    out: dict[str, Callable[[], object]] = {"BDLDA": lambda: BDLDA(**THESIS_PARAMS)}
    for lev in levels:
        name = "T-BDLDA" if lev == 5 else f"T-BDLDA (𝓛={lev})"
        out[name] = lambda lev=lev: BDLDA(treelet_level=lev, **THESIS_PARAMS)
    out["shrinkage LDA (Ledoit-Wolf)"] = WoodburyShrinkageLDA
    out["RLS (linear, LOO λ)"] = lambda: RLSClassifier(kernel="linear", lam="auto", offset=True)
    return out


def run_dataset(name: str, seeds: int, levels: list[int]) -> dict:
    make = DATASETS[name]
    ms = methods(levels)
    errors = {m: [] for m in ms}
    seconds = {m: 0.0 for m in ms}
    fits = 0
    diag = {"prescreened": [], "features": [], "full_models": []}
    for seed in range(seeds):
        X, y = make(seed)
        wrong = dict.fromkeys(ms, 0)
        folds = StratifiedKFold(10, shuffle=True, random_state=seed).split(X, y)
        for train, test in folds:
            fits += 1
            for m, factory in ms.items():
                tic = time.perf_counter()
                est = factory().fit(X[train], y[train])
                pred = est.predict(X[test])
                seconds[m] += time.perf_counter() - tic
                wrong[m] += int(np.sum(pred != y[test]))
                if m == "BDLDA":
                    diag["prescreened"].append(est.prescreened_.size)
                    diag["features"].append(sum(b.size for b in est.blocks_))
                    # the kept model of each repetition has MaxFeature features (P̂_e ~ max Ĵ)
                    sizes = np.bincount(est.model_of_block_, weights=[b.size for b in est.blocks_])
                    diag["full_models"].append(np.mean(sizes == THESIS_PARAMS["max_features"]))
        for m in ms:
            errors[m].append(100.0 * wrong[m] / len(y))
    return {
        "errors": {m: np.array(v) for m, v in errors.items()},
        "seconds": {m: s / fits for m, s in seconds.items()},
        "diag": {k: float(np.mean(v)) for k, v in diag.items()},
        "n": len(y),
    }


def mean_sd(v: np.ndarray) -> str:
    sd = v.std(ddof=1) if v.size > 1 else 0.0
    return f"{v.mean():5.2f} ({sd:4.2f})"


def print_table(name: str, res: dict, seeds: int, check: float) -> list[dict]:
    print(f"\n## {TITLES[name]}: error % mean (sd) over {seeds} seeds × 10-fold CV")
    print(f"{'method':<30} {'ours':>14} {'thesis':>14} {'s/fit':>8}")
    rows = []
    for m, v in res["errors"].items():
        thesis = THESIS[name].get(m, "")  # the thesis ran 𝓛 = 5 only
        print(f"{m:<30} {mean_sd(v):>14} {thesis:>14} {res['seconds'][m]:8.3f}")
        rows.append(
            {
                "dataset": name,
                "method": m,
                "mean": float(v.mean()),
                "sd": float(v.std(ddof=1)) if v.size > 1 else 0.0,
                "thesis": thesis,
                "seconds_per_fit": res["seconds"][m],
            }
        )
    for m in ("SeqDLDA", "NSC", "SCRDA"):
        print(f"{m + ' (thesis only)':<30} {'—':>14} {THESIS[name][m]:>14}")
    d = res["diag"]
    print(f"{'Bayes rule of the stated model':<30} {bayes_error(name):14.2f}")
    oracle, F = oracle_error(name, int(0.9 * res["n"]) // 2)
    print(f"{'LDA, true K, estimated means':<30} {oracle:14.2f}   (best F = {F} true features)")
    print(
        f"BDLDA: {d['prescreened']:.0f} features pass prescreening, {d['features']:.0f} in the "
        f"model; {100 * d['full_models']:.0f} % of the kept models have MaxFeature features. "
        f"Woodbury vs scikit-learn shrinkage LDA: max relative |Δ decision| {check:.1e}"
    )
    return rows


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 seeds")
    ap.add_argument(
        "--seeds", type=int, default=None, help="repetitions (default 50 as the thesis)"
    )
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    ap.add_argument(
        "--levels", nargs="+", type=int, default=[5], help="treelet levels 𝓛 (thesis: 5)"
    )
    ap.add_argument("--blas-threads", type=int, default=1)
    args = ap.parse_args(argv)
    seeds = args.seeds or (3 if args.quick else 50)
    pin_blas(args.blas_threads)
    report_machine()
    print(
        f"# Sheng Table 2.1: MaxGrow=3, MaxFeature=20, 𝒩=5, 𝓛={args.levels}, {seeds} seeds, "
        "stratified 10-fold CV per seed"
    )
    rows = []
    tic = time.perf_counter()
    for name in args.datasets:
        check = check_against_sklearn(*DATASETS[name](0))
        res = run_dataset(name, seeds, args.levels)
        rows += print_table(name, res, seeds, check)
    print(f"\n# {time.perf_counter() - tic:.0f} s; ", end="")
    report_machine()
    return rows


if __name__ == "__main__":
    main()
