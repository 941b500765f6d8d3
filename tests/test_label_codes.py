"""The per-click label codes of a session's history, in one vectorized pass: the codes of the
predictions and the validation errors equal a per-point Python reference (one dict lookup per
point), for integer, string, boolean and mixed-type labels."""

from __future__ import annotations

import numpy as np
import pytest
from reference.label_codes import class_codes as reference_codes
from reference.label_codes import validation_errors as reference_errors
from sklearn.metrics import balanced_accuracy_score

from rlscore.core.metrics import validation_errors
from rlscore.sessions.diagnostics import class_codes

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
