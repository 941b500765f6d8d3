"""The session history's prediction changes, kept as differences, against the reference that
kept every label's whole array of predicted classes (tests/reference/history_codes.py)."""

from __future__ import annotations

import numpy as np
import pytest
from reference.history_codes import FullCodesHistory

from rlscore.sessions.views.diagnostics import History


def _path(rng: np.random.Generator, n: int, steps: int, n_classes: int):
    """A labeling path with undos: (n_labeled, codes) per record, each entry's codes a change
    of the entry before it on a random share of the pool (from most of it to none)."""
    codes_at: dict[int, np.ndarray] = {}
    k = 0
    for _ in range(steps):
        if k > 2 and rng.random() < 0.15:
            k = int(rng.integers(0, k))  # an undo (or a replay from an earlier point)
        base = codes_at.get(k - 1, rng.integers(0, n_classes, n).astype(np.uint8))
        share = rng.choice([0.0, 0.001, 0.05, 0.6])
        flip = rng.random(n) < share
        codes = base.copy()
        codes[flip] = rng.integers(0, n_classes, int(flip.sum()))
        codes_at[k] = codes
        yield k, codes
        k += 1


@pytest.mark.parametrize("seed", range(6))
def test_changes_equal_the_full_arrays(seed):
    rng = np.random.default_rng(seed)
    n_classes = int(rng.choice([2, 3, 12]))
    new, ref = History(), FullCodesHistory()
    for n_labeled, codes in _path(rng, 3000, 120, n_classes):
        risk = float(rng.random())
        new.record(n_labeled, risk, codes, None)
        ref.record(n_labeled, risk, codes.copy(), None)
        assert new.change == ref.change
        assert new.risk == ref.risk
        for window in (1, 2, 5, 10, 40):
            assert new.prediction_change(window) == ref.prediction_change(window)


def test_the_callers_array_is_not_changed():
    history = History()
    first, second = np.zeros(10, np.uint8), np.ones(10, np.uint8)
    history.record(0, 0.5, first, None)
    history.record(1, 0.4, second, None)
    history.record(1, 0.3, np.zeros(10, np.uint8), None)  # redone: entry 1 rewound
    assert (first == 0).all() and (second == 1).all()
    assert history.change == [None, 0.0]


def _kept_bytes(history: History) -> int:
    return history._codes.nbytes + sum(
        former.nbytes + (0 if positions is None else positions.nbytes)
        for positions, former in history._undo
    )


def test_a_settled_session_keeps_the_changes_not_an_array_per_label():
    """200 labels on 100 000 points, each changing 0.1 % of the predictions: the full arrays
    would be 20 MB; the latest array and the changes are about 0.6 MB."""
    rng = np.random.default_rng(5)
    n = 100_000
    codes = rng.integers(0, 2, n).astype(np.uint8)
    history = History()
    for k in range(200):
        flip = rng.choice(n, n // 1000, replace=False)
        codes = codes.copy()
        codes[flip] ^= 1
        history.record(k, 0.1, codes, None)
    assert _kept_bytes(history) < 2 * n + 200 * (n // 1000) * 5
    assert history.prediction_change(1) == pytest.approx(0.001)


class _Elsewhere:
    """A pool's predictions held "elsewhere": the history sees only ``size`` and
    ``count_changed`` (as :class:`~rlscore.query.cluster.block_passes.BlockPredictions`), and every
    count is recorded so the test knows what crossed."""

    counted: list[tuple[int, int]] = []

    def __init__(self, codes: np.ndarray, tag: int) -> None:
        self._codes, self.size, self.tag = codes.copy(), codes.size, tag

    def count_changed(self, former: _Elsewhere) -> int:
        _Elsewhere.counted.append((former.tag, self.tag))
        return int(np.count_nonzero(self._codes != former._codes))


@pytest.mark.parametrize("seed", range(6))
def test_states_kept_elsewhere_give_the_full_arrays_figures(seed):
    """The same path with undos: the history keeping a state per label (a pool on a
    cluster) gives the reference's changes and windows exactly, and keeps no array."""
    rng = np.random.default_rng(seed)
    n_classes = int(rng.choice([2, 3, 12]))
    new, ref = History(), FullCodesHistory()
    for tag, (n_labeled, codes) in enumerate(_path(rng, 3000, 120, n_classes)):
        risk = float(rng.random())
        new.record(n_labeled, risk, _Elsewhere(codes, tag), None)
        ref.record(n_labeled, risk, codes.copy(), None)
        assert new.change == ref.change
        assert new.risk == ref.risk
        for window in (1, 2, 5, 10, 40):
            assert new.prediction_change(window) == ref.prediction_change(window)
    assert new._codes is None and not new._undo


def test_a_window_is_counted_once_per_state():
    history = History()
    _Elsewhere.counted = []
    for k in range(4):
        history.record(k, 0.1, _Elsewhere(np.full(10, k % 2, np.uint8), k), None)
    assert _Elsewhere.counted == [(0, 1), (1, 2), (2, 3)]  # one count per label
    assert history.prediction_change(2) == 0.0 and history.prediction_change(3) == 1.0
    assert history.prediction_change(3) == 1.0  # asked again: no second count
    assert _Elsewhere.counted[3:] == [(1, 3), (0, 3)]
    history.record(3, 0.1, _Elsewhere(np.zeros(10, np.uint8), 9), None)  # undone, relabeled
    assert history.change == [None, 1.0, 1.0, 0.0]
    assert history.prediction_change(3) == 0.0
