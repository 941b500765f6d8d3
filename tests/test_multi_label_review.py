"""The Review page of a multi-label project (Streamlit's AppTest): annotators' label sets are
shown as ``a | b`` text, a disagreement is decided among the sets they gave (stored as the
review's set), the agreement shows the set measures of :func:`project_agreement`, and the
single-label "Probably wrong" queue says it is not available yet."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from support.markdown import plain
from support.multi_label import tagged_project

from rlscore.sessions import LabelLog
from rlscore.sessions.team.agreement_report import project_agreement
from rlscore.storage import Event, open_store

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    with open_store(path) as store:
        store.create_project(tagged_project())
        store.append_event("tags", Event("label", 2, ["news", "tech"], "ada"))
        store.append_event("tags", Event("label", 2, [], "bob"))
        store.append_event("tags", Event("label", 4, ["sports"], "ada"))
        store.append_event("tags", Event("label", 4, ["sports"], "bob"))
    return path


def test_sets_are_text_and_a_disagreement_is_decided_among_the_given_sets(db):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["project"] = "tags"
    at.query_params["annotator"] = "rev"
    at.run()
    at.switch_page("pages/review.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Disagreements (1)" in m.value for m in at.markdown)
    # the disagreement's card: every annotator's set, as text
    ratings = next(d.value for d in at.dataframe if "annotator" in d.value and "label" in d.value)
    assert sorted(ratings["label"]) == ["(none of these)", "news | tech"]
    decide = [b for b in at.button if b.key and b.key.startswith("decide_2_")]
    assert [plain(b.label) for b in decide] == ["news | tech", "(none of these)"]
    assert any("not available for multi-label projects yet" in i.value for i in at.info)
    decide[1].click()
    at.run()
    assert not at.exception
    with open_store(db) as store:
        log = LabelLog(store.events("tags"))
    assert log.reviews[2].annotator == "rev" and log.labels[2] == ()
    assert any("Disagreements (0)" in m.value for m in at.markdown)


def test_agreement_shows_the_set_measures_of_project_agreement(db):
    with open_store(db) as store:
        report = project_agreement(store, "tags")
    assert report.multi_label and report.reason is None
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["project"] = "tags"
    at.query_params["annotator"] = "rev"
    at.run()
    at.switch_page("pages/review.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics == {
        "Points with ≥ 2 labels": "2",
        "Krippendorff's α (MASI)": f"{report.krippendorff_alpha:.3f}",
        "Same set": "50%",  # point 4: both {sports}; point 2: {news, tech} against {}
    }
    pairs = next(d.value for d in at.dataframe if "Class" in d.value)
    assert pairs["Class"].tolist() == ["news", "sports", "tech"]
    assert pairs["Cohen's κ"].tolist() == [
        "—" if math.isnan(r.kappa) else f"{r.kappa:.3f}" for r in report.pairwise
    ]
