"""End-to-end: the app can be trusted with odd data, hostile names and small screens.

* every failure is a message (no traceback, no server path) and the page stays usable;
* user strings (project, feature and class names, point ids) are shown as typed: never
  rendered as Markdown or HTML, never fetched, never run as a spreadsheet formula;
* the query panel fits a 1280 × 720 screen;
* the plot's legend speaks in class names.

Projects are written into the server's database before the page loads; labels are checked
in the database (read independently of the app). The tests share one server (the ``server``
fixture): each labels only projects of its own (copies of the samples, ``own_sample``).
"""

from __future__ import annotations

import csv
import io
import re
from urllib.parse import quote, urlsplit

import numpy as np
import pandas as pd
import pytest
from app_page import choose, heading_number, rerun, settle, stored, wait_text
from browser_context import RUN_COUNTER, TIMEOUT_MS
from playwright.sync_api import Page, expect

from rlscore.core.kernels.functions import GRAPH_KERNELS
from rlscore.data.projects.project import Project
from rlscore.data.projects.table_project import project_from_table
from rlscore.storage import Event, open_store

#: Streamlit's alerts (st.error, st.warning, st.info, st.success)
ALERT = '[data-testid="stAlert"], [data-testid="stAlertContainer"]'
#: Markdown and HTML that would make a browser fetch from evil.invalid if rendered
EVIL = '![x](http://evil.invalid/pixel.png) **bold** <img src="http://evil.invalid/i.png">'


def as_shown(text: str) -> re.Pattern:
    """``text`` as the page shows it: md_text may put an invisible word joiner (U+2060) after
    a ":" or "@", or inside "www.", so that no URL becomes a link."""
    # written with escapes only: Playwright's selector parser takes neither a bare "/" nor
    # the joiner itself in a pattern
    parts = [re.escape(c).replace("/", r"\/") for c in text]
    return re.compile("^" + r"\u2060?".join(parts) + "$")


FORMULA_ID = '=HYPERLINK("http://evil.invalid")'


# -- helpers -------------------------------------------------------------------------------
def label_button(page: Page, text: str):
    """The label button of class ``text`` (its accessible name may end with the shortcut
    hint, "Shortcut 1" in Streamlit 1.67). Unlike app_page's ``label_button`` it takes any
    class name, including ones with "/" (see below)."""
    escaped = as_shown(text).pattern.strip("^$")
    return page.get_by_role("button", name=re.compile(rf"^{escaped}(\s*(Shortcut\s+)?\d)?$"))


def make_project(
    db,
    name: str,
    X,
    *,
    truth=None,
    classes=(0, 1),
    feature_names=None,
    ids=None,
    meta=None,
    settings=None,
) -> Project:
    """Write a project (and its settings) into the server's database before the page loads."""
    X = np.asarray(X, dtype=float)
    project = Project(
        name=name,
        X=X,
        feature_names=feature_names or [f"x{j}" for j in range(X.shape[1])],
        ids=ids or [f"p{i}" for i in range(X.shape[0])],
        truth=None if truth is None else list(truth),
        classes=list(classes),
        meta=meta if meta is not None else {"source": f"{name}.csv"},
    )
    with open_store(db) as store:
        store.create_project(project)
        if settings:
            store.save_settings(name, settings)
    return project


def save_settings(db, name: str, **settings) -> None:
    with open_store(db) as store:
        store.save_settings(name, settings)


def label_url(server, project: str, annotator: str = "ada") -> str:
    return f"{server.url}/?project={quote(project, safe='')}&annotator={annotator}"


def alert(page: Page, pattern: str):
    """The alert whose text matches ``pattern`` (a regular expression, case-insensitive)."""
    return page.locator(ALERT).filter(has_text=re.compile(pattern, re.I)).first


def assert_no_crash(page: Page, server) -> None:
    """No traceback, no redacted-error notice and no server path, in the page or the log."""
    settle(page)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    text = page.locator("body").inner_text()
    server_paths = ("/work/", "site-packages", '.py"', str(server.db.parent))
    for bad in ("Traceback", "has encountered an error", *server_paths):
        assert bad not in text, f"the page shows {bad!r}:\n{text[:3000]}"
    log = server.logged()
    assert "Uncaught app execution" not in log, log[-4000:]


def assert_no_error_alert(page: Page) -> None:
    """Nothing failed: no alert says "failed" or "error" (the page caught nothing)."""
    settle(page)
    failures = page.locator(ALERT).filter(has_text=re.compile(r"failed|error", re.I))
    expect(failures).to_have_count(0)


def assert_usable(page: Page, server, moons: str) -> None:
    """The sidebar still switches to ``moons`` (the test's copy of two_moons), and labeling
    it works (key "1")."""
    choose(page, "Project", f"{moons} (uploaded)")
    expect(page.get_by_role("heading", name=f"Label · {moons}", exact=True)).to_be_visible()
    wait_text(page, "Labeled 0 of 220")
    q = heading_number(page, "Next query:")
    page.keyboard.press("1")
    wait_text(page, "Labeled 1 of 220")
    assert stored(server.db, moons).labels == {q: -1}
    assert_no_crash(page, server)


def open_label(page: Page, server, project: str, labeled: int, total: int) -> int:
    """Open the Label page of ``project`` as ada; returns the query's point number."""
    page.goto(label_url(server, project))
    wait_text(page, f"Labeled {labeled} of {total}")
    plot_drawn(page)  # as app_page.open_app: a key pressed before the plot is up was once lost
    return heading_number(page, "Next query:")


def press_and_wait(page: Page, key: str, labeled: int, total: int) -> None:
    page.keyboard.press(key)
    wait_text(page, f"Labeled {labeled} of {total}")


def plot_drawn(page: Page) -> None:
    """The pool plot is on the page with its points drawn."""
    page.locator(".js-plotly-plot").first.wait_for()
    page.wait_for_function(
        "() => { const gd = document.querySelector('.js-plotly-plot');"
        " return gd && gd._fullData && gd._fullData.some(t => (t.x || []).length > 0); }"
    )


def in_viewport(box, width: int, height: int) -> bool:
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= width
        and box["y"] + box["height"] <= height
    )


def small_screen(browser, width: int = 1280, height: int = 720):
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(RUN_COUNTER)
    return context


# -- 1. a message, no traceback, and the page stays usable ----------------------------------
def test_tiny_project_opens_and_labels(page, server, own_sample, artifacts):
    moons = own_sample("two_moons")
    # fewer points than the auto-label input's default of 10 (old: StreamlitValueAboveMaxError)
    X = [[0.0, 0.0], [0.1, 0.3], [0.2, 0.1], [1.0, 1.1], [1.2, 0.9], [0.9, 1.0]]
    make_project(server.db, "tiny", X, truth=[0, 0, 0, 1, 1, 1])
    q = open_label(page, server, "tiny", 0, 6)
    plot_drawn(page)
    expect(page.get_by_label("Auto-label the next N")).to_have_value(re.compile(r"^[1-6]$"))
    assert_no_crash(page, server)
    press_and_wait(page, "2", 1, 6)
    assert stored(server.db, "tiny").labels == {q: 1}
    page.screenshot(path=artifacts / "tiny.png", full_page=True)
    assert_no_crash(page, server)
    assert_no_error_alert(page)
    assert_usable(page, server, moons)


def test_one_feature_project_labels_with_buttons(page, server, own_sample, artifacts):
    moons = own_sample("two_moons")
    # one feature: the decision grid is 1-D (old: QhullError, then no buttons)
    x = np.linspace(-1.0, 1.0, 30)
    make_project(server.db, "one_feature", x[:, None], truth=(x > 0.1).astype(int))
    q0 = open_label(page, server, "one_feature", 0, 30)
    rerun(page, label_button(page, "0").click)
    wait_text(page, "Labeled 1 of 30")
    q1 = heading_number(page, "Next query:")
    expect(label_button(page, "1")).to_be_visible()
    rerun(page, label_button(page, "1").click)
    wait_text(page, "Labeled 2 of 30")
    assert stored(server.db, "one_feature").labels == {q0: 0, q1: 1}
    expect(label_button(page, "0")).to_be_visible()
    plot_drawn(page)
    page.screenshot(path=artifacts / "one_feature.png", full_page=True)
    assert_no_crash(page, server)
    assert_no_error_alert(page)
    assert_usable(page, server, moons)


@pytest.mark.parametrize("kernel", GRAPH_KERNELS[:1])
def test_graph_kernel_on_collinear_points(page, server, own_sample, artifacts, kernel):
    moons = own_sample("two_moons")
    # 40 points on a line: a flat 2-D pool (old: QhullError in the decision grid)
    t = np.linspace(0.0, 1.0, 40)
    make_project(
        server.db,
        "line",
        np.column_stack([t, 2.0 * t + 1.0]),
        truth=(t > 0.5).astype(int),
        settings={"kernel": kernel},
    )
    q0 = open_label(page, server, "line", 0, 40)
    press_and_wait(page, "1", 1, 40)
    q1 = heading_number(page, "Next query:")
    press_and_wait(page, "2", 2, 40)
    assert stored(server.db, "line").labels == {q0: 0, q1: 1}
    heading_number(page, "Next query:")
    plot_drawn(page)
    page.screenshot(path=artifacts / "graph_kernel_line.png", full_page=True)
    assert_no_crash(page, server)
    assert_no_error_alert(page)
    assert_usable(page, server, moons)


def test_klr_that_does_not_converge_names_lambda_and_undo_still_works(
    page, server, own_sample, artifacts
):
    # A-optimal KLR, linear kernel, λ = 1e-4 on fully labeled spheres: Newton stalls
    moons, spheres = own_sample("two_moons"), own_sample("spheres")
    with open_store(server.db) as store:
        truth = store.load_project(spheres).truth
        for i, y in enumerate(truth):
            store.append_event(spheres, Event("label", point=i, label=y, annotator="ada"))
        store.save_settings(
            spheres, {"strategy": "aopt-klr", "kernel": "linear", "lam": 1e-4, "lam_auto": False}
        )
    n = len(truth)
    page.goto(label_url(server, spheres))
    expect(alert(page, r"(λ|\blam\b)\s*=\s*(0\.0001|1e-0?4)")).to_be_visible()
    settle(page)
    page.screenshot(path=artifacts / "klr_not_converged.png", full_page=True)
    assert_no_crash(page, server)

    undo = page.get_by_role("button", name=re.compile(r"^Undo"))
    expect(undo).to_be_visible()
    before = stored(server.db, spheres).labels
    assert len(before) == n
    rerun(page, undo.first.click)
    after = stored(server.db, spheres).labels
    assert after == {i: y for i, y in before.items() if i != n - 1}  # ada's last label
    expect(alert(page, r"undone")).to_be_visible()
    assert_no_crash(page, server)
    assert_usable(page, server, moons)


def test_project_deleted_while_another_tab_labels_it(
    page, fresh_page, server, own_sample, artifacts
):
    moons = own_sample("two_moons")
    rng = np.random.default_rng(0)
    make_project(server.db, "p", rng.normal(size=(30, 2)), classes=["no", "yes"])
    q = open_label(page, server, "p", 0, 30)
    press_and_wait(page, "1", 1, 30)
    assert stored(server.db, "p").labels == {q: "no"}

    other = fresh_page()
    other.goto(f"{server.url}/data")
    expect(other.get_by_role("heading", name="Delete project")).to_be_visible()
    settle(other)
    choose(other, "Project", "p")
    confirm = other.get_by_label("Type 'p' to confirm")
    confirm.fill("p")
    # a run this short may never show the app as "running" (the state changes are drawn in
    # one frame), so wait for its effect instead of counting runs
    confirm.press("Enter")
    delete = other.get_by_role("button", name="Delete project")
    expect(delete).to_be_enabled()
    settle(other)
    delete.click()
    expect(other.get_by_text("Deleted project 'p'")).to_be_visible()
    settle(other)
    with open_store(server.db) as store:
        assert "p" not in store.list_projects()

    page.keyboard.press("1")
    expect(alert(page, r"\bp\b.*deleted|deleted.*\bp\b")).to_be_visible()
    expect(page.get_by_role("heading", name="Label · two_moons", exact=True)).to_be_visible()
    settle(page)
    page.screenshot(path=artifacts / "project_deleted.png", full_page=True)
    assert_no_crash(page, server)
    # the tab's buttons stay inert until the annotator chooses to go on (issue 27, item 2)
    rerun(page, page.get_by_role("button", name="Label two_moons").click)
    assert_usable(page, server, moons)


def test_two_hundred_thousand_points(page, server, own_sample, artifacts):
    moons = own_sample("two_moons")
    n = 200_000
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, 2))
    make_project(
        server.db,
        "big",
        X,
        truth=np.where(X[:, 0] + X[:, 1] > 0, 1, -1),
        classes=(-1, 1),
        settings={"strategy": "random"},
    )
    # the low-rank form of ARLS (the pool's default) with a lighter m than its 500
    chosen = [{"strategy": "random"}, {"strategy": "uncertainty"},
              {"strategy": "arls-lowrank", "n_landmarks": 200}]  # fmt: skip
    for k, settings in enumerate(chosen):
        strategy = settings["strategy"]
        save_settings(server.db, "big", **settings)
        q = open_label(page, server, "big", k, n)
        assert q not in stored(server.db, "big").labels
        expect(label_button(page, "1")).to_be_visible()
        press_and_wait(page, "2", k + 1, n)
        assert stored(server.db, "big").labels[q] == 1
        plot_drawn(page)
        page.screenshot(path=artifacts / f"big_{strategy}.png")
        assert_no_crash(page, server)

    save_settings(server.db, "big", strategy="arls")
    page.goto(label_url(server, "big"))
    expect(alert(page, r"'arls'.*'arls-lowrank'")).to_be_visible()
    settle(page)
    page.screenshot(path=artifacts / "big_arls.png")
    assert_no_crash(page, server)
    assert_usable(page, server, moons)


# -- 2. user strings are text --------------------------------------------------------------
def test_user_strings_are_shown_as_text_and_never_fetched(page, server, artifacts):
    name = f"evil {EVIL}"
    feature = f"feat {EVIL}"
    cls = f"cls {EVIL}"
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    truth = (X[:, 0] > 0).astype(int)
    make_project(
        server.db,
        name,
        X,
        truth=truth,
        feature_names=[feature, "plain"],
        meta={"source": "evil.csv", "class_names": {"0": cls, "1": "other"}},
    )
    host = urlsplit(server.url).netloc
    outside: list[str] = []
    page.on("request", lambda r: urlsplit(r.url).netloc != host and outside.append(r.url))
    # never wait on the network: a request to evil.invalid fails at once (it is still recorded)
    page.route(lambda url: urlsplit(url).hostname == "evil.invalid", lambda route: route.abort())

    def shown(text: str) -> None:
        pattern = as_shown(text).pattern.strip("^$")
        expect(page.get_by_text(re.compile(pattern)).first).to_be_visible()
        assert text in page.locator("body").inner_text().replace("\u2060", "")

    q = open_label(page, server, name, 0, 40)
    expect(page.get_by_role("heading", name=as_shown(f"Label · {name}"))).to_be_visible()
    expect(label_button(page, cls)).to_be_visible()
    shown(f"{feature} =")
    rerun(page, label_button(page, cls).click)
    wait_text(page, "Labeled 1 of 40")
    assert stored(server.db, name).labels == {q: 0}
    plot_drawn(page)
    shown(cls)  # the recent-labels list and the prediction caption
    page.screenshot(path=artifacts / "label.png", full_page=True)
    assert_no_crash(page, server)

    # Tune draws its curves from 3 labels of 2 classes: add them in the database
    with open_store(server.db) as store:
        for i in [i for i in range(40) if i != q][:6]:
            store.append_event(name, Event("label", point=i, label=int(truth[i]), annotator="bo"))
    quoted = quote(name, safe="")
    page.goto(f"{server.url}/tune?project={quoted}&annotator=ada")
    expect(page.get_by_role("heading", name=re.compile(r"^Tune σ and λ"))).to_be_visible()
    settle(page)
    expect(page.get_by_role("heading", name=as_shown(f"Tune σ and λ · {name}"))).to_be_visible()
    page.screenshot(path=artifacts / "tune.png", full_page=True)
    assert_no_crash(page, server)

    page.goto(f"{server.url}/compare?project={quoted}&annotator=ada")
    expect(page.get_by_role("heading", name=re.compile(r"^Compare strategies"))).to_be_visible()
    settle(page)
    expect(
        page.get_by_role("heading", name=as_shown(f"Compare strategies · {name}"))
    ).to_be_visible()
    page.screenshot(path=artifacts / "compare.png", full_page=True)
    assert_no_crash(page, server)

    page.goto(f"{server.url}/data")
    expect(page.get_by_role("heading", name="Export labels")).to_be_visible()
    settle(page)
    choose(page, "Project", name)
    shown(f"Deletes '{name}'")
    shown(f"Type '{name}' to confirm")
    page.screenshot(path=artifacts / "data.png", full_page=True)
    assert_no_crash(page, server)

    fetched = [u for u in outside if urlsplit(u).hostname == "evil.invalid"]
    assert fetched == [], f"the browser fetched {fetched}"


def test_urls_in_user_strings_are_not_links(page, server, artifacts):
    name = f"links {EVIL}"  # not the previous test's name: the tests share the server
    X = np.random.default_rng(4).normal(size=(20, 2))
    make_project(
        server.db,
        name,
        X,
        feature_names=[f"feat {EVIL}", "plain"],
        meta={"source": "evil.csv", "class_names": {"0": f"cls {EVIL}", "1": "other"}},
    )
    open_label(page, server, name, 0, 20)
    expect(page.get_by_role("heading", name=as_shown(f"Label · {name}"))).to_be_visible()
    settle(page)
    page.screenshot(path=artifacts / "links.png", full_page=True)
    links = page.locator('a[href*="evil.invalid"]')
    assert links.count() == 0, links.all_inner_texts()  # the page has settled: no waiting


def test_csv_export_escapes_formulas(page, server, artifacts):
    ids = [FORMULA_ID] + [f"p{i}" for i in range(1, 20)]
    rng = np.random.default_rng(3)
    make_project(server.db, "formula", rng.normal(size=(20, 2)), ids=ids)
    with open_store(server.db) as store:
        store.append_event("formula", Event("label", point=0, label=1, annotator="=ada"))
    page.goto(f"{server.url}/data")
    expect(page.get_by_role("heading", name="Export labels")).to_be_visible()
    settle(page)
    # picked without app_page.choose: the caption naming the project is the condition
    # waited for; typed first, as choose does (the list draws only the options in view)
    combo = page.get_by_role("combobox", name="Project")
    combo.click()
    combo.fill("formula")
    page.get_by_role("option", name="formula", exact=True).click()
    expect(page.get_by_text("Type 'formula' to confirm")).to_be_visible()
    settle(page)
    with page.expect_download() as info:
        page.get_by_role("button", name="Download labels (CSV)").click()
    path = artifacts / "formula_labels.csv"
    info.value.save_as(path)
    rows = list(csv.DictReader(io.StringIO(path.read_text(), newline="")))
    assert len(rows) == 1
    assert rows[0]["point_id"] == "'" + FORMULA_ID
    assert rows[0]["annotator"] == "'=ada"
    assert rows[0]["label"] == "1"


# -- 3. the query panel fits 1280 × 720 -----------------------------------------------------
@pytest.mark.parametrize(
    ("project", "total", "classes", "picture"),
    [("two_moons", 220, ["-1", "1"], False), ("digits123", 300, ["one", "two", "three"], True)],
)
def test_query_panel_fits_1280x720(browser, server, artifacts, project, total, classes, picture):
    context = small_screen(browser)
    try:
        pg = context.new_page()
        pg.goto(label_url(server, project))
        wait_text(pg, f"Labeled 0 of {total}")
        plot_drawn(pg)
        heading = pg.get_by_role("heading", name=re.compile(r"^Next query: point #\d+$"))
        parts = {"heading": heading}
        if picture:
            parts["picture"] = pg.get_by_test_id("stImage").locator("img").first
        for c in classes:
            parts[f"button {c}"] = label_button(pg, c)
        parts["Skip"] = pg.get_by_role("button", name=re.compile(r"^Skip"))
        parts["Undo"] = pg.get_by_role("button", name=re.compile(r"^Undo"))
        for part in parts.values():
            expect(part).to_be_visible()
        settle(pg)
        pg.screenshot(path=artifacts / f"{project}_1280x720.png")
        outside = {
            what: part.bounding_box()
            for what, part in parts.items()
            if not in_viewport(part.bounding_box(), 1280, 720)
        }
        assert outside == {}, f"outside the 1280 × 720 screen: {outside}"
    finally:
        context.close()


#: each label button's name: its lines (the distinct tops of its text's boxes), its width and
#: its button's, the widest single word's width (measured by a copy kept on one line) and
#: whether the key badge lies inside the button
BUTTON_TEXT = """(button) => {
  const p = button.querySelector('[data-testid="stMarkdownContainer"] p');
  const range = document.createRange();
  range.selectNodeContents(p);
  const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
  const probe = document.createElement('span');
  probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap';
  p.appendChild(probe);
  let word = 0;
  for (const w of p.textContent.split(/\\s+/)) {
    probe.textContent = w;
    word = Math.max(word, probe.getBoundingClientRect().width);
  }
  probe.remove();
  const b = button.getBoundingClientRect(), k = button.querySelector('kbd').getBoundingClientRect();
  const inner = b.width - parseFloat(getComputedStyle(button).paddingLeft)
    - parseFloat(getComputedStyle(button).paddingRight);
  return {lines: tops.size, word: word, inner: inner, text: p.getBoundingClientRect().width,
          badgeInside: k.left >= b.left && k.right <= b.right && k.bottom <= b.bottom};
}"""


def test_class_names_break_between_words_on_their_buttons(browser, server, artifacts):
    # a tester's project: two 12-character one-word names side by side were cut as
    # "**markdow" / "n**" beside their "key 1" badge at 1280 × 720; a name that fits its
    # button's width stays whole, and one that cannot never runs out of its button
    projects = {
        "two short names": {"0": "**markdown**", "1": "<b>html</b>"},
        "a long name": {"0": "cats", "1": "Supercalifragilisticexpialidocious"},
    }
    context = small_screen(browser)
    try:
        pg = context.new_page()
        for project, names in projects.items():
            X = np.random.default_rng(6).normal(size=(30, 2))
            make_project(server.db, project, X, meta={"source": "n.csv", "class_names": names})
            pg.goto(label_url(server, project))
            wait_text(pg, "Labeled 0 of 30")
            settle(pg)
            pg.screenshot(path=artifacts / f"{project}.png")
            for name in names.values():
                got = label_button(pg, name).evaluate(BUTTON_TEXT)
                assert got["badgeInside"], (name, got)
                assert got["text"] <= got["inner"] + 1, (name, got)  # within its button
                if got["word"] <= got["inner"]:  # it fits: broken only between words, if at all
                    assert got["lines"] == len(name.split()), (name, got)
        # a multi-label project's toggles: the same names, the same rule
        names = ["**markdown**", "<b>html</b>"]
        rng = np.random.default_rng(7)
        tags = ["|".join(names[: 1 + i % 2]) for i in range(30)]
        table = pd.DataFrame({"x1": rng.normal(size=30), "x2": rng.normal(size=30), "tags": tags})
        ml = project_from_table(table, "two short tags", feature_columns=["x1", "x2"],
                                truth_column="tags", multi_label=True)  # fmt: skip
        with open_store(server.db) as store:
            store.create_project(ml)
        pg.goto(label_url(server, "two short tags"))
        wait_text(pg, "Labeled 0 of 30")
        settle(pg)
        pg.screenshot(path=artifacts / "two short tags.png")
        # an option list is plain text: the name as typed, no Markdown escapes ("\\*\\*…")
        tint = pg.get_by_role("combobox", name="Tint the pool by class")
        expect(tint).to_have_value(names[0])
        for k, name in enumerate(names):
            toggle = pg.locator(f'[class*="st-key-label_"][class*="_toggle{k}"] button').first
            got = toggle.evaluate(BUTTON_TEXT)
            assert got["badgeInside"] and got["text"] <= got["inner"] + 1, (name, got)
            if got["word"] <= got["inner"]:
                assert got["lines"] == 1, (name, got)
    finally:
        context.close()


def test_tune_apply_button_fits_1280x720(browser, server, own_sample, artifacts):
    # Tune shows its sliders and "Apply" from 3 labels of 2 classes
    moons = own_sample("two_moons")
    with open_store(server.db) as store:
        truth = store.load_project(moons).truth
        first = {int(y): i for i, y in reversed(list(enumerate(truth)))}
        points = [first[-1], first[1]] + [i for i in range(len(truth)) if i not in first.values()]
        for i in points[:4]:
            store.append_event(moons, Event("label", point=i, label=truth[i], annotator="ada"))
    context = small_screen(browser)
    try:
        pg = context.new_page()
        pg.goto(label_url(server, moons))
        wait_text(pg, "Labeled 4 of 220")
        pg.goto(f"{server.url}/tune?project={moons}&annotator=ada")
        apply = pg.get_by_role("button", name="Apply to session", exact=True)
        expect(apply).to_be_visible()
        settle(pg)
        pg.screenshot(path=artifacts / "tune_1280x720.png")
        box = apply.bounding_box()
        assert in_viewport(box, 1280, 720), f"'Apply to session' at {box}"
    finally:
        context.close()


# -- 4. legends use class names -------------------------------------------------------------
def test_digits_legend_uses_class_names(page, server, own_sample, artifacts):
    open_label(page, server, own_sample("digits123"), 0, 300)
    rerun(page, label_button(page, "two").click)
    wait_text(page, "Labeled 1 of 300")
    page.wait_for_function(
        "() => { const gd = document.querySelector('.js-plotly-plot');"
        " return gd && gd._fullData && gd._fullData.some(t => /^labeled/.test(t.name)); }"
    )
    names = page.evaluate(
        "() => document.querySelector('.js-plotly-plot')._fullData.map(t => t.name)"
    )
    page.screenshot(path=artifacts / "digits_legend.png", full_page=True)
    assert "labeled two" in names, names
    assert any(n.startswith("predicted ") for n in names), names
    numeric = [n for n in names if re.fullmatch(r"(predicted|labeled) -?\d+", n or "")]
    assert numeric == [], names
    shown = {w for n in names for w in ("one", "two", "three") if n and n.endswith(f" {w}")}
    assert shown, names
