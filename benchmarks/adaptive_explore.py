"""Issue 33 item 5: exploration shares of focused ARLS that adapt to the random checks.

Focused ARLS explores (draws a query uniformly from the unlabeled pool) with the chance
:meth:`~rlscore.query.arls.focused.FocusedARLS.exploration_share`, ``explore`` = 0.2 in the
engine. :class:`AdaptiveExplore` makes that chance a function of the labels, driven by the
*random checks* — the labels that were their step's uniform draw (:func:`uniform_candidates`),
the same checks the headline accuracy estimate rests on (``rlscore/core/evaluation/
pool_accuracy.py``). Every rule keeps ``explore`` as a floor, so the checks keep coming, and
only gates the coin: a query that explores still takes the uniform draw of
:meth:`~rlscore.query.arls.focused.FocusedARLS.exploration_position`, so every check stays a
uniform draw from the unlabeled pool whatever the share (tested in
``tests/test_adaptive_explore.py``).

The rules (:data:`RULES`), each ``share = explore + (1 − explore) · extra``:

* ``"stall"`` — *has exploitation stalled?* On the ``m`` checks compare two exact
  leave-one-out predictions: the strategy's model (all labels) and the same RLS fitted on the
  checks alone (the model random sampling would have, with fewer labels). ``a`` checks only
  the strategy's model gets right, ``b`` only the checks-alone model; with
  ``θ ~ Beta(a + 1, b + 1)`` the chance that a disagreement goes to the strategy's model,
  ``worse = P(θ ≤ ½)`` and ``extra = max(0, 2 · worse − 1)``: exploration grows only while the
  checks say the actively chosen labels do *not* help on uniform points (Hsu & Lin 2015,
  "Active learning by learning", reward the learner by an unbiased accuracy; here the two arms
  are judged on the checks, the unbiased part).
* ``"thompson"`` — the same comparison as Thompson sampling between the arms:
  ``extra = worse`` (½ before any check: no evidence either way).
* ``"seeded"`` — ``"stall"``, but a query explores for sure while there is no check (the
  first query once every class has a label is a check, so the test has data from the start).
* ``"error"`` — ``extra = (k + 1)/(m + 2)``, the posterior mean error of the model on the
  checks (``k`` wrong): explore as often as a uniform draw finds a mistake.

The strategy is registered as ``arls-focused-adaptive`` (:func:`register`), so
``benchmarks/default_vs_random.py --strategies "arls-focused-adaptive:rule=stall"`` runs it;
this script reads the runs it wrote (``--out``) and prints, per strategy, the unrounded
figures of the criterion in docs/benchmarks/strategies.md ("An adaptive exploration share"):
the worst difference to random over the tasks and the mean difference to uncertainty, on the
AULC and the final accuracy, with the per-seed standard error of the worst one::

    python benchmarks/adaptive_explore.py /tmp/dev.json /tmp/seen.json --tasks wine,iris

``benchmarks/default_vs_random.py --trace SPEC TASK SEED`` follows one run of a strategy.
"""

from __future__ import annotations

import argparse
import bisect
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import scipy.linalg
from scipy.stats import beta

from rlscore.core.conventions.ova_encoding import ova_targets
from rlscore.core.rls.confidence import predicted_index
from rlscore.query import STRATEGIES
from rlscore.query.arls.focused import FocusedARLS

#: the adaptive rules of :class:`AdaptiveExplore` (module docstring)
RULES = ("stall", "thompson", "seeded", "error")
#: the registry name of :class:`AdaptiveExplore`
NAME = "arls-focused-adaptive"


def register() -> None:
    """Add :class:`AdaptiveExplore` to the strategy registry of this process as :data:`NAME`."""
    STRATEGIES[NAME] = ("adaptive_explore:AdaptiveExplore", {})


class AdaptiveExplore(FocusedARLS):
    """Focused ARLS whose exploration share follows ``rule`` (module docstring); every other
    parameter is :class:`~rlscore.query.arls.focused.FocusedARLS`'s, ``explore`` the floor."""

    def __init__(self, rule: str = "stall", **params) -> None:
        super().__init__(**params)
        self.rule = rule

    @classmethod
    def param_names(cls) -> list[str]:
        """FocusedARLS's parameters and ``rule``."""
        return sorted({*FocusedARLS.param_names(), "rule"})

    def _start(self, X: np.ndarray, K: np.ndarray | None) -> None:
        if self.rule not in RULES:
            raise ValueError(f"rule must be one of {RULES}, got {self.rule!r}")
        super()._start(X, K)

    def checks(self) -> np.ndarray:
        """Per label (``labeled_`` order), whether it was its step's uniform draw."""
        drawn = uniform_candidates(
            self.labeled_, self._label_positions(), self.classes_.size, self.n_pool_,
            self._entropy,
        )  # fmt: skip
        return drawn == np.asarray(self.labeled_, dtype=np.intp)

    def exploration_share(self) -> float:
        """``explore + (1 − explore) · extra`` of the rule (module docstring)."""
        self._check_started()
        if self.explore >= 1.0:
            return 1.0
        codes = np.asarray(self._label_positions(), dtype=np.intp)
        checks = self.checks()
        m = int(checks.sum())
        if self.rule == "error":
            wrong = int((loo_predicted(self)[checks] != codes[checks]).sum())
            return self._mixed((wrong + 1) / (m + 2))
        if m == 0:
            return {"stall": self.explore, "thompson": self._mixed(0.5), "seeded": 1.0}[self.rule]
        right = loo_predicted(self)[checks] == codes[checks]
        alone = loo_predicted(self, np.flatnonzero(checks)) == codes[checks]
        a, b = int((right & ~alone).sum()), int((~right & alone).sum())
        worse = float(beta.cdf(0.5, a + 1, b + 1))
        return self._mixed(worse if self.rule == "thompson" else max(0.0, 2.0 * worse - 1.0))

    def _mixed(self, extra: float) -> float:
        return self.explore + (1.0 - self.explore) * extra


def uniform_candidates(labeled, codes, n_classes: int, n_pool: int, entropy) -> np.ndarray:
    """Per label ``j`` (in the order taught), the pool index of its step's uniform draw, −1
    where the step could not explore (a class had no label yet).

    The draw of step ``j`` is :meth:`~rlscore.query.arls.focused.FocusedARLS.exploration_position`
    with ``j`` labels and nothing excluded — the generator ``default_rng([j, *entropy])``, one
    uniform for the coin, then ``integers(n_pool − j)`` — mapped to the pool index among the
    points not labeled before ``j``. The position does not depend on the coin, so whether a
    label was a check needs no share of a past state.
    """
    out = np.full(len(labeled), -1, dtype=np.intp)
    found: set[int] = set()
    taken: list[int] = []
    for j, (i, c) in enumerate(zip(labeled, codes, strict=True)):
        if len(found) == n_classes:
            g = np.random.default_rng([j, *np.atleast_1d(entropy)])
            g.random()
            out[j] = nth_free(taken, int(g.integers(n_pool - j)))
        found.add(int(c))
        bisect.insort(taken, int(i))
    return out


def nth_free(taken: list[int], k: int) -> int:
    """The ``k``-th (from 0) index not in the sorted list ``taken``."""
    lo, hi = k, k + len(taken)
    while lo < hi:  # the smallest i with i + 1 − #(taken ≤ i) > k
        mid = (lo + hi) // 2
        if mid + 1 - bisect.bisect_right(taken, mid) > k:
            hi = mid
        else:
            lo = mid + 1
    return lo


def loo_predicted(state: FocusedARLS, subset: np.ndarray | None = None) -> np.ndarray:
    """Class positions of the exact leave-one-out predictions at the labels ``subset``
    (positions in ``labeled_``; all by default) of the state's RLS fitted on those labels
    alone: its kernel, λ, weights and offset rule. With the offset's prior of precision p the
    LOO value is ``y_i − [P y]_i / P_ii``, ``P = G⁻¹ − G⁻¹11ᵀG⁻¹/(1ᵀG⁻¹1 + p)`` (``G⁻¹``
    without the offset; Rasmussen & Williams 2006, eq. 5.12); a label alone in its class is
    predicted by a refit on the others (without it a class has no label, so the offset is
    off). −1 where fewer than two labels leave no prediction."""
    L = np.asarray(state.labeled_, dtype=np.intp)
    codes = np.asarray(state._label_positions(), dtype=np.intp)
    if subset is not None:
        L, codes = L[subset], codes[subset]
    if L.size < 2:
        return np.full(L.size, -1, dtype=np.intp)
    offset = state._offset_active(codes)
    Y = ova_targets(codes, state.classes_.size)
    F = np.empty_like(Y)
    for cols in state._groups:
        G = scipy.linalg.cho_factor(state._gram(L, codes, cols[0]))
        P = scipy.linalg.cho_solve(G, np.eye(L.size))
        if offset:
            g = P.sum(axis=1)
            P -= np.outer(g, g) / (g.sum() + state.offset_precision)
        F[:, cols] = Y[:, cols] - (P @ Y[:, cols]) / np.diag(P)[:, None]
    if offset:
        for k in np.flatnonzero(np.bincount(codes)[codes] == 1):
            F[k] = _refit_at(state, L, codes, k)
    return predicted_index(F[:, 0] if F.shape[1] == 1 else F)


def _refit_at(state: FocusedARLS, L: np.ndarray, codes: np.ndarray, k: int) -> np.ndarray:
    """Decision values at label ``k`` of the RLS on the other labels, which miss ``k``'s
    class: ``K_{k,R} G_R⁻¹ Y_R`` without the offset."""
    rest = np.delete(np.arange(L.size), k)
    Y = ova_targets(codes[rest], state.classes_.size)
    f = np.empty(Y.shape[1])
    k_row = state._kernel.block(L)[k, rest]
    for cols in state._groups:
        G = scipy.linalg.cho_factor(state._gram(L[rest], codes[rest], cols[0]))
        f[cols] = k_row @ scipy.linalg.cho_solve(G, Y[:, cols])
    return f


#: the figures of :func:`summary`: a learning curve → one number
FIGURES = {"AULC": lambda c: float(np.mean(c)), "final": lambda c: float(c[-1])}


def differences(by: dict, spec: str, base: str, task: str, figure: str) -> np.ndarray:
    """Per seed, ``spec``'s figure minus ``base``'s on ``task`` (points × 100); ``by`` maps
    (strategy, task, seed) to the run's accuracy curve."""
    of = FIGURES[figure]
    seeds = sorted(s for (name, t, s) in by if name == spec and t == task)
    return 100 * np.array([of(by[spec, task, s]) - of(by[base, task, s]) for s in seeds])


def summary(runs: Sequence[dict], tasks: Sequence[str]) -> list[str]:
    """Per strategy run on every task and figure (AULC, final accuracy; unrounded): the worst
    difference to random over ``tasks`` (its task and the standard error over the seeds of
    that difference) and the mean difference to uncertainty."""
    by = {(r["strategy"], r["dataset"], r["seed"]): r["accuracy"] for r in runs}
    # the strategies run on every task (a summary over fewer tasks would mislead)
    ran = {(k[0], k[1]) for k in by}
    specs = sorted(
        spec
        for spec in {k[0] for k in by} - {"random", "uncertainty"}
        if all((spec, t) in ran for t in tasks)
    )
    lines = []
    for spec in specs:
        cells = []
        for fig in FIGURES:
            vs_random = {t: differences(by, spec, "random", t, fig) for t in tasks}
            worst = min(tasks, key=lambda t: vs_random[t].mean())
            d = vs_random[worst]
            se = d.std(ddof=1) / np.sqrt(d.size)
            lead = np.mean([differences(by, spec, "uncertainty", t, fig).mean() for t in tasks])
            cells.append(
                f"{fig}: worst − random {d.mean():+.2f} ({worst}, se {se:.2f}), "
                f"mean − uncertainty {lead:+.2f}"
            )
        lines.append(f"{spec}: " + "; ".join(cells))
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="*", type=Path, help="--out files of default_vs_random.py")
    p.add_argument("--tasks", help="comma-separated tasks (default: every task in the runs)")
    p.add_argument("--per-seed", metavar="TASK", help="also each seed's AULC difference on TASK")
    a = p.parse_args(argv)
    runs = [r for f in a.runs for r in json.loads(f.read_text())]
    tasks = a.tasks.split(",") if a.tasks else sorted({r["dataset"] for r in runs})
    print("\n".join(summary(runs, tasks)))
    if a.per_seed:
        by = {(r["strategy"], r["dataset"], r["seed"]): r["accuracy"] for r in runs}
        print(f"\nper seed, AULC − random on {a.per_seed}:")
        for spec in sorted({k[0] for k in by} - {"random"}):
            d = differences(by, spec, "random", a.per_seed, "AULC")
            print(f"{spec}: " + " ".join(f"{v:+.1f}" for v in d))


if __name__ == "__main__":
    main()
