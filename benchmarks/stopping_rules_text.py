"""Which stopping rule is the default: a pre-registered comparison on the text tasks.

The first comparison (``benchmarks/stopping_rules.py``) picked ``confidence-drop`` on the
strategy suite's development half; on the confirmation half it stopped ringnorm at 70–77 %
test accuracy where 96–97 % is reachable, while ``loo-plateau`` and ``stabilizing`` did not.
This script decides between those three rules on data neither run has seen: the bundled
text tasks of ``benchmarks/text_strategies.py`` (``debian_sections``: 4 balanced classes;
``debian_games``: is it a game, 10 % positives), with exactly the runs of
:func:`stopping_rules.run_one` (strategy-suite protocol, σ by the median heuristic,
λ = 0.1, 2 initial labels per class, the default strategy and uncertainty sampling, up to
``--max-labels`` labels; the final accuracy is the one at the end of the run).

**The criterion, fixed here before the run** (:func:`pick`):

1. the *worst-case shortfall*, lowest first: the largest, over the (task, strategy) cells,
   of the mean test-accuracy shortfall ``acc_final − acc_stop`` at the rule's stop, in
   points rounded to a whole point (so a difference smaller than a point is a tie);
2. then the share of runs that stopped within 1 point of the final accuracy, highest first;
3. then the share of labels saved, highest first.

The fixed budgets of 50 and 100 labels are printed beside the rules from the same runs (the
floor), and every rule's figures are printed whatever wins.

    python benchmarks/stopping_rules_text.py [--seeds 10] [--max-labels 300] [--out FILE]
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
import strategy_suite  # noqa: E402
from stopping_rules import BASELINES, STRATEGIES, outcome, run_one, summary  # noqa: E402
from text_strategies import TASKS, text_task  # noqa: E402

#: the rules compared (named before the run)
CANDIDATES = ("confidence-drop", "stabilizing", "loo-plateau")


def shortfall_cells(runs: list[dict], rule: str) -> dict[tuple[str, str], float]:
    """Mean shortfall ``acc_final − acc_stop`` of ``rule`` per (task, strategy) cell."""
    cells: dict[tuple[str, str], list[float]] = {}
    for r in runs:
        cells.setdefault((r["task"], r["strategy"]), []).append(outcome(r, rule)["drop"])
    return {cell: float(np.mean(drops)) for cell, drops in cells.items()}


def key(runs: list[dict], rule: str) -> tuple[float, float, float]:
    """The criterion's sort key (lower is better): worst-case shortfall in whole points,
    minus the share within 1 point, minus the share of labels saved."""
    s = summary(runs, rule)
    worst = max(shortfall_cells(runs, rule).values())
    return (float(round(100 * worst)), -s["within"], -s["saved_share"])


def pick(runs: list[dict], candidates: tuple[str, ...] = CANDIDATES) -> str:
    """The winning rule by the pre-registered criterion (module docstring)."""
    return min(candidates, key=lambda rule: key(runs, rule))


def report(runs: list[dict]) -> str:
    """Per rule: worst cell and its shortfall, share within 1 pt, labels at the stop and
    saved, and each (task, strategy) cell's mean shortfall and median labels."""
    cells = sorted({(r["task"], r["strategy"]) for r in runs})
    lines = [
        "| rule | worst-case shortfall (pts) | worst cell | within 1 pt | median labels at "
        "stop | labels saved | fired | "
        + " | ".join(f"{t} / {s}: shortfall, labels" for t, s in cells)
        + " |",
        "|---" * (7 + len(cells)) + "|",
    ]
    for rule in CANDIDATES + tuple(BASELINES):
        s = summary(runs, rule)
        per = shortfall_cells(runs, rule)
        worst = max(per, key=per.get)
        detail = []
        for cell in cells:
            sub = [r for r in runs if (r["task"], r["strategy"]) == cell]
            labels = np.median([outcome(r, rule)["labels"] for r in sub])
            detail.append(f"{100 * per[cell]:.1f}, {labels:.0f}")
        lines.append(
            f"| {rule} | {100 * per[worst]:.1f} | {worst[0]} / {worst[1]} | {s['within']:.0%} "
            f"| {s['labels']:.0f} | {s['saved_share']:.0%} | {s['fired']:.0%} | "
            + " | ".join(detail)
            + " |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--max-labels", type=int, default=300)
    parser.add_argument("--out", type=Path, default=None, help="write every run as JSON")
    args = parser.parse_args(argv)
    # the text tasks join the suite's table for this run only (as text_strategies.py does)
    added = {task: text_task(task) for task in TASKS}
    strategy_suite.DATASETS.update(added)
    try:
        _run(args)
    finally:
        for task in added:
            strategy_suite.DATASETS.pop(task, None)


def _run(args: argparse.Namespace) -> None:
    report_machine()
    print(
        f"# tasks {', '.join(TASKS)}; seeds {args.seeds}; up to {args.max_labels} labels; "
        f"strategies {', '.join(STRATEGIES)}; candidates {', '.join(CANDIDATES)}",
        flush=True,
    )
    runs, began = [], time.perf_counter()
    for task in TASKS:
        for seed in range(args.seeds):
            for strategy in STRATEGIES:
                run = run_one(task, seed, strategy, args.max_labels)
                runs.append(run)
                print(
                    f"# {task} seed {seed} {strategy}: {run['labels'][-1]} labels, final "
                    f"accuracy {run['accuracy'][-1]:.3f}, {run['seconds']:.1f} s",
                    flush=True,
                )
    print(f"# {time.perf_counter() - began:.0f} s in all", flush=True)
    report_machine()
    print()
    print(report(runs))
    print()
    for rule in CANDIDATES:
        print(f"# {rule}: criterion key {key(runs, rule)}")
    print(f"winner by the pre-registered criterion: {pick(runs)}")
    if args.out is not None:
        args.out.write_text(json.dumps({"runs": runs, "winner": pick(runs)}))


if __name__ == "__main__":
    main()
