"""Single- against double-precision covariance rows in low-rank ARLS's sampled lookahead.

The app's engine above 50 000 points (low-rank ARLS, 500 uniform landmarks, 500 candidates,
20 000 risk points, ``refine=10`` up to 200 000 points) computes each query's covariance rows
``d_i(z)`` on the risk sample in :data:`rlscore.query.arls.lowrank.SAMPLED_ROWS_DTYPE`
(float32). This script runs two sessions on the same pool side by side, one with the rows in
float32 (the engine as shipped) and one with the constant set to float64 (the rows as they were
before), teaches both the float64 session's pick at every step, and prints per query: the
process CPU of each (median over the steps after two of warm-up), whether the two picked the
same point, and the largest relative difference of their scores.

Usage::

    python benchmarks/sampled_rows_precision.py                     # n = 100 000, refine 10
    python benchmarks/sampled_rows_precision.py --n 1000000 --no-refine --steps 100
"""

from __future__ import annotations

import argparse
import statistics
import time

from harness import pin_blas, report_machine

pin_blas(1)

import numpy as np  # noqa: E402

from rlscore.data.samples.bundled import make_two_moons_imbalanced  # noqa: E402
from rlscore.query import LowRankARLS  # noqa: E402
from rlscore.query.arls import lowrank  # noqa: E402


def session(X, y, refine: int | None, seeds: int) -> LowRankARLS:
    """Low-rank ARLS with the app's defaults for a large pool, ``seeds`` random labels."""
    s = LowRankARLS(
        sigma=2.0, lam=1.0, n_landmarks=500, landmarks="uniform", candidates=500,
        risk_sample=20_000, refine=refine,
    ).start(X, [-1, 1])  # fmt: skip
    first = np.random.default_rng(0).choice(len(y), seeds, replace=False)
    s.teach_many(first.tolist(), y[first].tolist())
    return s


def query(s: LowRankARLS, dtype) -> tuple[tuple[int, float], np.ndarray, float]:
    """The next query of ``s`` with the rows in ``dtype``, its scores and process CPU."""
    lowrank.SAMPLED_ROWS_DTYPE = dtype
    t = time.process_time()
    pick = s.next_query()
    return pick, s.scores().copy(), time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--no-refine", action="store_true", help="refine=None (the app above 200 000)")
    args = ap.parse_args()
    report_machine()
    n_pos = args.n // 11
    X, y = make_two_moons_imbalanced(n_neg=args.n - n_pos, n_pos=n_pos, seed=0)
    refine = None if args.no_refine else 10
    single, double = session(X, y, refine, 10), session(X, y, refine, 10)
    shipped = lowrank.SAMPLED_ROWS_DTYPE
    times = {"float32": [], "float64": []}
    same, worst, ties = 0, 0.0, []
    for step in range(args.steps):
        (i, score), s64, t64 = query(double, np.float64)
        (j, other), s32, t32 = query(single, np.float32)
        times["float64"].append(t64)
        times["float32"].append(t32)
        scored = np.isfinite(s64)
        worst = max(worst, float(np.max(np.abs(s32[scored] - s64[scored]) / np.abs(s64[scored]))))
        if i == j:
            same += 1
        else:  # the float64 scores of both picks: a tie if they are equal
            ties.append((step, i, j, s64[i], s64[j]))
        double.teach(i, int(y[i]))
        single.teach(i, int(y[i]))
    lowrank.SAMPLED_ROWS_DTYPE = shipped
    for name, values in times.items():
        print(f"{name} rows: query CPU median {statistics.median(values[2:]):.3f} s")
    print(f"same pick in {same} of {args.steps} queries; largest relative score difference "
          f"{worst:.1e}")  # fmt: skip
    for step, i, j, a, b in ties:
        print(f"  step {step}: float64 picked {i} (score {a!r}), float32 {j} (its float64 "
              f"score {b!r})")  # fmt: skip
    report_machine()


if __name__ == "__main__":
    main()
