"""What the pages call the query strategies and the risk figure each one estimates.

Strategies estimate different things (ARLS an expected number of errors, A-optimal KLR a sum
of predictive variances), so every chart and metric of a risk takes its name from the
strategy class (``risk_name``, ``risk_help``) rather than saying "estimated risk".
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from rlscore.query import make_strategy, strategy_class

STRATEGY_LABELS = {
    "arls-focused": "Focused ARLS (recommended)",
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

#: one or two sentences per strategy for the sidebar's help (what it learns, how it queries)
STRATEGY_HELP = {
    "arls-focused": "Asks about the points the classifier is least sure of, and among them the "
    "one whose answer is expected to fix the most predictions on the pool (ARLS's exact "
    "expected risk on the 10 smallest margins). Its RLS fits an offset. The default: it had "
    "the best mean rank of every strategy and peer in benchmarks/strategies.py, at about a "
    "millisecond per query.",
    "arls": "Active RLS: queries the point whose label is expected to lower the estimated "
    "risk of the RLS classifier most (Paskov).",
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


def risk_wording(strategy: str) -> tuple[str, str]:
    """The name of the risk figure strategy ``strategy`` estimates, and one or two sentences
    explaining it (the metric's label and help text on the pages)."""
    cls = strategy_class(strategy)
    return cls.risk_name, cls.risk_help


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
