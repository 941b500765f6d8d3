"""A tuning report for a candidate σ and λ: what the Tune page shows, usable from Python.

The candidate is the RLS classifier of :mod:`rlscore.core.rls.classifier` fitted on a session's
labeled points; the report holds its exact leave-one-out curve over a λ grid, the automatic λ
(docs/mathematics.md §3, Paskov §4.1: the largest λ with the least LOO classification error over the
data's own grid, kept within the λ range the page's sliders span: :func:`auto_lams`), and gives
the error-rate certificate and the interval of offsets meeting two error-rate targets
(docs/mathematics.md §8) of one class against the rest. :class:`TuningModel` says which RLS
stands for a labeling session's settings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rlscore.core.classifiers.rls_certificate import rls_certificate, rls_offset_interval
from rlscore.core.conventions.json_values import plain_scalar
from rlscore.core.kernels.functions import VECTOR_KERNELS
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.core.rls.confidence import METHODS, loo_reliability
from rlscore.core.rls.path import RLSPath, lams_within
from rlscore.query import make_strategy
from rlscore.sessions.state.loo_refit import loo_labels

#: λ values of the curve spread evenly (in log₁₀) over the range asked for; the data's own
#: grid, where the automatic λ is chosen, and the marked values are added to them
CURVE_POINTS = 57
#: the candidate's confidence measures (:meth:`RLSClassifier.confidence`)
CONFIDENCE_METHODS = METHODS
#: labels a candidate needs: leave-one-out on at least 3 points of at least 2 classes
MIN_LABELS = 3
MIN_CLASSES = 2
#: labels per class the certificate needs (class means and covariances)
MIN_PER_CLASS_CERTIFIED = 2


@dataclass(frozen=True)
class TuningModel:
    """The RLS classifier that stands for a labeling session's settings on the Tune page.

    Attributes
    ----------
    kernel : str
        A vector kernel: the session's own, or ``"rbf"`` when the session uses a graph kernel
        (a graph kernel is defined on the pool only, so no candidate σ can be tried on it).
    class_weight : None, str or dict
        The session's class weights, else the strategy's own default (e.g. ``"balanced"`` for
        the weighted ARLS strategy).
    session_kernel : str
        The session's kernel setting.
    """

    kernel: str
    class_weight: str | dict | None
    session_kernel: str

    @classmethod
    def for_settings(
        cls, strategy: str, kernel: str, class_weight: str | dict | None = None
    ) -> TuningModel:
        """The model for a session's strategy, kernel and class-weight settings.

        Parameters
        ----------
        strategy : str
            A strategy name of :data:`rlscore.query.STRATEGIES`; asked for its default class
            weights (a strategy without class weights has none).
        kernel : str
            The session's kernel.
        class_weight : None, str or dict
            The session's class weights; None means the strategy's default.
        """
        default_weight = make_strategy(strategy).get_params().get("class_weight")
        return cls(
            kernel=kernel if kernel in VECTOR_KERNELS else "rbf",
            class_weight=class_weight or default_weight,
            session_kernel=kernel,
        )

    @property
    def has_width(self) -> bool:
        """Whether the candidate's kernel has a width σ to tune (the RBF kernel)."""
        return self.kernel == "rbf"

    @property
    def replaces_graph_kernel(self) -> bool:
        """Whether the candidate uses another kernel than the session (a graph kernel)."""
        return self.kernel != self.session_kernel


def can_tune(labels: Mapping[int, object]) -> bool:
    """Whether the labels are enough for a candidate: :data:`MIN_LABELS` points of at least
    :data:`MIN_CLASSES` classes."""
    return (
        len(labels) >= MIN_LABELS and len({plain_scalar(c) for c in labels.values()}) >= MIN_CLASSES
    )


def auto_lams(lam_range: tuple[float, float], data_grid: np.ndarray) -> np.ndarray:
    """The sorted λ values the automatic λ is chosen from: the data's own grid, each value
    beyond ``lam_range`` (log₁₀) moved to the range's nearer end.

    The range is what the Tune page's and the sidebar's λ sliders span: a λ beyond it could be
    applied but not shown, and far below it (10⁻¹² with σ = 100 on a small pool) the model's
    decision values at new points are rounding noise, though its LOO errors still look best.
    """
    return lams_within(data_grid, tuple(10.0 ** np.asarray(lam_range, dtype=float)))


def curve_lams(
    lam_range: tuple[float, float], data_grid: np.ndarray, marked: Iterable[float] = ()
) -> np.ndarray:
    """The sorted λ values of a report's curve: :data:`CURVE_POINTS` values evenly spread in
    log₁₀ over ``lam_range``, the data's own grid and the ``marked`` values."""
    spread = np.logspace(*lam_range, CURVE_POINTS)
    return np.union1d(np.union1d(spread, data_grid), np.asarray(list(marked), dtype=float))


@dataclass
class TuningReport:
    """A fitted candidate and its leave-one-out figures (see :func:`tuning_report`).

    Attributes
    ----------
    classifier : RLSClassifier
        The candidate, fitted on the labeled points.
    curve : pandas.DataFrame
        Exact LOO errors per λ (:meth:`RLSClassifier.loo_curve`) over :func:`curve_lams`.
    lam_auto : float
        The automatic λ: the largest λ with the least LOO classification error among
        :func:`auto_lams` (the data's own grid, kept within the curve's λ range).
    y : ndarray (l,)
        The labels the candidate was fitted on.
    """

    classifier: RLSClassifier
    curve: pd.DataFrame
    lam_auto: float
    y: np.ndarray

    @property
    def classes(self) -> list:
        """The candidate's classes as plain Python scalars."""
        return [plain_scalar(c) for c in self.classifier.classes_]

    @property
    def class_weighted(self) -> bool:
        """Whether the candidate has class weights: its LOO errors are then class-weighted
        (a point counts with its class's error weight), not shares of the labeled points."""
        return self.classifier.class_weight is not None

    @property
    def loo_wrong(self) -> int:
        """The labeled points whose exact leave-one-out prediction at the candidate's λ is
        wrong, each counted once whatever the class weights."""
        return int(np.sum(loo_labels(self.classifier) != self.classifier.y_fit_))

    @property
    def binary(self) -> bool:
        """Two classes: the certificate is the classifier's own (else one class vs the rest)."""
        return len(self.classes) == 2

    @property
    def certifiable(self) -> bool:
        """Whether every class has :data:`MIN_PER_CLASS_CERTIFIED` labels (class moments)."""
        counts = [np.sum(self.y == c) for c in self.classifier.classes_]
        return min(counts) >= MIN_PER_CLASS_CERTIFIED

    def positive_class(self, chosen=None):
        """The positive class of the certificate: ``chosen`` (one vs the rest), or for two
        classes the second one when none is chosen."""
        if chosen is None:
            if not self.binary:
                raise ValueError("a multiclass candidate needs the class certified vs the rest")
            return self.classes[1]
        if plain_scalar(chosen) not in self.classes:
            raise ValueError(f"class {chosen!r} is not one of the candidate's {self.classes}")
        return plain_scalar(chosen)

    def certificate(self, moments: str = "chebyshev", positive=None):
        """Worst-case error rates of ``positive`` vs the rest
        (:func:`~rlscore.core.classifiers.rls_certificate.rls_certificate`)."""
        return rls_certificate(
            self.classifier, moments=moments, positive=self.positive_class(positive)
        )

    def offset_interval(
        self, targets: tuple[float, float], moments: str = "chebyshev", positive=None
    ):
        """Offsets meeting the (false-negative, false-positive) ``targets`` for ``positive``
        vs the rest (:func:`~rlscore.core.classifiers.rls_certificate.rls_offset_interval`)."""
        return rls_offset_interval(
            self.classifier, targets, moments=moments, positive=self.positive_class(positive)
        )

    def column(self, positive) -> int:
        """The one-vs-rest column of class ``positive`` in the candidate's decision values."""
        return self.classes.index(self.positive_class(positive))

    def class_decision_grid(self, grid: tuple, positive) -> tuple:
        """``(xs, ys, F)`` of :func:`rlscore.viz.plane.geometry.grid_surface` with F narrowed to
        the decision values of ``positive``'s own one-vs-rest column (unchanged for two
        classes, whose F is already a single column)."""
        xs, ys, F = grid
        if self.binary:
            return grid
        return xs, ys, F[..., self.column(positive)]

    def confidence(self, X, method: str = "soft") -> np.ndarray:
        """The candidate's confidence at every row of ``X``
        (:meth:`RLSClassifier.confidence`)."""
        return self.classifier.confidence(X, method)

    def reliability(self, method: str = "soft", bins: int = 10) -> pd.DataFrame:
        """Reliability table of the exact LOO predictions of the labeled points."""
        return loo_reliability(self.classifier, method=method, bins=bins)


def tuning_report(
    X: np.ndarray,
    labels: Mapping[int, object],
    *,
    sigma: float,
    lam: float,
    model: TuningModel,
    lam_range: tuple[float, float] = (-4.0, 3.0),
    marked: Sequence[float] = (),
) -> TuningReport:
    """Fit the candidate σ, λ on the labeled points and compute its LOO curve and automatic λ.

    Parameters
    ----------
    X : ndarray (n, d)
        The pool's features.
    labels : mapping
        Pool index -> label (at least :func:`can_tune`).
    sigma, lam : float
        The candidate's RBF width and regularisation.
    model : TuningModel
        Kernel and class weights of the candidate.
    lam_range : (float, float)
        log₁₀ range the curve spans besides the data's own grid, and the automatic λ is
        kept within (:func:`auto_lams`).
    marked : sequence of float
        λ values the curve must contain (``lam`` always is), e.g. the session's.

    Returns
    -------
    TuningReport

    Raises
    ------
    ValueError, numpy.linalg.LinAlgError, MemoryError
        When the candidate cannot be fitted (bad values, too few labels, no memory).
    """
    idx = list(labels)
    y = np.asarray(list(labels.values()))
    clf = RLSClassifier(kernel=model.kernel, sigma=sigma, lam=lam, class_weight=model.class_weight)
    clf.fit(np.asarray(X)[idx], y)
    curve = clf.loo_curve(curve_lams(lam_range, clf.default_lams(), [lam, *marked]))
    lam_auto = RLSPath.best_lam(
        clf.loo_curve(auto_lams(lam_range, clf.default_lams())), "classification"
    )
    return TuningReport(classifier=clf, curve=curve, lam_auto=lam_auto, y=y)


__all__ = [
    "CONFIDENCE_METHODS",
    "CURVE_POINTS",
    "MIN_LABELS",
    "MIN_PER_CLASS_CERTIFIED",
    "TuningModel",
    "TuningReport",
    "auto_lams",
    "can_tune",
    "curve_lams",
    "tuning_report",
]
