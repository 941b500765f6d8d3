"""The Label page and the stop rule (issue 24), in Streamlit's AppTest: "until the stop rule
fires" ends labeling like a budget (with a way to go on), random checks carry their note, the
When-to-stop panel replaced the old stopping indicator, offers the random checks and comes
before the recent labels and the learner's figures.

What the page must say is computed independently from the stored labels
(:func:`rlscore.sessions.stopping.stopping_view.stopping_view` on a session of this test's own).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from support.app import REPO, TIMEOUT, button, ok, stored_log

from rlscore.core.evaluation.set_accuracy import MIN_CHECKS
from rlscore.sessions import LabelingSession
from rlscore.sessions.state.settings import project_settings, save_project_settings
from rlscore.sessions.stopping.accuracy_estimate import AUDIT_EVERY, RISK_MIN_LABELS
from rlscore.sessions.stopping.stopping_view import stopping_view
from rlscore.storage import open_store
from rlscore.ui.label import refresh

PROJECT = "two_moons"


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    return path


def _open() -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.query_params["annotator"] = "ada"
    at.query_params["project"] = PROJECT
    ok(at.run())
    assert at.session_state["params"]["project"] == PROJECT
    return at


def _session(store) -> LabelingSession:
    p = project_settings(store, PROJECT)
    return LabelingSession(
        store, PROJECT, p["strategy"], kernel=p["kernel"], sigma=p["sigma"], lam=p["lam"],
        class_weight=p["class_weight"], snapshots=False,
    )  # fmt: skip


def _label_buttons(at: AppTest) -> list:
    return [b for b in at.button if b.key and b.key.startswith("label_")]


def test_until_stop_ends_labeling_like_a_budget_and_a_tab_can_go_on(db):
    at = _open()
    at.toggle(key="w_until_stop").set_value(True)
    ok(at.run())
    with open_store(db) as store:
        assert project_settings(store, PROJECT)["until_stop"] is True
        s = _session(store)
        s.auto_label(12)
    ok(at.run())
    assert _label_buttons(at), "the rule has not fired: labeling goes on"
    with open_store(db) as store:
        s = _session(store)
        while not stopping_view(s).decision.stop and s.n_labeled < 200:
            s.auto_label(1)
        n = s.n_labeled
    assert n < 200, "the stop rule never fired within 200 labels"
    ok(at.run())
    assert any("the stop rule fired" in x.value for x in at.success)
    assert not _label_buttons(at)
    at.button(key="go_on_after_stop").click()
    ok(at.run())
    assert _label_buttons(at)
    button(at, "label", 0).click()
    ok(at.run())
    assert len(stored_log(db, PROJECT).labels) == n + 1
    # off again: no stop, as before the setting existed
    at.toggle(key="w_until_stop").set_value(False)
    ok(at.run())
    assert _label_buttons(at)


def test_the_when_to_stop_panel_replaced_the_stopping_indicator(db):
    at = _open()
    texts = [m.value for m in at.markdown]
    assert "**How good is the model — can I stop?**" in texts
    assert not any("Stopping indicator" in t for t in texts)


def _charts(at: AppTest) -> set[str]:
    return {c.proto.id.rsplit("-", 1)[-1] for c in at.get("plotly_chart")}


def test_the_accuracy_curves_are_drawn_only_while_open_and_from_the_second_point(db):
    at = _open()
    button(at, "label", 0).click()
    ok(at.run())
    # closed by default: neither the chart nor its caption is sent (the browser would mount a
    # new chart at every label)
    assert "stopping_figure" not in _charts(at)
    at.session_state["stopping_curves"] = True  # what a click on the expander sets
    ok(at.run())
    assert "stopping_figure" in _charts(at)
    at.session_state["stopping_curves"] = False
    ok(at.run())
    assert "stopping_figure" not in _charts(at)


def test_the_accuracy_curves_start_with_the_first_label(db):
    at = _open()
    at.session_state["stopping_curves"] = True
    ok(at.run())
    assert "stopping_figure" not in _charts(at)  # one point (no label yet) is no curve
    assert "The curves start with the first label." in [c.value for c in at.caption]
    button(at, "label", 0).click()
    ok(at.run())
    assert "stopping_figure" in _charts(at)  # the expander stays open over the labels
    assert "The curves start with the first label." not in [c.value for c in at.caption]


def test_the_risk_curve_is_drawn_only_while_open(db):
    at = _open()
    for _ in range(2):
        button(at, "label", 0).click()
        ok(at.run())
    assert "risk_history" not in _charts(at)
    at.session_state["risk_curve"] = True
    ok(at.run())
    assert "risk_history" in _charts(at)


def test_a_random_check_says_so_and_its_label_is_marked(db):
    at = _open()
    at.number_input(key="w_audit_every").set_value(1)  # every query a random check
    ok(at.run())
    # the point claimed before stays the annotator's (shown again, not a check)
    assert not any(c.value.endswith("· random check") for c in at.caption)
    button(at, "label", 0).click()
    ok(at.run())
    captions = [c.value for c in at.caption]
    assert any(c.endswith("· random check") for c in captions), captions
    button(at, "label", 0).click()
    ok(at.run())
    with open_store(db) as store:
        events = [e for e in store.events(PROJECT) if e.kind == "label"]
    assert [e.params.get("audit") for e in events] == [None, True]
    at.number_input(key="w_audit_every").set_value(0)
    ok(at.run())
    button(at, "label", 0).click()  # the check claimed before stays one; the next is not
    ok(at.run())
    assert not any(c.endswith("· random check") for c in (c.value for c in at.caption))


def test_the_panel_offers_the_random_checks(db):
    at = _open()
    with open_store(db) as store:
        _session(store).auto_label(6)
    ok(at.run())
    at.button(key="audit_on").click()
    ok(at.run())
    with open_store(db) as store:
        assert project_settings(store, PROJECT)["audit_every"] == AUDIT_EVERY
        save_project_settings(store, PROJECT, {"audit_every": 0})


def test_the_offer_is_disabled_for_whom_may_not_change_the_settings(db):
    at = _open()  # opens (and creates) the sample project
    with open_store(db) as store:
        _session(store).auto_label(6)
        store.set_member(PROJECT, "olive", "owner")
        store.set_member(PROJECT, "ada", "annotator", by="olive")
    ok(at.run())
    offer = at.button(key="audit_on")
    assert offer.disabled and "owner role" in offer.help  # ada is an annotator
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.query_params.update(annotator="olive", project=PROJECT)
    ok(at.run())
    assert not at.button(key="audit_on").disabled
    at.button(key="audit_on").click()
    ok(at.run())
    with open_store(db) as store:
        assert project_settings(store, PROJECT)["audit_every"] == AUDIT_EVERY


def test_the_panel_shows_the_headline_from_the_random_checks_with_its_interval(db):
    at = _open()
    with open_store(db) as store:
        s = _session(store)
        s.set_params(audit_every=2)  # the oracle's queries: every second one a check
        s.auto_label(16)
        view = stopping_view(_session(store))  # rebuilt from the log alone
        log = _session(store)._state.log
        checks = [p for p in log.label_order() if p in log.checks]
    headline = view.estimate.headline
    assert headline.n_checks == len(checks) >= 6
    ok(at.run())
    metric = next(m for m in at.metric if m.label == "Model accuracy")
    assert metric.value == f"≈ {headline.estimate:.0%}"
    expected = (
        f"95% interval {headline.low:.0%} – {headline.high:.0%}, from {headline.n_checks} "
        "random checks"
    )
    assert expected in [c.value for c in at.caption]


def test_with_few_random_checks_the_headline_is_its_interval(db):
    # a tester saw "≈ 100%" in large type from one check (interval 3%–100%)
    at = _open()
    with open_store(db) as store:
        s = _session(store)
        s.set_params(audit_every=3)
        s.auto_label(7)  # labels 5 and 8 of the log are checks (the first four were given)
        headline = stopping_view(_session(store)).estimate.headline
    assert headline is not None and 0 < headline.n_checks < MIN_CHECKS
    ok(at.run())
    metric = next(m for m in at.metric if m.label == "Model accuracy")
    assert metric.value == f"{headline.low:.0%} – {headline.high:.0%}"
    assert not metric.value.startswith("≈")
    checks = f"{headline.n_checks} random check{'s' if headline.n_checks != 1 else ''}"
    assert any(c.value.startswith(f"95% interval, from {checks}: too few") for c in at.caption)


def _in_page_order(at: AppTest) -> list:
    """The main area's elements in the order the page draws them (depth first)."""
    out = []

    def walk(node) -> None:
        children = getattr(node, "children", None)
        if children is None:
            out.append(node)
            return
        for k in sorted(children):
            walk(children[k])

    walk(at.main)
    return out


def test_the_headline_comes_before_the_recent_labels_and_the_learners_figures(db):
    # "can I stop?" is answered right below the query panel and the plot, not after the
    # selection criterion and its history
    at = _open()
    button(at, "label", 0).click()
    ok(at.run())
    order = _in_page_order(at)

    def first(found) -> int:
        return next(i for i, n in enumerate(order) if found(n))

    query = first(lambda n: n.type == "button" and (n.key or "").startswith("label_"))
    panel = first(lambda n: n.type == "markdown" and "can I stop?" in n.value)
    recent = first(lambda n: n.type == "markdown" and "Your recent labels" in n.value)
    risk = first(lambda n: n.type == "metric" and n.label.startswith("Selection criterion"))
    assert query < panel < recent < risk


@pytest.mark.parametrize(
    ("strategy", "said"),
    [
        ("arls-focused", "Focused ARLS draws about 1 query in 5 at random"),
        ("aopt-klr", "A-optimal KLR draws no query at random"),
        ("uncertainty", "Uncertainty sampling draws no query at random"),
        ("random", "Random draws every query at random: each label is a random check"),
    ],
)
def test_the_panel_says_whether_the_strategy_draws_at_random(db, strategy, said):
    # a tester's A-optimal project said "Focused ARLS draws about 1 query in 10 at random"
    # (focused ARLS draws 1 in 5: its explore share, 0.2) and its headline never came
    with open_store(db) as store:
        from rlscore.data.samples.bundled import ensure_sample_projects

        ensure_sample_projects(store)
        save_project_settings(store, PROJECT, {"strategy": strategy})
        share = _session(store).engine.uniform_share
    assert share == {"arls-focused": 0.2, "random": 1.0}.get(strategy, 0.0)
    captions = " ".join(c.value for c in _open().caption)
    assert said in captions and "1 query in 10 at random" not in captions


def test_the_expected_errors_are_shown_from_the_labels_their_benchmark_measured(db):
    # a tester saw "≈ 61 %" after 3 labels on a task the model then got 94 % right: the
    # calibration was measured from 40 labels on (docs/benchmarks/trust.md)
    _open()
    with open_store(db) as store:
        s = _session(store)
        s.auto_label(RISK_MIN_LABELS - 1)
        early = stopping_view(s).estimate
    assert early.expected_error_rate is not None  # computed, not shown
    at = _open()
    metric = next(m for m in at.metric if m.label == "Expected errors on the unlabeled points")
    assert metric.value == "—"
    assert any(f"Shown from {RISK_MIN_LABELS} labels on" in c.value for c in at.caption)
    with open_store(db) as store:
        s = _session(store)
        s.auto_label(1)
        rate = stopping_view(s).estimate.expected_error_rate
    at = _open()
    metric = next(m for m in at.metric if m.label == "Expected errors on the unlabeled points")
    shown = f"{rate:.1%}" if rate < 0.1 else f"{rate:.0%}"
    assert metric.value == f"≈ {shown}"


def test_auto_label_stops_where_the_stop_rule_fires_and_says_why(db, monkeypatch):
    # a tester's Auto-label 150 labeled all 150 on a project "until the stop rule fires",
    # whose rule fired at 87 labels: the manual panel had stopped there
    # AppTest runs the whole page at a click, the panel (which shows the notice) first, and
    # then the page run the click asks for; a browser reruns the figures' fragment only, and
    # that page run shows it (rlscore.ui.label.refresh)
    monkeypatch.setattr(refresh, "follow_page_run", lambda: None)
    at = _open()
    at.toggle(key="w_until_stop").set_value(True)
    ok(at.run())
    at.number_input(key="n_auto").set_value(150)
    ok(at.run())
    at.button(key="auto").click()
    ok(at.run())
    n = len(stored_log(db, PROJECT).labels)
    with open_store(db) as store:  # the rule, recomputed from the stored labels alone
        decision = stopping_view(_session(store)).decision
    assert decision.stop and decision.fired_at_labels == n < 150
    notices = [x.value for x in at.success]
    assert f"Auto-labeled {n} points with the truth. Stopped there: the stop rule fired" in (
        " ".join(notices)
    )
    assert any(x.startswith("Done: the stop rule fired") for x in notices)  # as by hand
    auto = at.button(key="auto")
    assert auto.disabled and "the stop rule fired" in auto.help
    # a tab that goes on auto-labels on, past the stop
    at.button(key="go_on_after_stop").click()
    ok(at.run())
    assert not at.button(key="auto").disabled
    at.number_input(key="n_auto").set_value(3)
    ok(at.run())
    at.button(key="auto").click()
    ok(at.run())
    assert len(stored_log(db, PROJECT).labels) == n + 3


def test_a_klr_strategys_figures_say_they_judge_an_rls_stand_in(db):
    """A-optimal KLR on an RBF kernel: the headline and the stop advice are an RLS's on the
    same labels (docs/mathematics.md), the pool plot the KLR's; the panel said "Model
    accuracy" with nothing to tell them apart (an exploratory test: they agreed on 90 % of
    the pool)."""
    from rlscore.ui.label.stopping_panel import STAND_IN_NOTE

    _open()  # the app writes its sample projects
    with open_store() as store:
        save_project_settings(store, PROJECT, {"strategy": "aopt-klr", "kernel": "rbf"})
        _session(store).auto_label(12)
    at = _open()
    assert any(c.value == STAND_IN_NOTE for c in at.caption)
    with open_store() as store:
        save_project_settings(store, PROJECT, {"strategy": "arls-focused"})
    at = _open()
    assert not any(c.value == STAND_IN_NOTE for c in at.caption)
    assert any("Model accuracy" in m.label for m in at.metric)  # the panel is drawn
