"""The per-click label codes of a session's history, in one vectorized pass: the codes of the
predictions and the validation errors equal a per-point Python reference (one dict lookup per
point), for integer, string, boolean and mixed-type labels."""

from __future__ import annotations

import numpy as np
import pytest
from reference.label_codes import class_codes as reference_codes
from reference.label_codes import validation_errors as reference_errors
from sklearn.metrics import balanced_accuracy_score

from rlscore.core.evaluation import validation_error as metrics
from rlscore.core.evaluation.validation_error import validation_errors
from rlscore.sessions.views.diagnostics import class_codes

RNG = np.random.default_rng(0)
CASES = {
    "int": (np.array([-1, 1, 3]), RNG.choice([-1, 1, 3], 500), RNG.choice([-1, 1, 3], 500)),
    "str": (
        np.array(["no", "yes", "maybe"]),
        RNG.choice(["no", "yes", "maybe"], 500),
        RNG.choice(["no", "yes"], 500),
    ),
    "bool": (np.array([False, True]), RNG.random(300) < 0.3, RNG.random(300) < 0.5),
    # a project's truth and an engine's classes are object arrays of plain scalars
    "object ints": (
        np.array([-1, 1], dtype=object),
        RNG.choice([-1, 1], 400).astype(object),
        RNG.choice([-1, 1], 400).astype(object),
    ),
    "object mixed": (
        np.array([1, "1"], dtype=object),
        np.array([1, "1"] * 50, dtype=object),
        np.array(["1", 1, 1, "1"] * 25, dtype=object),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_class_codes_equal_the_per_point_lookup(case):
    classes, truth, pred = CASES[case]
    for labels in (truth, pred):
        codes = class_codes(labels, classes.tolist())
        np.testing.assert_array_equal(codes, reference_codes(labels, classes.tolist()))


def test_class_codes_refuse_an_unknown_class():
    with pytest.raises(KeyError):
        class_codes(np.array([1, 2, 5]), [1, 2])


@pytest.mark.parametrize("case", sorted(CASES))
def test_validation_errors_equal_the_reference(case):
    _, truth, pred = CASES[case]
    got = validation_errors(truth, pred)
    want = reference_errors(truth, pred)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_balanced_error_is_scikit_learns_with_a_class_absent_from_the_truth():
    truth = np.array([0, 0, 1, 1, 1])
    pred = np.array([0, 2, 1, 2, 1])  # class 2 is predicted, never true
    with pytest.warns(UserWarning):
        want = 1.0 - balanced_accuracy_score(truth, pred)
    assert validation_errors(truth, pred)[1] == pytest.approx(want, abs=1e-15)


def test_numbers_and_their_strings_are_different_labels():
    assert validation_errors(np.array([1, 1]), np.array(["1", "1"])) == (1.0, 1.0)
    assert validation_errors([1, 1], [1, 1]) == (0.0, 0.0)


def test_empty_and_mismatched_inputs():
    assert validation_errors([], []) == (None, None)
    with pytest.raises(ValueError, match="3 true labels but 2 predictions"):
        validation_errors([1, 2, 3], [1, 2])


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("size", [1, 5, 64])
def test_a_few_labels_are_coded_as_a_whole_pool_is(case, size, monkeypatch):
    """Up to SMALL_LABELS labels are coded in Python, without pandas: the same codes and
    distinct labels as pandas' hashed pass gives them (NaNs one label)."""
    _, truth, _ = CASES[case]
    labels = truth[:size]
    small = metrics.label_codes(labels)
    monkeypatch.setattr(metrics, "SMALL_LABELS", -1)  # the whole-pool path for any size
    codes, distinct = metrics.label_codes(labels)
    np.testing.assert_array_equal(small[0], codes)
    assert small[1] == distinct


def test_a_few_labels_with_nans_are_coded_as_a_whole_pool_is(monkeypatch):
    labels = np.array([np.nan, 1.0, np.nan, -0.0, 0.0, 2.5])
    small = metrics.label_codes(labels)
    monkeypatch.setattr(metrics, "SMALL_LABELS", -1)
    codes, distinct = metrics.label_codes(labels)
    np.testing.assert_array_equal(small[0], codes)
    np.testing.assert_array_equal(small[1], distinct)  # NaN equals NaN here
    assert list(small[0]) == [0, 1, 0, 2, 2, 3]


@pytest.mark.parametrize(
    "labels",
    [
        RNG.choice([-1, 1, 3], 500),
        RNG.random(300) < 0.3,
        RNG.choice(["no", "yes", "maybe"], 500),
        np.where(RNG.random(400) < 0.2, np.nan, RNG.choice([0.5, -2.0, 7.0], 400)),
        RNG.choice([-1, 1], 400).astype(object),
        (RNG.random(300) < 0.3).astype(object),
        np.array([1, "1", 2**70, 1, "1"] * 30, dtype=object),
    ],
    ids=["int", "bool", "str", "float with NaN", "object ints", "object bools", "object mixed"],
)
def test_typed_labels_coded_by_sorting_equal_pandas_hashing(labels, monkeypatch):
    """Typed pools up to SORTED_LABELS (object arrays of plain integers or booleans too) are
    coded with np.unique: the same codes and distinct labels, in order of first appearance,
    as pandas' factorize."""
    sorted_codes, sorted_distinct = metrics.label_codes(labels)
    monkeypatch.setattr(metrics, "SORTED_LABELS", -1)
    codes, distinct = metrics.label_codes(labels)
    np.testing.assert_array_equal(sorted_codes, codes)
    np.testing.assert_array_equal(np.asarray(sorted_distinct), np.asarray(distinct))
    assert type(sorted_distinct[0]) is type(distinct[0])
