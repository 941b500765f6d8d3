"""The Label page at 1280 × 720 in Chromium (issue 22 part 3): for a 600-character text and for
a 400 × 400 image, the item, every class button, Skip and Undo lie inside the viewport without
scrolling; each class button shows its class name in full (not cut with "…") with its key as
a "key N" badge; after labels the panel holds the buttons of the point shown only (no ghost
button of the previous point); a click on a point of the text map shows that item.

The projects are made here with the Python API (texts of exactly 600 characters, images of
400 × 400 pixels) and written into the server's database before the page opens; the
digit_images sample adds ten classes on three rows of buttons, the tenth without a key.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from app_page import click_pool_point, rerun, settle, wait_dwell, wait_text
from browser_context import RUN_COUNTER, TIMEOUT_MS
from PIL import Image
from playwright.sync_api import expect

from rlscore.data.items.item_map import map_coordinates
from rlscore.data.projects.table_project import project_from_table
from rlscore.storage import open_store

WIDTH, HEIGHT = 1280, 720
TEXT_CHARS = 600
IMAGE_SIDE = 400
#: the classes of debian_sections, whose buttons were cut to "g… 1"
SECTIONS = ["games", "graphics", "science", "sound"]
WORDS = "kernel pixel sprite galaxy chord puzzle vector enzyme tempo shader".split()


#: boxes (viewport coordinates) and texts of the query panel's parts
PANEL = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
            width: r.width, height: r.height}; };
  const item = document.querySelector('.st-key-rls_query_item');
  let shown = null, kind = null, natural = 0;
  const img = item && item.querySelector('[data-testid="stImage"] img');
  const text = item && item.querySelector('[data-testid="stText"]');
  if (img) { shown = img; kind = 'image'; natural = img.complete ? img.naturalWidth : 0; }
  else if (text) {
    // a long text scrolls inside its box: the box is what is on screen
    shown = text; kind = 'text';
    for (let el = text.parentElement; el && el !== item; el = el.parentElement) {
      const o = getComputedStyle(el).overflowY;
      if (o === 'auto' || o === 'scroll') { shown = el; break; }
    }
  }
  const scroller = document.querySelector('[data-testid="stMain"]') || document.scrollingElement;
  // the name is cut when any box in the button overflows (Streamlit's ellipsis sits on the
  // name's container, not on the paragraph) or the name's glyphs leave the button's box
  const cut = (b, p) => {
    if ([b, ...b.querySelectorAll('*')].some(el => el.scrollWidth > el.clientWidth + 1)) {
      return true;
    }
    const range = document.createRange();
    range.selectNodeContents(p);
    const t = range.getBoundingClientRect(), r = b.getBoundingClientRect();
    return t.left < r.left || t.right > r.right || t.top < r.top || t.bottom > r.bottom;
  };
  // drawn buttons only (Streamlit may keep a zero-size copy of a button with a tooltip)
  const drawn = (sel) => [...document.querySelectorAll(sel)].filter(
    b => b.getBoundingClientRect().width > 0);
  return {
    viewport: {width: window.innerWidth, height: window.innerHeight},
    scrolled: (scroller ? scroller.scrollTop : 0) + window.scrollY,
    item: shown && {kind, box: box(shown), natural,
                    text: text ? text.innerText : null},
    labels: drawn('[class*="st-key-label_"] button').map(b => {
      const p = b.querySelector('p'), kbd = b.querySelector('kbd');
      return {box: box(b), text: b.innerText, key: b.closest('[class*="st-key-label_"]')
                .className.match(/st-key-(label_\\S+)/)[1],
              name: p ? p.innerText : '', cut: !p || cut(b, p),
              badge: kbd ? getComputedStyle(kbd, '::before').content + kbd.innerText : ''};
    }),
    skip: drawn('[class*="st-key-skip_"] button').map(b => box(b)),
    undo: drawn('[class*="st-key-undo_"] button').map(b => box(b)),
  };
}"""


def _inside(box: dict, what: str) -> None:
    assert box["width"] > 0 and box["height"] > 0, f"{what} is not drawn: {box}"
    assert 0 <= box["top"] and box["bottom"] <= HEIGHT, f"{what} leaves the 720 px: {box}"
    assert 0 <= box["left"] and box["right"] <= WIDTH, f"{what} leaves the 1280 px: {box}"


def check_fits(
    page, class_texts: list[str], point: int, item_text: str | None, min_width: int = 200
) -> dict:
    """Every part of the query panel of ``point`` on the first screen, names in full (an
    image at least ``min_width`` pixels wide)."""
    # the panel of this point drawn, Skip and Undo included (they arrive after the class
    # buttons in the page's deltas): a rerun (a teammate's poll, the fragment) may briefly
    # show the buttons at zero size while Streamlit replaces them
    page.wait_for_function(
        """([n, point]) => {
          const drawn = (sel) => [...document.querySelectorAll(sel)].filter(
            b => b.getBoundingClientRect().width > 0);
          const labels = drawn('[class*="st-key-label_"] button').filter(
            b => b.closest('[class*="st-key-label_"]').className.includes(`_${point}_`));
          return labels.length === n && drawn('[class*="st-key-skip_"] button').length === 1
            && drawn('[class*="st-key-undo_"] button').length === 1;
        }""",
        arg=[len(class_texts), point],
    )
    panel = page.evaluate(PANEL)
    assert panel["viewport"] == {"width": WIDTH, "height": HEIGHT}
    assert panel["scrolled"] == 0
    item = panel["item"]
    assert item is not None, "no item in the query panel"
    _inside(item["box"], f"the {item['kind']} item")
    if item_text is not None:
        assert item["kind"] == "text" and item["text"].strip() == item_text
    else:
        assert item["kind"] == "image" and item["natural"] > 0  # decoded and drawn
        assert item["box"]["width"] >= min_width  # readable, not a thumbnail
    # one button per class, in class order, each bound to the point shown: no ghost
    assert len(panel["labels"]) == len(class_texts), panel["labels"]
    for k, (button, name) in enumerate(zip(panel["labels"], class_texts, strict=True)):
        _inside(button["box"], f"the button of class {name!r}")
        assert button["name"] == name and not button["cut"], button
        assert name in button["text"] and "…" not in button["text"]
        # keys 1–9 label the first nine classes; a tenth has no key and no badge
        assert button["badge"] == (f'"key\u00a0"{k + 1}' if k < 9 else ""), button["badge"]
        assert button["key"].startswith(f"label_{k}_{point}_"), button["key"]
    assert len(panel["skip"]) == 1 and len(panel["undo"]) == 1
    _inside(panel["skip"][0], "Skip")
    _inside(panel["undo"][0], "Undo")
    return panel


def query_number(page, prefix: str = "Next query:") -> int:
    heading = page.get_by_role("heading", name=re.compile(re.escape(prefix) + r" point #\d+"))
    expect(heading).to_be_visible()
    return int(re.search(r"#(\d+)", heading.inner_text()).group(1))


def label_by_key(page, point: int, key: int, n_labeled: int, total: int) -> None:
    wait_dwell(page, point)
    page.keyboard.press(str(key))
    wait_text(page, f"Labeled {n_labeled} of {total}")


def isolated_point(X: np.ndarray, exclude: set[int]) -> int:
    """The point farthest from its nearest neighbour on the item map (axes scaled to the
    plot's box), so a click at its marker hits no other point."""
    xy = map_coordinates(X)
    xy = (xy - xy.min(axis=0)) / np.ptp(xy, axis=0)
    d = np.linalg.norm(xy[:, None] - xy[None], axis=2)
    np.fill_diagonal(d, np.inf)
    gap = d.min(axis=1)
    gap[list(exclude)] = -1
    return int(np.argmax(gap))


@pytest.fixture
def small_page(browser, server, artifacts, request):
    """A page of 1280 × 720 CSS pixels (a laptop screen), counting the app's runs."""
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(RUN_COUNTER)
    page = context.new_page()
    yield page
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        page.screenshot(path=artifacts / "failure.png")
    context.close()


def _texts(n: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    texts = []
    for i in range(n):
        words = " ".join(rng.choice(WORDS, 150))
        texts.append(f"item {i}: {words}"[: TEXT_CHARS - 1] + ".")
    assert all(len(t) == TEXT_CHARS for t in texts)
    return pd.DataFrame({"text": texts, "label": [SECTIONS[i % 4] for i in range(n)]})


def _images(root, n: int = 16) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    for i in range(n):
        pixels = rng.integers(0, 255, (IMAGE_SIDE, IMAGE_SIDE, 3), dtype=np.uint8)
        pixels[: IMAGE_SIDE // 2] //= 1 + i % 2  # two kinds: the features can tell them apart
        Image.fromarray(pixels).save(root / f"photo_{i}.png")
    return pd.DataFrame(
        {"path": [f"photo_{i}.png" for i in range(n)], "label": [[-1, 1][i % 2] for i in range(n)]}
    )


def test_a_600_character_text_and_its_class_buttons_fit_at_1280x720(small_page, server, artifacts):
    page = small_page
    df = _texts()
    project = project_from_table(df, "long_texts", truth_column="label", text_columns=["text"])
    with open_store(server.db) as store:
        store.create_project(project)
    classes = [project.class_text(c) for c in project.classes]
    assert classes == SECTIONS
    page.goto(f"{server.url}/?project=long_texts&annotator=ada")
    wait_text(page, "Labeled 0 of 40")
    q = query_number(page)
    check_fits(page, classes, q, df.text[q])
    page.screenshot(path=artifacts / "text_0_labels.png")

    label_by_key(page, q, 2, 1, 40)
    q2 = query_number(page)
    assert q2 != q
    check_fits(page, classes, q2, df.text[q2])  # with the "Saved" notice above
    label_by_key(page, q2, 3, 2, 40)
    q3 = query_number(page)
    check_fits(page, classes, q3, df.text[q3])  # after the second label: no ghost button
    page.screenshot(path=artifacts / "text_2_labels.png")

    # a click on the map shows that item in the panel, its buttons bound to it
    picked = isolated_point(project.X, exclude={q, q2, q3})
    rerun(page, lambda: click_pool_point(page, picked))
    assert query_number(page, "Selected") == picked
    settle(page)
    check_fits(page, classes, picked, df.text[picked])
    page.screenshot(path=artifacts / "text_picked_on_map.png")
    with open_store(server.db) as store:
        labels = {e.point: e.label for e in store.events("long_texts") if e.kind == "label"}
    assert labels == {q: SECTIONS[1], q2: SECTIONS[2]}


def test_a_400x400_image_and_keys_of_classes_minus_1_and_1_fit_at_1280x720(
    small_page, server, artifacts, tmp_path
):
    page = small_page
    root = tmp_path / "images"
    root.mkdir()
    df = _images(root)
    project = project_from_table(
        df, "photos", truth_column="label", image_column="path", image_root=root
    )
    with open_store(server.db) as store:
        store.create_project(project)
    classes = [project.class_text(c) for c in project.classes]
    assert classes == ["-1", "1"]  # key 1 is class -1: the badge says "key 1", the name "-1"
    page.goto(f"{server.url}/?project=photos&annotator=ada")
    wait_text(page, "Labeled 0 of 16")
    q = query_number(page)
    check_fits(page, classes, q, None)
    page.screenshot(path=artifacts / "image_0_labels.png")
    label_by_key(page, q, 1, 1, 16)
    q2 = query_number(page)
    # one class labeled: the cold-start helper is drawn, below Skip and Undo
    expect(page.get_by_text(re.compile(r"labeled so far"))).to_be_visible()
    check_fits(page, classes, q2, None)
    label_by_key(page, q2, 2, 2, 16)
    q3 = query_number(page)
    check_fits(page, classes, q3, None)
    page.screenshot(path=artifacts / "image_2_labels.png")
    with open_store(server.db) as store:
        labels = {e.point: e.label for e in store.events("photos") if e.kind == "label"}
    assert labels == {q: -1, q2: 1}


def test_the_ten_digits_of_the_digit_images_sample_fit_at_1280x720(
    small_page, server, own_sample, artifacts
):
    """Ten classes on three rows of buttons, the tenth without a key; the 32 × 32 digit drawn
    enlarged."""
    page = small_page
    digits = own_sample("digit_images")
    page.goto(f"{server.url}/?project={digits}&annotator=ada")
    wait_text(page, "Labeled 0 of 400")
    classes = [str(d) for d in range(10)]
    q = query_number(page)
    check_fits(page, classes, q, None, min_width=100)
    label_by_key(page, q, 5, 1, 400)
    check_fits(page, classes, query_number(page), None, min_width=100)
    page.screenshot(path=artifacts / "digits_1_label.png")
    with open_store(server.db) as store:
        events = [e for e in store.events(digits) if e.kind == "label"]
    assert [(e.point, e.label) for e in events] == [(q, 4)]
