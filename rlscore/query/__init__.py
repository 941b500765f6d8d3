"""Query strategies over a pool, all following
:class:`~rlscore.query.protocol.strategy.QueryStrategy`.

* :mod:`~rlscore.query.protocol.strategy` — the protocol (teach, undo, forget, next query);
* :mod:`~rlscore.query.rls_state.weighted` — the weighted one-vs-all RLS state every RLS strategy
  shares, with two implementations: on the pool kernel (:mod:`~rlscore.query.rls_state.on_kernel`)
  and on low-rank features (:mod:`~rlscore.query.rls_state.on_features`);
* :mod:`~rlscore.query.arls.thesis` — ARLS (docs/mathematics.md §5);
:mod:`~rlscore.query.arls.focused` —
  ARLS's expected risk on the most uncertain candidates; :mod:`~rlscore.query.arls.lowrank` — ARLS
  on low-rank features for large pools (docs/mathematics.md §7);
  :mod:`~rlscore.query.baselines.strategies` — random, margin and entropy queries;
  :mod:`~rlscore.query.klr.pool` — the KLR over a pool and MUQ; :mod:`~rlscore.query.klr.aoptimal` —
  A-optimal KLR (docs/mathematics.md §6), on low-rank features in
  :mod:`~rlscore.query.klr.aoptimal_lowrank`; :mod:`~rlscore.query.baselines.lgc_uncertainty` —
  local and global consistency on the kNN graph (docs/mathematics.md §8);
* :mod:`~rlscore.query.protocol.batch` — batch queries for several annotators
  (:meth:`QueryStrategy.next_queries <rlscore.query.protocol.strategy.QueryStrategy.next_queries>`);
* :mod:`~rlscore.query.protocol.registry` — strategies by name for the CLI and the app.
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
    "rlscore.query.protocol.registry": ("STRATEGIES", "make_strategy", "strategy_class"),
    "rlscore.query.rls_state.on_kernel": ("RLSPoolStrategy",),
    "rlscore.query.rls_state.weighted": ("WeightedRLSStrategy",),
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, globals())
