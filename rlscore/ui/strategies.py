"""What the pages call the query strategies and the risk figure each one estimates.

Strategies estimate different things (ARLS an expected number of errors, A-optimal KLR a sum
of predictive variances), so every chart and metric of a risk takes its name from the
strategy class (``risk_name``, ``risk_help``) rather than saying "estimated risk".
"""

from __future__ import annotations

from collections.abc import Iterable

from rlscore.query import strategy_class

STRATEGY_LABELS = {
    "arls": "ARLS (active RLS)",
    "arls-weighted": "ARLS, weighted & bias-corrected",
    "aopt-klr": "A-optimal KLR",
    "uncertainty": "Uncertainty sampling",
    "entropy": "Entropy sampling",
    "random": "Random",
}


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
        Strategy -> legend entry; the risk name is added when the figures differ, as their
        curves are then not comparable with each other.
    """
    strategies = list(dict.fromkeys(strategies))
    risk = {name: strategy_class(name).risk_name for name in strategies}
    if len(set(risk.values())) <= 1:
        return next(iter(risk.values()), "estimated risk"), {name: name for name in strategies}
    return "each strategy's own risk estimate", {n: f"{n}: {r}" for n, r in risk.items()}
