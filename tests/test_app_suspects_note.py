"""Streamlit AppTest checks of the Label page's note on new suspects (issue 37, item 2).

The expected counts come from the full table of the label checker
(:func:`~rlscore.sessions.views.label_issues.project_label_issues`), filtered by hand as the
queue's rule says, not from the queue the note uses.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest
from support.flipped_labels import label_with_flips

from rlscore.data.samples.bundled import ensure_sample_projects
from rlscore.sessions import project_settings
from rlscore.sessions.views.label_issues import project_label_issues, unseen_suspects
from rlscore.storage import Event, open_store

REPO = Path(__file__).resolve().parents[1]
PROJECT = "two_moons"
NOTE = re.compile(r"^(\d+) labels? looks? wrong( since you last looked)? — see Probably wrong")


@pytest.fixture
def db(tmp_path, monkeypatch) -> tuple[Path, list[int], np.ndarray]:
    """40 labels of the two moons by ada, three of them flipped, and the points deep inside a
    moon (their 7 nearest labeled neighbours share their class) left unflipped."""
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    with open_store(path) as store:
        ensure_sample_projects(store)
        _, deep, truth = label_with_flips(store, PROJECT)
    return path, deep, truth


def _expected_suspects(path: Path) -> set[int]:
    with open_store(path) as store:
        project, events = store.load_project(PROJECT), store.events(PROJECT)
        table = project_label_issues(project, events, project_settings(store, PROJECT))
    keep = (table["score"] >= 0.5) & (table["suggested"] != table["label"])
    return {int(i) for i in table[keep]["index"]}


def _open(annotator: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["project"] = PROJECT
    at.query_params["annotator"] = annotator
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _note(at: AppTest) -> tuple[int, bool] | None:
    """The note's count and whether it says "since you last looked" (None: no note)."""
    found = [m for m in (NOTE.match(c.value) for c in at.caption) if m]
    assert len(found) <= 1
    return (int(found[0].group(1)), bool(found[0].group(2))) if found else None


def _run(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_note_counts_the_suspects_new_since_the_queue_was_opened(db):
    path, inside, truth = db
    first = _expected_suspects(path)
    assert first
    at = _open("rev")
    assert _note(at) == (len(first), False)  # never opened: every suspect is new

    _run(at, "pages/review.py")
    assert _note(_run(at, "pages/label.py")) is None  # nothing new since

    # a teammate flips a label deep inside a moon: the queue has a new suspect
    with open_store(path) as store:
        store.append_event(PROJECT, Event("label", inside[0], int(-truth[inside[0]]), "bob"))
    later = _expected_suspects(path)
    new = later - first
    assert inside[0] in new
    assert _note(_run(at, "pages/label.py")) == (len(new), True)


def test_the_note_is_a_reviewers_only_once_the_project_has_members(db):
    path, _, _ = db
    with open_store(path) as store:
        store.set_member(PROJECT, "own", "owner")
        store.set_member(PROJECT, "ann", "annotator")
    assert _note(_open("ann")) is None
    assert _note(_open("own")) == (len(_expected_suspects(path)), False)


def _panel_place(at: AppTest) -> int:
    """The index among the main area's top-level elements of the block holding the query
    panel (its "Next query" heading)."""
    found = [
        i
        for i, block in at.main.children.items()
        if any("Next query" in str(getattr(e, "value", "")) for e in block)
    ]
    assert len(found) == 1, found
    return found[0]


def test_the_note_moves_no_fragment_of_the_page(db):
    """The note comes and goes with full page runs (a teammates' poll draws the first
    suspect): Streamlit names a fragment by its place on the page, so the panel must keep
    its place with or without the note, else a click sent under the panel's old fragment id
    while such a run draws is answered by no redraw (the press seen as never answered)."""
    at = _open("rev")
    assert _note(at) is not None
    with_note = _panel_place(at)
    _run(at, "pages/review.py")
    at = _run(at, "pages/label.py")
    assert _note(at) is None
    assert _panel_place(at) == with_note


def test_unseen_suspects_keeps_the_queue_order():
    import pandas as pd

    from rlscore.sessions.views.label_issues import SuspectQueue

    queue = SuspectQueue(pd.DataFrame({"index": [7, 3, 9]}))
    assert unseen_suspects(queue, None) == [7, 3, 9]
    assert unseen_suspects(queue, {3, 4}) == [7, 9]
    assert unseen_suspects(SuspectQueue(None, "too few labels"), None) == []
