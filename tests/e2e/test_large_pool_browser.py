"""A pool above the low-rank threshold in Chromium: the project starts on the low-rank kernel
with the exact re-score of its shortlist, says so, and a key press labels the point shown; the
label is read back from the database."""

from __future__ import annotations

import numpy as np
from app_page import heading_number, open_app, settle, stored, wait_text
from playwright.sync_api import expect

from rlscore.data.projects.project import Project
from rlscore.sessions.state.settings import LOW_RANK_MIN_POOL
from rlscore.storage import open_store

N = LOW_RANK_MIN_POOL + 10_000


def test_a_large_pool_labels_on_the_low_rank_kernel_with_the_exact_re_score(page, server):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(N, 3))
    with open_store(server.db) as store:
        store.create_project(
            Project(
                name="large_pool",  # not test_trust's "big": the tests share the server
                X=X,
                feature_names=["a", "b", "c"],
                ids=[str(i) for i in range(N)],
                truth=np.where(X[:, 0] + 0.3 * X[:, 1] > 0, "yes", "no"),
                classes=["no", "yes"],
                meta={"sigma": 1.5, "lam": 0.3},
            )
        )
    q = open_app(page, f"{server.url}/?project=large_pool", 0, total=N)
    note = page.get_by_text(f"Pool of {N:,} points")
    expect(note).to_contain_text("low-rank kernel of 500 uniform landmarks")
    expect(note).to_contain_text("the 10 best re-scored on the exact kernel")
    page.keyboard.press("2")
    wait_text(page, f"Labeled 1 of {N}")
    assert stored(server.db, "large_pool").labels == {q: "yes"}
    settle(page)
    assert heading_number(page, "Next query:") != q
