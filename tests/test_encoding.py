"""The one-vs-all encoder (docs/mathematics.md §1): targets written out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from rlscore.core.conventions.ova_encoding import ova_targets


def test_binary_is_one_column_with_the_second_class_positive():
    np.testing.assert_array_equal(ova_targets([0, 1, 1, 0], 2), [[-1.0], [1.0], [1.0], [-1.0]])
    np.testing.assert_array_equal(ova_targets([1, 0], 2, negative=0.0), [[1.0], [0.0]])


def test_multiclass_has_one_column_per_class():
    np.testing.assert_array_equal(
        ova_targets([2, 0, 1], 3),
        [[-1.0, -1.0, 1.0], [1.0, -1.0, -1.0], [-1.0, 1.0, -1.0]],
    )
    np.testing.assert_array_equal(ova_targets([1], 4, negative=0.0), [[0.0, 1.0, 0.0, 0.0]])


def test_empty_and_scalar_codes():
    assert ova_targets([], 3).shape == (0, 3)
    assert ova_targets([], 2).shape == (0, 1)
    np.testing.assert_array_equal(ova_targets(1, 3), [[-1.0, 1.0, -1.0]])


@pytest.mark.parametrize(
    ("codes", "n_classes", "message"),
    [
        ([0, 1], 1, "at least 2 classes"),
        ([0, 3], 3, r"must lie in \[0, 3\)"),
        ([-1], 2, r"must lie in \[0, 2\)"),
    ],
)
def test_bad_codes_are_named(codes, n_classes, message):
    with pytest.raises(ValueError, match=message):
        ova_targets(codes, n_classes)
