"""Multi-label A-optimal KLR: one binary A-optimal KLR per class, their expected risks summed
(docs/multilabel.md §3).

Each class k is a binary problem (in the set or not) learned by its own kernel logistic
regression over the pool (:class:`~rlscore.query.klr.aoptimal.AOptimalKLR`, Yajima & Sato,
docs/mathematics.md §6), all on one shared pool kernel. The A-optimal risk of the multi-label
model is the trace of the posterior covariance of the L models' probabilities over the unlabeled
pool, i.e. the sum of the L binary risks; as the L models are independent, the risk expected
after labeling a point is the sum of each model's expected risk after its binary label, which is
what each binary strategy scores.
"""

from __future__ import annotations

import numpy as np

from rlscore.core.conventions.memory_budget import require_memory, square_matrices_bytes
from rlscore.query.klr.aoptimal import AOptimalKLR
from rlscore.query.multilabel.state import MultiLabelStrategy

#: the binary classes of each member: not in the set, in the set (positive = in the set)
_BINARY = (-1, 1)


class MultiLabelAOptimalKLR(MultiLabelStrategy):
    """One binary A-optimal KLR per class; the scores are their expected risks summed (module
    docstring). The decision value of class k is its KLR's (> 0: in the set).

    Parameters as :class:`~rlscore.query.klr.aoptimal.AOptimalKLR` (``mode``: exact or one
    Newton step per candidate; ``tune="loo"``: each class chooses its λ by the LOO log-loss),
    with an RBF kernel by default like the other multi-label strategies. Every candidate is
    scored (no candidate subset: the L binary scores are summed point by point).
    """

    _keeps_covariance = False
    _members: list[AOptimalKLR]

    def __init__(
        self,
        kernel: str = "rbf",
        sigma: float = 1.0,
        degree: int = 2,
        lam: float = 0.1,
        graph_k: int = 6,
        graph_t: float | None = None,
        mode: str = "auto",
        tune: str = "none",
    ):
        super().__init__(
            kernel=kernel, sigma=sigma, degree=degree, lam=lam, graph_k=graph_k, graph_t=graph_t
        )
        self.mode = mode
        self.tune = tune

    def memory_bytes(self, n: int) -> int:
        """The shared kernel and, per class, the two n × n matrices budgeted for a KLR."""
        return square_matrices_bytes(n, 1 + 2 * self.classes_count_hint())

    def classes_count_hint(self) -> int:
        """The number of classes once started, else 2 (the smallest project)."""
        return self.classes_.size if hasattr(self, "classes_") else 2

    def _start(self, X: np.ndarray, K: np.ndarray | None) -> None:
        n = X.shape[0]
        require_memory(self.memory_bytes(n), f"{type(self).__name__} on a pool of {n} points")
        self._K = self.pool_kernel(X) if K is None else K
        self._Ds = []
        params = {**self.get_params(), "sigma": self.sigma_ or self.sigma}
        self._members = [AOptimalKLR(**params).start(X, _BINARY, K=self._K) for _ in self.classes_]
        self._lam = float(self.lam)
        self._m = np.zeros((n, self.classes_.size))
        self._version = 0
        self._scores_cache = None

    def _add_set(self, i: int, labels: tuple) -> None:
        taught = []
        try:
            for c, member in zip(self.classes_.tolist(), self._members, strict=True):
                member.teach(i, 1 if c in labels else -1)
                taught.append(member)
        except Exception:
            for member in taught:  # a failed fit leaves every class as it was
                member.forget(i)
            raise
        self._sync()

    def _remove(self, pos: int) -> None:
        i = self.labeled_[pos]
        for member in self._members:
            member.forget(i)
        self._sync()

    def _sync(self) -> None:
        self._m = np.column_stack([member.decision_function() for member in self._members])
        self._version += 1

    def decision_function(self, X=None) -> np.ndarray:
        """KLR decision values (n, L), one column per class; > 0 means "in the set"."""
        self._check_started()
        if X is None:
            return self._m.copy()
        return np.column_stack([member.decision_function_at(X) for member in self._members])

    def predict_proba(self) -> np.ndarray:
        """Each class's KLR probability of being in the set, (n, L)."""
        self._check_started()
        return np.column_stack([member.predict_proba()[:, 1] for member in self._members])

    def estimated_risk(self) -> float:
        """The A-optimal risk of the L models summed."""
        self._check_started()
        return float(sum(member.estimated_risk() for member in self._members))

    def scores(self) -> np.ndarray:
        """The expected A-optimal risk after labeling each unlabeled point, summed over the
        classes; NaN for labeled points."""
        self._check_started()
        if self._scores_cache is not None and self._scores_cache[0] == self._version:
            return self._scores_cache[1].copy()
        out = np.sum([member.scores() for member in self._members], axis=0)
        out[self.labeled_] = np.nan
        self._scores_cache = (self._version, out)
        return out.copy()


__all__ = ["MultiLabelAOptimalKLR"]
