"""The inputs of an estimator fitted on a partially labeled pool
(rlscore.core.conventions.partial_labels), against hand-written cases."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import DataConversionWarning

from rlscore.core.conventions.partial_labels import validate_partial_labels

X = np.arange(12.0).reshape(6, 2)


class _Pool(ClassifierMixin, BaseEstimator):
    """A bare classifier: validate_partial_labels needs only its tags and n_features_in_."""


@pytest.mark.parametrize(
    ("y", "unlabeled", "labeled"),
    [
        (np.array([0.0, np.nan, 1.0, np.nan, 1.0, 0.0]), None, [0, 2, 4, 5]),
        (np.array(["a", None, "b", "a", None, "b"], dtype=object), None, [0, 2, 3, 5]),
        (np.array([3, None, 3, 4, 4, None], dtype=object), None, [0, 2, 3, 4]),
        (np.array([1, -1, -1, 2, 2, 1]), -1, [0, 3, 4, 5]),
        (np.array([1, 2, 1, 2, 1, 2]), None, [0, 1, 2, 3, 4, 5]),
    ],
)
def test_labeled_points_and_markers(y, unlabeled, labeled):
    est = _Pool()
    Xv, yv, idx = validate_partial_labels(est, X, y, unlabeled, dtype=np.float64)
    assert est.n_features_in_ == 2
    assert Xv.dtype == np.float64 and yv.shape == (6,)
    np.testing.assert_array_equal(idx, labeled)


def test_a_column_of_labels_is_raveled_with_a_warning():
    with pytest.warns(DataConversionWarning):
        _, y, _ = validate_partial_labels(_Pool(), X, np.array([[0], [1], [0], [1], [0], [1]]))
    assert y.shape == (6,)


@pytest.mark.parametrize(
    ("y", "message"),
    [
        (None, "requires y to be passed"),
        (np.array([0, 1, 0]), r"y has shape \(3,\) but X has 6 rows"),
        (np.full(6, np.nan), "y has no labeled points"),
        (np.array([0.1, 0.2, np.nan, 0.3, 0.4, 0.5]), "Unknown label type: continuous"),
    ],
)
def test_refused_labels_are_named(y, message):
    with pytest.raises(ValueError, match=message):
        validate_partial_labels(_Pool(), X, y)


def test_the_pool_goes_through_scikit_learns_checks():
    with pytest.raises(ValueError, match="Input X contains NaN"):
        validate_partial_labels(_Pool(), np.where(X > 10, np.nan, X), np.zeros(6))
    with pytest.raises(TypeError, match="Sparse data was passed"):
        validate_partial_labels(_Pool(), sp.csr_matrix(X), np.zeros(6))
