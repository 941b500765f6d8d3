"""The protocol every query strategy follows over a pool of points.

A strategy is started on a pool, taught labels one at a time (any pool index, not only the
query: annotators click points), and can undo or forget labels. ``scores()`` rates every
unlabeled candidate, **lower is better**, and ``next_query`` returns the best one.
Subclasses implement the numerical state; this base keeps the bookkeeping in one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from rlscore.core.conventions.input_validation import check_matrix
from rlscore.core.conventions.parameters import Parameterized
from rlscore.core.kernels.functions import pool_kernel
from rlscore.core.kernels.rbf_width import resolve_sigma
from rlscore.core.rls.confidence import predicted_index, soft_probabilities
from rlscore.query.protocol.batch import next_queries as batch_queries


class NoCandidatesError(LookupError):
    """Raised by ``next_query`` when every point is labeled or excluded."""


class QueryStrategy(Parameterized):
    """Base class of the query strategies (ARLS, A-optimal KLR, baselines).

    Subclasses implement ``_start(X, K)``, ``_add(i, c)`` (``c`` the class position in
    ``classes_``), ``_remove(position)`` (``position`` in teaching order, before the
    bookkeeping drops it), ``scores``, ``estimated_risk`` and ``decision_function``.

    Attributes (after :meth:`start`)
    --------------------------------
    X_ : ndarray (n, d)
    classes_ : ndarray (T,)
    n_pool_ : int
    labeled_ : list[int]  — pool indices in teaching order
    labels_ : list        — their labels, same order
    """

    #: whether a disk snapshot of the started strategy saves work worth its size (a session
    #: then caches its state on disk: :mod:`rlscore.sessions.state.snapshots`)
    snapshot_worthy: bool = True
    #: parameters that change the pool kernel (a precomputed K is reused only if they are unchanged)
    _kernel_params: tuple[str, ...] = ("kernel", "sigma", "degree")

    # set by start (class docstring)
    X_: np.ndarray
    classes_: np.ndarray
    n_pool_: int
    #: the RBF width in use (a rule such as ``"median"`` resolved on the pool); None without one
    sigma_: float | None
    labeled_: list[int]
    labels_: list
    #: the kernel passed to start, and the kernel parameters it was built with (rebuild)
    _K_given: np.ndarray | None
    _K_params: dict

    # -- lifecycle -------------------------------------------------------------------------
    def start(self, X, classes: Sequence, *, K: np.ndarray | None = None) -> QueryStrategy:
        """Start on pool ``X`` with the session's fixed ``classes`` (2 or more); returns self."""
        X = check_matrix(X, "X_pool", min_samples=2)
        classes = np.asarray(list(classes))
        if classes.ndim != 1 or classes.size < 2:
            raise ValueError(f"classes must list at least 2 classes, got {list(classes)!r}")
        if np.unique(classes).size != classes.size:
            raise ValueError(f"classes must be distinct, got {list(classes)!r}")
        n = X.shape[0]
        # before any allocation, and also when K is given (a rebuild recomputes it)
        self.sigma_ = self._width(X)
        if K is not None:
            K = np.asarray(K, dtype=np.float64)
            if K.shape != (n, n):
                raise ValueError(f"K must be the {n} × {n} pool kernel, got shape {K.shape}")
            if not np.isfinite(K).all():
                raise ValueError("K contains NaN or infinite values")
        self.X_ = X
        self.classes_ = classes
        self.n_pool_ = n
        self.labeled_ = []
        self.labels_ = []
        self._K_given = K
        self._K_params = self.kernel_params()
        self._start(X, K)
        return self

    def rebuild(self, K: np.ndarray | None = None) -> None:
        """Restart from the pool and replay the labels (after ``set_params``).

        A kernel passed to :meth:`start` is reused when the kernel parameters are unchanged.
        If the new parameters are refused, the previous state and every label are kept and
        the error is raised.
        """
        self._check_started()
        if K is None and self._K_params == self.kernel_params():
            K = self._K_given
        saved = dict(self.__dict__)
        try:
            self._replay(K)
        except Exception:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    def _replay(self, K: np.ndarray | None) -> None:
        """Start again on the same pool and teach the labels in their order."""
        labeled, labels = list(self.labeled_), list(self.labels_)
        self.start(self.X_, self.classes_, K=K)
        for i, y in zip(labeled, labels, strict=True):
            self.teach(i, y)

    # -- labels ----------------------------------------------------------------------------
    def teach(self, i: int, label) -> None:
        """Add the label of pool point ``i`` (relabel = :meth:`forget` + teach)."""
        i = self._check_index(i)
        if i in self._labeled_set():
            pos = self.labeled_.index(i)
            raise ValueError(
                f"point {i} is already labeled as {self.labels_[pos]!r}: forget it first to relabel"
            )
        c = self.class_index(label)
        self._add(i, c)
        self.labeled_.append(i)
        self.labels_.append(self.classes_[c].item())

    def undo(self) -> tuple[int, object]:
        """Remove the most recent label; returns ``(index, label)``."""
        self._check_started()
        if not self.labeled_:
            raise ValueError("nothing to undo: no point is labeled")
        return self._drop(len(self.labeled_) - 1)

    def forget(self, i: int) -> None:
        """Remove the label of pool point ``i``, wherever it is in the teaching order."""
        i = self._check_index(i)
        if i not in self._labeled_set():
            raise ValueError(f"point {i} is not labeled")
        self._drop(self.labeled_.index(i))

    def _drop(self, pos: int) -> tuple[int, object]:
        self._remove(pos)
        return self.labeled_.pop(pos), self.labels_.pop(pos)

    # -- queries ---------------------------------------------------------------------------
    def next_query(self, exclude: Iterable[int] | None = None) -> tuple[int, float]:
        """The best unlabeled point (lowest score) not in ``exclude``, and its score."""
        self._check_started()
        s = np.array(self.scores(), dtype=np.float64, copy=True)
        s[self.labeled_] = np.nan
        if exclude is not None:
            ex = np.fromiter((int(e) for e in exclude), dtype=np.int64)
            s[ex[(ex >= 0) & (ex < self.n_pool_)]] = np.nan
        if np.isnan(s).all():
            raise NoCandidatesError("no candidate left: every point is labeled or skipped")
        i = int(np.nanargmin(s))
        return i, float(s[i])

    def uniform_draw(self, exclude: Iterable[int] | None = None) -> int | None:
        """The next query when it is a draw uniformly at random from the unlabeled points not
        in ``exclude`` (a *random check*, which the accuracy estimate counts on:
        :mod:`rlscore.core.evaluation.pool_accuracy`), else None. None here: a strategy that
        chooses by a score never draws at random."""
        return None

    @property
    def uniform_share(self) -> float:
        """The share of queries that are :meth:`uniform_draw` draws (about; 0 here: none, 1:
        every one), for a user told where the accuracy estimate's checks come from."""
        return 0.0

    def next_queries(
        self, k: int, exclude: Iterable[int] | None = None, rule: str = "greedy"
    ) -> list[tuple[int, float]]:
        """Up to ``k`` distinct points to label at once (several annotators), with their scores.

        Parameters
        ----------
        k
            Number of points wanted, ≥ 1 (``ValueError`` otherwise).
        exclude
            Pool indices never to return, as in :meth:`next_query`.
        rule
            ``"greedy"`` (default): choose a point, believe its most probable label, choose
            the next one on that hypothetical state, and so on (kriging believer).
            ``"top"``: the ``k`` best scores of the current state, cheaper and less diverse.

        Returns
        -------
        list of (int, float)
            ``(index, score)`` pairs, distinct, never labeled or excluded, fewer than ``k``
            only when the candidates run out; ``next_queries(1, exclude)`` is
            ``[next_query(exclude)]``. The strategy's state is left exactly as it was.

        See :mod:`rlscore.query.protocol.batch` for the rules, their cost and why the lookahead runs
        on a copy of the state.
        """
        self._check_started()
        return batch_queries(self, k, exclude, rule)

    def predict_proba(self) -> np.ndarray:
        """Class probabilities on the pool, (n, T): clipped soft scores normalised per row.

        ``p̂ = clip((f + 1)/2, 0, 1)`` per one-vs-all classifier (docs/mathematics.md §1, §4).
        """
        return soft_probabilities(self.decision_function())

    def predict(self) -> np.ndarray:
        """Predicted class of every pool point."""
        return self.classes_[predicted_index(self.decision_function())]

    # -- helpers for subclasses ------------------------------------------------------------
    def class_index(self, label) -> int:
        """Position of ``label`` in ``classes_``; ``ValueError`` naming the classes otherwise."""
        self._check_started()
        if not isinstance(label, bool | np.bool_):
            value = label.item() if isinstance(label, np.generic) else label
            for k, c in enumerate(self.classes_.tolist()):
                if type(value) is type(c) or (_is_number(value) and _is_number(c)):
                    if value == c:
                        return k
        raise ValueError(f"label {label!r} is not one of the classes {self.classes_.tolist()}")

    def needs_pool_kernel(self) -> bool:
        """Whether :meth:`start` wants the n × n pool kernel ``K`` (a caller that has none
        builds it with :meth:`pool_kernel`): true for a strategy with a ``kernel``
        parameter, unless it says otherwise (low-memory and low-rank strategies)."""
        return "kernel" in self.get_params()

    def _width(self, X: np.ndarray) -> float | None:
        """The RBF width on pool ``X``: ``sigma`` checked, a rule (``"median"``, ``"scale"``:
        :mod:`rlscore.core.kernels.rbf_width`) resolved; None for a strategy or kernel without
        one."""
        params = self.get_params()
        if "sigma" not in params or params.get("kernel", "rbf") != "rbf":
            return None
        return resolve_sigma(params["sigma"], X)

    def pool_kernel(self, X: np.ndarray) -> np.ndarray:
        """The pool kernel from this strategy's kernel parameters."""
        params = self.get_params()
        return pool_kernel(
            X,
            params.get("kernel", "rbf"),
            sigma=self._width(X) or 1.0,
            degree=params.get("degree", 2),
            graph_k=params.get("graph_k", 6),
            graph_t=params.get("graph_t"),
        )

    def kernel_params(self) -> dict:
        """The parameters that define the pool kernel (a kernel is reusable while they hold)."""
        params = self.get_params()
        return {k: params[k] for k in self._kernel_params if k in params}

    def _labeled_set(self) -> set[int]:
        return set(self.labeled_)

    def _check_started(self) -> None:
        if not hasattr(self, "X_"):
            raise RuntimeError(f"{type(self).__name__} is not started: call start(X_pool, classes)")

    def _check_index(self, i) -> int:
        self._check_started()
        if isinstance(i, bool) or not isinstance(i, int | np.integer):
            raise ValueError(f"point index must be an integer, got {i!r}")
        if not 0 <= int(i) < self.n_pool_:
            raise ValueError(f"point index {i} is outside the pool (0 … {self.n_pool_ - 1})")
        return int(i)

    # -- to implement ----------------------------------------------------------------------
    def _start(self, X: np.ndarray, K: np.ndarray | None) -> None:
        raise NotImplementedError

    def _add(self, i: int, c: int) -> None:
        raise NotImplementedError

    def _remove(self, pos: int) -> None:
        raise NotImplementedError

    def scores(self) -> np.ndarray:
        """Score of every pool point, lower is better; NaN for labeled points."""
        raise NotImplementedError

    def score_at(self, i: int) -> float:
        """The score of pool point ``i`` (:meth:`scores`); an engine whose pool lives
        elsewhere answers without an array over the pool."""
        return float(np.asarray(self.scores())[i])

    def model_note(self) -> str | None:
        """A note for the user about the model behind the predictions, or None (nothing to
        say). KLR strategies say when their model is near uniform
        (:func:`rlscore.query.klr.pool.klr_regime`)."""
        return None

    def estimated_risk(self) -> float:
        """Estimated risk of the current classifier over the pool."""
        raise NotImplementedError

    def decision_function(self) -> np.ndarray:
        """Current decision values on the pool: (n,) binary, (n, T) multiclass."""
        raise NotImplementedError


def _is_number(x) -> bool:
    return isinstance(x, int | float | np.number) and not isinstance(x, bool)
