"""Streamlit AppTest checks of the Review page's "Probably wrong" queue (issue 37)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest
from support.app import plain_markdown
from support.flipped_labels import label_with_flips

from rlscore.data.samples.bundled import ensure_sample_projects
from rlscore.sessions import LabelLog
from rlscore.sessions.actions.review import audit_trail
from rlscore.storage import open_store

REPO = Path(__file__).resolve().parents[1]
PROJECT = "two_moons"


@pytest.fixture
def db(tmp_path, monkeypatch) -> tuple[Path, list[int], np.ndarray]:
    """40 labels of the two moons by ada, two of them flipped: two points whose 7 nearest
    labeled neighbours all share their true class (deep inside a moon)."""
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    with open_store(path) as store:
        ensure_sample_projects(store)
        flipped, _, truth = label_with_flips(store, PROJECT)
    return path, flipped, truth


def _review(annotator: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["project"] = PROJECT
    at.query_params["annotator"] = annotator
    at.run()
    at.switch_page("pages/review.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _suspects(at: AppTest) -> list[int]:
    """The points of the queue's buttons, in page order."""
    points = [int(b.key.split("_")[1]) for b in at.button if b.key.startswith("suspect_")]
    return list(dict.fromkeys(points))


def test_flipped_labels_lead_the_queue_and_a_relabel_is_a_review(db):
    path, flipped, truth = db
    at = _review("rev")
    queue = _suspects(at)
    # near the top: the moons interleave, so a few right labels are doubted too
    assert set(flipped) <= set(queue[:4]) and queue[0] in flipped
    first = queue[0]
    relabel = next(
        b
        for b in at.button
        if b.key.startswith(f"suspect_{first}_{truth[first]}_") and "Relabel" in b.label
    )
    relabel.click()
    at.run()
    assert not at.exception
    with open_store(path) as store:
        events = store.events(PROJECT)
    log = LabelLog(events)
    assert log.labels[first] == truth[first] and log.reviews[first].annotator == "rev"
    assert [d.event.point for d in audit_trail(events)] == [first]  # audited
    assert first not in _suspects(at)
    # keep: a right label the model doubts stays, decided by the reviewer
    second = next(p for p in _suspects(at) if p not in flipped)
    keep = next(
        b for b in at.button if b.key.startswith(f"suspect_{second}_") and "Keep" in b.label
    )
    keep.click()
    at.run()
    with open_store(path) as store:
        log = LabelLog(store.events(PROJECT))
    assert log.reviews[second].annotator == "rev" and log.labels[second] == truth[second]
    assert second not in _suspects(at)
    # the kept label is still doubted by the model: the count says a reviewer kept it
    captions = [plain_markdown(c.value) for c in at.caption]
    summary = next(c for c in captions if "the model trained on all" in c)
    assert summary.endswith(" (and 1 kept by a reviewer)."), summary


def test_an_annotator_sees_no_queue_and_cannot_decide(db):
    path, flipped, _ = db
    with open_store(path) as store:
        store.set_member(PROJECT, "own", "owner")
        store.set_member(PROJECT, "ann", "annotator")
    at = _review("ann")
    assert not _suspects(at)
    assert any("probably wrong" in i.value and "reviewer" in i.value for i in at.info)
    # below the UI: the decision itself is refused
    from rlscore.sessions.actions.review import review_point
    from rlscore.sessions.team.permissions import PermissionDeniedError

    with open_store(path) as store, pytest.raises(PermissionDeniedError):
        review_point(store, PROJECT, flipped[0], 1, "ann")
