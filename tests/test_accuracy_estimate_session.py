"""The stopping panel's state of a session (rlscore.sessions.stopping.stopping_view): its curves are
those of a from-scratch record, label by label, through undo and relabel."""

from __future__ import annotations

import numpy as np
from support.sessions import moons_store, session

from rlscore.core.evaluation.accuracy_interval import wilson_interval
from rlscore.core.kernels.functions import pool_kernel
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.sessions.stopping.stopping_view import stopping_view


def _loo_accuracy(X, order, sigma, lam):
    """LOO accuracy of the labeled RLS on ``order`` by refits (NaN below 3 labels or 2
    classes)."""
    y = np.asarray([label for _, label in order])
    idx = [i for i, _ in order]
    if len(idx) < 3 or len(set(y.tolist())) < 2:
        return np.nan
    hits = 0
    for k in range(len(idx)):
        keep = np.ones(len(idx))
        keep[k] = 0.0
        if np.sum(y == y[k]) == 1:  # the only label of its class: no refit can predict it
            continue
        clf = RLSClassifier(sigma=sigma, lam=lam).fit(X[idx], y, sample_weight=keep)
        hits += int(clf.predict(X[[idx[k]]])[0] == y[k])
    return hits / len(idx)


def test_curves_follow_labels_undo_and_relabel(tmp_path):
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5)
    truth = s.project.truth
    for _ in range(8):
        i, _score = s.query(claim=False)
        s.label(i, truth[i], annotator="ann")
    view = stopping_view(s)
    assert view.n_labels == 8 and view.labels.tolist() == list(range(9))
    s.undo("ann")
    s.undo("ann")
    first = next(iter(s.labels))
    s.label(first, -truth[first], annotator="ann")  # a relabel changes an early label
    i, _score = s.query(claim=False)
    s.label(i, truth[i], annotator="ann")
    view = stopping_view(s)
    order = list(s.labels.items())
    expected = [_loo_accuracy(s.project.X, order[:n], 2.0, 0.5) for n in range(len(order) + 1)]
    np.testing.assert_allclose(view.loo, expected, equal_nan=True)
    n = len(order)
    k = round(view.loo[-1] * n)
    assert view.estimate.loo_interval == wilson_interval(k, n)
    assert (view.loo_low[-1], view.loo_high[-1]) == wilson_interval(k, n)
    np.testing.assert_allclose(view.truth, 1 - np.asarray(s.validation_history, dtype=float))
    np.testing.assert_allclose(view.risk, s.risk_history)
    assert not view.decision.stop  # far too few labels


def test_a_changed_learner_refits_every_entry(tmp_path):
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5)
    for _ in range(6):
        i, _score = s.query(claim=False)
        s.label(i, s.project.truth[i], annotator="ann")
    before = stopping_view(s).loo
    s.set_params(lam=0.05)
    after = stopping_view(s).loo
    order = list(s.labels.items())
    assert after[-1] == _loo_accuracy(s.project.X, order, 2.0, 0.05)
    assert before.shape == after.shape


def test_a_long_history_is_rebuilt_on_a_sparse_grid_with_a_dense_tail(tmp_path, monkeypatch):
    import rlscore.sessions.stopping.stopping_view as sv

    monkeypatch.setattr(sv, "MAX_REBUILD_FITS", 4)
    monkeypatch.setattr(sv, "DENSE_TAIL", 5)
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5)
    for _ in range(25):
        i, _score = s.query(claim=False)
        s.label(i, s.project.truth[i], annotator="ann")
    view = stopping_view(s)
    fitted = [n for n in range(26) if not np.isnan(view.loo[n])]
    # 21 counts before the tail of 5, at most 4 fits: every 6th count (0 has no fit)
    assert set(fitted) <= {6, 12, 18, 21, 22, 23, 24, 25}
    assert fitted[-5:] == [21, 22, 23, 24, 25]
    order = list(s.labels.items())
    for n in fitted:
        assert view.loo[n] == _loo_accuracy(s.project.X, order[:n], 2.0, 0.5)
    i, _score = s.query(claim=False)  # the next label extends the curve densely
    s.label(i, s.project.truth[i], annotator="ann")
    assert not np.isnan(stopping_view(s).loo[26])


def test_a_graph_kernel_gets_the_estimate_on_its_labeled_block(tmp_path):
    """A graph kernel exists on the pool only: the LOO curve is that of RLS on the labeled
    block of the pool kernel, checked by refits without each label in turn."""
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", kernel="regularized", lam=0.5)
    truth = s.project.truth
    for _ in range(7):
        i, _score = s.query(claim=False)
        s.label(i, truth[i], annotator="ann")
    view = stopping_view(s)
    K = pool_kernel(s.project.X, kernel="regularized")
    order = list(s.labels.items())
    expected = [_loo_accuracy_on_kernel(K, order[:n], 0.5) for n in range(len(order) + 1)]
    np.testing.assert_allclose(view.loo, expected, equal_nan=True)
    assert not np.isnan(view.loo[-1]) and view.reason is None


def _loo_accuracy_on_kernel(K, order, lam):
    """As :func:`_loo_accuracy`, on the labeled block of a precomputed pool kernel."""
    y = np.asarray([label for _, label in order])
    idx = [i for i, _ in order]
    if len(idx) < 3 or len(set(y.tolist())) < 2:
        return np.nan
    hits = 0
    for k in range(len(idx)):
        rest = [j for j in range(len(idx)) if j != k]
        if np.sum(y == y[k]) == 1:
            continue
        train = [idx[j] for j in rest]
        clf = RLSClassifier(kernel="precomputed", lam=lam).fit(K[np.ix_(train, train)], y[rest])
        hits += int(clf.predict(K[np.ix_([idx[k]], train)])[0] == y[k])
    return hits / len(idx)
