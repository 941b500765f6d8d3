"""Ablation of ARLS (issue 13): what focusing on uncertain candidates and an offset bring.

Thesis ARLS (``arls``: the expected risk of every unlabeled point, docs/mathematics.md §5) against
focused
ARLS (``arls-focused``: the same exact expected risk on the ``c`` unlabeled points with the
smallest margin, for several ``c``), without and with the unpenalised offset of its RLS
(``fit_intercept``), beside the uncertainty (smallest margin) and random baselines of the
same RLS. Without offset, ``c = 1`` would be uncertainty sampling itself and ``c = n`` thesis
ARLS, so the sweep moves between the two.

The data sets, the protocol (stratified held-out test set, initial labels per class, σ by the
median heuristic, λ = 0.1) and the AULC are :mod:`strategy_suite`'s, as in
``benchmarks/strategies.py`` (which also runs the peers' strategies). Every strategy runs on
the same splits and initial labels, so the differences are paired by seed: the table gives
each variant's mean ± sd AULC over the seeds, its mean paired difference from thesis ARLS
and from uncertainty sampling (in points, 100 × AULC), the median seconds per query (the
selection plus the update with the new label, BLAS on one thread) and the mean rank of every
variant over the data sets (1 = best). The load average is printed with the timings.

Usage::

    python benchmarks/arls_ablation.py --quick
    nice -n 10 python benchmarks/arls_ablation.py --seeds 10 --out /tmp/arls_ablation.json
    python benchmarks/arls_ablation.py --from /tmp/arls_ablation.json
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from harness import load_average, pin_blas, report_machine

pin_blas(1)

import numpy as np  # noqa: E402
from scipy.stats import rankdata  # noqa: E402
from strategy_suite import DATASETS, Protocol, aulc, make_split  # noqa: E402

from rlscore.query import make_strategy  # noqa: E402

#: candidate counts of focused ARLS in the sweep
CANDIDATES = (5, 10, 20)
#: --quick: small data sets, few seeds and queries
QUICK = {"datasets": ["iris", "moons_imbalanced"], "seeds": 2, "queries": 10}


def variants(candidates=CANDIDATES) -> dict[str, tuple[str, dict]]:
    """Variant label → (registered strategy name, parameters)."""
    out = {"arls (thesis)": ("arls", {})}
    for offset in (False, True):
        tag = "+offset" if offset else ""
        out.update(
            {
                f"arls-focused{tag} c={c}": (
                    "arls-focused",
                    {"focus": c, "fit_intercept": offset},
                )
                for c in candidates
            }
        )
    out["uncertainty"] = ("uncertainty", {})
    out["random"] = ("random", {})
    return out


def run_one(task: tuple) -> dict:
    """One (variant, data set, seed) run: the AULC of test accuracy and seconds per query."""
    label, name, params, dataset, seed, protocol = task
    X, y = DATASETS[dataset]()
    split = make_split(X, y, protocol, seed)
    T = int(np.unique(y).size)
    q = make_strategy(name, kernel="rbf", sigma=split.sigma, lam=protocol.lam, seed=seed, **params)
    q.start(split.X_pool, np.arange(T))
    q.teach_many(split.init.tolist(), split.y_pool[split.init].tolist())
    curve = [float(np.mean(q.predict_at(split.X_test) == split.y_test))]
    seconds = []
    for _ in range(protocol.queries):
        tic = time.perf_counter()
        i, _ = q.next_query()
        q.teach(i, int(split.y_pool[i]))
        seconds.append(time.perf_counter() - tic)
        curve.append(float(np.mean(q.predict_at(split.X_test) == split.y_test)))
    return {
        "variant": label, "dataset": dataset, "seed": seed, "aulc": aulc(curve),
        "seconds": float(np.median(seconds)), "curve": curve,
    }  # fmt: skip


def summarise(runs: list[dict], labels: list[str], datasets: list[str]) -> str:
    """The markdown table of the module docstring."""
    by = {(r["variant"], r["dataset"], r["seed"]): r for r in runs}
    lines = [
        "| data set | variant | AULC (mean ± sd) | Δ vs thesis ARLS | Δ vs uncertainty "
        "| ms/query |",
        "|---|---|---|---|---|---|",
    ]
    means = np.full((len(datasets), len(labels)), np.nan)
    for d, dataset in enumerate(datasets):
        seeds = sorted({s for (_, ds, s) in by if ds == dataset})
        for v, label in enumerate(labels):
            mine = {s: by[label, dataset, s] for s in seeds if (label, dataset, s) in by}
            if not mine:
                continue
            a = np.array([r["aulc"] for r in mine.values()])
            means[d, v] = a.mean()
            diffs = []
            for ref in ("arls (thesis)", "uncertainty"):
                paired = [
                    r["aulc"] - by[ref, dataset, s]["aulc"]
                    for s, r in mine.items()
                    if (ref, dataset, s) in by
                ]
                diffs.append(f"{100 * np.mean(paired):+.2f}" if paired and ref != label else "")
            sec = np.median([r["seconds"] for r in mine.values()])
            lines.append(
                f"| {dataset} | {label} | {a.mean():.4f} ± {a.std():.4f} | {diffs[0]} | "
                f"{diffs[1]} | {1000 * sec:.1f} |"
            )
    complete = ~np.isnan(means).any(axis=1)
    ranks = np.array([rankdata(-row) for row in means[complete]])
    lines += ["", "| variant | mean rank over the data sets (1 = best) |", "|---|---|"]
    for v, label in enumerate(labels):
        lines.append(f"| {label} | {ranks[:, v].mean():.2f} |" if ranks.size else f"| {label} | |")
    return "\n".join(lines)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", help=f"comma-separated (default: all of {list(DATASETS)})")
    p.add_argument("--seeds", type=int, default=10, help="seeds 0 … N − 1")
    p.add_argument("--queries", type=int, default=40, help="queries per run")
    p.add_argument("--candidates", default=",".join(map(str, CANDIDATES)), help="focused c values")
    p.add_argument("--quick", action="store_true", help=f"small suite: {QUICK}")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--out", type=Path, help="write the runs (JSON)")
    p.add_argument("--from", dest="source", type=Path, help="table from a saved JSON")
    args = p.parse_args(argv)
    report_machine()
    if args.source:
        saved = json.loads(args.source.read_text())
        print(summarise(saved["runs"], saved["variants"], saved["datasets"]))
        return
    datasets = args.datasets.split(",") if args.datasets else list(DATASETS)
    seeds, queries = args.seeds, args.queries
    if args.quick:
        datasets, seeds, queries = QUICK["datasets"], QUICK["seeds"], QUICK["queries"]
    protocol = Protocol(queries=queries, seeds=tuple(range(seeds)))
    table = variants(tuple(int(c) for c in args.candidates.split(",")))
    tasks = [
        (label, name, params, dataset, seed, protocol)
        for dataset in datasets
        for label, (name, params) in table.items()
        for seed in protocol.seeds
    ]
    print(f"load average at start: {load_average()}", flush=True)
    if args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            runs = list(pool.map(run_one, tasks))
    else:
        runs = [run_one(t) for t in tasks]
    print(f"load average at end: {load_average()}")
    if args.out:
        saved = {"variants": list(table), "datasets": datasets, "runs": runs}
        args.out.write_text(json.dumps(saved))
    print(summarise(runs, list(table), datasets))


if __name__ == "__main__":
    main()
