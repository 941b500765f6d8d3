"""The inputs of an estimator fitted on a pool with partial labels: ``fit(X_pool, y)`` with the
unlabeled points marked in ``y`` (:mod:`rlscore.core.conventions.missing_labels`).

scikit-learn's ``validate_data(X, y)`` refuses a ``y`` with NaN or None, which is exactly how
an unlabeled point is marked; here ``X`` goes through ``validate_data`` (so ``n_features_in_``,
sparse, complex and non-finite input behave as in every scikit-learn estimator) and ``y`` only
through the checks that hold for missing labels: one dimension, one label per row, and class
labels (not a continuous target) on the labeled points.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d, validate_data

from rlscore.core.conventions.missing_labels import labeled_indices

__all__ = ["validate_partial_labels"]


def validate_partial_labels(
    estimator, X, y, unlabeled: object = None, **check_params
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate a pool ``X`` and its partial labels ``y`` for ``estimator.fit``.

    Parameters
    ----------
    estimator
        The estimator being fitted (``validate_data`` sets its ``n_features_in_``).
    X
        (n, d) pool, or whatever ``check_params`` let ``check_array`` accept.
    y
        (n,) labels with the unlabeled points marked; an (n, 1) column is raveled with
        scikit-learn's ``DataConversionWarning``.
    unlabeled
        The marker of unlabeled points (None: NaN, or None/NaN in an object ``y``).
    **check_params
        Passed to ``check_array`` for ``X`` (``dtype``, ``accept_sparse`` …).

    Returns
    -------
    X, y, labeled
        The validated pool, the labels as a 1-D array and the indices of the labeled points.

    Raises
    ------
    ValueError
        ``y`` is None, is not one label per row, has no labeled point, or its labeled values
        are not class labels (e.g. a continuous target).
    """
    # validate_data raises scikit-learn's "requires y to be passed" itself when y is None
    y_params = {"ensure_2d": False, "dtype": None, "ensure_all_finite": False}
    X, y = validate_data(estimator, X, y, validate_separately=(check_params, y_params))
    y = column_or_1d(y, warn=True)
    n = X.shape[0]
    if y.shape[0] != n:
        raise ValueError(f"y has shape {y.shape} but X has {n} rows: pass one label per row")
    labeled = labeled_indices(y, unlabeled)
    if labeled.size == 0:
        raise ValueError(
            "y has no labeled points: mark unlabeled points with NaN/None (or the value "
            "given as unlabeled) and label at least one point of two classes"
        )
    known = y[labeled]
    # an object y holds None for its unlabeled points: its labels (e.g. ints) decide the type
    check_classification_targets(np.asarray(known.tolist()) if known.dtype == object else known)
    return X, y, labeled
