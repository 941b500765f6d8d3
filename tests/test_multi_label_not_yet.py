"""What is single-label only says so for a multi-label project instead of failing: the
``label-issues`` command and the Tune and Compare pages (Streamlit's AppTest; the label sets
themselves are tested in test_multi_label_*.py, their stop advice in test_set_stop.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from support.app import app_page, ok
from support.multi_label import labeled_tags_db

from rlscore.cli.commands.label_issues import main as label_issues
from rlscore.query import DEFAULT_MULTILABEL_STRATEGY, MULTILABEL_STRATEGIES
from rlscore.sessions import LabelingSession, project_settings, save_project_settings
from rlscore.sessions.state.settings import MULTILABEL_AUDIT_EVERY
from rlscore.sessions.stopping.accuracy_estimate import AUDIT_EVERY
from rlscore.sessions.stopping.stopping_view import stop_rule_fired, stopping_view
from rlscore.storage import open_store
from rlscore.ui.shell.strategy_names import STRATEGY_LABELS, strategy_labels

REPO = Path(__file__).resolve().parents[1]
NOT_YET = "not available for multi-label projects yet"


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    return labeled_tags_db(path, [["news"], ["sports", "tech"], [], ["news", "tech"]] * 3)


def test_the_label_issues_command_says_so(db, capsys):
    assert label_issues(["--db", str(db), "--project", "tags"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and NOT_YET in err and "Traceback" not in err


@pytest.mark.parametrize("page", ["tune.py", "compare.py", "label.py"])
def test_the_single_label_pages_say_so_and_the_label_page_shows_sets(db, page):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["project"] = "tags"
    at.query_params["annotator"] = "ada"
    at.run()
    if page != "label.py":
        at.switch_page(f"pages/{page}")
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    # the Label page of label sets has no single-label figure left to decline
    assert any(NOT_YET in i.value for i in at.info) == (page != "label.py")
    if page == "label.py":  # the headline there: no random check among these labels yet
        assert any("Micro-F1 of the predicted sets: not known yet" in m.value for m in at.markdown)
        # a multi-label project makes random checks by default: nothing to offer
        assert not [b for b in at.button if b.key == "audit_on"]
        with open_store(db) as store:
            assert project_settings(store, "tags")["audit_every"] == MULTILABEL_AUDIT_EVERY
            save_project_settings(store, "tags", {"audit_every": 0}, checked=False)
        ok(at.run())  # the owner turned them off: the offer turns them on again
        at.button(key="audit_on").click()
        ok(at.run())
        with open_store(db) as store:
            assert project_settings(store, "tags")["audit_every"] == AUDIT_EVERY
        assert not [b for b in at.button if b.key == "audit_on"]


def test_the_sidebar_offers_only_strategies_with_a_multi_label_variant(db):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["project"] = "tags"
    at.query_params["annotator"] = "ada"
    at.run()
    strategy = at.sidebar.selectbox(key="w_strategy")
    assert strategy.value == DEFAULT_MULTILABEL_STRATEGY
    labels = strategy_labels(multi_label=True)
    assert set(strategy.options) == {labels[n] for n in MULTILABEL_STRATEGIES}
    # a single-label project offers every strategy
    at.query_params["project"] = "two_moons"
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["project"] = "two_moons"
    at.query_params["annotator"] = "ada"
    at.run()
    assert len(at.sidebar.selectbox(key="w_strategy").options) == len(STRATEGY_LABELS)


@pytest.mark.parametrize(("project", "default"), [("tags", "arls"), ("two_moons", "arls-focused")])
def test_the_recommended_strategy_is_the_default_of_the_projects_kind(db, project, default):
    # a tester's multi-label project offered "Focused ARLS (recommended)", while multi-label
    # projects start with ARLS, which led the multi-label benchmark (docs/app.md)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    at.query_params["project"] = project
    at.query_params["annotator"] = "ada"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    strategy = at.sidebar.selectbox(key="w_strategy")
    assert strategy.value == default  # nobody changed the project's settings
    recommended = [k for k, text in enumerate(strategy.options) if "recommended" in text]
    assert recommended == [strategy.index]


def test_until_stop_does_not_end_a_multi_label_project_before_its_rule_fires(db, monkeypatch):
    monkeypatch.setenv("RLSCORE_MIN_DWELL_MS", "0")
    with open_store(db) as store:
        s = LabelingSession(store, "tags", snapshots=False, annotator="bob")
        for k in range(12):
            s.label(s.query()[0], [["news"], ["sports", "tech"], []][k % 3])
        assert stop_rule_fired(s) is False  # 24 labels: too few to compare 4 models 20 apart
        with pytest.raises(ValueError, match="set-agreement"):
            stopping_view(s)  # the single-label panel's view
        save_project_settings(store, "tags", {"until_stop": True})
    at = app_page("label.py")
    at.query_params["project"] = "tags"
    at.query_params["annotator"] = "ada"
    ok(at.run())
    assert not at.error, [e.value for e in at.error]
    until = at.sidebar.toggle(key="w_until_stop")
    assert not until.disabled and until.value is True
    assert any(i.value.startswith("Keep going") for i in at.info)
    assert at.button  # the panel's buttons are drawn: labeling did not end
