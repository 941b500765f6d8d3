"""Issue 37 on pools of more than 250 labels: the label checker's parts, in process time.

On each task's pool (:mod:`strategy_suite`, seed 0, 10 % of the labels flipped uniformly as in
``label_issues.py --lam-search``) the median process seconds over ``--repeats`` calls (after
one warm-up) of

* ``kernel`` — the RBF kernel of the pool (:func:`rlscore.core.kernels.functions.kernel_matrix`);
* ``sketch`` — the sketched λ search (:func:`rlscore.core.rls.sketched_lam.sketched_loo_lam`);
* ``cholesky`` — the exact LOO values at that λ
  (:func:`rlscore.core.rls.cholesky_loo.cholesky_loo`);
* ``exact`` — the exact λ search and its LOO values
  (:class:`rlscore.core.rls.eigen_loo.EigenLOO`), what the checker does on up to
  ``EXACT_SEARCH_MAX`` labels: against ``sketch + cholesky`` it places that threshold;
* ``checker`` — :func:`rlscore.label_issues` from the labels to its table,

and the λ the sketch chose (equal λ before and after a change: the same LOO values). The
package imported is the one on ``PYTHONPATH``, so the same script times two checkouts::

    PYTHONPATH=/work/main OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/label_issues_large.py
    PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/label_issues_large.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import load_average, pin_blas, report_machine  # noqa: E402

pin_blas(1)

import numpy as np  # noqa: E402
from label_issues import flip_uniform  # noqa: E402
from strategy_suite import DATASETS, Protocol, make_split  # noqa: E402

import rlscore  # noqa: E402
from rlscore.core.conventions.ova_encoding import ova_targets  # noqa: E402
from rlscore.core.kernels.functions import kernel_matrix  # noqa: E402
from rlscore.core.rls.cholesky_loo import cholesky_loo  # noqa: E402
from rlscore.core.rls.eigen_loo import EigenLOO  # noqa: E402
from rlscore.core.rls.sketched_lam import sketched_loo_lam  # noqa: E402

LARGE_TASKS = (
    "moons_imbalanced", "digits_358", "breast_cancer", "blobs9", "digits",
    "twonorm", "ringnorm", "checkerboard", "classification",
)  # fmt: skip


def process_median(fn, repeats: int) -> float:
    """Median process seconds of ``repeats`` calls of ``fn`` after one warm-up."""
    fn()
    seconds = []
    for _ in range(repeats):
        start = time.process_time()
        fn()
        seconds.append(time.process_time() - start)
    return statistics.median(seconds)


def part_seconds(task: str, repeats: int) -> tuple[int, float, dict[str, float]]:
    """The pool size, the sketch's λ and the median seconds of each part (module docstring)."""
    X, y = DATASETS[task]()
    split = make_split(X, y, Protocol(), 0)
    classes, codes = np.unique(split.y_pool, return_inverse=True)
    noisy, _ = flip_uniform(codes, 0.10, np.random.default_rng([0, 100, 0]))
    K = kernel_matrix(split.X_pool, kernel="rbf", sigma=split.sigma)
    Y = ova_targets(noisy, classes.size)
    lam = sketched_loo_lam(K, Y)

    def exact():
        path = EigenLOO.of_kernel(K, Y)
        return path.loo(np.array([path.best_lam()]))

    runs = {
        "kernel": lambda: kernel_matrix(split.X_pool, kernel="rbf", sigma=split.sigma),
        "sketch": lambda: sketched_loo_lam(K, Y),
        "cholesky": lambda: cholesky_loo(K, Y, lam),
        "exact": exact,
        "checker": lambda: rlscore.label_issues(split.X_pool, noisy, sigma=split.sigma),
    }
    return codes.size, lam, {name: process_median(fn, repeats) for name, fn in runs.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=list(LARGE_TASKS), choices=sorted(DATASETS))
    parser.add_argument("--repeats", type=int, default=50, help="calls per median (≥ 50)")
    args = parser.parse_args(argv)
    report_machine()
    print(f"# rlscore from {Path(rlscore.__file__).resolve().parent}")
    print("task                 n  kernel ms  sketch ms  cholesky ms  exact ms  checker ms  "
          "sketch λ")  # fmt: skip
    for task in args.tasks:
        n, lam, s = part_seconds(task, args.repeats)
        print(
            f"{task:<18} {n:4d} {1e3 * s['kernel']:10.2f} {1e3 * s['sketch']:10.2f} "
            f"{1e3 * s['cholesky']:12.2f} {1e3 * s['exact']:9.2f} {1e3 * s['checker']:11.2f}  "
            f"{lam:.6e}  (load {load_average()})",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
