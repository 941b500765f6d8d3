"""The Review page's "Probably wrong" queue in Chromium (issue 37, item 5).

A copy of the two moons gets 40 labels through the store, two of them flipped on purpose
(points deep inside a moon: their 7 nearest labeled neighbours share their true class). The
project has members: an owner, a reviewer and an annotator (typed names, the local mode's
identity). The reviewer finds a flipped label near the top of the queue and relabels it with
the queue's button: the store holds the new label as the reviewer's decision, in the audit
trail. The annotator sees no queue and no decision button, and the decision itself, tried
below the UI, is refused with the store unchanged. The Label page tells the reviewer how many
labels look wrong, and after a visit to the queue only those new since (item 2); the annotator
is told nothing. Labels are read from the database independently of the app, and the expected
suspects are the label checker's full table filtered by hand.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from app_page import APP_IDLE, open_app, rerun, settle
from browser_context import new_context
from playwright.sync_api import expect
from support.flipped_labels import label_with_flips as flips

from rlscore.sessions import LabelLog, project_settings
from rlscore.sessions.actions.review import audit_trail, review_point
from rlscore.sessions.team.permissions import PermissionDeniedError
from rlscore.sessions.views.label_issues import project_label_issues
from rlscore.storage import open_store

#: the queue's buttons in page order: (point, class) from their keys suspect_<point>_<c>_<seen>
SUSPECT_BUTTONS = """() => [
  ...document.querySelectorAll('.stElementContainer[class*="st-key-suspect_"]')].map(c => {
    const key = [...c.classList].find(x => x.startsWith('st-key-suspect_'));
    const parts = key.slice('st-key-suspect_'.length).split('_');
    return [Number(parts[0]), parts[1], c.innerText.trim()];
  })"""


def label_with_flips(db, project: str) -> tuple[list[int], np.ndarray]:
    """40 labels of ``project`` by ada through the store, two flipped; returns the flipped
    points and the truth."""
    with open_store(db) as store:
        flipped, _, truth = flips(store, project)
        store.set_member(project, "own", "owner", by="shell:test")
        store.set_member(project, "rev", "reviewer", by="shell:test")
        store.set_member(project, "ann", "annotator", by="shell:test")
    return flipped, truth


#: the Label page's note on new suspects (rlscore.ui.label.suspects_note)
NOTE = re.compile(r"labels? looks? wrong")


def expected_suspects(db, project: str) -> set[int]:
    """The queue's points by its rule, from the checker's full table: the model suggests
    another class with a chance ≥ 0.5 that the label is wrong, and no review holds."""
    with open_store(db) as store:
        events = store.events(project)
        settings = project_settings(store, project)
        table = project_label_issues(store.load_project(project), events, settings)
    keep = (table["score"] >= 0.5) & (table["suggested"] != table["label"])
    return {int(i) for i in table[keep]["index"]} - set(LabelLog(events).reviews)


def note(page) -> str:
    expect(page.get_by_text(NOTE)).to_have_count(1)
    return page.get_by_text(NOTE).inner_text()


def open_review(page, url: str, project: str, who: str) -> None:
    page.goto(f"{url}/review?project={project}&annotator={who}")
    wait_review(page)


def wait_review(page) -> None:
    expect(page.get_by_role("heading", name="Probably wrong")).to_be_visible()
    page.locator(APP_IDLE).wait_for()
    settle(page)


def nav(page, title: str) -> None:
    """Go to another page of the app by the sidebar (the same session, as a person does)."""
    rerun(page, page.get_by_test_id("stSidebarNav").get_by_role("link", name=title).click)


def suspects(page) -> list[int]:
    """The points of the queue, in page order."""
    return list(dict.fromkeys(p for p, _, _ in page.evaluate(SUSPECT_BUTTONS)))


def test_a_reviewer_relabels_a_flipped_label_and_an_annotator_cannot(
    browser, server, own_sample, artifacts
):
    moons = own_sample("two_moons")
    flipped, truth = label_with_flips(server.db, moons)
    ctx_rev, ctx_ann = new_context(browser, height=1400), new_context(browser, height=1400)
    try:
        rev = ctx_rev.new_page()
        open_app(rev, f"{server.url}/?project={moons}", 40, annotator="rev")
        seen = expected_suspects(server.db, moons)
        assert note(rev).startswith(f"{len(seen)} labels look wrong — ")
        nav(rev, "Review")
        wait_review(rev)
        queue = suspects(rev)
        # near the top: the moons interleave, so a few right labels are doubted too
        assert set(flipped) <= set(queue[:4]), (flipped, queue)
        first = next(p for p in queue if p in flipped)
        rev.screenshot(path=artifacts / "queue.png", full_page=True)

        button = rev.locator(
            f'.stElementContainer[class*="st-key-suspect_{first}_{truth[first]}_"] button'
        )
        expect(button).to_have_text(re.compile(r"^Relabel as "))
        rerun(rev, button.click)
        expect(rev.get_by_text(re.compile(rf"Point #{first}: final label"))).to_be_visible()
        with open_store(server.db) as store:
            events = store.events(moons)
        log = LabelLog(events)
        assert log.labels[first] == truth[first]
        assert log.reviews[first].annotator == "rev"
        assert [(d.event.point, d.event.label, d.holds) for d in audit_trail(events)] == [
            (first, truth[first], True)
        ]
        assert first not in suspects(rev)
        other = next(p for p in flipped if p != first)
        assert other in suspects(rev)
        # back on the Label page: only the suspects new since the queue was opened
        new = expected_suspects(server.db, moons) - seen
        nav(rev, "Label")
        if new:
            assert note(rev).startswith(f"{len(new)} label")
            assert "since you last looked" in note(rev)
        else:
            expect(rev.get_by_text(NOTE)).to_have_count(0)

        # the annotator: no queue, no decision button; the decision itself is refused
        ann = ctx_ann.new_page()
        open_app(ann, f"{server.url}/?project={moons}", 40, annotator="ann")
        expect(ann.get_by_text(NOTE)).to_have_count(0)
        open_review(ann, server.url, moons, "ann")
        expect(
            ann.get_by_text(re.compile(r"The labels that are probably wrong: .*reviewer"))
        ).to_be_visible()
        assert suspects(ann) == []
        expect(ann.get_by_role("button", name=re.compile(r"^(Keep|Relabel as) "))).to_have_count(0)
        ann.screenshot(path=artifacts / "annotator.png", full_page=True)
        with open_store(server.db) as store:
            before = store.events(moons)
            with pytest.raises(PermissionDeniedError, match="reviewer"):
                review_point(store, moons, other, int(truth[other]), "ann")
            assert store.events(moons) == before
    finally:
        ctx_rev.close()
        ctx_ann.close()
