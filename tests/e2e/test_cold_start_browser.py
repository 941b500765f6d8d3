"""A positives-only start in Chromium: the Label page proposes reliable negatives
(Graph-OCL), shows each with a checkbox, and labels only the checked ones, in the annotator's
name. The proposal is recomputed here from the database; labels are read back from it."""

from __future__ import annotations

import re

from app_page import open_app, rerun, settle, stored
from playwright.sync_api import expect

from rlscore.sessions.actions.cold_start import project_proposal
from rlscore.storage import Event, open_store


def test_positives_then_confirmed_negatives_then_the_active_loop(
    page, server, own_sample, artifacts
):
    moons = own_sample("two_moons")
    with open_store(server.db) as store:
        truth = store.load_project(moons).truth
        positives = [i for i, y in enumerate(truth) if y == 1][:6]
        for i in positives:
            store.append_event(moons, Event("label", point=i, label=1, annotator="ada"))
        _, proposal = project_proposal(store, moons)
    open_app(page, f"{server.url}/?project={moons}", len(positives))
    expect(page.get_by_text("Only class “1” labeled so far.", exact=False)).to_be_visible()
    rerun(page, lambda: page.get_by_role("button", name="Propose reliable -1 points").click())
    boxes = page.get_by_role("checkbox", name=re.compile(r"^#\d+ · id "))
    expect(boxes).to_have_count(len(proposal.points))
    checkboxes = page.locator('[data-testid="stCheckbox"]')
    proposed = checkboxes.filter(has_text=re.compile(r"^#\d+ · id "))
    shown = [int(re.match(r"#(\d+)", t).group(1)) for t in proposed.all_inner_texts()]
    assert shown == list(proposal.points)
    page.screenshot(path=artifacts / "proposal.png", full_page=True)
    dropped = proposal.points[-1]
    rerun(page, lambda: proposed.last.get_by_text(re.compile(rf"^#{dropped} · id ")).click())
    expect(boxes.nth(len(proposal.points) - 1)).not_to_be_checked()
    rerun(page, lambda: page.get_by_role("button", name="Label the checked points -1").click())
    expect(page.get_by_text(f"Labeled {len(positives) + len(proposal.points) - 1} of 220",
                            exact=True)).to_be_visible()  # fmt: skip
    settle(page)
    log = stored(server.db, moons)
    kept = set(proposal.points[:-1])
    assert {i for i, v in log.labels.items() if v == -1} == kept
    assert dropped not in log.labels
    assert all(log.label_events[i].annotator == "ada" for i in kept)
    expect(page.get_by_text("labeled so far", exact=False)).to_have_count(0)
    expect(page.get_by_role("heading", name=re.compile(r"Next query: point #\d+"))).to_be_visible()
    page.screenshot(path=artifacts / "after_confirm.png", full_page=True)
