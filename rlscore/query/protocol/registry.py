"""Strategies by name, for the CLI and the app: :data:`STRATEGIES`, :data:`MULTILABEL_STRATEGIES`,
:func:`make_strategy`."""

from __future__ import annotations

from importlib import import_module

from rlscore.query.protocol.strategy import QueryStrategy

#: name used by the CLI and the app -> ("module:Class", default keyword arguments)
STRATEGIES: dict[str, tuple[str, dict]] = {
    "arls": ("rlscore.query.arls.thesis:ARLS", {}),
    "arls-weighted": (
        "rlscore.query.arls.thesis:ARLS",
        {"class_weight": "balanced", "bias_corrected": True},
    ),
    "arls-lowrank": ("rlscore.query.arls.lowrank:LowRankARLS", {}),
    "arls-focused": ("rlscore.query.arls.focused:FocusedARLS", {}),
    # (t, λ) by the LOO log-loss of the labeled points (rlscore.core.klr.tuning): with the
    # given ones the KLR stays near uniform on graph kernels (issue 13, reproduce_yajima.py)
    "aopt-klr": ("rlscore.query.klr.aoptimal:AOptimalKLR", {"tune": "loo"}),
    "aopt-klr-lowrank": ("rlscore.query.klr.aoptimal_lowrank:LowRankAOptimalKLR", {"tune": "loo"}),
    "muq-klr": ("rlscore.query.klr.aoptimal:MaxEntropyKLR", {"tune": "loo"}),
    "uncertainty": ("rlscore.query.baselines.strategies:UncertaintyQuery", {}),
    "entropy": ("rlscore.query.baselines.strategies:EntropyQuery", {}),
    "random": ("rlscore.query.baselines.strategies:RandomQuery", {}),
    "lgc": ("rlscore.query.baselines.lgc_uncertainty:LGCQuery", {}),
}

#: the multi-label strategies (label sets as labels, docs/multilabel.md), by the name of the
#: single-label strategy of the same idea
_MULTILABEL_CLASSES: dict[str, str] = {
    "arls": "rlscore.query.multilabel.strategies:MultiLabelARLS",
    "arls-focused": "rlscore.query.multilabel.strategies:MultiLabelFocusedARLS",
    "uncertainty": "rlscore.query.multilabel.strategies:MultiLabelUncertainty",
    "random": "rlscore.query.multilabel.strategies:MultiLabelRandom",
    "aopt-klr": "rlscore.query.multilabel.aoptimal_klr:MultiLabelAOptimalKLR",
}
#: names of the multi-label strategies, for ``make_strategy(name, multi_label=True)``
MULTILABEL_STRATEGIES: tuple[str, ...] = tuple(_MULTILABEL_CLASSES)
#: the multi-label strategy of a new multi-label project
DEFAULT_MULTILABEL_STRATEGY = "arls"


def strategy_class(name: str) -> type[QueryStrategy]:
    """The class behind a strategy name of :data:`STRATEGIES`."""
    if name not in STRATEGIES:
        raise ValueError(f"unknown strategy {name!r}: choose one of {sorted(STRATEGIES)}")
    module, cls = STRATEGIES[name][0].split(":")
    return getattr(import_module(module), cls)


def multilabel_strategy_class(name: str) -> type[QueryStrategy]:
    """The class behind a multi-label strategy name of :data:`MULTILABEL_STRATEGIES`."""
    if name not in _MULTILABEL_CLASSES:
        raise ValueError(
            f"unknown multi-label strategy {name!r}: choose one of {list(MULTILABEL_STRATEGIES)}"
        )
    module, cls = _MULTILABEL_CLASSES[name].split(":")
    return getattr(import_module(module), cls)


def make_strategy(name: str, multi_label: bool = False, **params) -> QueryStrategy:
    """Build a strategy by name; ``params`` override its defaults.

    Parameters the strategy does not take are dropped (the app passes one parameter set to
    every strategy), except that an unknown strategy name is an error.

    Parameters
    ----------
    name
        A name of :data:`STRATEGIES`, or with ``multi_label`` one of
        :data:`MULTILABEL_STRATEGIES` (default :data:`DEFAULT_MULTILABEL_STRATEGY`).
    multi_label
        Build the multi-label variant, whose labels are label sets (docs/multilabel.md).
    """
    if multi_label:
        cls = multilabel_strategy_class(name)
        accepted = cls.param_names()
        return cls(**{k: v for k, v in params.items() if k in accepted})
    cls = strategy_class(name)
    accepted = cls.param_names()
    merged = {**STRATEGIES[name][1], **params}
    return cls(**{k: v for k, v in merged.items() if k in accepted})
