"""Focused ARLS on large pools, on the exact kernel, beside the low-rank ARLS it replaces
below :data:`rlscore.sessions.state.settings.LOW_RANK_MIN_POOL` and a naive numpy margin query.

For each pool size: the start, the median query (the next query right after a label) and
teach, and the peak memory traced over start, labels and queries, with 10 and with 1000 labels
(focused ARLS keeps the kernel columns of the labeled points: 8·n bytes per label).
*low-rank* is ``LowRankARLS`` with the app's large-pool settings (m = 500 uniform landmarks,
500 candidates, risk on 20 000 points); *naive* is a margin query written here with numpy
only (RBF columns of the labeled points, a Cholesky solve, the smallest |f|): a floor for any
query that looks at every point's prediction.

    python benchmarks/focused_large.py [--sizes 50000 200000] [--labels 10 1000] [--quick]

**Per query beside the peers** (``--peers``, issue 25): select + update (``next_query`` then
``teach``; for a peer its query then its refit) of focused ARLS beside scikit-activeml's
margin sampling with a kernel ridge classifier (``KernelRidge(alpha=λ)`` on ±1 targets,
``p̂ = clip((f + 1)/2)``) and with the peers' SVC (``benchmarks/strategies.py``: γ = 1/(2σ²),
C = 1/(2λ), Platt probabilities), and modAL's ``ActiveLearner`` (least confident) with that
SVC, and a plain kernel-ridge margin sampler (scikit-learn's ``KernelRidge`` fitted on the
labels, predicted on every unlabeled point, the smallest |f|; ``--krr-only`` runs focused
ARLS beside it alone, for pools where the SVC peers take seconds). Every learner starts from
the same labels; the steps are interleaved (one step of each
learner per round, ``--repeats`` rounds after one warm-up round) and the medians of process CPU
time and wall time are printed, with the load average (on a shared machine the CPU time is the
figure to read).

    python benchmarks/focused_large.py --peers [--peer-sizes 2000 5000 50000] [--repeats 7]
    python benchmarks/focused_large.py --peers --krr-only --peer-sizes 50000 200000
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
import warnings

from harness import load_average, pin_blas, report_machine

pin_blas(1)

import numpy as np  # noqa: E402
from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: E402
from sklearn.kernel_ridge import KernelRidge  # noqa: E402
from strategies import modal_compatibility_shim, peer_svc  # noqa: E402

from rlscore.query import make_strategy  # noqa: E402

SIGMA, LAM, D = 3.0, 0.5, 10


def pool(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    return X, np.where(X[:, 0] + 0.5 * np.sin(2 * X[:, 1]) > 0, 1, -1)


def naive_margin_query(X: np.ndarray, labeled: list[int], y: np.ndarray) -> int:
    """Smallest |f| of an RLS on the labeled points (numpy only, no code of the engine)."""
    XL = X[labeled]
    sq = (X**2).sum(1)[:, None] + (XL**2).sum(1)[None, :] - 2 * X @ XL.T
    KL = np.exp(-np.maximum(sq, 0) / (2 * SIGMA**2))
    c = np.linalg.solve(KL[labeled] + LAM * np.eye(len(labeled)), y[labeled].astype(float))
    f = np.abs(KL @ c)
    f[labeled] = np.inf
    return int(np.argmin(f))


def measure(name: str, X: np.ndarray, y: np.ndarray, labels: int, repeats: int) -> dict:
    params = {"sigma": SIGMA, "lam": LAM}
    if name == "arls-lowrank":
        params |= {"n_landmarks": 500, "landmarks": "uniform", "candidates": 500,
                   "risk_sample": 20_000}  # fmt: skip
    rng = np.random.default_rng(1)
    tracemalloc.start()
    tic = time.perf_counter()
    q = make_strategy(name, **params).start(X, [-1, 1])
    start = time.perf_counter() - tic
    first = [int(i) for i in rng.choice(X.shape[0], labels, replace=False)]
    first += [int(np.flatnonzero(y == c)[0]) for c in (-1, 1)]  # both classes
    first = list(dict.fromkeys(first))
    q.teach_many(first, [int(y[i]) for i in first])
    queries, teaches = [], []
    for _ in range(repeats):
        tic = time.perf_counter()
        i, _ = q.next_query()
        queries.append(time.perf_counter() - tic)
        tic = time.perf_counter()
        q.teach(i, int(y[i]))
        teaches.append(time.perf_counter() - tic)
    peak = tracemalloc.get_traced_memory()[1] / 2**30
    tracemalloc.stop()
    return {"start": start, "query": float(np.median(queries)),
            "teach": float(np.median(teaches)), "peak_gb": peak}  # fmt: skip


class KernelRidgeClassifier(ClassifierMixin, BaseEstimator):
    """scikit-learn's ``KernelRidge`` on ±1 targets as a binary classifier with
    ``p̂(+) = clip((f + 1)/2)``: the RLS model under scikit-activeml's margin sampling."""

    def __init__(self, alpha: float = 1.0, gamma: float = 1.0) -> None:
        self.alpha = alpha
        self.gamma = gamma

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        t = np.where(y == self.classes_[-1], 1.0, -1.0)
        self.model_ = KernelRidge(alpha=self.alpha, kernel="rbf", gamma=self.gamma).fit(X, t)
        return self

    def predict_proba(self, X):
        p = np.clip((self.model_.predict(X) + 1.0) / 2.0, 0.0, 1.0)
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        return self.classes_[(self.predict_proba(X)[:, 1] > 0.5).astype(int)]


class FocusedStep:
    """Focused ARLS: ``next_query`` then ``teach``."""

    def __init__(self, X, y, first):
        self.q = make_strategy("arls-focused", sigma=SIGMA, lam=LAM).start(X, [-1, 1])
        self.q.teach_many(first, [int(y[i]) for i in first])
        self.y = y

    def step(self) -> None:
        i, _ = self.q.next_query()
        self.q.teach(i, int(self.y[i]))


class SkactivemlStep:
    """scikit-activeml's ``UncertaintySampling(method="margin_sampling")`` with ``model``:
    its query on the pool, then the classifier refitted on the labels."""

    def __init__(self, X, y, first, model):
        from skactiveml.classifier import SklearnClassifier
        from skactiveml.pool import UncertaintySampling

        self.X, self.y_true = X, (y > 0).astype(float)
        self.y = np.full(X.shape[0], np.nan)
        self.y[first] = self.y_true[first]
        self.clf = SklearnClassifier(model, classes=[0.0, 1.0], random_state=0)
        self.qs = UncertaintySampling(method="margin_sampling", random_state=0)
        self.clf.fit(self.X, self.y)

    def step(self) -> None:
        i = int(self.qs.query(self.X, self.y, clf=self.clf, fit_clf=False)[0])
        self.y[i] = self.y_true[i]
        self.clf.fit(self.X, self.y)


class PlainKRRStep:
    """A plain kernel-ridge margin sampler (issue 36): scikit-learn's ``KernelRidge`` fitted on
    the ±1 labels, its prediction on every unlabeled point, the smallest |f| queried."""

    def __init__(self, X, y, first):
        self.X, self.y = X, y
        self.labeled = list(first)
        self.unlabeled = np.ones(X.shape[0], dtype=bool)
        self.unlabeled[first] = False
        self.gamma = 1.0 / (2.0 * SIGMA**2)

    def step(self) -> None:
        L = np.asarray(self.labeled)
        model = KernelRidge(alpha=LAM, kernel="rbf", gamma=self.gamma).fit(self.X[L], self.y[L])
        U = np.flatnonzero(self.unlabeled)
        i = int(U[np.argmin(np.abs(model.predict(self.X[U])))])
        self.labeled.append(i)
        self.unlabeled[i] = False


class ModalStep:
    """modAL's ``ActiveLearner`` (least-confident sampling) with the peers' SVC: its query on
    the unlabeled points, then ``teach`` (a refit)."""

    def __init__(self, X, y, first):
        from modAL.models import ActiveLearner
        from modAL.uncertainty import uncertainty_sampling

        modal_compatibility_shim()
        self.X, self.y = X, y
        self.unlabeled = np.ones(X.shape[0], dtype=bool)
        self.unlabeled[first] = False
        self.learner = ActiveLearner(
            estimator=peer_svc(SIGMA, LAM, 0), query_strategy=uncertainty_sampling,
            X_training=X[first], y_training=y[first],
        )  # fmt: skip

    def step(self) -> None:
        U = np.flatnonzero(self.unlabeled)
        idx, _ = self.learner.query(self.X[U])
        i = int(U[int(np.ravel(idx)[0])])
        self.learner.teach(self.X[i : i + 1], self.y[i : i + 1])
        self.unlabeled[i] = False


def peer_steps(
    n: int, labels: int, repeats: int, krr_only: bool = False
) -> dict[str, tuple[float, float]]:
    """Median (CPU s, wall s) of one select + update of each learner, steps interleaved
    (``krr_only``: focused ARLS and the plain kernel-ridge margin sampler alone)."""
    X, y = pool(n)
    rng = np.random.default_rng(1)
    first = [int(i) for i in rng.choice(n, labels, replace=False)]
    first += [int(np.flatnonzero(y == c)[0]) for c in (-1, 1)]
    first = list(dict.fromkeys(first))
    gamma = 1.0 / (2.0 * SIGMA**2)
    learners = {
        "focused ARLS": FocusedStep(X, y, first),
        "plain KRR margin": PlainKRRStep(X, y, first),
    }
    if not krr_only:
        learners |= {
            "skactiveml margin + KRR": SkactivemlStep(
                X, y, first, KernelRidgeClassifier(alpha=LAM, gamma=gamma)
            ),
            "skactiveml margin + SVC": SkactivemlStep(X, y, first, peer_svc(SIGMA, LAM, 0)),
            "modAL + SVC": ModalStep(X, y, first),
        }
    cpu = {k: [] for k in learners}
    wall = {k: [] for k in learners}
    for r in range(repeats + 1):  # round 0 is the warm-up
        for name, learner in learners.items():
            c0, w0 = time.process_time(), time.perf_counter()
            learner.step()
            if r:
                cpu[name].append(time.process_time() - c0)
                wall[name].append(time.perf_counter() - w0)
    return {k: (statistics.median(cpu[k]), statistics.median(wall[k])) for k in learners}


def main_peers(sizes: list[int], labels: int, repeats: int, krr_only: bool = False) -> None:
    report_machine()
    print(
        f"select + update per query, d = {D}, RBF σ = {SIGMA}, λ = {LAM}, {labels} random labels "
        f"(+ one of each class) first; medians of {repeats} interleaved rounds (after a warm-up)"
    )
    header = f"{'n':>7} {'learner':>24} {'CPU ms':>8} {'wall ms':>8} {'CPU / focused':>14}"
    print(header)
    for n in sizes:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=FutureWarning)
            r = peer_steps(n, labels, repeats, krr_only)
        ours = r["focused ARLS"][0]
        for name, (c, w) in r.items():
            print(f"{n:>7} {name:>24} {1e3 * c:>8.2f} {1e3 * w:>8.2f} {c / ours:>13.2f}×")
        fastest = min(c for k, (c, _) in r.items() if k != "focused ARLS")
        print(f"{n:>7} {'fastest peer / focused':>24} {fastest / ours:>8.2f}×", flush=True)
    print(f"Load average at the end: {load_average()}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[50_000, 200_000])
    p.add_argument("--labels", type=int, nargs="+", default=[10, 1000])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="n = 20 000, 10 labels, 3 repeats")
    p.add_argument("--peers", action="store_true", help="per query beside the peers (issue 25)")
    p.add_argument("--peer-sizes", type=int, nargs="+", default=[2000, 5000, 50_000])
    p.add_argument("--peer-labels", type=int, default=10)
    p.add_argument(
        "--krr-only",
        action="store_true",
        help="--peers with focused ARLS and the plain kernel-ridge margin sampler alone "
        "(issue 36: sizes where the SVC peers take seconds)",
    )
    args = p.parse_args(argv)
    if args.peers:
        main_peers(args.peer_sizes, args.peer_labels, max(args.repeats, 5), args.krr_only)
        return
    if args.quick:
        args.sizes, args.labels, args.repeats = [20_000], [10], 3
    report_machine()
    print(f"d = {D}, RBF σ = {SIGMA}, λ = {LAM}; medians of {args.repeats} queries")
    header = f"{'n':>9} {'labels':>6} {'strategy':>13} {'start s':>8} {'query s':>8} "
    print(header + f"{'teach s':>8} {'peak GB':>8}")
    for n in args.sizes:
        X, y = pool(n)
        for labels in args.labels:
            for name in ("arls-focused", "arls-lowrank"):
                r = measure(name, X, y, labels, args.repeats)
                print(f"{n:>9} {labels:>6} {name:>13} {r['start']:>8.2f} {r['query']:>8.3f} "
                      f"{r['teach']:>8.3f} {r['peak_gb']:>8.2f}", flush=True)  # fmt: skip
            labeled = [int(i) for i in np.random.default_rng(1).choice(n, labels, replace=False)]
            tic = time.perf_counter()
            naive_margin_query(X, labeled, y)
            print(f"{n:>9} {labels:>6} {'naive margin':>13} {'':>8} "
                  f"{time.perf_counter() - tic:>8.3f}", flush=True)  # fmt: skip
    report_machine()


if __name__ == "__main__":
    main()
