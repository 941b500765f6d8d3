"""Multi-label projects (issue 38): which strategy asks the right questions when a point's label
is a set of classes?

Tasks (each split per seed: 30 % held out at random as the test set, ``--init`` random initial
labels, then ``--queries`` queries answered with the true set):

* ``debian_works_with`` — the bundled multi-label sample: 1400 Debian package descriptions,
  what kind of data the package works with among 7 classes (debtags facet ``works-with``;
  ``sample_data/build_multilabel_samples.py``);
* ``debian_use`` — a second debtags facet, what the package is used for (7 classes, 900
  descriptions, none shared with the first);
* ``synthetic`` — scikit-learn's ``make_multilabel_classification`` (600 points, 20 features,
  5 classes, 2 labels per point on average, standardised), a new draw per seed.

Features of the text tasks: what a text project gets (:func:`rlscore.data.features.text.
build_text_features`, default settings), made once on all texts of the task (unsupervised).

Strategies: the multi-label strategies of rlscore (``arls``, the default, ``arls-focused``,
``uncertainty``, ``random``: docs/multilabel.md §3) and a one-vs-rest margin baseline that
shares no code with the engine (``ovr-svc-margin``: scikit-learn's ``OneVsRestClassifier`` of RBF
``SVC``, refitted after every label, querying the smallest per-label margin ``min_k |f_k(x)|``).
The peer: small-text's multi-label strategy, Category Vector Inconsistency and Ranking (CVIRS,
Reyes et al. 2018; ``CategoryVectorInconsistencyAndRanking``), run through small-text's own
one-vs-rest ``SklearnClassifier(..., multi_label=True)``, refitted after every label:
``small-text-cvirs`` over small-text's ``ConfidenceEnhancedLinearSVC`` (a linear SVC whose
confidences are the sigmoid of its margins: the peer as shipped), ``small-text-cvirs-rbf`` over
an RBF ``SVC`` given the same sigmoid confidences (:class:`SigmoidSVC`: the peer's strategy on
the baseline's model). scikit-activeml has no multi-label strategy (its query strategies
reject a 2-D label matrix: docs/benchmarks/multilabel.md).
One hyper-parameter rule for everyone: σ = the median pairwise distance of the pool, λ = 0.1
(the SVCs' ``C = 1/(2λ)``, ``gamma = 1/(2σ²)``), as ``benchmarks/strategies.py``.

The labels each strategy gathered are scored by one model, the multi-label RLS of
:class:`rlscore.core.rls.multilabel.MultiLabelRLS` (σ, λ as above) fitted on them, so the curves
compare the *questions asked*. ``--class-weight balanced`` gives rlscore's strategies balanced
loss weights per label (issue 38 item 2: rare labels), ``--score-weight balanced`` the scoring
model. Reported per task and strategy: the AULC of test micro-F1 (the mean of the curve over
steps 0 … Q), median and interquartile range over the seeds, the median AULC of macro-F1, the
median final micro-F1, macro-F1 and Hamming loss, and the wins of ``arls`` over ``random``
per seed; the machine and load average before and after.

Run: ``OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/multilabel.py [--seeds 10]
[--queries 60] [--init 5] [--class-weight balanced] [--score-weight balanced] [--out runs.json]
[--quick]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from harness import load_average, pin_blas, report_machine  # noqa: E402
from scipy.spatial.distance import pdist  # noqa: E402
from sklearn.datasets import make_multilabel_classification  # noqa: E402
from sklearn.multiclass import OneVsRestClassifier  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import SVC  # noqa: E402

from rlscore.core.conventions.label_sets import multi_hot, parse_label_set  # noqa: E402
from rlscore.core.evaluation.multilabel_metrics import (  # noqa: E402
    hamming_loss,
    macro_f1,
    micro_f1,
)
from rlscore.core.rls.multilabel import MultiLabelRLS  # noqa: E402
from rlscore.data.features.text import build_text_features  # noqa: E402
from rlscore.data.samples.bundled import SAMPLE_DIR  # noqa: E402
from rlscore.experiments.simulation.multilabel import set_classes  # noqa: E402
from rlscore.query import make_strategy  # noqa: E402

TASKS = ("debian_works_with", "debian_use", "synthetic")
STRATEGIES = (
    "arls",
    "arls-focused",
    "uncertainty",
    "random",
    "ovr-svc-margin",
    "small-text-cvirs",
    "small-text-cvirs-rbf",
)
BASELINES = ("random", "ovr-svc-margin", "small-text-cvirs", "small-text-cvirs-rbf")
LAM = 0.1


def text_task(name: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(X, Y) of a bundled multi-label text sample, pool and validation files together."""
    del seed  # the texts are fixed; the split changes per seed
    frames = [
        pd.read_csv(SAMPLE_DIR / f"{name}{suffix}.csv", keep_default_na=False)
        for suffix in ("", "_validation")
    ]
    df = pd.concat(frames, ignore_index=True)
    classes = set_classes(df["labels"])
    Y = multi_hot([parse_label_set(c, classes) for c in df["labels"]], classes)
    return build_text_features(df["text"].astype(str).tolist()).X, Y


def synthetic_task(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's multi-label generator, standardised."""
    X, Y = make_multilabel_classification(
        n_samples=600, n_features=20, n_classes=5, n_labels=2, random_state=seed
    )
    return StandardScaler().fit_transform(X), Y.astype(np.float64)


def load_task(name: str, seed: int, cache: dict) -> tuple[np.ndarray, np.ndarray]:
    if name == "synthetic":
        return synthetic_task(seed)
    if name not in cache:
        cache[name] = text_task(name, seed)
    return cache[name]


def split(n: int, seed: int, init: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pool, test, initial labels as positions in the pool) of one seed."""
    order = np.random.default_rng(seed).permutation(n)
    test = np.sort(order[: int(0.3 * n)])
    pool = np.sort(order[int(0.3 * n) :])
    start = np.random.default_rng([seed, 1]).choice(pool.size, size=init, replace=False)
    return pool, test, start


class OvRMargin:
    """The one-vs-rest margin baseline: scikit-learn only (module docstring)."""

    def __init__(self, sigma: float, seed: int) -> None:
        svc = SVC(kernel="rbf", gamma=1.0 / (2.0 * sigma**2), C=1.0 / (2.0 * LAM))
        self.model = OneVsRestClassifier(svc)
        self.seed = seed

    def next_query(self, X: np.ndarray, Y: np.ndarray, labeled: list[int]) -> int:
        free = np.setdiff1d(np.arange(X.shape[0]), labeled)
        if len(labeled) < 2:
            return int(np.random.default_rng(self.seed).choice(free))
        with warnings.catch_warnings():
            # a class without a positive among the labels gets a constant predictor: expected
            warnings.filterwarnings("ignore", message="Label not", category=UserWarning)
            self.model.fit(X[labeled], Y[labeled])
        F = np.asarray(self.model.decision_function(X[free])).reshape(free.size, -1)
        return int(free[np.argmin(np.abs(F).min(axis=1))])


class SigmoidSVC(SVC):
    """An RBF ``SVC`` whose confidence is the sigmoid of its margin, as small-text's
    ``ConfidenceEnhancedLinearSVC`` gives its linear SVC (not Platt scaling: it cross-validates
    internally, and the first queries have one or two positives of a class, often none)."""

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        p = 1.0 / (1.0 + np.exp(-self.decision_function(X)))
        return np.column_stack([1.0 - p, p])


class SmallTextCVIRS:
    """small-text's CVIRS over small-text's one-vs-rest classifier (module docstring).

    Parameters
    ----------
    sigma : float
        The RBF width of ``kernel="rbf"`` (unused by the linear model).
    seed : int
        The linear SVC's ``random_state`` (liblinear shuffles: unseeded, a rerun differs).
    kernel : str
        ``"linear"``: small-text's ``ConfidenceEnhancedLinearSVC``; ``"rbf"``: :class:`SigmoidSVC`.
    """

    def __init__(self, sigma: float, seed: int, kernel: str = "linear") -> None:
        # imported here: small-text is a `bench` extra, the other strategies run without it
        from small_text import (
            CategoryVectorInconsistencyAndRanking,
            ConfidenceEnhancedLinearSVC,
            SklearnClassifier,
        )

        C = 1.0 / (2.0 * LAM)
        if kernel == "linear":
            model = ConfidenceEnhancedLinearSVC(linearsvc_kwargs={"C": C, "random_state": seed})
        else:
            model = SigmoidSVC(kernel="rbf", gamma=1.0 / (2.0 * sigma**2), C=C)
        self.classifier = SklearnClassifier(model, num_classes=0, multi_label=True)
        self.strategy = CategoryVectorInconsistencyAndRanking(pbar=None)

    def next_query(self, X: np.ndarray, Y: np.ndarray, labeled: list[int]) -> int:
        from scipy.sparse import csr_matrix
        from small_text import SklearnDataset

        self.classifier.num_classes = Y.shape[1]
        classes = np.arange(Y.shape[1])  # given, or small-text warns on every query
        data = SklearnDataset(X, csr_matrix(Y.astype(np.int64)), target_labels=classes)
        known = np.asarray(labeled)
        free = np.setdiff1d(np.arange(X.shape[0]), known)
        with warnings.catch_warnings():
            # as OvRMargin: a class with no positive label yet gets a constant predictor
            warnings.filterwarnings("ignore", message="Label not", category=UserWarning)
            self.classifier.fit(data[known])
            picked = self.strategy.query(
                self.classifier, data, free, known, csr_matrix(Y[known].astype(np.int64)), n=1
            )
        return int(picked[0])


def make_peer(strategy: str, sigma: float, seed: int):
    """The strategy object of a baseline that is not rlscore's (``next_query(X, Y, labeled)``)."""
    if strategy == "ovr-svc-margin":
        return OvRMargin(sigma, seed)
    return SmallTextCVIRS(sigma, seed, kernel="rbf" if strategy.endswith("-rbf") else "linear")


def run_one(task: str, strategy: str, seed: int, args, cache: dict) -> dict:
    """One seed of one strategy on one task: the test curves."""
    X_all, Y_all = load_task(task, seed, cache)
    pool, test, start = split(X_all.shape[0], seed, args.init)
    X, Y = X_all[pool], Y_all[pool]
    sigma = float(np.median(pdist(X)))
    classes = list(range(Y.shape[1]))
    sets = [tuple(k for k in classes if row[k] > 0.5) for row in Y]
    labeled = [int(i) for i in start]
    seconds = []
    is_peer = strategy in BASELINES[1:]
    if is_peer:
        peer = make_peer(strategy, sigma, seed)
    else:
        q = make_strategy(
            strategy, multi_label=True, sigma=sigma, lam=LAM, seed=seed,
            class_weight=args.class_weight,
        )  # fmt: skip
        q.start(X, classes)
        q.teach_many(labeled, [sets[i] for i in labeled])
    curves = {"micro_f1": [], "macro_f1": [], "hamming_loss": []}
    for t in range(args.queries + 1):
        if t:
            tic = time.perf_counter()
            if is_peer:
                i = peer.next_query(X, Y, labeled)
            else:
                i, _ = q.next_query()
                q.teach(i, sets[i])
            seconds.append(time.perf_counter() - tic)
            labeled.append(int(i))
        model = MultiLabelRLS(sigma=sigma, lam=LAM, class_weight=args.score_weight)
        model.fit(X[labeled], Y[labeled])
        P = model.predict(X_all[test])
        for name, metric in (("micro_f1", micro_f1), ("macro_f1", macro_f1)):
            curves[name].append(metric(Y_all[test], P))
        curves["hamming_loss"].append(hamming_loss(Y_all[test], P))
    return {
        "task": task,
        "strategy": strategy,
        "seed": seed,
        "n_pool": int(pool.size),
        "n_classes": int(Y.shape[1]),
        "aulc": float(np.mean(curves["micro_f1"])),
        "aulc_macro": float(np.mean(curves["macro_f1"])),
        "seconds": float(np.median(seconds)),
        **curves,
    }


def summary(records: list[dict], tasks, strategies) -> str:
    """The table of docs/benchmarks/multilabel.md."""
    lines = [
        "| task | strategy | AULC micro-F1, median [IQR] | AULC macro-F1 | final micro-F1 "
        "| final macro-F1 | final Hamming | s/query |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for task in tasks:
        for s in strategies:
            rs = [r for r in records if r["task"] == task and r["strategy"] == s]
            if not rs:
                continue
            a = np.array([r["aulc"] for r in rs])
            q1, med, q3 = np.percentile(a, [25, 50, 75])
            final = {k: np.median([r[k][-1] for r in rs]) for k in ("micro_f1", "macro_f1")}
            ham = np.median([r["hamming_loss"][-1] for r in rs])
            secs = np.median([r["seconds"] for r in rs])
            macro = np.median([r.get("aulc_macro", np.nan) for r in rs])
            lines.append(
                f"| {task} | {s} | {med:.3f} [{q1:.3f}, {q3:.3f}] | {macro:.3f} "
                f"| {final['micro_f1']:.3f} "
                f"| {final['macro_f1']:.3f} | {ham:.4f} | {secs:.3f} |"
            )
    return "\n".join(lines)


def wins(records: list[dict], tasks, a: str, b: str) -> str:
    """Per task, the seeds on which strategy ``a``'s AULC beats ``b``'s."""
    out = []
    for task in tasks:
        by = {
            s: {r["seed"]: r["aulc"] for r in records if r["task"] == task and r["strategy"] == s}
            for s in (a, b)
        }
        seeds = sorted(set(by[a]) & set(by[b]))
        won = sum(by[a][s] > by[b][s] for s in seeds)
        out.append(f"{task}: {a} beats {b} on {won} of {len(seeds)} seeds")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--queries", type=int, default=60)
    p.add_argument("--init", type=int, default=5)
    p.add_argument("--tasks", default=",".join(TASKS))
    p.add_argument("--strategies", default=",".join(STRATEGIES))
    weights = {"none": None, "balanced": "balanced"}
    p.add_argument("--class-weight", choices=weights, default="none", help="rlscore's strategies")
    p.add_argument("--score-weight", choices=weights, default="none", help="the scoring model")
    p.add_argument("--out", type=Path)
    p.add_argument("--quick", action="store_true", help="2 seeds, 5 queries (a smoke run)")
    args = p.parse_args(argv)
    if args.quick:
        args.seeds, args.queries = 2, 5
    args.class_weight, args.score_weight = weights[args.class_weight], weights[args.score_weight]
    tasks, strategies = args.tasks.split(","), args.strategies.split(",")
    pin_blas(1)
    report_machine()
    cache: dict = {}
    records = []
    for task in tasks:
        for s in strategies:
            for seed in range(args.seeds):
                records.append(run_one(task, s, seed, args, cache))
            print(f"# done {task} {s} (load average {load_average()})", flush=True)
            print(summary([r for r in records if r["strategy"] == s], [task], [s]), flush=True)
            if args.out:  # after every strategy: a long run interrupted keeps what it measured
                args.out.write_text(json.dumps(records) + "\n")
    print(summary(records, tasks, strategies))
    for s in strategies:
        for baseline in BASELINES:
            if (
                s != baseline
                and (s not in BASELINES or baseline == "random")
                and baseline in strategies
            ):
                print(wins(records, tasks, s, baseline))
    report_machine()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
