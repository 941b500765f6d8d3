"""The ids of a pool named by its row numbers (:class:`~rlscore.data.projects.project.RowIds`, issue
26): read as the list ``[str(i) for i in range(n)]`` they stand for, and stored and loaded as
``n`` alone. The reference is that list."""

from __future__ import annotations

import numpy as np
import pytest

from rlscore.data.projects.project import Project, RowIds, ids_from_json, ids_to_json
from rlscore.storage import open_store

N = 23


@pytest.fixture
def ids():
    return RowIds(N), [str(i) for i in range(N)]


def test_they_read_as_the_list_of_row_numbers(ids):
    rows, ref = ids
    assert len(rows) == len(ref) and list(rows) == ref and rows == ref
    for i in (0, 7, N - 1, -1, -N):
        assert rows[i] == ref[i]
    for s in (slice(None), slice(3, 9), slice(None, None, -2), slice(-5, None)):
        assert rows[s] == ref[s]
    with pytest.raises(IndexError):
        rows[N]
    for value in ("0", "5", str(N - 1), str(N), "-1", "05", "00", "\u0661", "x", "", 3, None):
        assert (value in rows) == (value in ref)
        assert rows.count(value) == ref.count(value)
        if value in ref:
            assert rows.index(value) == ref.index(value)
        else:
            with pytest.raises(ValueError):
                rows.index(value)
    assert rows.index("7", 2, 9) == ref.index("7", 2, 9)
    with pytest.raises(ValueError):
        rows.index("1", 2)
    assert rows != ref[:-1] and rows != [*ref[:-1], "x"] and rows == RowIds(N)


def test_they_are_stored_as_their_size(ids, tmp_path):
    rows, ref = ids
    assert ids_to_json(rows) == {"row_numbers": N} and ids_from_json({"row_numbers": N}) == ref
    assert ids_to_json(ref) == ref and ids_from_json(ref) == ref
    store = open_store(str(tmp_path / "labels.db"))
    try:
        X = np.arange(2.0 * N).reshape(N, 2)
        store.create_project(Project("rows", X, ["a", "b"], rows, None, [0, 1]))
        store.create_project(Project("listed", X, ["a", "b"], ref, None, [0, 1]))
        loaded = store.load_project("rows")
        assert isinstance(loaded.ids, RowIds) and loaded.ids == ref
        assert store.load_project("listed").ids == ref
    finally:
        store.close()


def test_a_project_checks_their_count():
    with pytest.raises(ValueError, match="4 ids for 5 points"):
        Project("p", np.zeros((5, 1)), ["a"], RowIds(4), None, [0, 1])
