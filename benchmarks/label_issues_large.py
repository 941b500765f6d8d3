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

On a shared machine two such runs differ by more than the change; ``--baseline DIR`` instead
times, call by call in turn in one process, this checkout's kernel, sketch and checker
against those of the checkout at DIR (its ``rlscore/core/kernels/functions.py`` and
``rlscore/core/rls/sketched_lam.py`` loaded beside this one's and patched in for its calls)::

    PYTHONPATH=$PWD OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/label_issues_large.py \\
        --baseline /work/main
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import load_average, pin_blas, report_machine, timed  # noqa: E402

pin_blas(1)

import numpy as np  # noqa: E402
from label_issues import flip_uniform  # noqa: E402
from strategy_suite import DATASETS, Protocol, make_split  # noqa: E402

import rlscore  # noqa: E402
import rlscore.core.kernels.functions as kernel_functions  # noqa: E402
import rlscore.core.rls.cholesky_loo as checker_module  # noqa: E402
from rlscore.core.conventions.ova_encoding import ova_targets  # noqa: E402
from rlscore.core.kernels.functions import kernel_matrix  # noqa: E402
from rlscore.core.rls.cholesky_loo import cholesky_loo  # noqa: E402
from rlscore.core.rls.eigen_loo import EigenLOO  # noqa: E402
from rlscore.core.rls.sketched_lam import sketched_loo_lam  # noqa: E402

LARGE_TASKS = (
    "moons_imbalanced", "digits_358", "breast_cancer", "blobs9", "digits",
    "twonorm", "ringnorm", "checkerboard", "classification",
)  # fmt: skip


def noisy_pool(task: str) -> tuple:
    """The task's pool (seed 0), its labels with 10 % flipped uniformly, its RBF kernel and
    one-vs-all targets."""
    X, y = DATASETS[task]()
    split = make_split(X, y, Protocol(), 0)
    classes, codes = np.unique(split.y_pool, return_inverse=True)
    noisy, _ = flip_uniform(codes, 0.10, np.random.default_rng([0, 100, 0]))
    K = kernel_matrix(split.X_pool, kernel="rbf", sigma=split.sigma)
    return split, noisy, K, ova_targets(noisy, classes.size)


def part_seconds(task: str, repeats: int) -> tuple[int, float, dict[str, float]]:
    """The pool size, the sketch's λ and the median seconds of each part (module docstring)."""
    split, noisy, K, Y = noisy_pool(task)
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
    return (
        noisy.size,
        lam,
        {name: timed(fn, repeats, clock=time.process_time) for name, fn in runs.items()},
    )


def load_baseline(root: Path) -> tuple:
    """The kernel and sketch modules of the checkout at ``root``, loaded under other names."""
    modules = []
    for name, relative in (
        ("baseline_kernel_functions", "rlscore/core/kernels/functions.py"),
        ("baseline_sketched_lam", "rlscore/core/rls/sketched_lam.py"),
    ):
        spec = importlib.util.spec_from_file_location(name, root / relative)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while it loads
        spec.loader.exec_module(module)
        modules.append(module)
    return tuple(modules)


def interleaved_medians(fns: dict, repeats: int) -> dict[str, float]:
    """Median process seconds of each of ``fns``, called in turn ``repeats`` times (after one
    warm-up round): the machine's load falls on all of them alike."""
    seconds = {name: [] for name in fns}
    for round_ in range(repeats + 1):
        for name, fn in fns.items():
            start = time.process_time()
            fn()
            if round_:
                seconds[name].append(time.process_time() - start)
    return {name: statistics.median(values) for name, values in seconds.items()}


def with_modules(kernel_module, sketch_module, fn):
    """``fn`` run with the checker's kernel and sketched search taken from those modules."""
    saved = kernel_functions.kernel_matrix, checker_module.sketched_loo_lam
    kernel_functions.kernel_matrix = kernel_module.kernel_matrix
    checker_module.sketched_loo_lam = sketch_module.sketched_loo_lam
    try:
        return fn()
    finally:
        kernel_functions.kernel_matrix, checker_module.sketched_loo_lam = saved


def against_baseline(task: str, repeats: int, baseline: tuple) -> tuple[int, dict]:
    """The pool size and the interleaved medians of this checkout's parts and the baseline's
    (module docstring)."""
    import rlscore.core.rls.sketched_lam as sketch_module

    split, noisy, K, Y = noisy_pool(task)
    fns = {}
    for label, (kernels, sketches) in (
        ("baseline", baseline),
        ("this", (kernel_functions, sketch_module)),
    ):
        fns[f"kernel {label}"] = lambda m=kernels: m.kernel_matrix(
            split.X_pool, kernel="rbf", sigma=split.sigma
        )
        fns[f"sketch {label}"] = lambda m=sketches: m.sketched_loo_lam(K, Y)
        fns[f"checker {label}"] = lambda k=kernels, m=sketches: with_modules(
            k, m, lambda: rlscore.label_issues(split.X_pool, noisy, sigma=split.sigma)
        )
    return noisy.size, interleaved_medians(fns, repeats)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=list(LARGE_TASKS), choices=sorted(DATASETS))
    parser.add_argument("--repeats", type=int, default=50, help="calls per median (≥ 50)")
    parser.add_argument("--baseline", type=Path, help="a checkout to time against (docstring)")
    args = parser.parse_args(argv)
    report_machine()
    print(f"# rlscore from {Path(rlscore.__file__).resolve().parent}")
    if args.baseline is not None:
        baseline = load_baseline(args.baseline)
        print(f"# baseline from {args.baseline}; ms, baseline → this (this / baseline)")
        for task in args.tasks:
            n, s = against_baseline(task, args.repeats, baseline)
            cells = [
                f"{part} {1e3 * s[part + ' baseline']:.2f} → {1e3 * s[part + ' this']:.2f} "
                f"({s[part + ' this'] / s[part + ' baseline']:.2f})"
                for part in ("kernel", "sketch", "checker")
            ]
            print(f"{task:<18} {n:4d}  " + "  ".join(cells) + f"  (load {load_average()})")
        return 0
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
