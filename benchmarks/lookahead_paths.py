"""ARLS's lookahead in numpy against the compiled pass, and what loading the compiled pass costs.

``rlscore.query.arls.thesis.Lookahead`` runs lookaheads of at most ``NUMPY_LOOKAHEAD`` covariance
entries (candidates × pool points) in numpy and larger ones in the numba pass
(``rlscore.query.arls.fused_lookahead``). This script times both paths on the same focused-ARLS
state (two classes, 6 labels, RBF σ = 1, λ = 0.3) for a few (pool, candidates) pairs — medians of
``--repeats`` interleaved calls after a warm-up, BLAS pinned to one thread — and, as the other side
of the trade, the CPU seconds a fresh interpreter spends importing numba and loading the compiled
pass from its disk cache for one call (median of 3 fresh interpreters).

``--low-rank`` times low-rank ARLS's sampled lookahead instead (``rlscore.query.arls.lowrank``:
the app's engine from 50 000 points, with its settings — 500 uniform landmarks, 500 candidates,
20 000 risk points — on a 2-D pool of ``--n`` points with 30 labels, 2, 3 and 5 classes): the
per-point sums in numpy against the compiled pass (``point_risk_sums`` of
``rlscore.query.arls.fused_lookahead``), process CPU, medians of interleaved calls, and beside
them the floor both share, the covariance product ``Φ_S C Φ_Cᵀ`` alone (the s × c × r
multiply-adds every lookahead makes).

    python benchmarks/lookahead_paths.py [--repeats 7]
    python benchmarks/lookahead_paths.py --low-rank [--n 100000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from harness import fresh_interpreter_medians, load_average, pin_blas, report_machine

pin_blas(1)

import numpy as np  # noqa: E402

from rlscore.query import LowRankARLS  # noqa: E402
from rlscore.query.arls import thesis as arls  # noqa: E402
from rlscore.query.arls.focused import FocusedARLS  # noqa: E402
from rlscore.query.arls.thesis import Lookahead  # noqa: E402

#: (pool points, candidates): focused ARLS's first query on 2000 points, its 10 candidates
CASES = ((2000, 1000), (2000, 10), (5000, 10), (50_000, 10), (200_000, 10))

#: a fresh interpreter's cost of the compiled pass: import numba and load one kernel
LOAD_CODE = """
import time
import numpy as np
from rlscore.query.arls.thesis import Lookahead, NUMPY_LOOKAHEAD
from rlscore.query.arls.focused import FocusedARLS
from rlscore.query.arls import thesis as arls
X = np.random.default_rng(0).normal(size=(400, 2))
q = FocusedARLS(sigma=1.0, lam=0.3).start(X, [0, 1])
q.teach_many([0, 1, 2, 3], [0, 1, 0, 1])
cand = np.arange(10, 20)
rows = q.covariance_rows(cand)
look = Lookahead(q)
arls.NUMPY_LOOKAHEAD = -1
c = time.process_time()
look.expected_risks(cand, rows)
print(time.process_time() - c)
"""


def state(n: int, b: int):
    rng = np.random.default_rng(0)
    q = FocusedARLS(sigma=1.0, lam=0.3).start(rng.normal(size=(n, 2)), [0, 1])
    q.teach_many(list(range(6)), [0, 1, 0, 1, 0, 1])
    cand = np.arange(10, 10 + b)
    return Lookahead(q), cand, q.covariance_rows(cand)


def timed_paths(n: int, b: int, repeats: int) -> tuple[float, float, float]:
    """Median seconds of the numpy and the compiled path, and their largest relative gap."""
    look, cand, rows = state(n, b)
    limits = {"numpy": 1 << 62, "compiled": -1}
    times: dict[str, list[float]] = {k: [] for k in limits}
    out = {}
    for r in range(repeats + 1):
        for name, limit in limits.items():
            arls.NUMPY_LOOKAHEAD = limit
            tic = time.perf_counter()
            out[name] = look.expected_risks(cand, rows)
            if r:  # the first round warms up
                times[name].append(time.perf_counter() - tic)
    gap = float(np.max(np.abs(out["numpy"] - out["compiled"])) / np.max(np.abs(out["compiled"])))
    return statistics.median(times["numpy"]), statistics.median(times["compiled"]), gap


def low_rank_state(n: int, T: int):
    """Low-rank ARLS with the app's settings on a 2-D pool of n points, 30 labels."""
    rng = np.random.default_rng(T)
    X = rng.normal(size=(n, 2))
    g = np.sin(2 * X[:, 0]) + X[:, 1]
    y = np.digitize(g, np.quantile(g, np.linspace(0, 1, T + 1)[1:-1]))
    q = LowRankARLS(
        sigma=1.0, lam=0.1, n_landmarks=500, landmarks="uniform", candidates=500,
        risk_sample=20_000,
    ).start(X, list(range(T)))  # fmt: skip
    labeled = rng.choice(n, 30, replace=False).tolist()
    q.teach_many(labeled, y[labeled].tolist())
    return q, q.candidate_indices(), q.risk_points()


def low_rank_row(n: int, T: int, repeats: int) -> dict:
    """Process-CPU medians of the sampled lookahead's two paths and of its covariance product."""
    q, cand, S = low_rank_state(n, T)
    limits = {"numpy": 1 << 62, "compiled": -1}
    times: dict[str, list[float]] = {k: [] for k in (*limits, "product")}
    out = {}
    rows = np.sort(S)
    for r in range(repeats + 1):
        for name, limit in limits.items():
            arls.NUMPY_LOOKAHEAD = limit
            tic = time.process_time()
            out[name] = q._lookahead(cand, S)
            if r:
                times[name].append(time.process_time() - tic)
        tic = time.process_time()
        R = [C @ q.features_[cand].T for C in q._Cs]
        for z in range(0, rows.size, 2048):
            [q.features_[rows[z : z + 2048]] @ Rg for Rg in R]
        if r:
            times["product"].append(time.process_time() - tic)
    pairs = zip(out["compiled"], out["numpy"], strict=True)  # the sums and the squares
    gap = max(float(np.max(np.abs(a - b) / np.abs(b))) for a, b in pairs)
    med = {k: statistics.median(v) for k, v in times.items()}
    return dict(med, gap=gap, r=q.features_.shape[1])


def low_rank_table(n: int, repeats: int) -> None:
    print(f"low-rank ARLS, n = {n}, 500 candidates × 20 000 risk points, 30 labels; process CPU "
          f"s per lookahead, medians of {repeats} interleaved calls")  # fmt: skip
    print(f"{'T':>3} {'r':>4} {'numpy':>7} {'compiled':>9} {'ratio':>6} {'product':>8} "
          f"{'rel. gap':>9}")  # fmt: skip
    for T in (2, 3, 5):
        row = low_rank_row(n, T, repeats)
        print(f"{T:>3} {row['r']:>4} {row['numpy']:>7.3f} {row['compiled']:>9.3f} "
              f"{row['numpy'] / row['compiled']:>5.1f}× {row['product']:>8.3f} "
              f"{row['gap']:>9.1e}")  # fmt: skip
    print(
        "(product: Φ_S C Φ_Cᵀ alone, the floor both paths share; rel. gap: the largest "
        "relative difference of the two paths' sums)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--low-rank", action="store_true", help="low-rank ARLS's lookahead")
    parser.add_argument("--n", type=int, default=100_000, help="pool size with --low-rank")
    args = parser.parse_args(argv)
    if args.low_rank:
        report_machine()
        low_rank_table(args.n, args.repeats)
        print(f"# load average at the end: {load_average()}")
        return 0
    limit = arls.NUMPY_LOOKAHEAD
    report_machine()
    print(f"NUMPY_LOOKAHEAD = {limit} entries; seconds per lookahead, medians of {args.repeats}")
    print(f"{'n':>8} {'candidates':>10} {'entries':>10} {'numpy ms':>9} {'compiled ms':>11} "
          f"{'ratio':>6} {'rel. gap':>9}  path taken")  # fmt: skip
    for n, b in CASES:
        numpy_s, compiled_s, gap = timed_paths(n, b, args.repeats)
        taken = "numpy" if n * b <= limit else "compiled"
        print(f"{n:>8} {b:>10} {n * b:>10} {1e3 * numpy_s:>9.3f} {1e3 * compiled_s:>11.3f} "
              f"{numpy_s / compiled_s:>5.1f}× {gap:>9.1e}  {taken}")  # fmt: skip
    arls.NUMPY_LOOKAHEAD = limit
    (load,) = fresh_interpreter_medians(LOAD_CODE)
    print(f"loading the compiled pass (import numba, the kernel from its cache, one call) in a "
          f"fresh interpreter: {load:.2f} s CPU (median of 3)")  # fmt: skip
    print(f"# load average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
