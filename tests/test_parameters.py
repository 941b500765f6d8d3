"""The strategies' parameter protocol (rlscore.core.conventions.parameters) against scikit-learn's
own: ``BaseEstimator.get_params`` / ``set_params`` and ``sklearn.base.clone`` on twins of the same
classes, so a strategy behaves as before it stopped subclassing ``BaseEstimator``."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

from rlscore.core.conventions.parameters import Parameterized, fresh_copy
from rlscore.query import STRATEGIES, make_strategy, strategy_class


class Inner(Parameterized):
    def __init__(self, a=1, b="x"):
        self.a = a
        self.b = b


class Outer(Parameterized):
    def __init__(self, inner=None, weights=None, lam=0.5):
        self.inner = inner
        self.weights = weights
        self.lam = lam


class InnerTwin(BaseEstimator):
    def __init__(self, a=1, b="x"):
        self.a = a
        self.b = b


class OuterTwin(BaseEstimator):
    def __init__(self, inner=None, weights=None, lam=0.5):
        self.inner = inner
        self.weights = weights
        self.lam = lam


def pair(**kw):
    return (
        Outer(inner=Inner(a=2), weights={1: 2.0}, **kw),
        OuterTwin(inner=InnerTwin(a=2), weights={1: 2.0}, **kw),
    )


def plain(params: dict) -> dict:
    """Nested objects replaced by their class name and parameters (twins compare equal)."""
    return {
        k: (v.get_params(deep=False) if hasattr(v, "get_params") else v) for k, v in params.items()
    }


@pytest.mark.parametrize("deep", [True, False])
def test_get_params_equals_scikit_learns(deep):
    ours, theirs = pair(lam=0.1)
    assert plain(ours.get_params(deep=deep)) == plain(theirs.get_params(deep=deep))


def test_set_params_equals_scikit_learns_including_nested_names():
    ours, theirs = pair()
    change = {"lam": 3.0, "inner__b": "y", "inner__a": 7}
    ours.set_params(**change)
    theirs.set_params(**change)
    assert plain(ours.get_params()) == plain(theirs.get_params())
    assert (ours.inner.a, ours.inner.b, ours.lam) == (7, "y", 3.0)


@pytest.mark.parametrize("bad", [{"lamda": 1.0}, {"inner__c": 1}])
def test_an_unknown_parameter_is_refused_like_scikit_learn_does(bad):
    ours, theirs = pair()
    with pytest.raises(ValueError, match="Invalid parameter"):
        theirs.set_params(**bad)
    with pytest.raises(ValueError, match="Invalid parameter .* valid parameters"):
        ours.set_params(**bad)


@pytest.mark.parametrize("bad", ["lamda", "inner__c"])
def test_a_refused_change_changes_nothing(bad):
    # the valid names come first: a half-applied change would keep them
    ours, _ = pair()
    before = plain(ours.get_params())
    with pytest.raises(ValueError, match="Invalid parameter"):
        ours.set_params(lam=3.0, inner__a=7, **{bad: 1})
    assert plain(ours.get_params()) == before


def test_fresh_copy_is_a_deep_unfitted_copy_like_clone():
    ours, theirs = pair()
    ours.fitted_ = np.ones(3)
    copied, cloned = fresh_copy(ours), clone(theirs)
    assert plain(copied.get_params()) == plain(cloned.get_params())
    assert not hasattr(copied, "fitted_")
    assert copied.inner is not ours.inner and copied.weights is not ours.weights
    copied.weights[1] = 9.0
    assert ours.weights == {1: 2.0}


def test_the_repr_names_the_changed_parameters_only():
    assert repr(Inner()) == "Inner()"
    assert repr(Inner(a=3)) == "Inner(a=3)"
    assert repr(Outer(weights=np.ones(2))) == "Outer(weights=array([1., 1.]))"


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_every_strategy_copies_and_clones_to_the_same_parameters(name):
    strategy = make_strategy(name, lam=0.25)
    copied, cloned = fresh_copy(strategy), clone(strategy)  # scikit-learn's clone accepts it
    assert type(copied) is type(strategy) is type(cloned)
    assert copied.get_params() == cloned.get_params() == strategy.get_params()
    assert strategy_class(name).param_names() == sorted(strategy.get_params(deep=False))
