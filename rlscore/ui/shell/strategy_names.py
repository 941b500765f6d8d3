"""What the pages call the query strategies and the risk figure each one estimates.

Strategies estimate different things (ARLS an expected number of errors, A-optimal KLR a sum
of predictive variances), so every chart and metric of a risk takes its name from
:data:`RISK_WORDING` (:func:`risk_wording`) rather than saying "estimated risk". The wording
lives here, with the pages; the strategies only compute the figure (``estimated_risk``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from rlscore.query import (
    DEFAULT_MULTILABEL_STRATEGY,
    STRATEGIES,
    QueryStrategy,
    make_strategy,
    strategy_class,
)
from rlscore.sessions.state.settings import DEFAULT_STRATEGIES

#: what the RLS strategies' ``estimated_risk`` measures (one RLS state: one figure)
_RLS_RISK = (
    "Selection criterion (estimated risk)",
    "What the strategy minimises to choose its queries: Paskov's estimated risk R̂, the sum "
    "over the pool of the clipped soft scores' chance that the prediction is wrong (eq. 3.47; "
    "with class weights, each class's term divided by its weight, eq. 3.49). It ranks "
    "queries well but is not a count of errors: on held-out data it was off by a median 8–13 "
    "points of the pool (benchmarks/trust_figures.py).",
)
_AOPTIMAL_RISK = (
    "Predictive variance (A-optimal)",
    "Sum over the unlabeled points of the squared-slope-weighted posterior variance "
    "(σ(1 − σ))² [H⁻¹]_jj of the KLR (Yajima eq. 4.23): smaller means a more certain "
    "model. It is a variance, not a count of errors.",
)

#: the wording of a strategy that is not registered (a QueryStrategy subclass of one's own)
GENERIC_RISK = (
    "Estimated risk",
    "The strategy's own estimate of the current classifier's risk on the pool.",
)

#: strategy -> (name of the figure its ``estimated_risk`` returns, one or two sentences
#: explaining it): the label and help text of the risk metric and charts
RISK_WORDING: dict[str, tuple[str, str]] = {
    "arls-focused": _RLS_RISK,
    "arls": _RLS_RISK,
    "arls-weighted": _RLS_RISK,
    "arls-lowrank": _RLS_RISK,
    "aopt-klr": _AOPTIMAL_RISK,
    "aopt-klr-lowrank": _AOPTIMAL_RISK,
    "muq-klr": (
        "Expected errors on the unlabeled pool",
        "Estimated number of misclassified unlabeled points: the sum over them of one minus "
        "the largest KLR class probability.",
    ),
    "uncertainty": _RLS_RISK,
    "entropy": _RLS_RISK,
    "random": _RLS_RISK,
    "lgc": (
        "Expected errors",
        "The number of pool points LGC is expected to misclassify: the sum over unlabeled "
        "points of 1 − the probability of their most probable class, the probabilities being "
        "the label distribution spread over the kNN graph (Sheng eq. 3.5).",
    ),
}

#: the strategies' display names, without the "recommended" of :func:`strategy_labels`
_NAMES = {
    "arls-focused": "Focused ARLS",
    "arls": "ARLS (active RLS, thesis)",
    "arls-weighted": "ARLS, weighted & bias-corrected",
    "arls-lowrank": "ARLS, low-rank kernel (large pools)",
    "aopt-klr": "A-optimal KLR",
    "aopt-klr-lowrank": "A-optimal KLR, low-rank kernel (large pools)",
    "muq-klr": "KLR, most uncertain (MUQ)",
    "uncertainty": "Uncertainty sampling",
    "entropy": "Entropy sampling",
    "random": "Random",
    "lgc": "LGC (graph label spreading)",
}


def strategy_name_text(name: str) -> str:
    """A strategy's display name (its registry name when it has none)."""
    return _NAMES.get(name, name)


def strategy_labels(multi_label: bool = False) -> dict[str, str]:
    """The strategies' display names for a project of one kind, the strategy a new project of
    that kind starts with marked "recommended": focused ARLS for single-label projects (the
    best mean rank of benchmarks/strategies.py), ARLS for multi-label ones (it led the
    multi-label benchmark, docs/benchmarks/multilabel.md)."""
    chosen = DEFAULT_MULTILABEL_STRATEGY if multi_label else DEFAULT_STRATEGIES[0]
    return {name: _recommended(text) if name == chosen else text for name, text in _NAMES.items()}


def _recommended(name: str) -> str:
    """``name`` marked recommended, inside its own parentheses if it ends with some."""
    if name.endswith(")"):
        return f"{name[:-1]}; recommended)"
    return f"{name} (recommended)"


#: the display names for single-label projects (the Compare page's, the Label page's query)
STRATEGY_LABELS = strategy_labels()

#: one or two sentences per strategy for the sidebar's help (what it learns, how it queries)
STRATEGY_HELP = {
    "arls-focused": "Asks about the points the classifier is least sure of, and among them the "
    "one whose answer is expected to fix the most predictions on the pool (ARLS's exact "
    "expected risk on the 10 smallest margins). Its RLS fits an offset. The default of a "
    "single-label project: it had the best mean rank of every strategy and peer in "
    "benchmarks/strategies.py, at about a millisecond per query.",
    "arls": "Active RLS: queries the point whose label is expected to lower the estimated "
    "risk of the RLS classifier most (Paskov). The default of a multi-label project (the risk "
    "summed over the classes): it led the multi-label benchmark.",
    "arls-weighted": "Active RLS with balanced class weights and a bias-corrected risk, for "
    "imbalanced classes.",
    "arls-lowrank": "Active RLS on a low-rank (Nyström) kernel: large pools without any "
    "n × n matrix.",
    "aopt-klr": "Kernel logistic regression; queries the point that most reduces the summed "
    "predictive variance (A-optimal design, Yajima). With the automatic λ, λ and the graph "
    "kernel's t are chosen from the labels (leave-one-out log-loss); otherwise the sidebar's "
    "λ is used, and with a large λ the KLR stays near uniform (the page says so).",
    "aopt-klr-lowrank": "A-optimal KLR on a low-rank (Nyström) kernel: large pools without any "
    "n × n matrix.",
    "muq-klr": "Kernel logistic regression; queries the point whose predicted class "
    "probabilities have the largest entropy (Yajima's MUQ baseline).",
    "uncertainty": "RLS classifier; queries the point closest to its decision boundary.",
    "entropy": "RLS classifier; queries the point whose class probabilities have the largest "
    "entropy.",
    "random": "Queries the pool in a fixed random order (passive learning).",
    "lgc": "Local and global consistency (Zhou et al.; Sheng §3.2): labels spread over the "
    "k-nearest-neighbour graph of the pool; uncertainty sampling on the resulting label "
    "distribution (smallest gap between the two most probable classes). Ignores the kernel, "
    "σ and λ settings.",
}


@functools.cache
def strategy_parameters(name: str) -> frozenset[str]:
    """The parameters strategy ``name`` takes (the sidebar shows only their controls)."""
    return frozenset(make_strategy(name).get_params())


def low_rank_note(p: dict, n: int) -> str | None:
    """What the low-rank form of a strategy approximates, for its settings ``p`` on a pool of
    ``n`` points (None for a strategy on the exact kernel)."""
    if "n_landmarks" not in strategy_parameters(p["strategy"]):
        return None
    m = min(int(p["n_landmarks"]), n)
    parts = [f"low-rank kernel of {m} {p['landmarks']} landmarks (Nyström)"]
    if p.get("candidates") and p["candidates"] < n:
        parts.append(f"{p['candidates']:,} candidates scored per query")
    if p.get("risk_sample") and p["risk_sample"] < n:
        parts.append(f"risk estimated on {p['risk_sample']:,} points")
    if p.get("refine") and "refine" in strategy_parameters(p["strategy"]):
        parts.append(f"the {p['refine']} best re-scored on the exact kernel")
    return f"Pool of {n:,} points: " + ", ".join(parts) + " — set in the sidebar."


def risk_wording(strategy: str | QueryStrategy) -> tuple[str, str]:
    """The name of the risk figure a strategy estimates, and one or two sentences explaining
    it (the metric's label and help text on the pages; :data:`RISK_WORDING`).

    Parameters
    ----------
    strategy
        A strategy name of :data:`rlscore.query.STRATEGIES`, or a strategy instance: the
        wording of the nearest registered class it derives from (e.g. a session's engine),
        :data:`GENERIC_RISK` if none.

    Raises
    ------
    ValueError
        ``strategy`` is a name that is not registered.
    """
    if isinstance(strategy, str):
        strategy_class(strategy)  # an unknown name gets the registry's message
        return RISK_WORDING[strategy]
    for cls in type(strategy).__mro__:
        for name in STRATEGIES:
            if strategy_class(name) is cls:
                return RISK_WORDING[name]
    return GENERIC_RISK


def risk_chart_labels(strategies: Iterable[str]) -> tuple[str, dict[str, str]]:
    """Axis title and legend entries for the risk curves of several strategies.

    Parameters
    ----------
    strategies : iterable of str
        Strategy names (:data:`rlscore.query.STRATEGIES`).

    Returns
    -------
    y_title : str
        The common risk name when every strategy estimates the same figure, else a title
        saying that each curve is its strategy's own estimate.
    names : dict
        Strategy -> legend entry: its display name (:data:`STRATEGY_LABELS`), with the risk
        name added when the figures differ, as their curves are then not comparable.
    """
    strategies = list(dict.fromkeys(strategies))
    risk = {name: risk_wording(name)[0] for name in strategies}
    shown = {name: STRATEGY_LABELS.get(name, name) for name in strategies}
    if len(set(risk.values())) <= 1:
        return next(iter(risk.values()), "estimated risk"), shown
    return "each strategy's own risk estimate", {n: f"{shown[n]}: {r}" for n, r in risk.items()}
