"""One RLS strategy family: a shared weighted one-vs-all state, two implementations.

* the features implementation (:class:`~rlscore.query.rls_state.on_features.FeaturePoolStrategy`,
low-rank
  ARLS) on features Φ and the dense one
  (:class:`~rlscore.query.rls_state.on_kernel.RLSPoolStrategy`, ARLS) on ``K = ΦΦᵀ`` pick the same
  points with the same scores and risks, and both equal the naive refits of
  ``tests/reference/arls.py``;
* no class of the family defines a member borrowed from, or copied from, another class, and
  every attribute a started strategy holds is declared by its class;
* the wording of the risk lives in the UI layer, not in the strategies.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from reference.arls import naive_fit, naive_risk, naive_scores, spec_weights

from rlscore.query import (
    ARLS,
    STRATEGIES,
    LowRankARLS,
    MaxEntropyKLR,
    QueryStrategy,
    make_strategy,
    strategy_class,
)
from rlscore.query.rls_state.on_features import FeaturePoolStrategy
from rlscore.query.rls_state.on_kernel import RLSPoolStrategy
from rlscore.query.rls_state.weighted import WeightedRLSStrategy
from rlscore.ui.shell.strategy_names import (
    GENERIC_RISK,
    RISK_WORDING,
    risk_chart_labels,
    risk_wording,
)

QUERIES = 20


def _pool(T: int, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """T Gaussian blobs in 3 dimensions, unequal sizes (the balanced weights then differ)."""
    rng = np.random.default_rng(seed)
    sizes = [30, 14, 10][:T]
    X = np.vstack([rng.normal(size=(k, 3)) + 1.5 * c for c, k in enumerate(sizes)])
    y = np.repeat(np.arange(T), sizes)
    return X, y


#: class weights: none, balanced (they change with every label: each label rebuilds the
#: state) and fixed per class (they never change: each label is a rank-one update)
WEIGHTS = [None, "balanced", {0: 2.0, 1: 0.5}]


def _pair(T: int, class_weight, kernel: str):
    """Low-rank ARLS on its features Φ, and dense ARLS given ``K = ΦΦᵀ`` of those features."""
    X, y = _pool(T)
    params = {"lam": 0.7, "sigma": 1.5}
    if class_weight is not None:
        params.update(class_weight=class_weight, bias_corrected=True)
    classes = list(range(T))
    features = LowRankARLS(kernel=kernel, n_landmarks=12, **params).start(X, classes)
    phi = features.features_
    dense = ARLS(kernel=kernel, **params).start(X, classes, K=phi @ phi.T)
    return features, dense, phi, X, y


@pytest.mark.parametrize("T", [2, 3])
@pytest.mark.parametrize("class_weight", WEIGHTS)
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_features_state_equals_dense_state_on_their_kernel(T, class_weight, kernel):
    features, dense, phi, X, y = _pair(T, class_weight, kernel)
    if kernel == "linear":
        assert features.lowrank_ is None and features.features_ is X  # Φ = X exactly
    else:
        assert phi.shape[1] < X.shape[0]  # a genuine low-rank Φ
    K = phi @ phi.T
    for step in range(QUERIES):
        i, s = features.next_query()
        j, t = dense.next_query()
        assert i == j, f"step {step}: features pick {i}, dense pick {j}"
        np.testing.assert_allclose(features.scores(), dense.scores(), rtol=0, atol=1e-8)
        assert abs(s - t) < 1e-8
        features.teach(i, int(y[i]))
        dense.teach(i, int(y[i]))
        assert abs(features.estimated_risk() - dense.estimated_risk()) < 1e-8
        np.testing.assert_allclose(features.m_, dense.m_, rtol=0, atol=1e-8)
        np.testing.assert_array_equal(features.loss_weights_, dense.loss_weights_)
        # the covariances: V = Φ P Φᵀ on features, K − D on the kernel
        P = features.P_
        V = phi @ P @ phi.T if P.ndim == 2 else np.einsum("ia,tab,jb->tij", phi, P, phi)
        np.testing.assert_allclose(V, dense.V_, rtol=0, atol=1e-8)
    # both against the naive refit on K (tests/reference/arls.py)
    L = features.labeled_
    codes = [int(c) for c in y[L]]
    W, w = spec_weights(codes, list(range(T)), class_weight)
    f = naive_fit(K, L, codes, 0.7, W, T)
    inv_w = np.ones(T) if class_weight is None else 1.0 / w
    np.testing.assert_allclose(features.m_, f, rtol=0, atol=1e-8)
    assert abs(features.estimated_risk() - naive_risk(f, inv_w, True, T)) < 1e-8
    naive = naive_scores(K, L, codes, 0.7, W, inv_w, True, T)
    np.testing.assert_allclose(features.scores(), naive, rtol=0, atol=1e-8)


@pytest.mark.parametrize("T", [2, 3])
@pytest.mark.parametrize("class_weight", WEIGHTS)
def test_forget_undo_and_rebuild_keep_the_two_states_equal(T, class_weight):
    features, dense, _, _, y = _pair(T, class_weight, "rbf")
    for q in (features, dense):
        for i in (0, 40, 5, 33, 12, 2, 8):
            q.teach(i, int(y[i]))
        q.forget(40)
        q.undo()
    # forget and undo: a downdate (fixed weights) or a build (balanced weights)
    np.testing.assert_allclose(features.m_, dense.m_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(features.scores(), dense.scores(), rtol=0, atol=1e-8)
    for q in (features, dense):
        q.set_params(lam=0.4)
    features.rebuild()
    dense.rebuild()  # reuses the given K: the kernel parameters did not change
    assert features.labeled_ == dense.labeled_ == [0, 5, 33, 12, 2]
    np.testing.assert_allclose(features.m_, dense.m_, rtol=0, atol=1e-8)
    np.testing.assert_allclose(features.scores(), dense.scores(), rtol=0, atol=1e-8)
    assert abs(features.estimated_risk() - dense.estimated_risk()) < 1e-8
    assert features.next_query()[0] == dense.next_query()[0]


# -- structure -------------------------------------------------------------------------------


def _family() -> list[type]:
    """Every class of the RLS family in rlscore: the registered strategies on the shared state
    and their ancestors up to the shared state."""
    classes = {strategy_class(name) for name in STRATEGIES}
    family = {c for c in classes if issubclass(c, WeightedRLSStrategy)}
    return sorted(
        {k for c in family for k in c.__mro__ if issubclass(k, WeightedRLSStrategy)},
        key=lambda k: k.__qualname__,
    )


def _functions(cls: type) -> dict[str, object]:
    """The functions (methods, property getters) defined in the body of ``cls``."""
    out = {}
    for name, value in vars(cls).items():
        f = value.fget if isinstance(value, property) else value
        f = getattr(f, "__func__", f)  # staticmethod / classmethod
        if inspect.isfunction(f):
            out[name] = f
    return out


def _body(f) -> tuple:
    """A function's code without its docstring and line numbers: equal for copied bodies."""
    code = f.__code__
    consts = code.co_consts[1:] if f.__doc__ is not None else code.co_consts
    return (code.co_code, code.co_names, consts)


def _borrowed_or_copied(classes: list[type]) -> list[str]:
    """Members a class defines that belong to another class: assigned from it (a function
    defined elsewhere) or a copy of another class's function body."""
    problems = []
    bodies: dict[tuple, str] = {}
    for cls in classes:
        for name, f in _functions(cls).items():
            if not f.__qualname__.startswith(cls.__qualname__ + "."):
                problems.append(f"{cls.__qualname__}.{name} is {f.__qualname__}")
            if f.__code__.co_names == ("NotImplementedError",):
                continue  # an abstract stub
            where = bodies.setdefault(_body(f), f"{cls.__qualname__}.{name}")
            if where != f"{cls.__qualname__}.{name}":
                problems.append(f"{cls.__qualname__}.{name} copies {where}")
    return problems


def test_the_structure_check_catches_a_borrowed_and_a_copied_member():
    # the pattern the feature state used before: members assigned from a sibling class
    class Borrowing(WeightedRLSStrategy):
        estimated_risk = RLSPoolStrategy.estimated_risk

    class Copying(WeightedRLSStrategy):
        def decision_function(self) -> np.ndarray:
            self._check_started()
            return self._m[:, 0].copy() if self._m.shape[1] == 1 else self._m.copy()

    problems = _borrowed_or_copied([WeightedRLSStrategy, Borrowing, Copying])
    assert any("Borrowing.estimated_risk is " in p for p in problems)
    assert any("Copying.decision_function copies WeightedRLSStrategy" in p for p in problems)


def test_no_class_of_the_family_borrows_or_copies_a_member():
    family = _family()
    assert {RLSPoolStrategy, FeaturePoolStrategy, WeightedRLSStrategy, ARLS, LowRankARLS} <= set(
        family
    )
    assert _borrowed_or_copied(family) == []


SHARED = (
    "_weights_for",
    "_set_weights",
    "_label_positions",
    "teach_many",
    "_replay",
    "_build_from_labels",
    "_add",
    "_remove",
    "_risk_weights",
    "class_probabilities",
    "estimated_risk",
    "decision_function",
    "predict_at",
    "weights_",
    "loss_weights_",
    "m_",
    "lookahead_terms",
)


@pytest.mark.parametrize("name", SHARED)
def test_both_states_run_the_shared_members(name):
    shared = inspect.getattr_static(WeightedRLSStrategy, name)
    for cls in _family():
        assert inspect.getattr_static(cls, name) is shared, f"{cls.__qualname__}.{name}"


def _declared(cls: type) -> set[str]:
    names = set()
    for k in cls.__mro__:
        names |= set(getattr(k, "__annotations__", {})) | set(vars(k))
    return names


@pytest.mark.parametrize(
    "name", [n for n in STRATEGIES if issubclass(strategy_class(n), WeightedRLSStrategy)]
)
@pytest.mark.parametrize("T", [2, 3])
def test_every_attribute_of_a_started_strategy_is_declared(name, T):
    X, y = _pool(T)
    params = {"n_landmarks": 10, "refine": 2, "candidates": 20} if "lowrank" in name else {}
    q = make_strategy(name, class_weight="balanced", **params).start(X, list(range(T)))
    for i in (0, 40, 35, 5):
        q.teach(i, int(y[i]))
    q.next_query()
    q.forget(40)
    q.undo()
    q.next_queries(2)
    q.set_params(lam=0.5)
    q.rebuild()
    q.teach_many([1, 2], [int(y[1]), int(y[2])])
    q.scores()
    undeclared = set(vars(q)) - _declared(type(q)) - set(q.get_params())
    assert undeclared == set()


# -- wording ---------------------------------------------------------------------------------


def test_strategies_carry_no_user_facing_wording():
    for name in STRATEGIES:
        cls = strategy_class(name)
        assert not hasattr(cls, "risk_name") and not hasattr(cls, "risk_help"), name


def test_the_ui_words_every_strategy_and_one_state_has_one_wording():
    assert set(RISK_WORDING) == set(STRATEGIES)
    for name in STRATEGIES:
        title, help_text = risk_wording(name)
        assert title and help_text.endswith(".")
    family = [n for n in STRATEGIES if issubclass(strategy_class(n), WeightedRLSStrategy)]
    assert len({risk_wording(n) for n in family}) == 1
    assert risk_wording("arls")[0] == "Selection criterion (estimated risk)"
    assert risk_wording("aopt-klr")[0] == "Predictive variance (A-optimal)"
    with pytest.raises(ValueError, match="unknown strategy"):
        risk_wording("no-such-strategy")


def test_risk_chart_labels_read_the_ui_table():
    assert risk_chart_labels(["arls", "random"]) == (
        "Selection criterion (estimated risk)",
        {"arls": "ARLS (active RLS, thesis)", "random": "Random"},
    )
    title, names = risk_chart_labels(["arls", "aopt-klr"])
    assert title == "each strategy's own risk estimate"
    assert names == {
        "arls": "ARLS (active RLS, thesis): Selection criterion (estimated risk)",
        "aopt-klr": "A-optimal KLR: Predictive variance (A-optimal)",
    }


def test_a_strategy_instance_is_worded_by_its_nearest_registered_class():
    class MyEntropyKLR(MaxEntropyKLR):
        pass

    class MyStrategy(QueryStrategy):
        pass

    assert risk_wording(ARLS()) == risk_wording("arls")
    assert risk_wording(LowRankARLS()) == risk_wording("arls-lowrank")
    assert risk_wording(MyEntropyKLR()) == risk_wording("muq-klr")
    assert risk_wording(MyStrategy()) == GENERIC_RISK
