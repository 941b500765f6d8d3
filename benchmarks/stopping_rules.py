"""Stopping rules validated over the strategy suite (issue 24 parts 3 and 6).

For every task of :mod:`strategy_suite` (its split, σ by the median heuristic, λ = 0.1, 2
initial labels per class), several seeds, and two strategies — the project's default
(focused ARLS) and uncertainty sampling — one simulated run of up to ``--max-labels`` labels
(300, or the whole pool when it is smaller) records the curves every rule of
:data:`rlscore.sessions.stopping.stop_rule.STOP_RULE_PARAMS` reads
(:func:`rlscore.experiments.simulation.simulate.simulate` with ``stop_rule``). Per rule and run:

* the labels used at its stop (all of them when it never fires),
* the test accuracy at the stop against the test accuracy at the end of the run (*final*),
* whether it is within 1 point of it (``acc_stop ≥ acc_final − 0.01``) and the labels saved,
* whether the Wilson interval of the exact LOO accuracy at the stop covers the test accuracy.

Two rules from the same runs are the baselines: ``fixed-50`` and ``fixed-100`` stop at that
many labels whatever happens (the floor any rule must beat on labels or on accuracy).

The tasks are split **by name, before any run**, into a development half and a confirmation
half (:data:`strategy_suite.DEVELOPMENT_TASKS`, :data:`strategy_suite.CONFIRMATION_TASKS`).
The default rule is picked on the development half only — the highest share of runs within
1 point, ties broken by the labels saved — and reported on the confirmation half and on its
worst task.

With ``--audit K`` the script measures the accuracy estimate instead: the same tasks and strategies
with every K-th query drawn uniformly at random from the unlabeled pool (the audit,
:mod:`rlscore.sessions.stopping.accuracy_estimate`), and, where the default rule stops and at the
end of the run, whether the audit's Wilson interval and the LOO's cover the model's accuracy on the
test set and on the unlabeled pool; the test accuracy at the end beside the same run without audits
is the audit's cost.

    python benchmarks/stopping_rules.py [--seeds 3] [--max-labels 300] [--out FILE] [--quick]
    python benchmarks/stopping_rules.py --audit 10 [--seeds 2]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import pin_blas, report_machine  # noqa: E402

pin_blas(1)

import numpy as np  # noqa: E402
from strategy_suite import (  # noqa: E402
    CONFIRMATION_TASKS,
    DATASETS,
    DEVELOPMENT_TASKS,
    LAM,
    Protocol,
    make_split,
)

from rlscore.core.conventions.missing_labels import unlabeled_mask  # noqa: E402
from rlscore.core.evaluation.validation_error import validation_errors  # noqa: E402
from rlscore.experiments.simulation.simulate import simulate  # noqa: E402
from rlscore.sessions.state.settings import DEFAULT_STRATEGIES  # noqa: E402
from rlscore.sessions.stopping.accuracy_estimate import (  # noqa: E402
    accuracy_estimate,
    audit_draw,
    audit_due,
)
from rlscore.sessions.stopping.curves import (  # noqa: E402
    StopCurves,
    learner_state,
    stop_set,
)
from rlscore.sessions.stopping.stop_rule import (  # noqa: E402
    DEFAULT_STOP_RULE,
    STOP_RULE_PARAMS,
    first_stop,
)

STRATEGIES = (DEFAULT_STRATEGIES[0], "uncertainty")
RULES = tuple(STOP_RULE_PARAMS)
BASELINES = {"fixed-50": 50, "fixed-100": 100}
#: a rule's stop is "good" when its test accuracy is within this of the final one
WITHIN = 0.01


def run_one(task: str, seed: int, strategy: str, max_labels: int) -> dict:
    """One run: its accuracy curve, labels per step and every rule's stop."""
    X, y = DATASETS[task]()
    split = make_split(X, y, Protocol(), seed)
    n_init = len(split.init)
    queries = min(max_labels, len(split.y_pool)) - n_init
    tic = time.perf_counter()
    result = simulate(
        split.X_pool,
        split.y_pool,
        strategy,
        queries=queries,
        seeds=[seed],
        init=split.init.tolist(),
        validation=(split.X_test, split.y_test),
        params={"sigma": split.sigma, "lam": LAM},
        stop_rule=RULES,
    )
    run = result.runs[0]
    accuracy = [1.0 - s.validation_error for s in run.steps]
    labels = [s.n_labels for s in run.steps]
    stops = {
        rule: {
            "step": report["step"],
            "loo_interval": report["estimate"]["loo_interval"],
        }
        for rule, report in run.stop.items()
    }
    for name, budget in BASELINES.items():
        step = next((t for t, n in enumerate(labels) if n >= budget), None)
        stops[name] = {"step": step, "loo_interval": None}
    return {
        "task": task,
        "seed": seed,
        "strategy": strategy,
        "accuracy": accuracy,
        "labels": labels,
        "stops": stops,
        "seconds": time.perf_counter() - tic,
    }


def outcome(run: dict, rule: str) -> dict:
    """Labels used, accuracy at the stop against the final one, and the LOO interval's
    coverage of the test accuracy, for one rule on one run."""
    stop = run["stops"][rule]
    t = len(run["labels"]) - 1 if stop["step"] is None else stop["step"]
    final = run["accuracy"][-1]
    interval = stop["loo_interval"]
    return {
        "fired": stop["step"] is not None,
        "labels": run["labels"][t],
        "saved": run["labels"][-1] - run["labels"][t],
        "drop": final - run["accuracy"][t],
        "within": run["accuracy"][t] >= final - WITHIN - 1e-12,
        "covered": None if interval is None else interval[0] <= run["accuracy"][t] <= interval[1],
    }


def summary(runs: list[dict], rule: str) -> dict:
    """Share within 1 point, labels at the stop and saved (medians), share fired, mean
    accuracy drop, LOO-interval coverage and the worst task (lowest share within)."""
    rows = [outcome(r, rule) for r in runs]
    by_task: dict[str, list[bool]] = {}
    for r, o in zip(runs, rows, strict=True):
        by_task.setdefault(r["task"], []).append(o["within"])
    worst = min(by_task, key=lambda k: (np.mean(by_task[k]), k))
    covered = [o["covered"] for o in rows if o["covered"] is not None]
    return {
        "within": float(np.mean([o["within"] for o in rows])),
        "labels": float(np.median([o["labels"] for o in rows])),
        "saved": float(np.median([o["saved"] for o in rows])),
        "saved_share": float(
            np.sum([o["saved"] for o in rows]) / np.sum([r["labels"][-1] for r in runs])
        ),
        "fired": float(np.mean([o["fired"] for o in rows])),
        "drop": float(np.mean([o["drop"] for o in rows])),
        "coverage": float(np.mean(covered)) if covered else float("nan"),
        "worst_task": worst,
        "worst_within": float(np.mean(by_task[worst])),
    }


def table(runs: list[dict], title: str) -> str:
    """A markdown table: one row per rule and strategy (and both strategies together)."""
    lines = [
        f"**{title}** ({len(runs)} runs)",
        "",
        "| rule | strategy | within 1 pt | median labels at stop | median saved | labels "
        "saved | fired | mean drop (pts) | LOO interval covers | worst task (within) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for rule in RULES + tuple(BASELINES):
        for strategy in (*STRATEGIES, "both"):
            subset = [r for r in runs if strategy == "both" or r["strategy"] == strategy]
            if not subset:
                continue
            s = summary(subset, rule)
            cover = "–" if np.isnan(s["coverage"]) else f"{s['coverage']:.0%}"
            lines.append(
                f"| {rule} | {strategy} | {s['within']:.0%} | {s['labels']:.0f} | "
                f"{s['saved']:.0f} | {s['saved_share']:.0%} | {s['fired']:.0%} | "
                f"{100 * s['drop']:.1f} | {cover} | {s['worst_task']} "
                f"({s['worst_within']:.0%}) |"
            )
    return "\n".join(lines)


def pick_default(runs: list[dict]) -> str:
    """The rule (not a baseline) with the highest share within 1 point on ``runs``, ties
    broken by the labels saved."""
    scores = {rule: summary(runs, rule) for rule in RULES}
    return max(RULES, key=lambda r: (scores[r]["within"], scores[r]["saved_share"]))


def audit_run(task: str, seed: int, strategy: str, max_labels: int, every: int) -> dict:
    """One run with an audit query every ``every``: at the default rule's stop and at the
    end, the audit and LOO estimates with their intervals, the test accuracy and the
    accuracy on the unlabeled pool (what the audit estimates), and the final test accuracy
    of the same run without audits (a plain :func:`simulate`)."""
    from sklearn.base import clone

    from rlscore.query import make_strategy

    X, y = DATASETS[task]()
    split = make_split(X, y, Protocol(), seed)
    classes = np.unique(split.y_pool)
    n_pool = len(split.y_pool)
    q = make_strategy(strategy, sigma=split.sigma, lam=LAM)
    q = clone(q)
    q.start(split.X_pool, classes)
    for i in split.init:
        q.teach(int(i), split.y_pool[i])
    stop, curves, model = stop_set(n_pool), StopCurves(), None
    rng = np.random.default_rng([seed, 24])
    rows, fired = {}, None

    def record(audit_correct) -> None:
        nonlocal model, fired
        labels = {int(i): split.y_pool[i] for i in q.labeled_}
        state = learner_state(q, split.X_pool, labels, LAM, list(classes), stop)
        model = state.model
        curves.append(
            state, risk=q.estimated_risk(), classes_seen=len(set(labels.values())),
            audit_correct=audit_correct,
        )  # fmt: skip
        t = len(curves) - 1
        if fired is None:
            fired = first_stop(curves, DEFAULT_STOP_RULE, len(classes), t)
            if fired is not None:
                rows["stop"] = measure(t)

    def measure(t: int) -> dict:
        estimate = accuracy_estimate(curves, t)
        test = 1.0 - validation_errors(split.y_test, q.predict_at(split.X_test))[0]
        unlabeled = unlabeled_mask(n_pool, q.labeled_)
        error = validation_errors(split.y_pool[unlabeled], q.predict()[unlabeled])[0]
        pool = None if error is None else 1.0 - error  # None: the whole pool is labeled
        return {"labels": curves.n_labels[t], "test": test, "pool": pool, **estimate.as_dict()}

    record(None)
    for t in range(1, min(max_labels, n_pool) - len(split.init) + 1):
        correct = None
        if audit_due(t, every):
            i = audit_draw(np.flatnonzero(unlabeled_mask(n_pool, q.labeled_)), rng)
            if model is not None:
                correct = bool(model.predict(split.X_pool[[i]])[0] == split.y_pool[i])
        else:
            i, _score = q.next_query()
        q.teach(int(i), split.y_pool[i])
        record(correct)
    rows["end"] = measure(len(curves) - 1)
    plain = run_one(task, seed, strategy, max_labels)
    return {"task": task, "seed": seed, "strategy": strategy, **rows,
            "plain_end_test": plain["accuracy"][-1]}  # fmt: skip


def audit_table(runs: list[dict]) -> str:
    """Coverage of the audit and LOO intervals at the stop and at the end, their widths,
    and the audit's cost in final test accuracy."""
    lines = [
        "| where | runs | audit labels (median) | audit covers pool acc. | audit covers test "
        "acc. | LOO covers test acc. | audit width | LOO width | audit − test (pts) | "
        "LOO − test (pts) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for where in ("stop", "end"):
        rows = [r[where] for r in runs if where in r and r[where]["audit_interval"] is not None]
        if not rows:
            continue

        def covers(key, target, rows=rows):
            hits = [r[key][0] <= r[target] <= r[key][1] for r in rows if r[target] is not None]
            return np.mean(hits) if hits else float("nan")

        lines.append(
            f"| {where} | {len(rows)} | {np.median([r['audit_labels'] for r in rows]):.0f} | "
            f"{covers('audit_interval', 'pool'):.0%} | {covers('audit_interval', 'test'):.0%} "
            f"| {covers('loo_interval', 'test'):.0%} | "
            f"{np.median([r['audit_interval'][1] - r['audit_interval'][0] for r in rows]):.2f} "
            f"| {np.median([r['loo_interval'][1] - r['loo_interval'][0] for r in rows]):.2f} | "
            f"{100 * np.mean([r['audit_accuracy'] - r['test'] for r in rows]):+.1f} | "
            f"{100 * np.mean([r['loo_accuracy'] - r['test'] for r in rows]):+.1f} |"
        )
    cost = [r["plain_end_test"] - r["end"]["test"] for r in runs]
    lines.append("")
    lines.append(
        f"final test accuracy without audits minus with: {100 * np.mean(cost):+.2f} points "
        f"(mean over {len(runs)} runs; median {100 * np.median(cost):+.2f})"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--max-labels", type=int, default=300)
    parser.add_argument("--out", type=Path, default=None, help="write every run as JSON")
    parser.add_argument("--quick", action="store_true", help="2 tasks, 1 seed, 60 labels")
    parser.add_argument(
        "--audit", type=int, default=0, help="measure the estimate with an audit every K queries"
    )
    args = parser.parse_args(argv)
    dev, conf = list(DEVELOPMENT_TASKS), list(CONFIRMATION_TASKS)
    seeds, max_labels = range(args.seeds), args.max_labels
    if args.quick:
        dev, conf, seeds, max_labels = dev[:1], conf[:1], range(1), 60
    report_machine()
    print(
        f"# development: {', '.join(dev)}; confirmation: {', '.join(conf)}; seeds "
        f"{len(seeds)}; up to {max_labels} labels; strategies {', '.join(STRATEGIES)}",
        flush=True,
    )
    if args.audit:
        return audit_main(dev + conf, seeds, max_labels, args.audit)
    runs = []
    began = time.perf_counter()
    for task in dev + conf:
        for seed in seeds:
            for strategy in STRATEGIES:
                run = run_one(task, seed, strategy, max_labels)
                runs.append(run)
                print(
                    f"# {task} seed {seed} {strategy}: {run['labels'][-1]} labels, "
                    f"final accuracy {run['accuracy'][-1]:.3f}, {run['seconds']:.1f} s",
                    flush=True,
                )
    print(f"# {time.perf_counter() - began:.0f} s in all", flush=True)
    report_machine()
    dev_runs = [r for r in runs if r["task"] in dev]
    conf_runs = [r for r in runs if r["task"] in conf]
    print()
    print(table(dev_runs, "Development half"))
    print()
    print(table(conf_runs, "Confirmation half"))
    chosen = pick_default(dev_runs)
    s_dev, s_conf = summary(dev_runs, chosen), summary(conf_runs, chosen)
    s_all = summary(runs, chosen)
    print()
    print(
        f"default rule (chosen on the development half): {chosen}: within 1 pt "
        f"{s_dev['within']:.0%} (development), {s_conf['within']:.0%} (confirmation); "
        f"worst task over both halves {s_all['worst_task']} ({s_all['worst_within']:.0%} of "
        f"its runs within 1 pt)"
    )
    if args.out is not None:
        args.out.write_text(json.dumps({"runs": runs, "default": chosen}))


def audit_main(tasks: list[str], seeds, max_labels: int, every: int) -> None:
    """The ``--audit`` measurement (module docstring)."""
    runs = []
    began = time.perf_counter()
    for task in tasks:
        for seed in seeds:
            for strategy in STRATEGIES:
                runs.append(audit_run(task, seed, strategy, max_labels, every))
                print(f"# {task} seed {seed} {strategy}: done", flush=True)
    print(f"# {time.perf_counter() - began:.0f} s in all", flush=True)
    report_machine()
    print()
    print(f"audit every {every} queries, default rule {DEFAULT_STOP_RULE}:")
    print(audit_table(runs))


if __name__ == "__main__":
    main()
