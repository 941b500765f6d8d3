"""Query strategies over a pool, all following :class:`~rlscore.query.base.QueryStrategy`.

* :mod:`~rlscore.query.base` — the protocol (teach, undo, forget, next query);
* :mod:`~rlscore.query.weighted_rls` — the weighted one-vs-all RLS state every RLS strategy
  shares, with two implementations: on the pool kernel (:mod:`~rlscore.query.rls_pool`) and on
  low-rank features (:mod:`~rlscore.query.feature_pool`);
* :mod:`~rlscore.query.arls` — ARLS (docs/mathematics.md §5); :mod:`~rlscore.query.arls_focused` —
  ARLS's
  expected risk on the most uncertain candidates; :mod:`~rlscore.query.arls_lowrank` — ARLS on
  low-rank features for large pools (docs/mathematics.md §7);
  :mod:`~rlscore.query.baselines` — random, margin and entropy queries;
  :mod:`~rlscore.query.klr_pool` — the KLR over a pool and MUQ;
  :mod:`~rlscore.query.aoptimal` — A-optimal KLR (docs/mathematics.md §6), on low-rank features in
  :mod:`~rlscore.query.aoptimal_lowrank`;
  :mod:`~rlscore.query.lgc` — local and global consistency on the kNN graph
  (docs/mathematics.md §8);
* :mod:`~rlscore.query.batch` — batch queries for several annotators
  (:meth:`QueryStrategy.next_queries <rlscore.query.base.QueryStrategy.next_queries>`);
* :mod:`~rlscore.query.registry` — strategies by name for the CLI and the app.
"""

from __future__ import annotations

from rlscore.core.lazy_exports import lazy_exports

#: imported on first access: a session loads only the strategy it runs (the registry names
#: the others by module)
_EXPORTS = {
    "rlscore.query.aoptimal": ("AOptimalKLR", "MaxEntropyKLR"),
    "rlscore.query.aoptimal_lowrank": ("LowRankAOptimalKLR",),
    "rlscore.query.arls": ("ARLS",),
    "rlscore.query.arls_focused": ("FocusedARLS",),
    "rlscore.query.arls_lowrank": ("LowRankARLS",),
    "rlscore.query.base": ("NoCandidatesError", "QueryStrategy"),
    "rlscore.query.baselines": ("EntropyQuery", "RandomQuery", "UncertaintyQuery"),
    "rlscore.query.feature_pool": ("FeaturePoolStrategy",),
    "rlscore.query.klr_pool": ("KLRPoolStrategy",),
    "rlscore.query.lgc": ("LGCQuery",),
    "rlscore.query.registry": ("STRATEGIES", "make_strategy", "strategy_class"),
    "rlscore.query.rls_pool": ("RLSPoolStrategy",),
    "rlscore.query.weighted_rls": ("WeightedRLSStrategy",),
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS, globals())
