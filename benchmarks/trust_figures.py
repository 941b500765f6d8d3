"""Issue 33: can the figures shown about the model be trusted? Coverage, width and calibration.

For each task and seed (the strategy suite's protocol, :mod:`strategy_suite`: a stratified
30 % test split, σ by the median heuristic, λ = 0.1, two initial labels per class — chosen,
so *not* random checks) a strategy labels up to ``--max-labels`` points. At the checkpoints
(``--checkpoints``) the script reads what the Label page would show
(:func:`rlscore.sessions.stopping.curves.learner_state`) and compares it with the truth:

* **accuracy interval** — does the headline's 95 % interval
  (:func:`rlscore.core.evaluation.pool_accuracy.pool_accuracy`, ``"checks"``: the LOO
  accuracy on the random checks among the labels) contain the model's accuracy on the
  held-out test set? Beside it, from the same runs, the model-assisted estimate of the same
  module and the old headline, the LOO accuracy on all labels with its Wilson interval
  (``loo``). Coverage is over the (seed, checkpoint) pairs from 40 labels on that have an
  estimate; ``shown`` is the share of pairs that have one (no random check yet: none).
* **calibrated risk** — the calibrated expected error rate on the unlabeled pool against the
  model's true error rate there: the median absolute difference in points over the
  checkpoints from 40 labels on; beside it the strategy's own risk (ARLS: Paskov's expected
  errors) divided by the unlabeled count, the figure that was shown as an error count.

The model judged is the strategy's own (the labeled RLS of
:func:`rlscore.sessions.state.loo_refit.labeled_rls` equals it: kernel, σ, λ, class weights,
offset). Groups: the suite's development half, its confirmation half, and the held-out
tasks of :mod:`heldout_tasks` (two tables, two text tasks).

Usage::

    OPENBLAS_NUM_THREADS=1 nice -n 10 .venv/bin/python benchmarks/trust_figures.py \\
        --group development --seeds 5 [--strategy arls-focused] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import load_average, pin_blas, report_machine  # noqa: E402

pin_blas(1)

import heldout_tasks  # noqa: E402
import numpy as np  # noqa: E402
from default_vs_random import parse_strategy  # noqa: E402
from strategy_suite import (  # noqa: E402
    CONFIRMATION_TASKS,
    DATASETS,
    DEVELOPMENT_TASKS,
    LAM,
    Protocol,
    make_split,
)

from rlscore.core.evaluation.accuracy_interval import wilson_interval  # noqa: E402
from rlscore.core.evaluation.calibration import fit_platt  # noqa: E402
from rlscore.core.evaluation.pool_accuracy import pool_accuracy  # noqa: E402
from rlscore.core.rls.confidence import margin  # noqa: E402
from rlscore.query import make_strategy  # noqa: E402
from rlscore.query.protocol.strategy import NoCandidatesError  # noqa: E402
from rlscore.sessions.state.loo_refit import loo_labels  # noqa: E402
from rlscore.sessions.stopping.curves import learner_state, stop_set  # noqa: E402

heldout_tasks.register()
GROUPS = {
    "development": DEVELOPMENT_TASKS,
    "confirmation": CONFIRMATION_TASKS,
    "heldout": tuple(heldout_tasks.HELDOUT_TASKS),
}
CHECKPOINTS = (20, 40, 60, 100, 150, 200, 300)
#: the estimates compared (the first is the headline)
ESTIMATES = ("checks", "model-assisted", "loo")


def run_one(task: str, seed: int, strategy: str, max_labels: int, checkpoints) -> list[dict]:
    """One labeling run; one record per checkpoint reached."""
    X, y = DATASETS[task]()
    split = make_split(X, y, Protocol(), seed)
    n_pool = split.X_pool.shape[0]
    classes = np.unique(split.y_pool)
    name, params = parse_strategy(strategy)  # "name" or "name:key=value,…"
    q = make_strategy(name, sigma=split.sigma, lam=LAM, **params)
    if "seed" in q.get_params():
        q.set_params(seed=seed)
    q.start(split.X_pool, classes)
    for i in split.init:
        q.teach(int(i), split.y_pool[i])
    checks: set[int] = set()
    before: dict[int, bool] = {}  # per check: was the model's prediction before its label right
    stop = stop_set(n_pool)
    records = []
    for target in sorted(c for c in checkpoints if c <= min(max_labels, n_pool - 1)):
        while len(q.labeled_) < target:
            drawn = q.uniform_draw()
            try:
                i, _ = q.next_query()
            except NoCandidatesError:
                break
            if i == drawn:
                checks.add(i)
                before[i] = bool(q.predict()[i] == split.y_pool[i])
            q.teach(i, split.y_pool[i])
        records.append(_measure(q, split, classes, stop, checks, task, seed))
        records[-1]["before_right"] = [before[i] for i in q.labeled_ if i in before]
    return records


def _measure(q, split, classes, stop, checks, task, seed) -> dict:
    labels = {int(i): split.y_pool[i] for i in q.labeled_}
    state = learner_state(q, split.X_pool, labels, LAM, list(classes), stop, checks=checks)
    model = state.model
    test_acc = float(np.mean(model.predict(split.X_test) == split.y_test))
    unlabeled = np.ones(split.X_pool.shape[0], bool)
    unlabeled[list(labels)] = False
    pool_error = float(np.mean(model.predict(split.X_pool[unlabeled]) != split.y_pool[unlabeled]))
    right = loo_labels(model) == model.y_fit_
    calibration = fit_platt(margin(model.loo_decision_), right)
    in_u = unlabeled[stop]
    F_stop = model.decision_function(split.X_pool[stop])
    is_check = np.isin(np.fromiter(labels, np.intp), list(checks))
    q_labeled = calibration.probability(margin(model.loo_decision_))
    q_unlabeled = calibration.probability(margin(F_stop)[in_u])
    assisted = pool_accuracy(
        right,
        is_check,
        labeled_prob=q_labeled,
        unlabeled_prob=q_unlabeled,
        method="model-assisted",
    )
    k, n = int(right.sum()), right.size
    estimates = {
        "checks": state.accuracy,
        "model-assisted": assisted,
        "loo": (k / n, *wilson_interval(k, n)),
    }
    out = {"task": task, "seed": seed, "labels": n, "n_checks": int(is_check.sum())}
    for name, e in estimates.items():
        if e is not None and not isinstance(e, tuple):
            e = (e.estimate, e.low, e.high)
        out[name] = None if e is None else [float(v) for v in e]
    out.update(
        test_accuracy=test_acc,
        pool_error=pool_error,
        expected_error_rate=state.expected_error_rate,
        strategy_risk_rate=float(q.estimated_risk()) / max(1, int(unlabeled.sum())),
        platt=[calibration.slope, calibration.intercept],
        # the raw material, to compare estimators offline on the same runs
        raw={
            "right": right.tolist(),
            "check": is_check.tolist(),
            "q_labeled": q_labeled.tolist(),
            "q_unlabeled": q_unlabeled.tolist(),
            "n_unlabeled": int(unlabeled.sum()),
            "n_test": int(split.y_test.size),
            "unlabeled_accuracy": 1.0 - pool_error,
        },
    )
    return out


def summarise(records: list[dict], min_labels: int = 40) -> dict:
    """Coverage, mean width and share shown per estimate; the risks' median errors."""
    late = [r for r in records if r["labels"] >= min_labels]
    out: dict = {"pairs": len(late)}
    for name in ESTIMATES:
        shown = [r for r in late if r[name] is not None]
        hits = [r[name][1] <= r["test_accuracy"] <= r[name][2] for r in shown]
        out[name] = {
            "coverage": float(np.mean(hits)) if hits else None,
            "width": float(np.mean([r[name][2] - r[name][1] for r in shown])) if shown else None,
            "bias": float(np.mean([r[name][0] - r["test_accuracy"] for r in shown]))
            if shown
            else None,
            "shown": len(shown) / len(late) if late else None,
        }
    calibrated = [
        abs(r["expected_error_rate"] - r["pool_error"])
        for r in late
        if r["expected_error_rate"] is not None
    ]
    thesis = [abs(r["strategy_risk_rate"] - r["pool_error"]) for r in late]
    out["calibrated_risk_error"] = float(np.median(calibrated)) if calibrated else None
    out["strategy_risk_error"] = float(np.median(thesis)) if thesis else None
    return out


def _line(name: str, s: dict) -> str:
    def pct(v):
        return "   –" if v is None else f"{100 * v:5.1f}"

    parts = [f"{name:28s} {s['pairs']:4d}"]
    for e in ESTIMATES:
        d = s[e]
        parts.append(f"{pct(d['coverage'])} {pct(d['width'])} {pct(d['bias'])} {pct(d['shown'])}")
    parts.append(f"{pct(s['calibrated_risk_error'])} {pct(s['strategy_risk_error'])}")
    return " | ".join(parts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--group", choices=[*GROUPS, "all"], default="development")
    p.add_argument("--tasks", default=None, help="comma-separated task names (overrides --group)")
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--strategy", default="arls-focused")
    p.add_argument("--max-labels", type=int, default=300)
    p.add_argument("--checkpoints", default=",".join(map(str, CHECKPOINTS)))
    p.add_argument("--out", default=None, help="write every record as JSON")
    args = p.parse_args(argv)
    if args.tasks:
        tasks = args.tasks.split(",")
    elif args.group == "all":
        tasks = [t for g in GROUPS.values() for t in g]
    else:
        tasks = list(GROUPS[args.group])
    checkpoints = [int(c) for c in args.checkpoints.split(",")]
    print(report_machine())
    print(f"strategy {args.strategy}, seeds 0–{args.seeds - 1}, up to {args.max_labels} labels")
    print(
        "per estimate: coverage % | mean width (points) | mean bias (points) | shown %; then "
        "median |risk − true pool error| (points): calibrated, strategy's"
    )
    print(f"{'task':28s} pairs | " + " | ".join(ESTIMATES) + " | risk")
    everything = []
    tic = time.perf_counter()
    for task in tasks:
        records = []
        for seed in range(args.seeds):
            records += run_one(task, seed, args.strategy, args.max_labels, checkpoints)
        everything += records
        print(_line(task, summarise(records)), flush=True)
    print(_line("all", summarise(everything)))
    print("the headline by number of labels: coverage % | mean width (points) | checks (mean)")
    for n in sorted({r["labels"] for r in everything}):
        at = [r for r in everything if r["labels"] == n and r["checks"] is not None]
        if at:
            hits = np.mean([r["checks"][1] <= r["test_accuracy"] <= r["checks"][2] for r in at])
            width = np.mean([r["checks"][2] - r["checks"][1] for r in at])
            checks = np.mean([r["n_checks"] for r in at])
            print(f"  {n:4d} labels  {100 * hits:5.1f} | {100 * width:5.1f} | {checks:5.1f}")
    print(f"{time.perf_counter() - tic:.0f} s; load average {load_average()}")
    if args.out:
        Path(args.out).write_text(json.dumps(everything, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
