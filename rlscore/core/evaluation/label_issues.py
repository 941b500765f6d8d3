"""The labels that are probably wrong: the exact leave-one-out RLS as a label checker.

Confident learning (Northcutt, Jiang & Chuang 2021, *Confident learning: estimating
uncertainty in dataset labels*, JAIR 70) flags a label when an out-of-sample model confidently
prefers another class; its out-of-sample predictions usually come from K-fold
cross-validation, K refits. RLS gives the *exact* leave-one-out (LOO) decision values of every
labeled point from one fit (docs/mathematics.md §3), so each point is judged by the model
trained on all the other labels (:mod:`rlscore.core.rls.cholesky_loo`: one Cholesky factor
at a given λ or at the λ of the sketched search, the eigendecomposition of the exact search on
a small pool).

For a point with label ``y`` and LOO one-vs-all values ``f`` (a binary ``f`` is the pair
``(−f, f)``), the **label margin** is ``s = max_{j≠y} f_j − f_y``: positive when the LOO
prediction disagrees with the label, by how much it prefers its class. The **score** is a
calibrated chance that the label is wrong: with ``q(m) = P(LOO prediction right | margin m)``
Platt-fitted on the LOO prediction margins ``m`` (the two largest values' gap; ``|s|`` for two
classes and wherever the prediction agrees; :mod:`rlscore.core.evaluation.calibration`), it is
``q(m)`` where the prediction disagrees (the label is wrong when the prediction is right; for
more classes a lower bound) and ``1 − q(m)`` where it agrees (the label can be wrong only if
the prediction is;
docs/mathematics.md §"Which labels are probably wrong"). The labels are ranked by ``s``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rlscore.core.conventions.missing_labels import labeled_indices
from rlscore.core.evaluation.calibration import PlattCalibration, fit_platt
from rlscore.core.rls.confidence import margin

if TYPE_CHECKING:
    import pandas as pd

#: the columns of :func:`label_issues`' table, in order
COLUMNS = ("index", "label", "suggested", "score", "label_margin")


def label_margins(F: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The label margin ``max_{j≠y} f_j − f_y`` of each point (module docstring).

    Parameters
    ----------
    F
        (n,) binary decision values (positive: the second class) or (n, T) one-vs-all values.
    codes
        (n,) position of each point's label among the classes.

    Returns
    -------
    numpy.ndarray
        (n,) margins; > 0 where the argmax of ``F`` is not the label.
    """
    F = np.asarray(F, dtype=np.float64)
    if F.ndim == 1:
        F = np.column_stack([-F, F])  # the binary f as its two OvA columns
    rows = np.arange(F.shape[0])
    own = F[rows, codes]
    others = F.copy()
    others[rows, codes] = -np.inf
    return others.max(axis=1) - own


def label_scores(
    F: np.ndarray, codes: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, PlattCalibration]:
    """Label margins, suggested classes and scores from out-of-sample decision values.

    Parameters
    ----------
    F
        (n,) binary or (n, T) one-vs-all decision values of models that did not train on
        the point (the exact LOO values of RLS).
    codes
        (n,) position of each point's label among the classes.

    Returns
    -------
    label_margin, suggested, score, calibration
        (n,) label margins, (n,) positions of the predicted classes, (n,) calibrated chances
        that the label is wrong, and the Platt calibration behind them (module docstring).
    """
    F = np.asarray(F, dtype=np.float64)
    if F.ndim == 1:
        F = np.column_stack([-F, F])  # the binary f as its two OvA columns
    s = label_margins(F, codes)
    m = margin(F)
    calibration = fit_platt(m, s <= 0)
    # q at the prediction's own margin, the variable it is calibrated on: for more classes the
    # label margin of a disagreeing label is larger (the label need not be the runner-up),
    # and q there overstated the chance that the prediction is right
    q = calibration.probability(m)
    return s, np.argmax(F, axis=1), np.where(s > 0, q, 1.0 - q), calibration


def _labeled_inputs(X, y, kernel: str, sigma, unlabeled) -> tuple:
    """The labeled rows, their labels, classes and class positions, the RLS's inputs on them
    and the RBF width (None for another kernel), with a clear message for bad input."""
    from rlscore.core.kernels.rbf_width import fitted_sigma

    y = np.asarray(y)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must have one row per label: X has shape {X.shape}, y {y.shape}")
    labeled = labeled_indices(y, unlabeled)
    labels = np.asarray(y[labeled].tolist()) if y.dtype == object else y[labeled]
    classes, codes = np.unique(labels, return_inverse=True)
    if labeled.size < 2 or classes.size < 2:
        raise ValueError(
            f"need at least two labeled points of two classes, got {labeled.size} labeled"
        )
    every = labeled.size == X.shape[0]  # every row labeled: no copy (nothing writes to it)
    if kernel == "precomputed":
        if X.shape[1] != X.shape[0]:
            raise ValueError(f"kernel='precomputed' needs the square (n, n) kernel, got {X.shape}")
        inputs, width = (X if every else X[np.ix_(labeled, labeled)]), None
    else:
        inputs, width = (X if every else X[labeled]), fitted_sigma(sigma, kernel, X)
    return labeled, labels, classes, codes, inputs, width


def _unweighted_loo(inputs, labels, classes, codes, kernel: str, width, degree: int, lam) -> tuple:
    """The (n,) or (n, T) exact LOO values and λ without class weights or offset:
    the kernel formed once and :func:`rlscore.core.rls.cholesky_loo.checker_loo` (the
    classifier's parameter rules, none of its estimator machinery)."""
    from sklearn.utils.multiclass import check_classification_targets

    from rlscore.core.conventions.input_validation import (
        check_kernel_matrix,
        check_matrix,
        check_points,
    )
    from rlscore.core.conventions.ova_encoding import ova_targets
    from rlscore.core.conventions.parameter_constraints import check_parameter
    from rlscore.core.kernels.functions import kernel_matrix
    from rlscore.core.rls.cholesky_loo import checker_loo
    from rlscore.core.rls.classifier import RLSClassifier

    rules = RLSClassifier.parameter_constraints
    for name, value in (("kernel", kernel), ("degree", degree), ("lam", lam)):
        check_parameter(name, value, rules[name])
    inputs = check_matrix(inputs, "X", min_samples=2)
    # as the classifier: no continuous (or multi-output) labels; a vector of integers or
    # strings is classes, and sklearn's check of it cost as much as the λ search (150 labels)
    if labels.ndim != 1 or labels.dtype.kind not in "biuUS":
        check_classification_targets(labels)
    if kernel == "precomputed":
        K = check_kernel_matrix(inputs)
    else:  # symmetric by construction, finite unless a linear or polynomial kernel overflows
        K = kernel_matrix(inputs, kernel=kernel, sigma=width, degree=int(degree))
        check_points(K, "the kernel matrix contains")
    loo, lam_used = checker_loo(K, ova_targets(codes, classes.size), lam)
    return (loo[:, 0] if classes.size == 2 else loo), float(lam_used)


def _classifier_loo(inputs, labels, kernel, width, degree, lam, class_weight, offset, prior):
    """The classes, exact LOO values and λ of :class:`~rlscore.core.rls.classifier.RLSClassifier`
    (class weights, an offset)."""
    from rlscore.core.rls.classifier import RLSClassifier

    # the width is fixed before the fit: a rule read off the labeled rows would change with
    # each left-out point
    clf = RLSClassifier(
        kernel=kernel,
        sigma=1.0 if width is None else width,
        degree=degree,
        lam=lam,
        class_weight=class_weight,
        offset=offset,
        offset_precision=prior,
    ).fit(inputs, labels)
    return clf.classes_, clf.loo_decision_, float(clf.lam_)


def label_issues(
    X,
    y,
    *,
    kernel: str = "rbf",
    sigma: float | str = "median",
    lam: float | str = "auto",
    class_weight: None | str | dict = None,
    degree: int = 2,
    offset: bool = False,
    offset_precision: float = 0.0,
    unlabeled: object = None,
) -> pd.DataFrame:
    """Rank the labeled points by the chance that their label is wrong.

    Parameters
    ----------
    X
        (n, d) inputs, or the (n, n) kernel when ``kernel="precomputed"`` (a graph kernel
        over the pool: :func:`rlscore.graph_kernel`).
    y
        (n,) labels; unlabeled points are marked as in
        :mod:`rlscore.core.conventions.missing_labels` (NaN/None by default) and skipped.
    kernel, degree, class_weight, offset, offset_precision
        The RLS model (:class:`rlscore.core.rls.classifier.RLSClassifier`).
    sigma
        RBF width, or a rule (``"median"``, ``"scale"``) read off every row of ``X``, the
        unlabeled ones included, once: every leave-one-out model has the same width.
    lam
        λ > 0, or ``"auto"``: chosen once by the LOO classification error on the labels —
        exact on up to 250 labels, of a randomized low-rank sketch of the kernel on more
        (:func:`rlscore.core.rls.cholesky_loo.checker_loo`; with class weights or an offset,
        exact, by :class:`~rlscore.core.rls.classifier.RLSClassifier`). The LOO values are
        exact at the λ chosen either way.
    unlabeled
        The marker of an unlabeled point (None: NaN, or None in an object ``y``).

    Returns
    -------
    pandas.DataFrame
        One row per labeled point, most suspicious first: by ``label_margin``, i.e. the
        labels the LOO model disagrees with first, then the others (the agreeing ones, and
        for two classes every group, also by ``score``; docs/mathematics.md, "Which labels
        are probably wrong"): ``index`` (row of ``X``), ``label``, ``suggested`` (the class
        the LOO model predicts), ``score`` (calibrated chance in [0, 1] that the label is
        wrong) and ``label_margin`` (module docstring). ``attrs`` holds the ``lam`` and
        ``sigma`` used and the calibration's ``slope`` and ``intercept``.

    Raises
    ------
    ValueError
        Fewer than two labeled points or classes, or a bad parameter (the classifier's message).
    """
    import pandas as pd

    labeled, labels, classes, codes, inputs, width = _labeled_inputs(X, y, kernel, sigma, unlabeled)
    if class_weight is None and not offset:
        loo, lam_used = _unweighted_loo(inputs, labels, classes, codes, kernel, width, degree, lam)
    else:
        classes, loo, lam_used = _classifier_loo(
            inputs, labels, kernel, width, degree, lam, class_weight, offset, offset_precision
        )
        codes = np.searchsorted(classes, labels)
    s, suggested, score, calibration = label_scores(loo, codes)
    # the order is the label margin's, not the score's: for two classes the two agree within
    # the disagreeing and within the agreeing labels (for more, the score is read at the
    # prediction's margin and need not follow), and the calibration (fitted against noisy
    # labels) can put an agreeing label above a disagreeing one — worse, measured
    # (docs/mathematics.md).
    # Largest margin first, ties in input order; sorted before the frame is built (cheaper)
    order = np.argsort(-s, kind="stable")
    columns = (labeled, labels, classes[suggested], score, s)
    table = pd.DataFrame(  # fresh arrays: no copy needed
        {name: values[order] for name, values in zip(COLUMNS, columns, strict=True)}, copy=False
    )
    table.attrs.update(
        lam=lam_used, sigma=width, slope=calibration.slope, intercept=calibration.intercept
    )
    return table


__all__ = ["COLUMNS", "label_issues", "label_margins", "label_scores"]
