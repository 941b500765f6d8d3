"""The declarative parameter constraints (rlscore.core.conventions.parameter_constraints)
against hand-written cases: what each constraint accepts, and the message for what it does not.
"""

from __future__ import annotations

import re
from numbers import Integral, Real

import numpy as np
import pytest

from rlscore import (
    GraphOCL,
    KernelLogisticRegression,
    LGCClassifier,
    LowRankKernel,
    ReducedRLSClassifier,
    RLSClassifier,
    SpecifiedErrorClassifier,
)
from rlscore.core.conventions.parameter_constraints import (
    Booleans,
    InstanceOf,
    Interval,
    Options,
    Validated,
    check_parameter,
    check_parameters,
)

POSITIVE = Interval(Real, 0, None, closed="neither")
UNIT = Interval(Real, 0, 1, closed="neither")
COUNT = Interval(Integral, 1, None)


@pytest.mark.parametrize(
    ("constraint", "accepted", "refused"),
    [
        (POSITIVE, [1e-300, 1, 2.5, np.float32(3.0), np.int64(4)], [0, -1.0, np.inf, np.nan]),
        (POSITIVE, [7], [True, "1", None, [1.0], 1j]),
        (Interval(Real, 0, None), [0, 0.0, 5], [-1e-300, -np.inf]),
        (UNIT, [1e-9, 0.5, 1 - 1e-9], [0, 1, 1.5, -0.5]),
        (Interval(Real, 0, 1, closed="left"), [0, 0.999], [1, 1.0]),
        (Interval(Real, 0, 1, closed="right"), [1, 0.001], [0, 0.0]),
        (Interval(Real, None, 0, closed="neither"), [-1e9, -1], [0, 1]),
        (COUNT, [1, 2, 10**400, np.int32(3)], [0, -1, 2.0, 2.5, True, np.float64(1)]),
        (Interval(Integral, 0, 5), [0, 5], [-1, 6]),
        (Options("rbf", "linear"), ["rbf", "linear"], ["RBF", "sigmoid", None, 1]),
        (Options(None, "auto"), [None, "auto"], ["none", 0, False]),
        (Options(1, 2), [1, 2, np.int64(2)], [True, 1.5, "1"]),
        (Options(True), [True], [1, np.True_]),
        (Booleans(), [True, False, np.True_, np.bool_(False)], [0, 1, "True", None]),
        (InstanceOf(dict, "a dict"), [{}, {"a": 1}], [[], None, "a"]),
    ],
)
def test_what_each_constraint_accepts(constraint, accepted, refused):
    assert all(constraint.accepts(v) for v in accepted), accepted
    assert not any(constraint.accepts(v) for v in refused), refused


@pytest.mark.parametrize(
    ("constraint", "description"),
    [
        (POSITIVE, "a number > 0"),
        (Interval(Real, 0, None), "a number ≥ 0"),
        (Interval(Real, None, 1), "a number ≤ 1"),
        (Interval(Real, None, 1, closed="left"), "a number < 1"),
        (UNIT, "a number in (0, 1)"),
        (Interval(Real, 0, 1), "a number in [0, 1]"),
        (Interval(Real, 0, 1, closed="left"), "a number in [0, 1)"),
        (Interval(Real, 0.5, 1e-3, closed="right"), "a number in (0.5, 0.001]"),
        (Interval(Real, None, None), "a number"),
        (COUNT, "a positive integer"),
        (Interval(Integral, 0, None), "an integer ≥ 0"),
        (Interval(Integral, 2, 4), "an integer in [2, 4]"),
        (Interval(Integral, None, None), "an integer"),
        (Options("a", None), "'a', None"),
        (Booleans(), "True or False"),
    ],
)
def test_descriptions(constraint, description):
    assert constraint.description == description


@pytest.mark.parametrize(
    ("value", "constraints", "message"),
    [
        # a number of the right kind out of range names the range (a one-sided bound alone)
        (0.0, (POSITIVE,), "lam must be > 0, got 0.0"),
        (-2, (POSITIVE, Options("auto")), "lam must be > 0, got -2"),
        (np.inf, (POSITIVE,), "lam must be a finite number > 0, got inf"),
        (np.nan, (POSITIVE,), "lam must be a finite number > 0, got nan"),
        (1.0, (UNIT,), "lam must be a number in (0, 1), got 1.0"),
        (0, (COUNT,), "lam must be a positive integer, got 0"),
        (-1, (Interval(Integral, 0, None),), "lam must be an integer ≥ 0, got -1"),
        # a value of no accepted kind lists every alternative
        ("best", (POSITIVE, Options("auto")), "lam must be a number > 0 or 'auto', got 'best'"),
        (2.5, (COUNT,), "lam must be a positive integer, got 2.5"),
        (True, (COUNT, Options(None)), "lam must be a positive integer or None, got True"),
        (
            "even",
            (Options(None, "balanced"), InstanceOf(dict, "a dict")),
            "lam must be None, 'balanced' or a dict, got 'even'",
        ),
        ("yes", (Booleans(),), "lam must be True or False, got 'yes'"),
        # a fixed set of values says the value is unknown
        (
            "sigmoid",
            (Options("rbf", "linear"),),
            "unknown lam 'sigmoid': lam must be one of 'rbf', 'linear'",
        ),
        (3, (Options(None, "a"),), "unknown lam 3: lam must be one of None, 'a'"),
    ],
)
def test_messages(value, constraints, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        check_parameter("lam", value, constraints)


def test_accepted_values_pass_whichever_constraint_accepts_them():
    for value in (0.5, "auto"):
        check_parameter("lam", value, (POSITIVE, Options("auto")))
    check_parameter("block_size", None, (COUNT, Options(None)))


def _width(value):
    if value != "median":
        raise ValueError(f"sigma must be 'median', got {value!r}")


def test_a_validated_parameter_keeps_its_validators_message():
    check_parameter("sigma", "median", (Validated(_width),))
    assert Validated(_width).accepts("median") and not Validated(_width).accepts("mean")
    with pytest.raises(ValueError, match=r"^sigma must be 'median', got 'mean'$"):
        check_parameter("sigma", "mean", (Validated(_width),))


def test_constraints_refuse_malformed_definitions():
    with pytest.raises(TypeError, match="numbers.Integral or numbers.Real"):
        Interval(float, 0, 1)
    with pytest.raises(ValueError, match="closed must be"):
        Interval(Real, 0, 1, closed="open")
    with pytest.raises(ValueError, match="at least one value"):
        Options()


class _Toy:
    parameter_constraints = {"k": (COUNT,), "kind": (Options("a", "b"),)}

    def __init__(self, k=1, kind="a"):
        self.k = k
        self.kind = kind


def test_check_parameters_reads_the_class_table():
    check_parameters(_Toy())
    with pytest.raises(ValueError, match="^k must be a positive integer, got 0$"):
        check_parameters(_Toy(k=0))
    with pytest.raises(ValueError, match="^unknown kind 'c'"):
        check_parameters(_Toy(kind="c"))


ESTIMATORS = (
    RLSClassifier,
    ReducedRLSClassifier,
    KernelLogisticRegression,
    LGCClassifier,
    GraphOCL,
    SpecifiedErrorClassifier,
    LowRankKernel,
)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_table_names_parameters_and_accepts_the_defaults(cls):
    names = set(cls().get_params())
    assert set(cls.parameter_constraints) <= names
    check_parameters(cls())  # the defaults meet their own constraints


@pytest.mark.parametrize(
    ("estimator", "message"),
    [
        (RLSClassifier(lam=0.0), "lam must be > 0, got 0.0"),
        (KernelLogisticRegression(max_iter=0), "max_iter must be a positive integer, got 0"),
        (LGCClassifier(tol=1.0), "tol must be a number in (0, 1), got 1.0"),
        (GraphOCL(offset="no"), "offset must be True or False, got 'no'"),
        (ReducedRLSClassifier(n_landmarks=0), "n_landmarks must be a positive integer, got 0"),
        (SpecifiedErrorClassifier(ridge=-1.0), "ridge must be ≥ 0, got -1.0"),
        (LowRankKernel(block_size=0.5), "block_size must be a positive integer or None, got 0.5"),
    ],
)
def test_fit_checks_the_parameters_before_the_data(estimator, message):
    # the data would be refused too (one row): the parameter is named first
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        estimator.fit(np.ones((1, 2)), np.ones(1))
