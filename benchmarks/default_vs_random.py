"""Issue 24 part 5: the default strategy (focused ARLS) against random and uncertainty sampling.

On the strategy suite (:mod:`strategy_suite`: its protocol, its AULC, its development and
confirmation halves fixed by name) each of ``--strategies`` runs ``--seeds`` seeds of
``--queries`` queries per task, and the tables give per task the mean AULC (× 100) and the
differences ``default − random`` and ``default − uncertainty`` in AULC points, then the
worst difference to random and the mean difference to uncertainty over each half. A
strategy is a registry name, optionally with keyword arguments, e.g.
``arls-focused:explore=0.2,focus=20`` (the variants of the study).

Issue 33 item 5 adds the final accuracy (after the last query) beside the AULC, and the
difference to uncertainty per task. **Its criterion, fixed before any confirmation run** (the
exploration share ``explore`` of the default among 0.1, 0.2 and 0.3): on the development half
(10 seeds, 40 queries), the shares whose worst difference to random over the tasks is at least
−0.5 point on both the AULC and the final accuracy; among them the best mean difference to
uncertainty, averaged over the two figures (if none passes, the best worst difference to
random). The choice is then reported, never revised, on the confirmation half, ``--half
heldout`` (issue 33's held-out tables and text tasks, :mod:`heldout_tasks`) and ``--half
text`` (the bundled text tasks of ``text_strategies.py``).

Besides the two halves: ``--half stress``, the development tasks with 20 % of their labels
flipped (:func:`noisy`; tuning material like the development half), and ``--half issue``,
the issue's ``make_classification`` 2000 × 10 (in neither half). ``--evaluator rls`` (or
``rls-offset``) re-measures every curve with one RLS fitted on each strategy's labels
(:func:`common_curve`) instead of each strategy's own model; ``--coverage`` adds how far the
test points are from their nearest label at the end (:func:`coverage`, the sampling-bias
diagnostic). A task whose pool has fewer unlabeled points than ``--queries`` is left out.

Usage::

    OPENBLAS_NUM_THREADS=1 nice -n 10 .venv/bin/python benchmarks/default_vs_random.py \\
        --half development --seeds 5 --queries 40
    .venv/bin/python benchmarks/default_vs_random.py --half confirmation --seeds 10

``--trace SPEC TASK SEED`` follows one run instead: per query the labels per class, the
share of the test set predicted as each class, the test accuracy and the exploration share.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import pin_blas, report_machine  # noqa: E402

pin_blas(1)

import adaptive_explore  # noqa: E402
import heldout_tasks  # noqa: E402
import numpy as np  # noqa: E402
import strategies as suite  # noqa: E402
import text_strategies  # noqa: E402
from scipy.spatial.distance import cdist  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.metrics import accuracy_score  # noqa: E402
from strategy_suite import (  # noqa: E402
    CONFIRMATION_TASKS,
    DATA_SEED,
    DATASETS,
    DEVELOPMENT_TASKS,
    Protocol,
    _standardised,
    aulc,
    make_split,
)

from rlscore.core.rls.classifier import RLSClassifier  # noqa: E402

adaptive_explore.register()  # "arls-focused-adaptive:rule=…", the adaptive shares

#: the strategies compared by default: the project's default and its two baselines
STRATEGIES = ("arls-focused", "random", "uncertainty")
HALVES = {"development": DEVELOPMENT_TASKS, "confirmation": CONFIRMATION_TASKS}
#: issue 33's held-out tables and text tasks (benchmarks/heldout_tasks.py): confirmation only
HELDOUT_TASKS = tuple(heldout_tasks.HELDOUT_TASKS)
heldout_tasks.register()
#: the bundled text tasks (benchmarks/text_strategies.py), as a text project gets them
TEXT_TASKS = text_strategies.TASKS
DATASETS.update({t: text_strategies.text_task(t) for t in TEXT_TASKS})


#: the issue's ``make_classification`` (2000 × 10): a reproduction task, in neither half
ISSUE_TASKS = ("classification_10",)
DATASETS["classification_10"] = _standardised(
    partial(make_classification, n_samples=2000, n_features=10, random_state=DATA_SEED)
)

#: share of labels flipped in the stress variants of the development tasks
NOISE = 0.2


def noisy(name: str, share: float = NOISE, seed: int = 1):
    """Task ``name`` with ``share`` of its labels replaced by another class drawn uniformly
    (fixed seed, pool and test alike): where uncertainty sampling's sampling bias shows
    (queries pile up in noisy regions of the boundary)."""

    def load():
        X, y = DATASETS[name]()
        rng = np.random.default_rng(seed)
        T = np.unique(y).size
        flip = rng.random(y.size) < share
        y = y.copy()
        y[flip] = (y[flip] + rng.integers(1, T, flip.sum())) % T
        return X, y

    return load


#: stress variants of the development half (tuning material: never a confirmation task)
STRESS_TASKS = tuple(f"{d}+noise" for d in DEVELOPMENT_TASKS)
for _d in DEVELOPMENT_TASKS:
    DATASETS[f"{_d}+noise"] = noisy(_d)


def parse_strategy(spec: str) -> tuple[str, dict]:
    """``name`` or ``name:key=value,key=value`` (values read as JSON, else as text)."""
    name, _, rest = spec.partition(":")
    params = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        try:
            params[key] = json.loads(value)
        except json.JSONDecodeError:
            params[key] = value
    return name, params


def run(spec: str, dataset: str, seed: int, protocol: Protocol) -> dict:
    """One run of :func:`strategies.run_one` with the strategy's keyword arguments."""
    name, params = parse_strategy(spec)
    make = suite.make_learner
    suite.make_learner = lambda n, options=None: suite.ProjectLearner(n, params)
    try:
        record = suite.run_one(name, dataset, seed, protocol)
    finally:
        suite.make_learner = make
    if record["error"]:
        raise RuntimeError(f"{spec} on {dataset} seed {seed}: {record['error']}")
    record["strategy"] = spec
    return record


def coverage(record: dict, protocol: Protocol) -> float:
    """Mean distance from a test point to its nearest label at the end of the run, in units of
    σ: how much of the data the labels reach (a narrow focus leaves regions unlabeled)."""
    X, y = DATASETS[record["dataset"]]()
    split = make_split(X, y, protocol, record["seed"])
    L = np.asarray([*record["init"], *record["queried"]])
    return float(cdist(split.X_test, split.X_pool[L]).min(axis=1).mean() / split.sigma)


def pool_room(dataset: str, protocol: Protocol) -> int:
    """Unlabeled points of the pool after the initial labels (seed 0; the same every seed)."""
    X, y = DATASETS[dataset]()
    split = make_split(X, y, protocol, 0)
    return split.y_pool.size - split.init.size


def common_curve(record: dict, protocol: Protocol, offset: bool) -> list[float]:
    """The run's test-accuracy curve re-measured with one evaluator for every strategy: an
    :class:`~rlscore.core.rls.classifier.RLSClassifier` (σ of the run, λ of the protocol,
    ``offset``)
    fitted on the run's labels after each step (the labels each strategy chose, one model)."""
    X, y = DATASETS[record["dataset"]]()
    split = make_split(X, y, protocol, record["seed"])
    chosen = [*record["init"], *record["queried"]]
    n0 = len(record["init"])
    curve = []
    for t in range(len(record["queried"]) + 1):
        L = np.asarray(chosen[: n0 + t])
        clf = RLSClassifier(sigma=split.sigma, lam=protocol.lam, offset=offset)
        clf.fit(split.X_pool[L], split.y_pool[L])
        curve.append(float(accuracy_score(split.y_test, clf.predict(split.X_test))))
    return curve


#: what a table compares: the AULC (the suite's figure) and the accuracy after the last query
METRICS = {"AULC": aulc, "final accuracy": lambda curve: float(curve[-1])}


def table(
    runs: Sequence[dict], specs: Sequence[str], tasks: Sequence[str], metric: str = "AULC"
) -> str:
    """Mean ``metric`` (× 100) per task and strategy, and each strategy's differences to random
    and uncertainty (points): per task, the worst and the mean over the tasks."""
    of = METRICS[metric]
    mean = {
        (s, d): 100 * np.mean([of(r["accuracy"]) for r in runs
                               if r["strategy"] == s and r["dataset"] == d])
        for s in specs for d in tasks
    }  # fmt: skip
    lines = [
        "| strategy | " + " | ".join(tasks) + " | worst − random | worst − uncertainty "
        "| mean − uncertainty |",
        "|---" * (len(tasks) + 4) + "|",
    ]
    for s in specs:
        vs_random = [mean[s, d] - mean["random", d] for d in tasks]
        vs_unc = [mean[s, d] - mean["uncertainty", d] for d in tasks]
        worst, worst_unc = int(np.argmin(vs_random)), int(np.argmin(vs_unc))
        cells = [
            f"{mean[s, d]:.1f} ({vs_random[k]:+.1f}, {vs_unc[k]:+.1f})" for k, d in enumerate(tasks)
        ]
        lines.append(
            f"| {s} | " + " | ".join(cells)
            + f" | {vs_random[worst]:+.1f} ({tasks[worst]}) "
            + f"| {vs_unc[worst_unc]:+.1f} ({tasks[worst_unc]}) | {np.mean(vs_unc):+.2f} |"
        )  # fmt: skip
    return "\n".join(lines)


def coverage_table(runs: Sequence[dict], specs: Sequence[str], tasks: Sequence[str]) -> str:
    """The mean of :func:`coverage` over the seeds, per task and strategy."""
    lines = ["| strategy | " + " | ".join(tasks) + " |", "|---" * (len(tasks) + 1) + "|"]
    for s in specs:
        cells = [
            np.mean([r["coverage"] for r in runs if r["strategy"] == s and r["dataset"] == d])
            for d in tasks
        ]
        lines.append(f"| {s} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    return "\n".join(lines)


def trace(spec: str, task: str, seed: int, queries: int = 40) -> list[str]:
    """One run of ``spec`` on ``task`` (the suite's protocol, seed ``seed``), query by query:
    the labels per class, the share of the test set predicted as each class, the test
    accuracy and the exploration share of the state (module docstring)."""
    name, params = parse_strategy(spec)
    X, y = DATASETS[task]()
    protocol = Protocol(queries, (seed,))
    split = make_split(X, y, protocol, seed)
    T = int(np.unique(y).size)
    learner = suite.ProjectLearner(name, params)
    learner.start(split, T, protocol.lam, seed)
    lines = ["query | labels per class | predicted share per class | accuracy | share"]
    for t in range(queries + 1):
        q = learner.q
        pred = learner.predict(split.X_test)
        counts = np.bincount(split.y_pool[q.labeled_], minlength=T).tolist()
        shares = " ".join(f"{v:.2f}" for v in np.bincount(pred, minlength=T) / pred.size)
        share = q.exploration_share() if hasattr(q, "exploration_share") else float("nan")
        accuracy = float(np.mean(pred == split.y_test))
        lines.append(f"{t} | {counts} | {shares} | {accuracy:.3f} | {share:.2f}")
        if t < queries:
            learner.step()
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--half",
        choices=[*HALVES, "both", "stress", "issue", "heldout", "text"],
        default="development",
    )
    p.add_argument("--datasets", help="comma-separated tasks instead of a half")
    p.add_argument(
        "--strategies",
        default=";".join(STRATEGIES),
        help="semicolon-separated specs (random and uncertainty always added)",
    )
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--queries", type=int, default=40)
    p.add_argument(
        "--evaluator",
        choices=["own", "rls", "rls-offset"],
        default="own",
        help="each strategy's own model (the suite's) or one RLS for all",
    )
    p.add_argument("--coverage", action="store_true", help="also the labels' reach (σ units)")
    p.add_argument("--out", type=Path, help="write the curves (JSON)")
    p.add_argument(
        "--resume", action="store_true", help="reuse the runs already in --out (same protocol)"
    )
    p.add_argument("--trace", nargs=3, metavar=("SPEC", "TASK", "SEED"), help="follow one run")
    a = p.parse_args(argv)
    if a.trace:
        print("\n".join(trace(a.trace[0], a.trace[1], int(a.trace[2]))))
        return
    specs = [s for s in a.strategies.split(";") if s]
    specs += [s for s in ("random", "uncertainty") if s not in specs]
    halves = list(HALVES) if a.half == "both" else [a.half]
    known = {**HALVES, "stress": STRESS_TASKS, "issue": ISSUE_TASKS, "heldout": HELDOUT_TASKS,
             "text": TEXT_TASKS}  # fmt: skip
    groups = {"given": a.datasets.split(",")} if a.datasets else {h: known[h] for h in halves}
    protocol = Protocol(a.queries, tuple(range(a.seeds)))
    report_machine()
    began = time.monotonic()
    runs = json.loads(a.out.read_text()) if a.resume and a.out and a.out.exists() else []
    done = {(r["strategy"], r["dataset"], r["seed"], len(r["accuracy"])) for r in runs}
    for label, tasks in list(groups.items()):
        fits = [d for d in tasks if pool_room(d, protocol) >= a.queries]
        for d in sorted(set(tasks) - set(fits)):
            print(f"# {d} left out: its pool has fewer than {a.queries} unlabeled points")
        groups[label] = tasks = fits
        for d in tasks:
            for s in specs:
                for seed in protocol.seeds:
                    if (s, d, seed, a.queries + 1) in done:
                        continue
                    record = run(s, d, seed, protocol)
                    if a.evaluator != "own":
                        offset = a.evaluator == "rls-offset"
                        record["accuracy"] = common_curve(record, protocol, offset)
                    if a.coverage:
                        record["coverage"] = coverage(record, protocol)
                    runs.append(record)
            print(f"# {d} done, {time.monotonic() - began:.0f} s", flush=True)
            if a.out:
                a.out.write_text(json.dumps(runs))
    print(
        f"# seeds {a.seeds}, queries {a.queries}, evaluator {a.evaluator}, "
        "× 100 (difference to random, to uncertainty)"
    )
    current = [
        r for r in runs if len(r["accuracy"]) == a.queries + 1 and r["seed"] in protocol.seeds
    ]
    for label, tasks in groups.items():
        for metric in METRICS:
            print(f"\n## {label}, {metric}: {', '.join(tasks)}\n")
            print(table(current, specs, tasks, metric))
        if a.coverage:
            print("\nmean distance from a test point to its nearest label at the end (σ)\n")
            print(coverage_table(runs, specs, tasks))
    report_machine()


if __name__ == "__main__":
    main()
