"""Graph-OCL: one-class (positive-unlabeled) learning by LGC ranking and spies (Sheng §3.5).

Algorithm (Sheng Algorithms 5 and 6, docs/mathematics.md §8), on a pool ``X`` of which some points
are known
positives and the rest are unlabeled:

1. **Spies.** A random 10 % of the labeled positives (at least one; ``spy_fraction``) are hidden
   in the unlabeled set (§3.5.2, after the S-EM spies of Liu et al.).
2. **LGC ranking.** Two columns, positive and negative; ``Y_i = (1, 0)`` for the remaining
   labeled positives and ``(½, ½)`` for every other point (§3.5.1); ``F* = (1 − α)(I − αS)⁻¹Y``
   with ``S = D⁻¹W`` (Sheng eq. 3.5) and a small α (the thesis uses 0.001, below its bound
   ``B_α = 0.005`` of eq. 3.37). Rows of ``F*`` sum to one, so ranking by the negative column
   ``F_{i2}`` is ranking by the positive column ``F_{i1}`` reversed. At α = 0.001 the ``F*`` of
   points a few hops from every label differ below double precision, so the ranking uses the
   exact scores of :func:`rlscore.core.graph.lgc.one_class_log_scores` (α ≤ 0.5).
3. **Reliable negatives** (§3.5.2): the unlabeled points whose ``F_{i2}`` is greater than the
   highest ``F_{i2}`` of the spies — the points ranked below every spy by the positive column.
   If there are more than the number l of labeled positives, only the l with the highest
   ``F_{i2}`` are kept.
4. **Classifier** on the labeled positives (spies included) and the reliable negatives. The
   thesis uses a transductive SVM (SVMlight, §3.5.3) with the linear kernel; here it is
   :class:`rlscore.core.rls.classifier.RLSClassifier` (docs/mathematics.md §8), an inductive
   classifier, so :meth:`GraphOCL.predict` works on any points.

Where the text is ambiguous:

* Algorithm 6 runs Algorithm 5 twice ("to determine R", then "again and select R most
  reliable negative samples"), while §3.5.2 describes one run. The default follows §3.5.2 and
  docs/mathematics.md §8 (one run, spies hidden); ``second_pass=True`` re-ranks with the spies
  restored as
  labeled positives and takes the R lowest-ranked unlabeled points.
* l ("the number of the positive labeled ones") is read as all labeled positives, spies
  included.
* The thesis derives ``W`` from the classifier's kernel (the normalised kernel, eq. 3.42: the
  cosine similarity for the linear kernel, fully connected). ``affinity="kernel"`` does that
  (dense, O(n²) memory; negative similarities clipped to 0, self-similarities dropped);
  the default ``affinity="knn"`` is a sparse kNN graph that scales to large pools.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from rlscore.core.conventions.parameter_constraints import (
    Booleans,
    Interval,
    Options,
    Validated,
    check_parameters,
)
from rlscore.core.graph.lgc import check_alpha, initial_labels, lgc_solve, one_class_log_scores
from rlscore.core.kernels.functions import VECTOR_KERNELS, kernel_matrix, knn_graph
from rlscore.core.kernels.rbf_width import DEFAULT_SIGMA, fitted_sigma
from rlscore.core.rls.classifier import RLSClassifier

__all__ = ["GraphOCL", "reliable_negatives", "spy_count"]


class NoReliableNegativeError(ValueError):
    """No unlabeled point ranks below every spy: the graph tells the spies from nothing."""


def spy_count(n_positives: int, spy_fraction: float = 0.1) -> int:
    """Number of spies: ``spy_fraction`` of the labeled positives, rounded half up, at least 1.

    Parameters
    ----------
    n_positives
        Labeled positives l ≥ 2 (one must stay labeled).
    spy_fraction
        Sheng §3.5.2 uses 10 %.
    """
    count = int(np.floor(spy_fraction * n_positives + 0.5))
    return int(min(max(count, 1), n_positives - 1))


def reliable_negatives(
    scores: np.ndarray, candidates: np.ndarray, spies: np.ndarray, max_count: int
) -> tuple[np.ndarray, int]:
    """Sheng §3.5.2: candidates ranked below every spy, at most ``max_count`` of them.

    Parameters
    ----------
    scores
        (n,) scores increasing with ``F*_{i1}`` over the candidates and spies (Graph-OCL
        passes the exact ``log P`` of :func:`~rlscore.core.graph.lgc.one_class_log_scores`).
    candidates
        Indices of the unlabeled, non-spy points.
    spies
        Indices of the spies (non-empty).
    max_count
        The cap l.

    Returns
    -------
    (indices, n_below)
        The reliable negatives, lowest score first (ties by index), and how many candidates
        were below every spy before the cap.
    """
    floor = scores[spies].min()
    below = candidates[scores[candidates] < floor]
    order = np.lexsort((below, scores[below]))
    return below[order][:max_count], int(below.size)


class GraphOCL(BaseEstimator):
    """Graph-based one-class learning (Sheng §3.5, Algorithms 5–6) with an RLS classifier.

    Parameters
    ----------
    n_neighbors, metric, weights, heat_width
        The symmetric kNN graph ``W`` (:func:`rlscore.core.kernels.functions.knn_graph`).
    affinity : {"knn", "kernel"}
        ``"kernel"``: ``W`` = the classifier's kernel normalised as in Sheng eq. 3.42
        (``K_ij / √(K_ii K_jj)``; cosine similarity for the linear kernel), dense.
    alpha : float
        LGC α (Sheng eq. 3.2); 0.001 as in the thesis's experiments (§3.5.5), below the
        ``B_α = 0.005`` of eq. 3.37.
    spy_fraction : float
        Fraction of the labeled positives used as spies (0.1, §3.5.2); at least one.
    second_pass : bool
        Re-rank with the spies labeled before taking the reliable negatives (Algorithm 6,
        steps 3–4); default False (§3.5.2 and docs/mathematics.md §8: one ranking).
    kernel, degree, lam, class_weight, offset
        The :class:`~rlscore.core.rls.classifier.RLSClassifier` trained on the labeled positives and
        the reliable negatives (the thesis: a TSVM with the linear kernel, §3.5.3).
    sigma : float or {"median", "scale"}
        Its RBF width σ, or a rule reading σ off the whole pool ``X``: ``"median"`` (default),
        the median distance between two points, or ``"scale"``, scikit-learn's
        ``gamma="scale"`` (:mod:`rlscore.core.kernels.rbf_width`). A constant default was a trap on
        unscaled data: on scikit-learn's digits 3-vs-8 (pixels 0–16, 50 labeled 3s) σ = 1
        makes the classifier's kernel the identity and labels 63–65 % of the pool right,
        the median width 96.9–99.7 % (``tests/test_kernel_width.py``, 5 draws).
    random_state : int, RandomState or None
        Draws the spies.

    Attributes
    ----------
    spies_ : ndarray — pool indices of the spies (sorted).
    reliable_negatives_ : ndarray — pool indices of the reliable negatives, most negative first.
    n_below_spies_ : int — unlabeled points ranked below every spy, before the cap l.
    ranking_scores_ : ndarray (n,) — increasing with ``F*_{i1}``, the positive column of LGC
        with the spies hidden (``log P`` of :func:`~rlscore.core.graph.lgc.one_class_log_scores` for
        α ≤ 0.5, ``-inf`` for points cut off from every labeled positive; ``H_{i1}`` above).
    positives_ : ndarray — pool indices of the labeled positives.
    classifier_ : RLSClassifier — fitted on ``positives_`` (+1) and ``reliable_negatives_`` (−1).
    transduction_ : ndarray (n,) bool — the classifier's prediction on the pool.
    sigma_ : float or None — the RBF width used (None for the other kernels).
    """

    parameter_constraints = {
        "n_neighbors": (Interval(Integral, 1, None),),
        "metric": (Options("euclidean", "cosine"),),
        "weights": (Options("binary", "heat"),),
        "heat_width": (Interval(Real, 0, None, closed="neither"),),
        "affinity": (Options("knn", "kernel"),),
        "alpha": (Validated(check_alpha),),
        "spy_fraction": (Interval(Real, 0, 1, closed="neither"),),
        "second_pass": (Booleans(),),
        "kernel": (Options(*VECTOR_KERNELS),),
        # the classifier's own parameters, checked before the graph is built
        **{
            name: RLSClassifier.parameter_constraints[name]
            for name in ("sigma", "degree", "lam", "offset")
        },
    }

    def __init__(
        self,
        n_neighbors: int = 10,
        *,
        metric: str = "euclidean",
        weights: str = "binary",
        heat_width: float = 1.0,
        affinity: str = "knn",
        alpha: float = 0.001,
        spy_fraction: float = 0.1,
        second_pass: bool = False,
        kernel: str = "rbf",
        sigma: float | str = DEFAULT_SIGMA,
        degree: int = 2,
        lam: float | str = 1.0,
        class_weight: None | str | dict = "balanced",
        offset: bool = True,
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.n_neighbors = n_neighbors
        self.metric = metric
        self.weights = weights
        self.heat_width = heat_width
        self.affinity = affinity
        self.alpha = alpha
        self.spy_fraction = spy_fraction
        self.second_pass = second_pass
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.lam = lam
        self.class_weight = class_weight
        self.offset = offset
        self.random_state = random_state

    # -- fitting -------------------------------------------------------------------------------
    def _ranking(self, W: sp.csr_matrix, labeled: np.ndarray) -> np.ndarray:
        """Scores ordered as ``F*_{i1}`` (Sheng Algorithm 5) with ``labeled`` as the only labels.

        For α ≤ 0.5 the exact ``log P`` of :func:`~rlscore.core.graph.lgc.one_class_log_scores`
        (``F*_{i1} = ½ + ½(1 − α)P_i``): at α = 0.001 the ``F*`` of points a few hops from
        every label differ below double precision, and rounding would pick the negatives.
        Above, ``H_{i1}`` of :func:`~rlscore.core.graph.lgc.lgc_solve`, which orders every point
        with the initial row ``(½, ½)`` as ``F*_{i1}`` does.
        """
        alpha = float(self.alpha)
        if alpha <= 0.5:
            return one_class_log_scores(W, labeled, alpha)
        codes = np.full(W.shape[0], -1)
        codes[labeled] = 0
        return lgc_solve(W, initial_labels(codes, 2, "uniform"), alpha, "random_walk").H[:, 0]

    def _check_params(self) -> None:
        if self.kernel == "precomputed":  # the likely mistake gets its own hint
            raise ValueError("GraphOCL needs the points X, not a precomputed kernel")
        check_parameters(self)

    def _affinity(self, X: np.ndarray, sigma: float | None) -> sp.csr_matrix:
        if self.affinity == "knn":
            return knn_graph(
                X,
                k=int(self.n_neighbors),
                metric=self.metric,
                weights=self.weights,
                heat_width=self.heat_width,
            )
        K = kernel_matrix(X, kernel=self.kernel, sigma=sigma, degree=int(self.degree))
        diag = np.sqrt(np.clip(np.diag(K), 1e-300, None))
        W = K / np.outer(diag, diag)  # Sheng eq. 3.42
        np.fill_diagonal(W, 0.0)
        return sp.csr_matrix(np.maximum(W, 0.0))

    def _validate(self, X, positive_mask) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pool as floats, the labeled positives and the unlabeled points, or raise."""
        X = validate_data(self, X, dtype=np.float64)
        n = X.shape[0]
        if n < 3:
            raise ValueError(
                f"X has {n} rows; at least 3 are needed, 2 labeled positives and an unlabeled "
                f"point (n_samples = {n})"
            )
        mask = np.asarray(positive_mask)
        if mask.shape != (n,) or mask.dtype.kind not in "bui":
            raise ValueError(
                f"positive_mask must be ({n},) booleans (True = labeled positive), got "
                f"shape {mask.shape} and dtype {mask.dtype}"
            )
        if mask.dtype.kind != "b" and not np.isin(mask, (0, 1)).all():
            raise ValueError("positive_mask must hold booleans or 0/1 values")
        positives = np.flatnonzero(mask)
        if positives.size == 0:
            raise ValueError(
                "positive_mask has no labeled positive: Graph-OCL learns from positives only, "
                "label at least 2"
            )
        if positives.size < 2:
            raise ValueError(
                "Graph-OCL needs at least 2 labeled positives (one becomes a spy, one stays "
                f"labeled), got {positives.size}"
            )
        if positives.size == n:
            raise ValueError("every point is a labeled positive: no unlabeled point to classify")
        if self.affinity == "knn" and self.n_neighbors >= n:
            raise ValueError(
                f"n_neighbors={self.n_neighbors} needs more than {self.n_neighbors} points, "
                f"X has {n}"
            )
        return X, positives, np.flatnonzero(mask == 0)

    def _find_negatives(
        self, W: sp.csr_matrix, positives: np.ndarray, unlabeled: np.ndarray, spies: np.ndarray
    ) -> tuple[np.ndarray, int, np.ndarray]:
        """Sheng Algorithms 5–6: the reliable negatives (most negative first), how many
        unlabeled points ranked below every spy, and the ranking scores with the spies hidden."""
        labeled = np.setdiff1d(positives, spies)  # the spies hide among the unlabeled
        scores = self._ranking(W, labeled)
        negatives, n_below = reliable_negatives(scores, unlabeled, spies, positives.size)
        if negatives.size == 0:
            raise NoReliableNegativeError(
                "no reliable negative: every unlabeled point ranks at or above some spy (the "
                "graph gives the spies no lower score than the rest); label more positives, "
                "change n_neighbors, or use a smaller spy_fraction"
            )
        if self.second_pass:
            again = self._ranking(W, positives)
            order = np.lexsort((unlabeled, again[unlabeled]))
            negatives = unlabeled[order][: negatives.size]
        return negatives, n_below, scores

    def fit(self, X: np.ndarray, positive_mask: np.ndarray) -> GraphOCL:
        """Find reliable negatives among the unlabeled points of ``X`` and fit the classifier.

        Parameters
        ----------
        X
            (n, d) pool: the labeled positives and the unlabeled points.
        positive_mask
            (n,) booleans, True for the labeled positives; everything else is unlabeled.
        """
        self._check_params()
        X, positives, unlabeled = self._validate(X, positive_mask)
        rng = check_random_state(self.random_state)
        spies = np.sort(
            rng.choice(positives, spy_count(positives.size, self.spy_fraction), replace=False)
        )
        sigma = fitted_sigma(self.sigma, self.kernel, X)
        W = self._affinity(X, sigma)
        negatives, n_below, scores = self._find_negatives(W, positives, unlabeled, spies)
        train = np.concatenate([positives, negatives])
        y_train = np.concatenate([np.ones(positives.size), -np.ones(negatives.size)])
        clf = RLSClassifier(
            kernel=self.kernel,
            sigma=1.0 if sigma is None else sigma,
            degree=self.degree,
            lam=self.lam,
            class_weight=self.class_weight,
            offset=self.offset,
        )
        clf.fit(X[train], y_train)
        self.spies_ = spies
        self.positives_ = positives
        self.reliable_negatives_ = negatives
        self.n_below_spies_ = n_below
        self.ranking_scores_ = scores
        self.affinity_ = W
        self.sigma_ = sigma
        self.classifier_ = clf
        self.transduction_ = clf.decision_function(X) > 0
        return self

    # -- prediction ----------------------------------------------------------------------------
    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """RLS decision values ``f(x)`` (> 0: positive) of any points."""
        check_is_fitted(self, "classifier_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.classifier_.decision_function(X)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """True for the points predicted positive."""
        return self.decision_function(X) > 0
