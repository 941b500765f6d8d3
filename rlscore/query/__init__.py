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

from rlscore.query.aoptimal import AOptimalKLR, MaxEntropyKLR
from rlscore.query.aoptimal_lowrank import LowRankAOptimalKLR
from rlscore.query.arls import ARLS
from rlscore.query.arls_focused import FocusedARLS
from rlscore.query.arls_lowrank import LowRankARLS
from rlscore.query.base import NoCandidatesError, QueryStrategy
from rlscore.query.baselines import EntropyQuery, RandomQuery, UncertaintyQuery
from rlscore.query.feature_pool import FeaturePoolStrategy
from rlscore.query.klr_pool import KLRPoolStrategy
from rlscore.query.lgc import LGCQuery
from rlscore.query.registry import STRATEGIES, make_strategy, strategy_class
from rlscore.query.rls_pool import RLSPoolStrategy
from rlscore.query.weighted_rls import WeightedRLSStrategy

__all__ = [
    "ARLS",
    "STRATEGIES",
    "AOptimalKLR",
    "EntropyQuery",
    "FeaturePoolStrategy",
    "FocusedARLS",
    "KLRPoolStrategy",
    "LGCQuery",
    "LowRankAOptimalKLR",
    "LowRankARLS",
    "MaxEntropyKLR",
    "NoCandidatesError",
    "QueryStrategy",
    "RLSPoolStrategy",
    "RandomQuery",
    "UncertaintyQuery",
    "WeightedRLSStrategy",
    "make_strategy",
    "strategy_class",
]
