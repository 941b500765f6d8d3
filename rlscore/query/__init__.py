"""Query strategies over a pool, all following
:class:`~rlscore.query.protocol.strategy.QueryStrategy`.

Rooms: :mod:`~rlscore.query.protocol` (the protocol — teach, undo, forget, next query — batch
queries, the registry of names, random orders), :mod:`~rlscore.query.rls_state` (the weighted
one-vs-all RLS state every RLS strategy shares, on the pool kernel or on low-rank features),
:mod:`~rlscore.query.arls` (thesis ARLS, focused and low-rank ARLS, docs/mathematics.md §5 and §7),
:mod:`~rlscore.query.klr` (the KLR over a pool, MUQ and A-optimal KLR, §6),
:mod:`~rlscore.query.baselines` (random, margin, entropy and LGC uncertainty, §8),
:mod:`~rlscore.query.multilabel` (label sets as labels: multi-label ARLS, focused ARLS,
uncertainty, random and A-optimal KLR, docs/multilabel.md) and
:mod:`~rlscore.query.cluster` (passes over a pool held by a cluster's workers).
"""

from __future__ import annotations

from rlscore.core.lazy.exports import lazy_exports

#: imported on first access: a session loads only the strategy it runs (the registry names
#: the others by module)
_EXPORTS = {
    "rlscore.query.klr.aoptimal": ("AOptimalKLR", "MaxEntropyKLR"),
    "rlscore.query.klr.aoptimal_lowrank": ("LowRankAOptimalKLR",),
    "rlscore.query.arls.thesis": ("ARLS",),
    "rlscore.query.arls.focused": ("FocusedARLS",),
    "rlscore.query.arls.lowrank": ("LowRankARLS",),
    "rlscore.query.protocol.strategy": ("NoCandidatesError", "QueryStrategy"),
    "rlscore.query.baselines.strategies": ("EntropyQuery", "RandomQuery", "UncertaintyQuery"),
    "rlscore.query.rls_state.on_features": ("FeaturePoolStrategy",),
    "rlscore.query.klr.pool": ("KLRPoolStrategy",),
    "rlscore.query.baselines.lgc_uncertainty": ("LGCQuery",),
    "rlscore.query.protocol.registry": (
        "DEFAULT_MULTILABEL_STRATEGY",
        "MULTILABEL_STRATEGIES",
        "STRATEGIES",
        "make_strategy",
        "multilabel_strategy_class",
        "strategy_class",
    ),
    "rlscore.query.multilabel.state": ("MultiLabelStrategy", "predicted_sets"),
    "rlscore.query.multilabel.aoptimal_klr": ("MultiLabelAOptimalKLR",),
    "rlscore.query.multilabel.strategies": (
        "MultiLabelARLS",
        "MultiLabelFocusedARLS",
        "MultiLabelRandom",
        "MultiLabelUncertainty",
    ),
    "rlscore.query.rls_state.on_kernel": ("RLSPoolStrategy",),
    "rlscore.query.rls_state.weighted": ("WeightedRLSStrategy",),
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, globals())
