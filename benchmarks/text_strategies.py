"""Does it learn on texts? The strategies on two text tasks with features made on the spot.

Tasks (the bundled text samples, pool and validation files together, then split per seed by
:mod:`strategy_suite`'s protocol: 30 % stratified test set, 2 initial labels per class,
``--queries`` queries):

* ``debian_sections``: 1400 Debian package descriptions, 4 balanced classes (games,
  graphics, science, sound);
* ``debian_games``: 2400 descriptions, is it a game (240 games, 10 %; the rare class).

Features: exactly what a text project gets (:func:`rlscore.data.features.text.
build_text_features` with the default settings: word TF-IDF, 100-dimensional truncated SVD),
computed once on all texts of the task (unsupervised). Strategies: focused ARLS
(``arls-focused``), the thesis's ARLS (``arls``), A-optimal KLR (``aopt-klr``, its 50 most
uncertain candidates per query), uncertainty sampling on the RLS model (``uncertainty``),
``random``, and scikit-activeml's ``UncertaintySampling`` (margin) with scikit-learn's SVC
(``skactiveml-margin``); the models, σ (median heuristic) and λ = 0.1 are
``benchmarks/strategies.py``'s shared rule, run through its ``run_one``.

Reports, per task and strategy, the AULC of test accuracy (mean ± sd over seeds) and the
mean accuracy and balanced accuracy after 10, 20 and ``--queries`` queries.

Run: ``python benchmarks/text_strategies.py [--seeds 5] [--queries 40] [--out runs.json]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import strategy_suite  # noqa: E402
from harness import load_average, report_machine  # noqa: E402
from strategies import RunOptions, run_one  # noqa: E402
from strategy_suite import Protocol, aulc  # noqa: E402

from rlscore.data.features.text import build_text_features  # noqa: E402
from rlscore.data.samples.bundled import SAMPLE_DIR, _item_frame  # noqa: E402

TASKS = ("debian_sections", "debian_games")
STRATEGIES = ("arls-focused", "arls", "aopt-klr", "uncertainty", "random", "skactiveml-margin")


def text_task(name: str):
    """A loader of (X, y) for :data:`strategy_suite.DATASETS`: texts → features, labels → 0…T−1."""

    def load():
        frames = [_item_frame(name, split) for split in ("pool", "validation")]
        texts = [t for f in frames for t in f["text"].astype(str)]
        labels = np.concatenate([f["label"].to_numpy() for f in frames])
        _, y = np.unique(labels, return_inverse=True)
        return build_text_features(texts).X, y.astype(np.int64)

    return load


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--queries", type=int, default=40)
    p.add_argument("--strategies", default=",".join(STRATEGIES))
    p.add_argument("--tasks", default=",".join(TASKS))
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    # the suite's runner reads its data sets from its table: the text tasks join it for this
    # run only, so a caller in the same process (the tests) keeps the suite's own eleven
    added = {task: text_task(task) for task in TASKS}
    strategy_suite.DATASETS.update(added)
    try:
        return _run(args)
    finally:
        for task in added:
            strategy_suite.DATASETS.pop(task, None)


def _run(args: argparse.Namespace) -> int:
    protocol = Protocol(queries=args.queries, seeds=tuple(range(args.seeds)))
    strategies, tasks = args.strategies.split(","), args.tasks.split(",")
    print(report_machine(), f"samples from {SAMPLE_DIR}", sep="\n", flush=True)
    runs = []
    for task in tasks:
        for strategy in strategies:
            for seed in protocol.seeds:
                r = run_one(strategy, task, seed, protocol, RunOptions())
                runs.append(r)
                status = r["error"] or f"AULC {aulc(r['accuracy']):.3f}"
                print(f"{task} {strategy} seed {seed}: {status}", flush=True)
    if args.out:
        args.out.write_text(json.dumps(runs) + "\n")
    budgets = sorted({10, 20, args.queries} & set(range(args.queries + 1)))
    head = " ".join(f"{'acc@' + str(b):>8}" for b in budgets)
    print(f"\nload average at the end: {load_average()}")
    for task in tasks:
        print(f"\n{task}: AULC of test accuracy (mean ± sd over {args.seeds} seeds), accuracy "
              "and balanced accuracy after b queries")  # fmt: skip
        print(f"{'strategy':<20} {'AULC':>15} {head} {head.replace('acc', 'bal')}")
        for strategy in strategies:
            rs = [r for r in runs if r["dataset"] == task and r["strategy"] == strategy]
            ok = [r for r in rs if r["error"] is None]
            if not ok:
                print(f"{strategy:<20} failed: {rs[0]['error'] if rs else 'no runs'}")
                continue
            a = np.array([aulc(r["accuracy"]) for r in ok])
            acc = " ".join(f"{np.mean([r['accuracy'][b] for r in ok]):>8.3f}" for b in budgets)
            bal = " ".join(
                f"{np.mean([r['balanced_accuracy'][b] for r in ok]):>8.3f}" for b in budgets
            )
            sd = a.std(ddof=1) if a.size > 1 else float("nan")
            print(f"{strategy:<20} {a.mean():>8.3f} ± {sd:<5.3f} {acc} {bal}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
