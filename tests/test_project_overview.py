"""rlscore.sessions.views.project_overview: the Data page's table of projects, read incrementally.

Cheapness is measured by counting: a store wrapper counts the events each read returns, so
a second overview with nothing new must read none, and one new event must read one.
The label counts are written here from the events the test itself appended.
"""

from __future__ import annotations

import pytest
from support.stores import small_project

from rlscore.sessions.views.project_overview import ProjectOverview
from rlscore.storage import Event, SQLiteLabelStore, UnknownProjectError


class CountingStore:
    """A store that counts the events it hands out (the work of folding logs)."""

    def __init__(self, store):
        self.store = store
        self.events_read = 0
        self.reads: list[tuple[str, int]] = []

    def events(self, name, after_id=0):
        out = self.store.events(name, after_id)
        self.events_read += len(out)
        self.reads.append((name, after_id))
        return out

    def __getattr__(self, name):
        return getattr(self.store, name)


@pytest.fixture
def store(tmp_path):
    s = SQLiteLabelStore(tmp_path / "labels.sqlite3")
    s.create_project(small_project("alpha", n=8))
    s.create_project(small_project("beta", n=6, truth=False))
    yield s
    s.close()


def labeled(rows, name):
    return next(r["labeled"] for r in rows if r["project"] == name)


def test_rows_describe_every_project(store):
    store.append_event("alpha", Event("label", 0, 1, "ann"))
    store.append_event("alpha", Event("label", 1, -1, "ann"))
    store.append_event("alpha", Event("label", 1, 1, "bob"))  # same point again
    store.append_event("alpha", Event("skip", 2, None, "ann"))
    rows = ProjectOverview(store).rows()
    assert [r["project"] for r in rows] == ["alpha", "beta"]
    alpha, beta = rows
    assert alpha == {
        "project": "alpha",
        "points": 8,
        "features": 3,
        "classes": "-1, 1",
        "labeled": 2,  # points 0 and 1; a skip is no label
        "ground truth": "yes",
        "source": "",
    }
    assert beta["labeled"] == 0 and beta["ground truth"] == "no"


def test_a_second_run_reads_only_new_events(store):
    ids = [store.append_event("alpha", Event("label", i, 1, "ann")) for i in range(5)]
    counting = CountingStore(store)
    overview = ProjectOverview(counting)
    assert labeled(overview.rows(), "alpha") == 5
    assert counting.events_read == 5
    overview.rows()
    assert counting.events_read == 5  # nothing new, nothing folded again
    store.append_event("alpha", Event("label", 6, -1, "ann"))
    last = store.append_event("alpha", Event("undo", None, None, "ann"))  # undoes point 6
    rows = overview.rows()
    assert counting.events_read == 7  # just the two new events
    assert labeled(rows, "alpha") == 5
    assert overview.n_labeled("alpha") == 5
    assert overview.events("alpha")[-1].id == last
    # every read after the first asks only for the events after the newest one seen
    assert [after for name, after in counting.reads if name == "alpha"] == [0, ids[-1], ids[-1]]


def test_a_recreated_project_is_folded_from_scratch(store):
    store.append_event("alpha", Event("label", 0, 1, "ann"))
    store.append_event("alpha", Event("label", 3, 1, "ann"))
    overview = ProjectOverview(store)
    assert labeled(overview.rows(), "alpha") == 2
    store.delete_project("alpha")
    store.create_project(small_project("alpha", n=8))
    store.append_event("alpha", Event("label", 5, -1, "ann"))
    assert labeled(overview.rows(), "alpha") == 1  # not 3: the old log is gone


def test_deleted_projects_are_left_out(store):
    overview = ProjectOverview(store)
    overview.rows()
    store.delete_project("beta")
    assert [r["project"] for r in overview.rows()] == ["alpha"]
    with pytest.raises(UnknownProjectError):
        overview.n_labeled("beta")
    with pytest.raises(UnknownProjectError):
        overview.events("beta")


def test_a_project_deleted_while_listed_is_left_out(store):
    class DeletingStore(CountingStore):
        def project_summaries(self):
            rows = self.store.project_summaries()
            self.store.delete_project("beta")  # another tab, right after the list was read
            return rows

    rows = ProjectOverview(DeletingStore(store)).rows()
    assert [r["project"] for r in rows] == ["alpha"]


def test_events_are_a_snapshot(store):
    store.append_event("alpha", Event("label", 0, 1, "ann"))
    overview = ProjectOverview(store)
    overview.rows()
    snapshot = overview.events("alpha")
    store.append_event("alpha", Event("label", 1, 1, "ann"))
    overview.rows()
    assert len(snapshot) == 1 and len(overview.events("alpha")) == 2
