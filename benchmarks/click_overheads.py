"""The per-click O(n) work besides the engine's update and lookahead, before and after issue
25 part 4, in process: the history's record of a click (the predicted classes' positions and
the validation error on the unlabeled points) and the query panel's prediction of the shown
point, each computed as before (the pool's ``predict()`` / ``predict_proba()``, the predicted
labels coded by ``class_codes`` and ``pool_validation_errors`` per click; the panel as
``tests/reference/session_predictions.py``) and from the decision values
(``rlscore.sessions.views.diagnostics.predicted_codes`` and ``coded_validation_errors``, the
panel's one-point prediction), side by side in one run.

Process CPU seconds, medians of interleaved repeats, BLAS pinned to one thread; the pool's
decision values are random (only their size matters), the truth the object array a project
holds, 500 labeled points.

Usage::

    python benchmarks/click_overheads.py                        # n = 100 000 and 1 000 000
    python benchmarks/click_overheads.py --sizes 100000 --repeats 9
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from harness import load_average, pin_blas, report_machine

pin_blas(1)

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import session_predictions as ref  # noqa: E402

from rlscore.query import QueryStrategy  # noqa: E402
from rlscore.sessions.views.diagnostics import (  # noqa: E402
    class_codes,
    coded_validation_errors,
    pool_validation_errors,
    predicted_codes,
    truth_codes,
)
from rlscore.sessions.views.label_page import _point_prediction  # noqa: E402


class _Decided(QueryStrategy):
    """A started strategy reduced to its decision values (what the click's figures read)."""

    def __init__(self, F: np.ndarray, classes: list) -> None:
        self.F, self.classes_ = F, np.asarray(classes)

    def decision_function(self) -> np.ndarray:
        return self.F.copy()


def cpu(fn) -> float:
    tic = time.process_time()
    fn()
    return time.process_time() - tic


def measure(n: int, repeats: int) -> dict[str, tuple[float, float]]:
    rng = np.random.default_rng(0)
    classes = [-1, 1]
    engine = _Decided(rng.normal(size=n), classes)
    truth = np.array(rng.choice(classes, n).tolist(), dtype=object)
    labeled = rng.choice(n, 500, replace=False).tolist()
    coded = truth_codes(truth, classes)  # once per pool, not per click
    i = int(rng.integers(n))

    def before():  # replay.py's _record before the change
        pred = np.asarray(engine.predict())
        return class_codes(pred, classes), pool_validation_errors(truth, pred, labeled)

    pairs = {
        "history record (codes + validation error)": (
            before,
            lambda: coded_validation_errors(coded, predicted_codes(engine, classes), labeled),
        ),
        "panel: prediction of the shown point": (
            lambda: ref.point_prediction(engine, i),
            lambda: _point_prediction(engine, i),
        ),
    }
    out = {}
    for name, (old, new) in pairs.items():
        old(), new()  # warm-up
        times = [(cpu(old), cpu(new)) for _ in range(repeats)]  # interleaved
        out[name] = tuple(statistics.median(t) for t in zip(*times, strict=True))
    once = cpu(lambda: truth_codes(truth, classes))
    out["truth coded (once per session)"] = (float("nan"), once)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    report_machine()
    print(f"\nprocess CPU seconds per click, median of {args.repeats} interleaved repeats")
    print(f"{'n':>9}  {'before':>8}  {'decision values':>15}  {'ratio':>6}  part")
    for n in args.sizes:
        for name, (old, new) in measure(n, args.repeats).items():
            ratio = old / new if new > 0 and np.isfinite(old) else float("nan")
            print(f"{n:>9}  {old:8.4f}  {new:15.4f}  {ratio:6.1f}  {name}")
    print(f"# load average: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
