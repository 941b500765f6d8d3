"""The held-out tasks of issue 33 (benchmarks/heldout_tasks.py) load offline and are sound."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import heldout_tasks  # noqa: E402
import strategy_suite  # noqa: E402

#: the shapes the module's table declares: name → (n, d, T)
DECLARED = {
    "penguins_sex": (333, 11, 2),
    "anes96_party": (944, 9, 3),
    "npm_plugin_families": (1000, 100, 5),
    "pypi_framework_extensions": (1000, 100, 5),
}


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to open a connection fails (the tasks must load from the committed files)."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a held-out task tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_the_declared_tasks_are_the_ones_exposed() -> None:
    assert set(heldout_tasks.HELDOUT_TASKS) == set(DECLARED)


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_task_loads_offline_with_its_declared_shape(name: str, no_network: None) -> None:
    X, y = heldout_tasks.HELDOUT_TASKS[name]()
    n, d, T = DECLARED[name]
    assert X.shape == (n, d) and X.dtype == np.float64 and np.isfinite(X).all()
    assert y.shape == (n,) and y.dtype.kind == "i"
    assert sorted(set(y.tolist())) == list(range(T))
    assert np.bincount(y).min() >= 20


@pytest.mark.parametrize("name", ["penguins_sex", "anes96_party"])
def test_tables_are_standardised(name: str) -> None:
    X, _ = heldout_tasks.HELDOUT_TASKS[name]()
    np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(X.std(axis=0), 1.0, atol=1e-9)


@pytest.mark.parametrize("name", heldout_tasks.TEXT_TASKS)
def test_no_text_is_in_two_classes_or_twice(name: str) -> None:
    rows = heldout_tasks.text_rows(name)
    folded = rows["text"].str.casefold()
    assert folded.str.len().min() > 0
    assert not folded.duplicated().any()
    assert (rows.groupby(folded)["label"].nunique() == 1).all()


def test_register_adds_the_tasks_to_the_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(strategy_suite, "DATASETS", dict(strategy_suite.DATASETS))
    suite_before = set(strategy_suite.DATASETS)
    heldout_tasks.register()
    assert set(strategy_suite.DATASETS) == suite_before | set(DECLARED)
    assert not suite_before & set(DECLARED)
    X, y = strategy_suite.DATASETS["penguins_sex"]()
    assert X.shape == (333, 11) and y.shape == (333,)
