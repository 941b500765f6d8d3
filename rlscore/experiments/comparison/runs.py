"""What a comparison of strategies on a project runs with, and what it reports at the end.

The Compare page simulates strategies with a project's saved settings
(:func:`simulation_settings`), proposes :func:`run_defaults` for its form, and shows
:func:`final_summary` of :func:`rlscore.experiments.comparison.compare.compare_strategies`' table
(:func:`summary_cells`: as text, a dash where a figure is undefined).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from rlscore.sessions.state.settings import LOW_RANK_MIN_POOL, engine_settings

#: queries and random initial labels proposed, lowered for a small pool (a default above the
#: form's maximum would be an error)
DEFAULT_QUERIES = 20
DEFAULT_INIT = 2
DEFAULT_SEEDS = 3
#: the strategies proposed besides ARLS (the exact focused form, or the low-rank one on a
#: pool above :data:`~rlscore.sessions.state.settings.LOW_RANK_MIN_POOL`)
BASELINES = ("uncertainty", "random")
#: columns of :func:`final_summary` (the model's two are inserted after the balanced error)
SUMMARY_COLUMNS = ("validation_error", "balanced_error", "estimated_risk", "seconds")
MODEL_COLUMNS = ("model_error", "model_balanced_error")
#: what stands in a cell of :func:`summary_cells` whose figure is undefined
UNDEFINED = "—"


def simulation_settings(settings: Mapping) -> dict:
    """The learner's parameters of a comparison from a project's saved settings: kernel, σ,
    λ (a fixed λ: the automatic choice is not re-tuned during simulations), class weights,
    and the low-rank settings for the strategies that take them."""
    return {
        "kernel": settings["kernel"],
        "sigma": settings["sigma"],
        "lam": settings["lam"],
        "class_weight": settings["class_weight"],
        **engine_settings(dict(settings)),
    }


def uses_low_rank(n: int) -> bool:
    """Whether a pool of ``n`` points is compared with the low-rank form of ARLS."""
    return n > LOW_RANK_MIN_POOL


@dataclass(frozen=True)
class RunDefaults:
    """What the form of a comparison on a pool proposes; ``max_queries`` and ``max_init``
    bound the form (a query needs an unlabeled point, a run at least one)."""

    strategies: tuple[str, ...]
    queries: int
    max_queries: int
    init: int
    max_init: int
    seeds: int = DEFAULT_SEEDS


def run_defaults(n: int) -> RunDefaults:
    """The defaults of a comparison on a pool of ``n ≥ 2`` points."""
    if n < 2:
        raise ValueError(f"a comparison needs at least 2 points, got {n}")
    arls = "arls-lowrank" if uses_low_rank(n) else "arls-focused"
    return RunDefaults(
        strategies=(arls, *BASELINES),
        queries=min(DEFAULT_QUERIES, n - 1),
        max_queries=n - 1,
        init=min(DEFAULT_INIT, n - 2),
        max_init=n - 2,
    )


def final_summary(
    table: pd.DataFrame, with_model: bool = False, names: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Mean and standard deviation per strategy, over the seeds, after the last query.

    Parameters
    ----------
    table : pandas.DataFrame
        A table of :func:`~rlscore.experiments.comparison.compare.compare_strategies`.
    with_model : bool
        Include the evaluation model's errors (a run with a model).
    names : mapping, optional
        Strategy -> the name shown for it (the page passes the display names of
        ``rlscore.ui.shell.strategy_names``); a strategy not in it keeps its registry name.

    Returns
    -------
    pandas.DataFrame
        One row per strategy, in the order they were run, indexed by its shown name (index
        name ``"strategy"``); columns (figure, ``"mean"`` | ``"std"``), rounded to 4 digits.
    """
    columns = list(SUMMARY_COLUMNS)
    if with_model:
        columns[2:2] = MODEL_COLUMNS
    final = table[table.step == table.step.max()]
    summary = final.groupby("strategy", sort=False)[columns].agg(["mean", "std"]).round(4)
    if names is not None:
        summary.index = pd.Index([names.get(s, s) for s in summary.index], name=summary.index.name)
    return summary


def summary_cells(summary: pd.DataFrame) -> pd.DataFrame:
    """A :func:`final_summary` as the Compare page shows it: each figure with 4 decimals, and
    :data:`UNDEFINED` where it is undefined (NaN: the standard deviation of a single seed, a
    model's error while no run has one yet).

    A table of numbers would show NaN as "None" in the browser, whatever its formatting.
    """
    return summary.map(lambda v: UNDEFINED if pd.isna(v) else f"{v:.4f}")


__all__ = [
    "DEFAULT_INIT",
    "DEFAULT_QUERIES",
    "UNDEFINED",
    "RunDefaults",
    "final_summary",
    "run_defaults",
    "simulation_settings",
    "summary_cells",
    "uses_low_rank",
]
