"""Batch queries: learning curves of one-at-a-time querying against batches of k points.

Several annotators label one project at once, so the engine proposes ``k`` points per round
(:meth:`rlscore.query.protocol.strategy.QueryStrategy.next_queries`). For ARLS and A-optimal KLR on
two bundled samples (``two_moons``: 220 points, binary, 10 : 1 imbalance, balanced class weights for
ARLS as its metadata recommends; ``digits123``: 300 images, 3 classes), from one random label per
class (seeded) up to ``--budget`` labels, the schedules are

* ``one``: one query at a time (``k = 1``) — the baseline every batch is measured against;
* ``greedy k``: batches of k by the kriging believer (each point chosen on the state that
  believes the most probable labels of the points before it), k = 2, 4, 8;
* ``top k``: the k best scores of the current state, k = 2, 4, 8;
* ``random``: the same model taught points in a random order (passive learning).

Every label of a batch is taught (the true label, from the pool's ground truth) before the
next batch is asked for; the last batch is cut to the budget. After every label the model's
accuracy on the **whole pool's ground truth** is recorded. The table gives, over ``--seeds``
seeds, the mean ± sd of the area under that curve (the mean accuracy from T to ``budget``
labels, trapezoid rule, so 1.0 is perfect from the first label on), the accuracy at a few
label counts, and the median seconds of one ``next_queries`` call (one batch; for ``one``,
one query). BLAS is pinned to one thread; the machine and its load average are printed
before, the load average after.

``--copy-cost`` measures instead what the greedy rule's lookahead copy costs on a dense ARLS state
of n = 2000 points (the design choice of :mod:`rlscore.query.protocol.batch`): the copy, a full
``copy.deepcopy``, saving and restoring the covariance in place, one ARLS scoring, one
believed-label update, and the peak traced memory of a copy and of a greedy batch of 4.

Run ``python benchmarks/batch_queries.py`` (full, several minutes), ``--quick`` (a small
budget, 2 seeds) or ``--copy-cost``.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
import tracemalloc
from collections.abc import Callable

from harness import load_average, pin_blas, report_machine, timed

pin_blas(1)  # before numpy does any work

import numpy as np  # noqa: E402

from rlscore.data.samples.bundled import load_sample  # noqa: E402
from rlscore.query import ARLS, AOptimalKLR, QueryStrategy  # noqa: E402
from rlscore.query.protocol.batch import lookahead_copy  # noqa: E402

DATASETS = ("two_moons", "digits123")
#: (name, rule, k) of every schedule, in the order of the table
SCHEDULES = [("one", "greedy", 1)]
SCHEDULES += [(f"greedy {k}", "greedy", k) for k in (2, 4, 8)]
SCHEDULES += [(f"top {k}", "top", k) for k in (2, 4, 8)]
SCHEDULES += [("random", "random", 1)]


def make_engine(model: str, dataset: str) -> Callable[[], QueryStrategy]:
    """An unstarted engine for ``model`` with the dataset's recommended parameters."""
    meta = load_sample(dataset).meta
    if model == "ARLS":
        return lambda: ARLS(sigma=meta["sigma"], lam=meta["lam"], class_weight=meta["class_weight"])
    # Yajima's graph kernel; t = 10 keeps the KLR confident away from the labels
    # (docs/mathematics.md §7)
    return lambda: AOptimalKLR(kernel="graph", lam=0.1, graph_t=10.0, mode="exact")


class Curve:
    """One run: accuracy after each label count and the seconds of each batch request.

    (A plain class, not a dataclass: the tests load this script without registering it in
    ``sys.modules``, which dataclasses need.)
    """

    def __init__(self) -> None:
        self.accuracy: dict[int, float] = {}
        self.batch_seconds: list[float] = []

    def auc(self) -> float:
        """Area under the accuracy curve over its label counts, divided by their span."""
        counts = sorted(self.accuracy)
        acc = np.array([self.accuracy[c] for c in counts])
        # the trapezoid rule by hand: np.trapezoid is numpy ≥ 2 only (the floor is 1.26)
        area = np.sum(0.5 * (acc[1:] + acc[:-1]) * np.diff(counts))
        return float(area / (counts[-1] - counts[0]))


def learning_curve(
    make: Callable[[], QueryStrategy],
    X: np.ndarray,
    y: np.ndarray,
    rule: str,
    k: int,
    seed: int,
    budget: int,
    K: np.ndarray | None = None,
) -> Curve:
    """Label ``y`` from one random point per class (``seed``) up to ``budget`` labels.

    ``rule`` is ``"greedy"`` or ``"top"`` (batches of ``k`` from ``next_queries``) or
    ``"random"`` (a random order of the pool, seeded). ``K`` is the pool kernel, computed once
    per dataset and model rather than once per run.
    """
    classes = sorted(set(y.tolist()))
    rng = np.random.default_rng(seed)
    engine = make().start(X, classes, K=K)
    curve = Curve()

    def record() -> None:
        curve.accuracy[len(engine.labeled_)] = float(np.mean(engine.predict() == y))

    def label(i: int) -> None:
        engine.teach(i, y[i].item())
        record()

    for c in classes:
        engine.teach(int(rng.choice(np.flatnonzero(y == c))), c)
    record()  # the curve starts at T labels, the same for every schedule of a seed
    order = iter(rng.permutation(len(y)).tolist())
    while len(engine.labeled_) < budget:
        if rule == "random":
            label(next(i for i in order if i not in engine.labeled_))
            continue
        want = min(k, budget - len(engine.labeled_))
        tic = time.perf_counter()
        batch = engine.next_queries(want, rule=rule)
        curve.batch_seconds.append(time.perf_counter() - tic)
        for i, _ in batch:
            label(i)
    return curve


def run(datasets, models, seeds: int, budget: int) -> list[dict]:
    """Every (dataset, model, schedule): curves over ``seeds`` seeds, summarised."""
    rows = []
    for dataset in datasets:
        ds = load_sample(dataset)
        X, y = ds.X, np.asarray(ds.y)
        for model in models:
            make = make_engine(model, dataset)
            K = make().pool_kernel(X)
            for name, rule, k in SCHEDULES:
                curves = [learning_curve(make, X, y, rule, k, s, budget, K) for s in range(seeds)]
                aucs = [c.auc() for c in curves]
                seconds = [t for c in curves for t in c.batch_seconds]
                row = {"dataset": dataset, "model": model, "schedule": name}
                row["auc"], row["auc_sd"] = float(np.mean(aucs)), float(np.std(aucs))
                row["curve"] = {
                    n: float(np.mean([c.accuracy[n] for c in curves])) for n in curves[0].accuracy
                }
                row["batch_s"] = statistics.median(seconds) if seconds else float("nan")
                rows.append(row)
                print_row(row, budget)
    return rows


def checkpoints(budget: int) -> list[int]:
    """Label counts shown in the table."""
    return [n for n in (5, 8, 12, 16, 24, 32, 48, 64) if n < budget] + [budget]


def print_header(budget: int) -> None:
    cols = "".join(f"{'acc@' + str(n):>8}" for n in checkpoints(budget))
    head = f"{'dataset':<10} {'model':<5} {'schedule':<9} {'AUC (mean ± sd)':>16}"
    line = f"{head}{cols} {'s/batch':>8}"
    print(line)
    print("-" * len(line), flush=True)


def print_row(r: dict, budget: int) -> None:
    accs = "".join(f"{r['curve'].get(n, float('nan')):>8.3f}" for n in checkpoints(budget))
    auc = f"{r['auc']:.3f} ± {r['auc_sd']:.3f}"
    seconds = "—" if np.isnan(r["batch_s"]) else f"{r['batch_s']:.3g}"
    print(
        f"{r['dataset']:<10} {r['model']:<5} {r['schedule']:<9} {auc:>16}{accs} {seconds:>8}",
        flush=True,
    )


# -- the cost of the lookahead copy ---------------------------------------------------------------
def copy_cost(n: int = 2000, labels: int = 20, repeats: int = 7) -> dict:
    """Seconds and traced MB of the greedy rule's copy against the alternatives, on ARLS."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0.0, 60.0, size=(n, 2))
    y = np.where(np.sin(X[:, 0] / 5.0) + np.cos(X[:, 1] / 7.0) > 0, 1, -1)
    q = ARLS(sigma=1.7, lam=0.5).start(X, [-1, 1])
    L = rng.choice(n, labels, replace=False).tolist()
    q.teach_many(L, y[L].tolist())
    D = q._Ds[0]
    saved = np.empty_like(D)

    def save_restore() -> None:
        np.copyto(saved, D)
        np.copyto(D, saved)

    def fresh_scores() -> None:
        q._scores_cache = None  # the scores are cached per state
        q.scores()

    def fresh_batch(rule: str) -> Callable[[], object]:
        return lambda: (fresh_scores(), q.next_queries(4, rule=rule))

    scratch = lookahead_copy(q)
    free = iter(np.setdiff1d(np.arange(n), L).tolist())
    out = {
        "lookahead_copy_s": timed(lambda: lookahead_copy(q), repeats),
        "deepcopy_s": timed(lambda: copy.deepcopy(q), repeats),
        "save_restore_s": timed(save_restore, repeats),
        "scoring_s": timed(fresh_scores, repeats),
        "believed_update_s": timed(lambda: scratch.teach(next(free), 1), repeats),
        "greedy4_s": timed(fresh_batch("greedy"), repeats),
        "top4_s": timed(fresh_batch("top"), repeats),
    }
    for key, fn in (
        ("lookahead_copy_mb", lambda: lookahead_copy(q)),
        ("deepcopy_mb", lambda: copy.deepcopy(q)),
        ("greedy4_mb", fresh_batch("greedy")),
    ):
        tracemalloc.start()
        fn()
        out[key] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    out["save_restore_mb"] = saved.nbytes / 2**20  # the buffer D is saved to (preallocated)
    out["n"], out["state_mb"] = n, D.nbytes / 2**20
    return out


def print_copy_cost(c: dict) -> None:
    print(f"Dense ARLS, n = {c['n']}, 20 labels; one covariance D is {c['state_mb']:.1f} MiB")
    print(f"{'operation':<46} {'median s':>9} {'peak MiB':>9}")
    lines = [
        ("lookahead copy (K and X shared, D copied)", "lookahead_copy"),
        ("copy.deepcopy of the whole engine", "deepcopy"),
        ("save + restore D in place (np.copyto ×2)", "save_restore"),
        ("one ARLS scoring (every candidate)", "scoring"),
        ("one believed-label update on the copy", "believed_update"),
        ("next_queries(4), greedy (scores uncached)", "greedy4"),
        ("next_queries(4), top (scores uncached)", "top4"),
    ]
    for text, key in lines:
        mb = c.get(f"{key}_mb")
        print(f"{text:<46} {c[key + '_s']:>9.4f} {'' if mb is None else format(mb, '.1f'):>9}")


def main(argv=None) -> list[dict] | dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="budget 12, 2 seeds (a smoke run)")
    p.add_argument("--seeds", type=int, default=5, help="runs per schedule (seeds 0, 1, …)")
    p.add_argument("--budget", type=int, default=40, help="labels at the end of each run")
    p.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    p.add_argument("--models", nargs="+", default=["ARLS", "AOpt"], choices=["ARLS", "AOpt"])
    p.add_argument("--copy-cost", action="store_true", help="the lookahead copy's cost only")
    args = p.parse_args(argv)
    report_machine()
    if args.copy_cost:
        c = copy_cost()
        print_copy_cost(c)
        print(f"Load average at the end: {load_average()}")
        return c
    if args.quick:
        args.seeds, args.budget = 2, 12
    print(
        f"Accuracy on the pool's ground truth, from one label per class to {args.budget} "
        f"labels, mean over {args.seeds} seeds. ARLS: the sample's σ, λ, class weights; "
        "AOpt: A-optimal KLR, graph kernel (k = 6, t = 10), λ = 0.1, exact refits."
    )
    print_header(args.budget)
    rows = run(args.datasets, args.models, args.seeds, args.budget)
    print(
        "AUC: trapezoid area under the accuracy curve divided by its span of labels. "
        "s/batch: median seconds of one next_queries call (for 'one', one query).\n"
        f"Load average at the end: {load_average()}"
    )
    return rows


if __name__ == "__main__":
    main()
