"""An image project made in the browser (issue 22): the server is started with an image root;
a CSV of local PNG paths uploaded on the Data page becomes a project whose features are the
documented pixel fallback; the Label page shows the queried item's picture; five labels given
by keys are stored bound to the pictures that were on screen. A CSV naming files the server
must not or cannot read (outside the root, absolute, through a symlink, not an image, missing,
too many pixels) is refused with one message listing each bad row and why, and nothing is
created. Pictures at http URLs (a web site served by a thread of the test) are refused unless
the server is started with ``RLSCORE_ALLOW_IMAGE_URLS=1``; then they are fetched and shown, and
a URL answering with an HTML page is refused.

Each key is pressed only once its point has been drawn for the minimum dwell (the page's own
draw times, ``window.__rlscoreDrawTimes``), so every press is one a person could make.
"""

from __future__ import annotations

import re

import numpy as np
from app_page import open_app, settle, stored, wait_dwell, wait_text
from browser_context import new_context
from PIL import Image
from playwright.sync_api import expect
from support.image_files import bomb_png, class_picture, png_bytes, write_two_classes
from support.image_site import image_site

from rlscore.data.features.images import pixel_feature_names
from rlscore.storage import open_store
from rlscore.ui.shell.safe_text import WORD_JOINER

ALERT = '[data-testid="stAlert"]'


#: the decoded size of an <img> once the browser has loaded it (0 × 0 while it is not)
NATURAL_SIZE = "img => [img.complete ? img.naturalWidth : 0, img.complete ? img.naturalHeight : 0]"
#: the RGBA bytes of an <img> as the browser decoded it (row-major)
PIXELS = """img => {
  const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  return Array.from(g.getImageData(0, 0, c.width, c.height).data);
}"""


def csv_text(rows: list[tuple[str, str]]) -> str:
    return "path,label\n" + "".join(f"{path},{label}\n" for path, label in rows)


def nearest_file(shown: np.ndarray, root, paths: list[str]) -> str:
    """The file among ``paths`` whose pixels are closest to the picture ``shown`` (the page
    serves it re-encoded as JPEG: close to the file, not equal)."""
    distance = {
        p: np.abs(np.asarray(Image.open(root / p).convert("RGB"), float) - shown).mean()
        for p in paths
    }
    return min(distance, key=distance.get)


def test_upload_images_see_the_queried_picture_and_label_five_by_keys(
    browser, start_server, tmp_path, artifacts
):
    root = tmp_path / "images"
    rows = write_two_classes(root, 20)  # 40 pictures: bright bars and dark rings
    srv = start_server(RLSCORE_IMAGE_ROOT=root)
    context = new_context(browser)
    page = context.new_page()
    try:
        upload = artifacts / "pictures.csv"
        upload.write_text(csv_text(rows))
        page.goto(f"{srv.url}/data")
        settle(page)
        page.locator("input[type=file]").set_input_files(upload)
        expect(page.get_by_role("heading", name="Preview")).to_be_visible()
        settle(page)
        expect(page.get_by_test_id("stException")).to_have_count(0)
        page.screenshot(path=artifacts / "data_image_upload.png", full_page=True)
        page.get_by_role("button", name="Create project").click()
        expect(page.get_by_text("Created project 'pictures'")).to_be_visible()
        settle(page)
        with open_store(srv.db) as store:
            project = store.load_project("pictures")
        [item] = project.items
        paths = item.values
        assert item.kind == "image" and item.name == "path" and paths == [p for p, _ in rows]
        assert project.feature_names == pixel_feature_names()  # the documented fallback
        assert sorted(project.classes) == ["bar", "ring"]

        open_app(page, f"{srv.url}/?project=pictures", 0, total=40)
        shown: dict[int, tuple[str, int]] = {}  # point → (picture on screen at the press, key)
        for k in range(5):
            heading = page.get_by_role("heading", name=re.compile(r"Next query: point #\d+"))
            q = int(re.search(r"#(\d+)", heading.inner_text()).group(1))
            # the first picture after the query's heading, and the caption naming it (just
            # above it): the queried item
            picture = heading.locator("xpath=following::*[@data-testid='stImage'][1]")
            img = picture.locator("img")
            caption = picture.locator("xpath=preceding::*[@data-testid='stCaptionContainer'][1]")
            expect(img).to_be_visible()
            page.wait_for_function(
                "img => img.complete && img.naturalWidth > 0", arg=img.element_handle()
            )
            assert img.evaluate(NATURAL_SIZE) == [24, 24]
            named = caption.inner_text().replace(WORD_JOINER, "").strip()
            assert named.startswith("path: "), named
            path = named.removeprefix("path: ")
            assert path in paths
            # the picture the browser shows (its decoded pixels) is that file's
            rgba = np.array(img.evaluate(PIXELS), dtype=np.float64).reshape(24, 24, 4)
            assert nearest_file(rgba[..., :3], root, paths) == path
            wait_dwell(page, q)
            key = 1 + k % 2
            page.keyboard.press(str(key))
            wait_text(page, f"Labeled {k + 1} of 40")
            shown[q] = (path, key)
        page.screenshot(path=artifacts / "label_image.png", full_page=True)
    finally:
        context.close()

    labels = stored(srv.db, "pictures").labels
    assert set(labels) == set(shown)
    for q, (path, key) in shown.items():
        assert paths[q] == path  # the stored point is the item whose picture was on screen
        assert labels[q] == project.classes[key - 1]


def _alert_texts(page) -> list[str]:
    return [t.replace(WORD_JOINER, "") for t in page.locator(ALERT).all_inner_texts()]


def test_paths_outside_the_root_and_files_that_are_not_images_are_refused(
    browser, start_server, tmp_path, artifacts
):
    root = tmp_path / "images"
    rows = write_two_classes(root, 3)
    outside = tmp_path / "outside.png"
    outside.write_bytes(png_bytes(np.full((24, 24), 128)))  # a real picture, not to be read
    (root / "escape.png").symlink_to(outside)
    (root / "notes.png").write_text("a text file renamed .png")
    (root / "big.png").write_bytes(bomb_png(8_000, 8_000))
    bad = [
        ("../outside.png", "bar"),
        (str(outside), "ring"),
        ("escape.png", "bar"),
        ("notes.png", "ring"),
        ("missing.png", "bar"),
        ("big.png", "ring"),
    ]
    srv = start_server(RLSCORE_IMAGE_ROOT=root)
    context = new_context(browser)
    page = context.new_page()
    try:
        upload = artifacts / "bad_pictures.csv"
        upload.write_text(csv_text(rows + bad))  # rows 1–6 good, 7–12 bad
        page.goto(f"{srv.url}/data")
        settle(page)
        with open_store(srv.db) as store:
            before = store.list_projects()  # the bundled samples
        page.locator("input[type=file]").set_input_files(upload)
        # the image column's alert, not the sidebar's local-mode notice of a first page
        expect(page.locator(ALERT).filter(has_text="image column").first).to_be_visible()
        settle(page)
        page.screenshot(path=artifacts / "data_bad_images.png", full_page=True)
        [message] = [t for t in _alert_texts(page) if "image column" in t]
        assert "image column 'path': 6 of 12 rows cannot be read" in message, message
        for row, reason in [
            (7, "'../outside.png' contains '..'"),
            (8, "' is an absolute path: give paths relative to the image root"),
            (9, "'escape.png' leads outside the image root (through a symbolic link)"),
            (10, "'notes.png' is not an image Pillow can read"),
            (11, "no image file 'missing.png' under the image root"),
            (12, "'big.png' has 8000 × 8000 pixels, more than the 40,000,000 allowed"),
        ]:
            # the absolute path is quoted cut to 60 characters: only its end is checked
            assert re.search(rf"row {row}: [^\n]*?{re.escape(reason)}", message), (row, message)
        assert "no project is made until every row's image can be read" in message
        assert len(message.splitlines()) == 7  # the summary, then one line per bad row
        assert not re.search(r"row [1-6]\b", message)  # the good rows are not blamed
        expect(page.get_by_test_id("stException")).to_have_count(0)
        expect(page.get_by_role("button", name="Create project")).to_be_disabled()
        with open_store(srv.db) as store:
            assert store.list_projects() == before

        # only the traversal and the non-image left: the message names just those two rows
        upload = artifacts / "two_bad_pictures.csv"
        upload.write_text(csv_text(rows + [bad[0], bad[3]]))
        page.locator("input[type=file]").set_input_files(upload)
        expect(page.get_by_text(re.compile("2 of 8 rows cannot be read"))).to_be_visible()
        settle(page)
        [message] = [t for t in _alert_texts(page) if "image column" in t]
        assert "row 7: '../outside.png' contains '..'" in message
        assert "row 8: 'notes.png' is not an image Pillow can read" in message
        expect(page.get_by_role("button", name="Create project")).to_be_disabled()

        # the same rows without the bad ones: the project can be made
        upload = artifacts / "good_pictures.csv"
        upload.write_text(csv_text(rows))
        page.locator("input[type=file]").set_input_files(upload)
        expect(page.get_by_role("heading", name="Preview")).to_be_visible()
        settle(page)
        assert not [t for t in _alert_texts(page) if "image column" in t]
        expect(page.get_by_role("button", name="Create project")).to_be_enabled()
    finally:
        context.close()
    with open_store(srv.db) as store:
        assert store.list_projects() == before  # nothing was created by any of the uploads


def _label_one_by_key(page, srv, urls: list[str], key: int, labeled: int, total: int) -> int:
    """Press ``key`` on the queried picture once it has been shown for the minimum dwell;
    returns the point, after checking the picture is the one its caption names."""
    heading = page.get_by_role("heading", name=re.compile(r"Next query: point #\d+"))
    q = int(re.search(r"#(\d+)", heading.inner_text()).group(1))
    picture = heading.locator("xpath=following::*[@data-testid='stImage'][1]")
    caption = picture.locator("xpath=preceding::*[@data-testid='stCaptionContainer'][1]")
    img = picture.locator("img")
    expect(img).to_be_visible()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=img.element_handle())
    named = caption.inner_text().replace(WORD_JOINER, "").strip()
    assert named == f"path: {urls[q]}", (named, urls[q])
    wait_dwell(page, q)
    page.keyboard.press(str(key))
    wait_text(page, f"Labeled {labeled} of {total}")
    return q


def test_image_urls_are_refused_unless_the_server_allows_them_then_shown(
    browser, start_server, tmp_path, artifacts
):
    pictures = {f"/pic/{kind}_{k:02d}.png": class_picture(kind, k) for k in range(6)
                for kind in ("bar", "ring")}  # fmt: skip
    root = tmp_path / "images"
    root.mkdir()
    context = new_context(browser)
    page = context.new_page()
    with image_site(pictures) as site:
        rows = [(f"{site.url}{p}", p.split("/")[-1].split("_")[0]) for p in pictures]
        urls = [u for u, _ in rows]
        try:
            # a server with an image root but without the setting: URLs are refused, unfetched
            srv = start_server(RLSCORE_IMAGE_ROOT=root)
            upload = artifacts / "web_pictures.csv"
            upload.write_text(csv_text(rows))
            page.goto(f"{srv.url}/data")
            settle(page)
            page.locator("input[type=file]").set_input_files(upload)
            # the image column's alert, not the sidebar's local-mode notice of a first page
            expect(page.locator(ALERT).filter(has_text="image column").first).to_be_visible()
            settle(page)
            [message] = [t for t in _alert_texts(page) if "image column" in t]
            assert "image column 'path': 12 of 12 rows cannot be read" in message, message
            assert "row 1: '" + urls[0] + "' is a URL, and this server reads images only" in message
            assert "RLSCORE_ALLOW_IMAGE_URLS=1" in message
            expect(page.get_by_role("button", name="Create project")).to_be_disabled()
            assert site.hits == {}  # nothing was fetched
            srv.stop()

            # a server started with the setting (and no image root)
            srv = start_server(RLSCORE_ALLOW_IMAGE_URLS=1, RLSCORE_IMAGE_ROOT="")
            upload = artifacts / "web_pictures_login.csv"
            upload.write_text(csv_text([*rows, (f"{site.url}/login.png?token=s3cret", "bar")]))
            page.goto(f"{srv.url}/data")
            settle(page)
            page.locator("input[type=file]").set_input_files(upload)
            # the image column's alert, not the sidebar's local-mode notice of a first page
            expect(page.locator(ALERT).filter(has_text="image column").first).to_be_visible()
            settle(page)
            page.screenshot(path=artifacts / "data_url_html.png", full_page=True)
            [message] = [t for t in _alert_texts(page) if "image column" in t]
            assert message.startswith("image column 'path', row 13: '" + site.url), message
            assert "/login.png?…' was not used: the server answered with text/html" in message
            assert "s3cret" not in page.content()  # the query is never shown
            expect(page.get_by_role("button", name="Create project")).to_be_disabled()

            upload = artifacts / "web_pictures_ok.csv"  # a new file: the uploader sees a change
            upload.write_text(csv_text(rows))
            page.locator("input[type=file]").set_input_files(upload)
            expect(page.get_by_role("heading", name="Preview")).to_be_visible()
            settle(page)
            # the name follows the new file (the first upload's name is not kept)
            expect(page.get_by_role("textbox", name="Project name")).to_have_value(
                "web_pictures_ok"
            )
            page.get_by_role("button", name="Create project").click()
            expect(page.get_by_text("Created project 'web_pictures_ok'")).to_be_visible()
            settle(page)
            open_app(page, f"{srv.url}/?project=web_pictures_ok", 0, total=12)
            shown = {
                _label_one_by_key(page, srv, urls, key, labeled, 12): key
                for labeled, key in ((1, 1), (2, 2))
            }
            page.screenshot(path=artifacts / "label_url_image.png", full_page=True)
            assert set(site.hits.values()) == {1}  # each picture fetched once (cached)
        finally:
            context.close()

    with open_store(srv.db) as store:
        project = store.load_project("web_pictures_ok")
    assert project.items[0].values == urls and project.meta["image_root"] is None
    labels = stored(srv.db, "web_pictures_ok").labels
    assert {q: project.classes.index(c) + 1 for q, c in labels.items()} == shown
