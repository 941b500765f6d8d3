"""Reproduce Sheng's (seed 001) experiments: LGC and Graph-OCL (chapter 3), BDLDA (chapter 2).

Chapter 4 (Ensemble / Boost Nyström) is reproduced in ``reproduce_lowrank.py``.

**(a) α and unbalanced labeled classes** (Sheng §3.3, figs. 3.1–3.2; the brief's "§3.2.3").
The thesis takes two digits of USPS and MNIST, an RBF similarity matrix, α = 0.1 … 0.9 and
labeled ratios 1:1 and 2:1 (USPS) or 4:1 (MNIST) between the classes, and plots LGC
classification accuracy. Its observations: (1) unbalanced labels lower the accuracy (the
unlabeled points lean to the class with more labels); (2) α matters, and more when the labels
are unbalanced. Ours: the same four digit pairs (4/7, 0/1, 9/5, 8/2) of scikit-learn's 8 × 8
digits (USPS and MNIST are not available offline), first digit positive. **The text is silent
on** the number of labeled points, the RBF width, the diagonal of W, where accuracy is measured
and the number of trials. We label 5 negatives and 5, 10 or 20 positives (1:1, 2:1, 4:1), use
``W_ij = exp(−‖x_i − x_j‖²/(2σ²))`` with a zero diagonal and σ = half the mean distance to the
10th nearest neighbour (``rbf``; ``rbf-wide``: the whole mean distance), ``S = D⁻¹W``, uniform
unlabeled rows (Sheng §3.2.1), measure accuracy on the unlabeled points, and average over the
seeds. The same with the symmetric 10-NN graph (the app's graph) is printed too.

**(a2) LGC ranking vs α** (Sheng §3.4.5, Tables 3.1 and 3.3): 20 % of the positives labeled,
the R = #negatives lowest-ranked points retrieved, accuracy ``A = N_R/R`` (eq. 3.41), α from
0.9 down to 1e-8; Table 3.3's means above and below ``B_α = 0.005`` (eq. 3.37). The ranking
uses the exact one-class scores of :func:`rlscore.core.graph.lgc.one_class_log_scores`; the thesis's
USPS numbers are printed beside ours.

**(a3) Is the ranking independent of α below B_α?** Pairwise order flips among the unlabeled
points between α = 1e-4 and 4.9e-3 (both below B_α), counted over the pairs whose order both
α resolve in double precision.

**(b) Table 3.6 in spirit** (20 Newsgroups is not available offline): one-vs-one pairs of the
digits and of breast cancer (malignant vs benign, both ways; standardised), 20 % of the
positives labeled, 10 % of those as spies, α = 0.001 (§3.5.5). Graph-OCL with the thesis's
affinity (the normalised linear kernel = cosine similarity, eq. 3.42, negative similarities
clipped) and with the symmetric 10-NN graph, each followed by linear RLS with an offset,
balanced class weights and λ by exact LOO (the thesis uses a TSVM, SVMlight, linear kernel);
against "unlabeled = negative" RLS and RLS trained with the true negatives of the unlabeled set
(an upper bound), same RLS settings. Accuracy and F-score of the positive class on the
unlabeled points (spies excluded), mean ± sd over the seeds; the thesis's Table 3.6 is printed
beside.

**(c) Scale**: LGC on n = 100 000 uniform points in the unit square, 10-NN graph, conjugate
gradients for α = 0.001, 0.5, 0.99, and the one-class ranking scores.

**(d) BDLDA** (Sheng chapter 2): Table 2.1, run by ``reproduce_sheng_bdlda.py`` (also on its
own).

Usage: ``python benchmarks/reproduce_sheng.py [--quick] [--seeds S] [--parts a,a2,a3,b,c]``.
"""

from __future__ import annotations

import argparse
import time

from harness import load_average, pin_blas, report_machine

pin_blas(1)  # before numpy does any work

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_digits  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from rlscore.core.graph.lgc import (  # noqa: E402
    initial_labels,
    lgc_solve,
    one_class_log_scores,
    sheng_alpha_bound,
)
from rlscore.core.graph.ocl import GraphOCL  # noqa: E402
from rlscore.core.kernels.functions import knn_graph, squared_distances  # noqa: E402
from rlscore.core.rls.classifier import RLSClassifier  # noqa: E402

PAIRS_A = ((4, 7), (0, 1), (9, 5), (8, 2))
ALPHAS_A = tuple(round(0.1 * i, 1) for i in range(1, 10))
RATIOS_A = (1, 2, 4)
ALPHAS_RANK = (0.9, 0.7, 0.5, 0.3, 0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8)
#: Sheng Table 3.1 (USPS, A in %), columns 4/7, 0/1, 5/9, 2/8, rows ALPHAS_RANK
SHENG_TABLE_3_1 = (
    (94.00, 91.27, 97.45, 98.36),
    (93.00, 93.55, 96.91, 98.55),
    (91.73, 93.64, 96.91, 98.91),
    (96.00, 92.18, 96.91, 98.73),
    (96.36, 90.09, 97.00, 98.55),
    (94.91, 95.36, 98.27, 98.91),
    (95.55, 95.82, 97.27, 98.45),
    (97.00, 93.09, 98.45, 99.81),
    (95.55, 97.82, 97.82, 99.18),
    (95.55, 95.55, 97.82, 99.27),
    (95.82, 97.18, 97.91, 99.45),
    (95.73, 96.64, 98.00, 99.00),
)
#: Sheng Table 3.3 (USPS): mean (sd) of A above / below B_α
SHENG_TABLE_3_3 = ("94.33 (1.78) / 95.86 (0.57)", "92.69 (1.89) / 96.02 (1.66)",
                   "97.24 (0.55) / 97.88 (0.38)", "98.67 (0.22) / 99.26 (0.18)")  # fmt: skip
PAIRS_B = ((4, 7), (0, 1), (5, 9), (2, 8), (3, 8), (1, 7), (3, 5), (7, 9))
#: Sheng Table 3.6 (20 Newsgroups, linear kernel): positive, negative, Graph-OCL F, accuracy,
#: NB F, accuracy, S-EM F, accuracy (%)
SHENG_TABLE_3_6 = (
    ("os-win", "wind.x", 88.0, 89.1, 45.6, 79.9, 92.2, 95.8),
    ("graphic", "hardmac", 92.8, 93.3, 14.9, 73.6, 41.1, 78.5),
    ("rel.misc", "pol.misc", 87.0, 89.0, 30.8, 75.7, 65.4, 82.7),
    ("hockey", "baseball", 96.4, 96.8, 89.6, 95.4, 96.8, 98.4),
    ("pol.guns", "pol.misc", 90.0, 90.7, 48.3, 79.9, 75.4, 87.3),
    ("politics", "rec", 83.9, 86.2, 28.8, 72.6, 29.7, 73.1),
    ("hardmac", "os-win", 88.9, 90.1, 74.2, 88.2, 94.4, 96.8),
    ("hardpc", "hardmac", 83.6, 85.0, 52.8, 90.8, 82.7, 95.4),
    ("average", "", 88.8, 90.0, 48.1, 82.1, 72.2, 88.5),
)


def ms(values, scale: float = 100.0) -> str:
    """``mean ± sd`` (sample sd) in percent."""
    v = scale * np.asarray(values, dtype=float)
    return f"{v.mean():5.1f} ± {v.std(ddof=1) if v.size > 1 else 0.0:4.1f}"


def digit_pair(pos: int, neg: int) -> tuple[np.ndarray, np.ndarray]:
    d = load_digits()
    keep = np.isin(d.target, (pos, neg))
    return d.data[keep], d.target[keep] == pos


def rbf_affinity(X: np.ndarray, width: float = 0.5) -> sp.csr_matrix:
    """Fully connected RBF similarity, zero diagonal, σ = ``width`` × the mean distance to the
    10th nearest neighbour."""
    D = squared_distances(X)
    sigma = width * float(np.sqrt(np.sort(D, axis=1)[:, 10]).mean())
    W = np.exp(-D / (2.0 * sigma * sigma))
    np.fill_diagonal(W, 0.0)
    return sp.csr_matrix(W)


# -- (a) α and unbalanced labels ---------------------------------------------------------------
def part_a(seeds: int, quick: bool) -> None:
    print("\n## (a) LGC classification accuracy (%) vs α, labeled ratio positive:negative")
    print("# 5 labeled negatives, 5·ratio labeled positives; accuracy on the unlabeled points;")
    print(f"# mean ± sd over {seeds} seeds; S = D⁻¹W, uniform unlabeled rows (Sheng §3.2.1)")
    pairs = PAIRS_A[:2] if quick else PAIRS_A
    summary = []
    graphs = {
        "rbf": rbf_affinity,
        "rbf-wide": lambda X: rbf_affinity(X, 1.0),
        "knn10": lambda X: knn_graph(X, k=10),
    }
    for graph, build in graphs.items():
        for pos, neg in pairs:
            X, y = digit_pair(pos, neg)
            W = build(X)
            acc = np.zeros((len(RATIOS_A), len(ALPHAS_A), seeds))
            for s in range(seeds):
                rng = np.random.default_rng(s)
                negs = rng.choice(np.flatnonzero(~y), 5, replace=False)
                for r, ratio in enumerate(RATIOS_A):
                    poss = rng.choice(np.flatnonzero(y), 5 * ratio, replace=False)
                    codes = np.full(y.size, -1)
                    codes[negs], codes[poss] = 0, 1
                    Y = initial_labels(codes, 2)
                    u = codes < 0
                    for a, alpha in enumerate(ALPHAS_A):
                        F = lgc_solve(W, Y, alpha).F
                        acc[r, a, s] = np.mean((F[u, 1] > F[u, 0]) == y[u])
            print(f"\n### digits {pos} (positive) vs {neg}, W = {graph}")
            print("| α | " + " | ".join(f"{r}:1" for r in RATIOS_A) + " |")
            print("|---|" + "---|" * len(RATIOS_A))
            for a, alpha in enumerate(ALPHAS_A):
                cells = " | ".join(ms(acc[r, a]) for r in range(len(RATIOS_A)))
                print(f"| {alpha} | {cells} |")
            means = acc.mean(axis=2)
            summary.append((graph, pos, neg, means.mean(axis=1), np.ptp(means, axis=1)))
    print("\n### summary: mean over α, and range over α (max − min of the mean accuracy)")
    print("| W | pair | " + " | ".join(f"mean {r}:1" for r in RATIOS_A) + " | "
          + " | ".join(f"range {r}:1" for r in RATIOS_A) + " |")  # fmt: skip
    print("|---|---|" + "---|" * (2 * len(RATIOS_A)))
    for graph, pos, neg, mean, rng_ in summary:
        cells = " | ".join(f"{100 * v:5.1f}" for v in mean)
        cells += " | " + " | ".join(f"{100 * v:5.1f}" for v in rng_)
        print(f"| {graph} | {pos}/{neg} | {cells} |")
    print("# thesis (figs. 3.1–3.2, no numbers in the text): accuracy lower and more sensitive")
    print("# to α when the labels are unbalanced")


# -- (a2) ranking accuracy vs α -----------------------------------------------------------------
def rank_scores(W, labeled, alpha) -> np.ndarray:
    """Scores increasing with F*_{i1} (one labeled class)."""
    if alpha <= 0.5:
        return one_class_log_scores(W, labeled, alpha)
    codes = np.full(W.shape[0], -1)
    codes[labeled] = 0
    return lgc_solve(W, initial_labels(codes, 2), alpha).H[:, 0]


def part_a2(seeds: int, quick: bool) -> None:
    print("\n## (a2) LGC ranking accuracy A = N_R/R (%) vs α (Sheng Table 3.1), RBF W")
    print("# 20 % of the positives labeled; R = number of negatives; the R lowest F*_{i1}")
    pairs = PAIRS_A[:2] if quick else PAIRS_A
    table = np.zeros((len(ALPHAS_RANK), len(pairs), seeds))
    bounds = []
    for p, (pos, neg) in enumerate(pairs):
        X, y = digit_pair(pos, neg)
        W = rbf_affinity(X)
        bounds.append(sheng_alpha_bound(W))
        for s in range(seeds):
            rng = np.random.default_rng(s)
            pos_idx = np.flatnonzero(y)
            labeled = rng.choice(pos_idx, int(0.2 * pos_idx.size), replace=False)
            unl = np.setdiff1d(np.arange(y.size), labeled)
            R = int((~y).sum())
            for a, alpha in enumerate(ALPHAS_RANK):
                sc = rank_scores(W, labeled, alpha)
                bottom = unl[np.lexsort((unl, sc[unl]))][:R]
                table[a, p, s] = np.mean(~y[bottom])
    head = " | ".join(f"ours {a}/{b} | thesis" for a, b in pairs)
    print(f"| α | {head} |")
    print("|---|" + "---|---|" * len(pairs))
    for a, alpha in enumerate(ALPHAS_RANK):
        cells = " | ".join(
            f"{ms(table[a, p])} | {SHENG_TABLE_3_1[a][PAIRS_A.index(pair)]:.2f}"
            for p, pair in enumerate(pairs)
        )
        print(f"| {alpha:g} | {cells} |")
    print(
        f"# B_α (eq. 3.37) of the four graphs: {bounds} (always 0.005, see rlscore.core.graph.lgc)"
    )
    print("\n### Table 3.3: mean (sd over α) of the seed-mean A, α above / below B_α = 0.005")
    alphas = np.array(ALPHAS_RANK)
    above, below = alphas > 0.005, alphas < 0.005
    print("| pair | ours above / below | thesis (USPS) above / below |")
    print("|---|---|---|")
    for p, pair in enumerate(pairs):
        m = 100 * table[:, p].mean(axis=1)
        ours = (
            f"{m[above].mean():.2f} ({m[above].std():.2f}) / "
            f"{m[below].mean():.2f} ({m[below].std():.2f})"
        )
        print(f"| {pair[0]}/{pair[1]} | {ours} | {SHENG_TABLE_3_3[PAIRS_A.index(pair)]} |")


# -- (a3) pairwise flips below the bound ---------------------------------------------------------
def part_a3(seeds: int, quick: bool) -> None:
    print("\n## (a3) pairwise order flips between α = 1e-4 and 4.9e-3 (both below B_α = 0.005)")
    print("# 20 % of the positives labeled; pairs of unlabeled points whose order both α resolve")
    print("# (|Δ log P| > 1e-9); log P exact (one_class_log_scores)")
    print("| pair | W | resolvable pairs | flips (mean over seeds) | seeds with a flip |")
    print("|---|---|---|---|---|")
    pairs = PAIRS_A[:2] if quick else PAIRS_A
    for pos, neg in pairs:
        X, y = digit_pair(pos, neg)
        for name, W in (("rbf", rbf_affinity(X)), ("knn10", knn_graph(X, k=10))):
            counts, flips = [], []
            for s in range(seeds):
                rng = np.random.default_rng(s)
                pos_idx = np.flatnonzero(y)
                labeled = rng.choice(pos_idx, int(0.2 * pos_idx.size), replace=False)
                unl = np.setdiff1d(np.arange(y.size), labeled)
                a = one_class_log_scores(W, labeled, 1e-4)[unl]
                b = one_class_log_scores(W, labeled, 4.9e-3)[unl]
                # points cut off from every label (log P = −inf) are tied: not resolvable
                fin = np.isfinite(a) & np.isfinite(b)
                a, b = a[fin], b[fin]
                da, db = a[:, None] - a[None, :], b[:, None] - b[None, :]
                ok = (np.abs(da) > 1e-9) & (np.abs(db) > 1e-9)
                counts.append(int(np.triu(ok, 1).sum()))
                flips.append(int(np.triu(ok & (np.sign(da) != np.sign(db)), 1).sum()))
            print(
                f"| {pos}/{neg} | {name} | {np.mean(counts):.0f} | {np.mean(flips):.1f} | "
                f"{sum(f > 0 for f in flips)}/{seeds} |"
            )


# -- (b) Graph-OCL, Table 3.6 in spirit ------------------------------------------------------------
def datasets_b(quick: bool):
    pairs = PAIRS_B[:3] if quick else PAIRS_B
    for pos, neg in pairs:
        X, y = digit_pair(pos, neg)
        yield f"digits {pos} vs {neg}", X, y
    bc = load_breast_cancer()
    X = StandardScaler().fit_transform(bc.data)
    yield "cancer malignant vs benign", X, bc.target == 0
    if not quick:
        yield "cancer benign vs malignant", X, bc.target == 1


def prf(pred: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """Accuracy and F-score of the positive class."""
    tp = np.sum(pred & truth)
    p = tp / max(pred.sum(), 1)
    r = tp / max(truth.sum(), 1)
    f = 0.0 if p + r == 0 else 2 * p * r / (p + r)
    return float(np.mean(pred == truth)), float(f)


def rls() -> RLSClassifier:
    return RLSClassifier(kernel="linear", lam="auto", class_weight="balanced", offset=True)


METHODS_B = ("Graph-OCL cosine", "Graph-OCL 10-NN", "unlabeled=neg RLS", "oracle RLS")


def run_b(X, y, seed) -> dict[str, tuple[float, float, float]]:
    """Accuracy, F-score (and reliable-negative precision for Graph-OCL) per method."""
    rng = np.random.default_rng(seed)
    pos = np.flatnonzero(y)
    mask = np.zeros(y.size, bool)
    mask[rng.choice(pos, max(2, int(round(0.2 * pos.size))), replace=False)] = True
    unl = ~mask
    out = {}
    for name, affinity in (("Graph-OCL cosine", "kernel"), ("Graph-OCL 10-NN", "knn")):
        g = GraphOCL(
            affinity=affinity, n_neighbors=10, alpha=0.001, kernel="linear", lam="auto",
            class_weight="balanced", offset=True, random_state=seed,
        ).fit(X, mask)  # fmt: skip
        out[name] = (*prf(g.transduction_[unl], y[unl]), float(np.mean(~y[g.reliable_negatives_])))
    naive = rls().fit(X, np.where(mask, 1, -1))
    out["unlabeled=neg RLS"] = (*prf(naive.decision_function(X[unl]) > 0, y[unl]), np.nan)
    train = mask | ~y
    oracle = rls().fit(X[train], np.where(mask[train], 1, -1))
    out["oracle RLS"] = (*prf(oracle.decision_function(X[unl]) > 0, y[unl]), np.nan)
    return out


def part_b(seeds: int, quick: bool) -> None:
    print("\n## (b) Graph-OCL vs baselines (Table 3.6 in spirit); accuracy / F-score (%)")
    print(f"# on the unlabeled points; mean ± sd over {seeds} seeds; 20 % positives labeled,")
    print("# 10 % of them spies, α = 0.001; linear RLS, offset, balanced, λ by exact LOO;")
    print("# RN prec = fraction of Graph-OCL's reliable negatives that are true negatives")
    print(
        "| data | "
        + " | ".join(f"{m} acc | F" for m in METHODS_B)
        + " | RN prec cos | RN prec kNN |"
    )
    print("|---|" + "---|---|" * len(METHODS_B) + "---|---|")
    avg = {m: ([], []) for m in METHODS_B}
    for name, X, y in datasets_b(quick):
        res = [run_b(X, y, s) for s in range(seeds)]
        cells = []
        for m in METHODS_B:
            acc = [r[m][0] for r in res]
            f = [r[m][1] for r in res]
            avg[m][0].append(np.mean(acc))
            avg[m][1].append(np.mean(f))
            cells.append(f"{ms(acc)} | {ms(f)}")
        prec = [ms([r[m][2] for r in res]) for m in METHODS_B[:2]]
        print(f"| {name} | " + " | ".join(cells) + f" | {prec[0]} | {prec[1]} |")
    cells = " | ".join(
        f"{100 * np.mean(avg[m][0]):5.1f} | {100 * np.mean(avg[m][1]):5.1f}" for m in METHODS_B
    )
    print(f"| **average** | {cells} | | |")
    print("\n### Sheng Table 3.6 (20 Newsgroups, TSVM linear kernel), for comparison")
    print("| positive | negative | Graph-OCL F | acc | NB F | acc | S-EM F | acc |")
    print("|---|---|---|---|---|---|---|---|")
    for row in SHENG_TABLE_3_6:
        print("| " + " | ".join(str(v) for v in row) + " |")


# -- (c) scale -----------------------------------------------------------------------------
def part_c(quick: bool) -> None:
    n = 20_000 if quick else 100_000
    print(f"\n## (c) LGC at n = {n}, 10-NN graph on uniform points in the unit square")
    X = np.random.default_rng(0).uniform(size=(n, 2))
    t0 = time.perf_counter()
    W = knn_graph(X, k=10)
    print(f"# kNN graph: {time.perf_counter() - t0:.2f} s, {W.nnz} stored edges")
    codes = np.full(n, -1)
    codes[np.argsort(X[:, 0])[:50]] = 0
    codes[np.argsort(X[:, 0])[-50:]] = 1
    Y = initial_labels(codes, 2)
    print("# 50 labels at each end; small α is for ranking: far points keep F* ≈ (½, ½)")
    print("| α | CG iterations | seconds | accuracy (x < ½ ⇔ class 0) |")
    print("|---|---|---|---|")
    for alpha in (0.001, 0.5, 0.99):
        t0 = time.perf_counter()
        sol = lgc_solve(W, Y, alpha)
        dt = time.perf_counter() - t0
        acc = np.mean((sol.F[:, 1] > sol.F[:, 0]) == (X[:, 0] > 0.5))
        print(f"| {alpha} | {sol.n_iter} | {dt:.2f} | {100 * acc:.1f} |")
    t0 = time.perf_counter()
    s = one_class_log_scores(W, np.flatnonzero(codes == 0), 0.001)
    print(
        f"# one_class_log_scores (α = 0.001): {time.perf_counter() - t0:.2f} s, "
        f"log P from {s.min():.1f} to {s.max():.2g}"
    )


# -- (d) BDLDA (Sheng chapter 2) ----------------------------------------------------------
def part_d(seeds: int, quick: bool) -> None:
    """Table 2.1 (§2.3.1): BDLDA and T-BDLDA on the simulated sets, beside shrinkage LDA and
    RLS; the experiment is its own script (``reproduce_sheng_bdlda.py``, 50 seeds by
    default, about 5 minutes)."""
    import reproduce_sheng_bdlda

    print("\n## (d) BDLDA, Table 2.1 (reproduce_sheng_bdlda.py)")
    reproduce_sheng_bdlda.main(["--quick"] if quick else [])


PARTS = {"a": part_a, "a2": part_a2, "a3": part_a3, "b": part_b, "c": None, "d": part_d}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer pairs, seeds and points")
    parser.add_argument("--seeds", type=int, default=None, help="seeds (default 10, quick 3)")
    parser.add_argument("--parts", default=",".join(PARTS), help="comma-separated parts")
    args = parser.parse_args(argv)
    seeds = args.seeds or (3 if args.quick else 10)
    report_machine()
    t0 = time.perf_counter()
    for part in args.parts.split(","):
        if part not in PARTS:
            raise SystemExit(f"unknown part {part!r}: choose from {list(PARTS)}")
        if part == "c":
            part_c(args.quick)
        else:
            PARTS[part](seeds, args.quick)
    print(f"\n# total {time.perf_counter() - t0:.0f} s; load average now {load_average()}")


if __name__ == "__main__":
    main()
