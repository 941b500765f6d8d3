"""End-to-end: the real app in headless Chromium (Playwright), a real server, a real database.

Labels are checked against the database (read independently of the app). Screenshots of
every page go to tests/e2e/artifacts/<test>/.
"""

from __future__ import annotations

import csv
import io
import re

from app_page import (
    choose,
    heading_number,
    label_button,
    open_app,
    settle,
    stored,
    wait_text,
)
from playwright.sync_api import Page, expect

from rlscore.storage import open_store


def click_plot_point(page: Page, trace: int = 0, point: int = 0) -> None:
    """Click one marker of the pool scatter (plotly hit-tests the mouse position)."""
    markers = page.locator(".js-plotly-plot").first.locator(".scatterlayer .trace")
    box = markers.nth(trace).locator("path.point").nth(point).bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def test_label_with_buttons_keys_and_clicks_then_reload_and_crash(own_server, page, artifacts):
    server = own_server  # killed and started again below: a server of its own
    url = server.url
    q0 = open_app(page, url, 0)
    page.screenshot(path=artifacts / "label_first_run.png", full_page=True)

    # a button
    label_button(page, "1").click()
    wait_text(page, "Labeled 1 of 220")
    assert stored(server.db, "two_moons").labels == {q0: 1}
    q1 = heading_number(page, "Next query:")
    assert q1 != q0

    # keyboard: "1" labels as the first class, S skips, U undoes
    page.keyboard.press("1")
    wait_text(page, "Labeled 2 of 220")
    assert stored(server.db, "two_moons").labels == {q0: 1, q1: -1}
    q2 = heading_number(page, "Next query:")
    page.keyboard.press("s")
    expect(page.get_by_role("heading", name=f"Next query: point #{q2}")).to_be_hidden()
    settle(page)
    assert stored(server.db, "two_moons").skipped == {q2}
    page.keyboard.press("u")
    expect(page.get_by_role("heading", name=f"Next query: point #{q2}")).to_be_visible()
    settle(page)
    assert stored(server.db, "two_moons").skipped == set()

    # click a point in the plot and label it instead of the query
    click_plot_point(page, trace=0, point=3)
    picked = heading_number(page, "Selected")
    settle(page)
    page.screenshot(path=artifacts / "label_selected_point.png", full_page=True)
    label_button(page, "-1").click()
    wait_text(page, "Labeled 3 of 220")
    labels = stored(server.db, "two_moons").labels
    assert labels == {q0: 1, q1: -1, picked: -1}
    q3 = heading_number(page, "Next query:")

    # undo the click-label, then label the query by key
    page.get_by_role("button", name=re.compile(r"^Undo")).click()
    wait_text(page, "Labeled 2 of 220")
    assert picked not in stored(server.db, "two_moons").labels
    # the undone point comes back to the annotator who undid it, as their query
    assert heading_number(page, "Next query:") == picked
    page.keyboard.press("2")
    wait_text(page, "Labeled 3 of 220")
    expected = {q0: 1, q1: -1, picked: 1}
    assert stored(server.db, "two_moons").labels == expected
    q_next = heading_number(page, "Next query:")
    page.screenshot(path=artifacts / "label_after_three.png", full_page=True)

    # reload: same labels, same next query
    assert open_app(page, url, 3) == q_next

    # kill -9 and restart on the same database: still there
    server.kill()
    server.start()
    assert open_app(page, url, 3) == q_next
    assert stored(server.db, "two_moons").labels == expected
    del q3

    # the other pages render
    page.goto(f"{url}/tune")
    expect(page.get_by_role("heading", name="Leave-one-out error vs λ")).to_be_visible()
    settle(page)
    page.locator(".js-plotly-plot").nth(3).wait_for()
    page.screenshot(path=artifacts / "tune.png", full_page=True)

    page.goto(f"{url}/compare")
    expect(page.get_by_role("heading", name=re.compile("Compare strategies"))).to_be_visible()
    settle(page)
    page.get_by_role("button", name="Run").click()
    expect(page.get_by_role("heading", name="Learning curves (validation error)")).to_be_visible()
    expect(page.get_by_text("held-out validation split (400 points)")).to_be_visible()
    settle(page)
    page.locator(".js-plotly-plot").nth(1).wait_for()
    with page.expect_download() as info:
        page.get_by_role("button", name="Download results (CSV)").click()
    path = artifacts / "compare.csv"
    info.value.save_as(path)
    rows = list(csv.DictReader(path.open()))
    assert {r["strategy"] for r in rows} == {"arls-focused", "uncertainty", "random"}
    assert len(rows) == 3 * 3 * 21  # strategies × seeds × (queries + 1)
    page.screenshot(path=artifacts / "compare.png", full_page=True)


def test_digits_show_the_picture_and_pca(page, server, own_sample, artifacts):
    digits = own_sample("digits123")
    open_app(page, server.url, 0)
    choose(page, "Project", f"{digits} (uploaded)")
    wait_text(page, "Labeled 0 of 300")
    expect(page.get_by_text("PCA projection", exact=False).first).to_be_visible()
    expect(label_button(page, "two")).to_be_visible()
    page.keyboard.press("3")
    wait_text(page, "Labeled 1 of 300")
    assert list(stored(server.db, digits).labels.values()) == [3]
    page.screenshot(path=artifacts / "label_digits.png", full_page=True)


def test_large_pool_webgl_points_can_be_clicked(page, server, own_sample, artifacts):
    # spheres has 1200 points: its unlabeled points are drawn with WebGL (no SVG markers)
    spheres = own_sample("spheres")
    open_app(page, server.url, 0)
    choose(page, "Project", f"{spheres} (uploaded)")
    wait_text(page, "Labeled 0 of 1200")
    target = page.evaluate(
        """() => {
        const gd = document.querySelector('.js-plotly-plot');
        const tr = gd._fullData.find(t => t.type === 'scattergl');
        const L = gd._fullLayout, box = gd.getBoundingClientRect(), k = 17;
        return {index: tr.customdata[k],
                x: box.left + L._size.l + L.xaxis.l2p(tr.x[k]),
                y: box.top + L._size.t + L.yaxis.l2p(tr.y[k])};
    }"""
    )
    page.mouse.move(target["x"], target["y"])
    page.mouse.click(target["x"], target["y"])
    assert heading_number(page, "Selected") == target["index"]
    settle(page)
    page.keyboard.press("2")
    wait_text(page, "Labeled 1 of 1200")
    assert stored(server.db, spheres).labels == {target["index"]: 1}
    page.screenshot(path=artifacts / "label_spheres.png", full_page=True)


def test_upload_csv_label_it_and_export(page, server, artifacts):
    rows = ["id,a,b,truth"] + [
        f"p{i},{(i % 7) * 0.5},{(i % 5) - 2.0},{'yes' if i % 3 == 0 else 'no'}" for i in range(40)
    ]
    upload = artifacts / "upload.csv"
    upload.write_text("\n".join(rows) + "\n")

    page.goto(f"{server.url}/data")
    settle(page)
    page.locator("input[type=file]").set_input_files(upload)
    expect(page.get_by_role("heading", name="Preview")).to_be_visible()
    settle(page)
    choose(page, "Id column", "id")
    page.screenshot(path=artifacts / "data_upload.png", full_page=True)
    page.get_by_role("button", name="Create project").click()
    expect(page.get_by_text("Created project 'upload'")).to_be_visible()
    settle(page)

    open_app(page, server.url, 0)
    choose(page, "Project", "upload (uploaded)")
    wait_text(page, "Labeled 0 of 40")
    q = heading_number(page, "Next query:")
    page.keyboard.press("2")
    wait_text(page, "Labeled 1 of 40")
    page.screenshot(path=artifacts / "label_uploaded.png", full_page=True)
    with open_store(server.db) as store:
        project = store.load_project("upload")
    assert stored(server.db, "upload").labels == {q: project.classes[1]}

    page.goto(f"{server.url}/data")
    expect(page.get_by_role("heading", name="Export labels")).to_be_visible()
    settle(page)
    choose(page, "Project", "upload")
    expect(page.get_by_text("Type 'upload' to confirm")).to_be_visible()
    with page.expect_download() as info:
        page.get_by_role("button", name="Download labels (CSV)").click()
    path = artifacts / "upload_labels.csv"
    info.value.save_as(path)
    exported = list(csv.DictReader(io.StringIO(path.read_text())))
    assert len(exported) == 1
    row = exported[0]
    assert row["point_id"] == f"p{q}" and row["index"] == str(q)
    assert row["label"] == str(project.classes[1]) and row["strategy"] == "arls-focused"
    page.screenshot(path=artifacts / "data_export.png", full_page=True)


def test_every_page_has_a_deep_link_that_opens_in_a_fresh_browser(fresh_page, server, artifacts):
    # a fresh context per link: no session state, cookies or widget state to fall back on
    links = {
        "/?project=circles": "Label · circles",
        "/tune?project=spheres": "Tune σ and λ · spheres",
        "/compare?project=circles": "Compare strategies · circles",
        "/data": "Data",
    }
    for path, heading in links.items():
        page = fresh_page()
        page.goto(f"{server.url}{path}")
        expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
        settle(page)
        nav = page.get_by_test_id("stSidebarNav")
        for title in ("Label", "Tune", "Compare", "Data"):
            expect(nav.get_by_role("link", name=title, exact=True)).to_be_visible()
        name = path.strip("/").split("?")[0] or "label"
        page.screenshot(path=artifacts / f"deep_link_{name}.png")
        if name != "data":  # the address follows the project chosen in the sidebar
            choose(page, "Project", "two_moons")
            expect(page).to_have_url(re.compile(r"project=two_moons"))
            page.reload()
            expect(
                page.get_by_role(
                    "heading", name=heading.replace(heading.split(" · ")[-1], "two_moons")
                )
            ).to_be_visible()
