"""Compare query strategies on data with ground truth: several simulations, one tidy table.

The app's Compare page runs this; it is usable from Python as well::

    from rlscore.experiments.comparison.compare import compare_strategies
    table = compare_strategies(X, y, ["arls", "random"], queries=40, seeds=5, init=2,
                               params={"sigma": 1.7, "lam": 0.5})
    table.groupby(["strategy", "n_labels"]).validation_error.mean()
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from rlscore.experiments.comparison.model_curves import evaluation_model, model_errors
from rlscore.experiments.simulation.simulate import Run, SimulationResult, simulate
from rlscore.query import QueryStrategy, make_strategy

#: columns of :func:`compare_strategies`' table, one row per (strategy, seed, step)
COLUMNS = (
    "strategy",
    "seed",
    "step",
    "n_labels",
    "index",
    "label",
    "score",
    "estimated_risk",
    "validation_error",
    "balanced_error",
    "model_error",
    "model_balanced_error",
    "seconds",
)


def compare_strategies(
    X: np.ndarray,
    y: np.ndarray,
    strategies: Sequence[str],
    *,
    queries: int,
    seeds: int = 3,
    init: int = 0,
    params: dict | None = None,
    classes: Sequence | None = None,
    validation=None,
    model: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Simulate every strategy for ``queries`` queries × ``seeds`` seeds against the truth ``y``.

    Parameters
    ----------
    X, y
        The pool and its true labels.
    strategies
        Names of :data:`rlscore.query.STRATEGIES`.
    queries, seeds, init, classes, validation
        As in :func:`rlscore.experiments.simulation.simulate.simulate` (``init`` random labels start
        each run, so deterministic strategies differ between seeds).
    model
        A name of :data:`rlscore.experiments.comparison.model_curves.EVALUATION_MODELS` (e.g.
        ``"bdlda"``): after every query that model is fitted on the run's labels and measured where
        the run measures its own learner (``model_error``, ``model_balanced_error``; NaN while the
        labels are too few to fit it). ``validation`` must then be None or a pair.
    params
        Strategy parameters shared by all (``kernel``, ``sigma``, ``lam``, ``class_weight``,
        ``graph_k``…); each strategy keeps the ones it takes. The pool kernel is built once
        per distinct kernel, by the strategy's own ``pool_kernel``: every run is the run
        :func:`~rlscore.experiments.simulation.simulate.simulate` makes with the same parameters.
    progress
        ``progress(done, total)`` over all strategies' queries.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`; step 0 is the state before the first query. The model
        columns are NaN without a ``model``.
    """
    strategies = list(dict.fromkeys(strategies))
    if not strategies:
        raise ValueError("choose at least one strategy to compare")
    _check_model(model, validation)
    params = dict(params or {})
    # a fraction held out changes the pool per run set: simulate then builds its own kernel
    share_kernel = not isinstance(validation, float)
    kernels: dict[str, np.ndarray] = {}
    n_seeds = seeds if isinstance(seeds, int) else len(list(seeds))
    total = len(strategies) * queries * n_seeds
    rows = []
    for k, name in enumerate(strategies):
        result = simulate(
            X,
            y,
            name,
            queries=queries,
            seeds=seeds,
            init=init,
            validation=validation,
            params=params,
            classes=classes,
            K=_shared_kernel(kernels, make_strategy(name, **params), X) if share_kernel else None,
            progress=_counted_after(progress, k * queries * n_seeds, total),
        )
        rows += _table_rows(name, result, model, X, y, validation)
    return _integer_columns(pd.DataFrame(rows, columns=list(COLUMNS)), ("index", "label"))


def _integer_columns(table: pd.DataFrame, columns: tuple[str, ...]) -> pd.DataFrame:
    """The ``columns`` holding whole numbers only (and step 0's missing value) as pandas'
    nullable integers, so that a CSV says ``102``, not ``102.0``; class names as text and
    other columns unchanged."""
    for column in columns:
        values = table[column].dropna()
        numeric = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
        if numeric and (values == values.round()).all():
            table[column] = table[column].astype("Int64")
    return table


def _check_model(model: str | None, validation) -> None:
    """Refuse an unknown evaluation model, or one asked to be measured on a held-out
    fraction, before any simulation runs."""
    if model is None:
        return
    evaluation_model(model, 2)  # raises for an unknown name
    if isinstance(validation, float):
        raise ValueError(
            "a model is measured on the pool or a separate validation pair, not on a "
            "held-out fraction"
        )


def _counted_after(
    progress: Callable[[int, int], None] | None, offset: int, total: int
) -> Callable[[int, int], None]:
    """The progress callback of one strategy's simulation: its queries counted after the
    ``offset`` queries of the strategies before it, out of all strategies' ``total``."""

    def report(done: int, _total: int) -> None:
        if progress is not None:
            progress(offset + done, total)

    return report


def _table_rows(
    name: str, result: SimulationResult, model: str | None, X, y, validation
) -> list[dict]:
    """The rows of :func:`compare_strategies`' table (one per run and step) for strategy
    ``name``'s simulation, with ``model``'s errors beside its learner's."""
    rows = []
    for run in result.runs:
        errors = _model_errors(model, X, y, run, validation)
        for st, (model_error, model_balanced) in zip(run.steps, errors, strict=True):
            rows.append(
                {
                    "strategy": name,
                    "seed": run.seed,
                    "step": st.step,
                    "n_labels": st.n_labels,
                    "index": st.index,
                    "label": st.label,
                    "score": st.score,
                    "estimated_risk": st.estimated_risk,
                    "validation_error": st.validation_error,
                    "balanced_error": st.balanced_error,
                    "model_error": model_error,
                    "model_balanced_error": model_balanced,
                    "seconds": st.seconds,
                }
            )
    return rows


def _model_errors(model: str | None, X, y, run: Run, validation) -> list[tuple]:
    """Errors of ``model`` after each step of ``run`` (NaN pairs without a model)."""
    if model is None:
        return [(np.nan, np.nan)] * len(run.steps)
    labeled = run.init + [st.index for st in run.steps[1:]]
    return model_errors(
        model, X, y, labeled, [st.n_labels for st in run.steps], validation=validation
    )


def _shared_kernel(kernels: dict, template: QueryStrategy, X) -> np.ndarray:
    """The pool kernel of ``template``, built by its own ``pool_kernel`` (as :func:`simulate`
    would) and shared by the strategies whose kernel parameters are the same."""
    # the strategy's own list of the parameters its pool kernel depends on
    key = repr(sorted(template.kernel_params().items()))
    if key not in kernels:
        kernels[key] = template.pool_kernel(np.asarray(X, dtype=np.float64))
    return kernels[key]


def held_out_validation(
    project, strategies: Sequence[str], params: dict | None = None
) -> tuple[tuple[np.ndarray, np.ndarray] | None, str]:
    """The validation set to compare on, and a sentence saying which it is.

    A bundled sample project is measured on its held-out validation split, unless one of the
    ``strategies`` cannot predict points outside the pool (graph kernels); every other project is
    measured on its pool points not labeled yet (:mod:`rlscore.core.evaluation.validation_error`'
    definition, the one the Label page uses).
    """
    from rlscore.data.samples.bundled import load_sample
    from rlscore.experiments.simulation.simulate import can_predict_outside
    from rlscore.query import make_strategy

    sample = (project.meta or {}).get("sample")
    if not sample:
        return None, f"the error is measured on the unlabeled points of the pool ({project.n})"
    if not all(can_predict_outside(make_strategy(s, **(params or {}))) for s in strategies):
        return None, (
            f"the error is measured on the unlabeled points of the pool ({project.n}): a chosen "
            "strategy cannot predict outside the pool (graph kernel)"
        )
    held = load_sample(sample, "validation")
    return (held.X, held.y), (
        "the error is measured on the sample's held-out validation split "
        f"({held.X.shape[0]} points)"
    )
