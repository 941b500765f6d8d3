"""The Label page says when to stop (issue 24), in Chromium: on the two-moons sample (a
truth column), "keep going" (with a number of labels when one is in sight, issue 33) while
the stop rule has not fired, then
"you can stop" with the accuracy estimate and its interval once it has; the panel follows a
label given by key press without a page reload; a random check says so on the point.

The labels are given through the API (the oracle's, as ``auto_label`` gives them) between
page loads, to reach the stop quickly; what the page must say is computed independently
from the same labels (:func:`rlscore.sessions.stopping.stopping_view.stopping_view` on a session of
this test's own).
"""

from __future__ import annotations

import re

from app_page import open_app, open_expander, wait_text
from playwright.sync_api import expect

from rlscore.core.evaluation.set_accuracy import MIN_CHECKS
from rlscore.sessions import LabelingSession
from rlscore.sessions.state.settings import project_settings, save_project_settings
from rlscore.sessions.stopping.stop_rule import DEFAULT_STOP_RULE, describe_rule
from rlscore.sessions.stopping.stopping_view import stopping_view
from rlscore.storage import open_store


def _session(store, project: str) -> LabelingSession:
    """A session with the project's settings (those the app uses)."""
    p = project_settings(store, project)
    return LabelingSession(
        store, project, p["strategy"], kernel=p["kernel"], sigma=p["sigma"], lam=p["lam"],
        class_weight=p["class_weight"], snapshots=False,
    )  # fmt: skip


def test_the_stop_message_and_the_estimate_appear(server, own_sample, page):
    moons = own_sample("two_moons")
    with open_store(server.db) as store:
        s = _session(store, moons)
        s.auto_label(12)
        early = stopping_view(s)
    assert not early.decision.stop
    open_app(page, f"{server.url}/?project={moons}", 12)
    panel = page.locator(".st-key-stopping_panel")
    expect(panel.get_by_text(re.compile(r"^Keep going"))).to_be_visible()
    # the advice as the engine words it at these labels: a count only when one is in sight
    expect(panel.get_by_text(early.decision.message[1:], exact=False)).to_be_visible()

    with open_store(server.db) as store:
        s = _session(store, moons)
        while not (view := stopping_view(s)).decision.stop and s.n_labeled < 200:
            s.auto_label(1)
        n = s.n_labeled
    assert view.decision.stop, "the stop rule never fired within 200 labels"
    page.reload()
    wait_text(page, f"Labeled {n} of 220")
    expect(
        panel.get_by_text(re.compile(rf"^You can stop: the {DEFAULT_STOP_RULE} rule"))
    ).to_be_visible()
    h = view.estimate.headline  # the oracle answered focused ARLS's explore draws too
    assert h is not None and h.n_checks > 0
    expect(panel.get_by_text("Model accuracy", exact=True)).to_be_visible()
    checks = f"{h.n_checks} random check" + ("s" if h.n_checks > 1 else "")
    if h.n_checks >= MIN_CHECKS:
        expect(panel.get_by_text(f"≈ {h.estimate:.0%}", exact=True)).to_be_visible()
        interval = f"95% interval {h.low:.0%} – {h.high:.0%}, from {checks}"
    else:  # too few checks for one figure: the interval is the headline
        expect(panel.get_by_text(f"{h.low:.0%} – {h.high:.0%}", exact=True)).to_be_visible()
        interval = f"95% interval, from {checks}: too few for one figure"
    expect(panel.get_by_text(interval)).to_be_visible()
    open_expander(panel, "Other figures")
    expect(panel.get_by_text(re.compile(r"^Leave-one-out accuracy on all"))).to_be_visible()
    expect(panel.locator(".js-plotly-plot")).to_have_count(0)  # the curves: only while open
    open_expander(panel, "Curves: the accuracy estimate")
    expect(panel.locator(".js-plotly-plot")).to_be_visible()
    open_expander(panel, "Why: the evidence")
    expect(panel.get_by_text(describe_rule(DEFAULT_STOP_RULE)[:60], exact=False)).to_be_visible()


def test_the_panel_follows_a_key_press_label_without_a_reload(server, own_sample, page):
    moons = own_sample("two_moons")
    with open_store(server.db) as store:
        _session(store, moons).auto_label(12)
    open_app(page, f"{server.url}/?project={moons}", 12)
    panel = page.locator(".st-key-stopping_panel")
    expect(panel.get_by_text("As of 12 labels.")).to_be_visible()
    page.evaluate("window.__loaded_once = true")  # gone if the page were loaded again
    page.keyboard.press("1")
    wait_text(page, "Labeled 13 of 220")
    expect(panel.get_by_text("As of 13 labels.")).to_be_visible()
    with open_store(server.db) as store:
        expected = stopping_view(_session(store, moons))
    assert expected.n_labels == 13
    open_expander(panel, "Other figures")
    loo = f"Leave-one-out accuracy on all 13 labels: {expected.estimate.loo:.0%}"
    expect(panel.get_by_text(loo)).to_be_visible()
    assert page.evaluate("window.__loaded_once === true")


def test_a_random_check_shows_its_note(server, own_sample, page):
    moons = own_sample("two_moons")
    with open_store(server.db) as store:
        _session(store, moons).auto_label(4)
        save_project_settings(store, moons, {"audit_every": 1})  # every query a check
    open_app(page, f"{server.url}/?project={moons}", 4)
    item = page.locator(".st-key-rls_query_item")
    expect(item.get_by_text("· random check")).to_be_visible()
    page.keyboard.press("1")
    wait_text(page, "Labeled 5 of 220")
    with open_store(server.db) as store:
        last = [e for e in store.events(moons) if e.kind == "label"][-1]
        save_project_settings(store, moons, {"audit_every": 0})
    assert last.params.get("audit") is True
    expect(item.get_by_text("· random check")).to_be_visible()  # the next one


def test_the_random_checks_offer_takes_effect_on_the_page(server, own_sample, page):
    # a tester's click saved the setting, but the panel kept offering it until a reload: the
    # fragment the button is in reran with the page's settings of before the click
    moons = own_sample("two_moons")
    with open_store(server.db) as store:
        save_project_settings(store, moons, {"strategy": "uncertainty", "audit_every": 0})
        _session(store, moons).auto_label(6)
    open_app(page, f"{server.url}/?project={moons}", 6)
    panel = page.locator(".st-key-stopping_panel")
    offer = panel.get_by_role("button", name="Random check every 10 queries")
    expect(offer).to_be_visible()
    offer.click()
    expect(panel.get_by_text("Random checks: 1 query in 10; none labeled yet.")).to_be_visible()
    expect(offer).to_have_count(0)
    with open_store(server.db) as store:
        assert project_settings(store, moons)["audit_every"] == 10
