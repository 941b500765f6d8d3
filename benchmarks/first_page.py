"""The first page of a fresh install against a bare Streamlit page drawing the same plot.

Issue 36 item 4: a newcomer's first page (``streamlit run app.py`` on a database that does
not exist yet: the bundled sample projects are created inside that first request) within
1.5× a bare Streamlit page. Each round starts the app on a new, empty database and opens its
address in headless Chromium: the Label page of the default sample project asks for the
annotator's name (*first page*: until that form is drawn and the run has ended); the name is
typed and "Start labeling" pressed (*first query*: until the query panel, its buttons and the
pool plot are drawn and the run has ended). Then the bare page of ``app_latency.py``
(Streamlit and plotly only: the figure the app drew, read back from the browser, a heading
and two buttons) on a fresh server. The goal is read on *first page + first query* — the
newcomer's wait until the first point to label — against the bare page's load. Rounds
alternate the two; medians of ``--loads``. Printed: wall seconds, the server's CPU seconds and
Chromium's main-thread busy seconds. The package is compiled to bytecode first, as ``pip
install`` does.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/first_page.py --loads 5
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import time
from pathlib import Path

import app_latency as latency
from harness import load_average, pin_blas, report_machine
from playwright.sync_api import sync_playwright

#: issue 36 item 4
GOAL = 1.5


def open_first_page(page, url: str, server) -> dict:
    """Seconds from ``goto`` until the name form is drawn, and from the name until the
    default project's first query and its plot are drawn; the server's CPU seconds of the
    first page."""
    cpu = latency.server_cpu(server)
    tic = time.perf_counter()
    page.goto(url)
    name = page.get_by_role("textbox", name="Your name")
    name.wait_for()
    page.locator(latency.IDLE).wait_for()
    first = time.perf_counter() - tic
    first_cpu = latency.server_cpu(server) - cpu
    name.fill("newcomer")
    tic = time.perf_counter()
    page.get_by_role("button", name="Start labeling").click()
    latency.query_on_page(page)
    page.wait_for_function(latency.PLOT_DRAWN)
    page.locator(latency.IDLE).wait_for()
    return {"page": first, "query": time.perf_counter() - tic, "page_cpu": first_cpu}


def one_load(browser, server, opener, url: str) -> tuple[dict, object]:
    """Wall, server CPU and browser busy seconds of one first load; the page's context."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(latency.TIMEOUT_MS)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    cpu = latency.server_cpu(server)
    wall = opener(page, url)
    parts = wall if isinstance(wall, dict) else {"page": wall, "query": 0.0, "page_cpu": 0.0}
    out = {
        **parts,
        "wall": parts["page"] + parts["query"],
        "cpu": latency.server_cpu(server) - cpu,
        "browser": latency.task_seconds(cdp),
    }
    return out, (context, page)


def round_trip(browser, workdir: Path) -> tuple[dict, dict]:
    """One fresh-install first page of the app, then the bare page with its figure."""
    workdir.mkdir(parents=True)
    db = workdir / "fresh.sqlite3"  # does not exist: the app creates it and its samples
    app = latency.StreamlitServer(db, workdir / "app.log").start()
    try:
        opener = functools.partial(open_first_page, server=app)
        app_load, (context, page) = one_load(browser, app, opener, app.url)
        figure = workdir / "figure.json"
        figure.write_text(page.evaluate(latency.FIGURE_JS))
        context.close()
    finally:
        app.stop()
    script = workdir / "bare.py"
    script.write_text(latency.BARE_APP.format(path=str(figure)))
    bare = latency.StreamlitServer(
        workdir / "unused.sqlite3", workdir / "bare.log", script=str(script)
    ).start()
    try:
        bare_load, (context, _) = one_load(browser, bare, latency.open_bare, bare.url)
        context.close()
    finally:
        bare.stop()
    return app_load, bare_load


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=5, help="rounds (default 5)")
    args = parser.parse_args(argv)
    pin_blas(1)
    report_machine()
    latency.compile_package()
    apps, bares = [], []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=latency.chromium_executable(), args=latency.CHROMIUM_ARGS
        )
        for r in range(args.loads):
            app, bare = round_trip(browser, Path(tmp) / f"round{r}")
            apps.append(app)
            bares.append(bare)
            print(
                f"round {r}: app {app['page']:.2f} + {app['query']:.2f} s,"
                f" bare {bare['wall']:.2f} s",
                flush=True,
            )
        browser.close()
    keys = ("page", "query", "wall", "page_cpu", "cpu", "browser")
    heads = ("", "first page", "first query", "wall", "page CPU", "server CPU", "browser busy")
    print(" | ".join(f"{k:>12}" for k in heads))
    for name, loads in (("app", apps), ("bare", bares)):
        row = [statistics.median(x[k] for x in loads) for k in keys]
        print(" | ".join([f"{name:>12}"] + [f"{v:12.2f}" for v in row]))
    ratio = {
        k: statistics.median(a[k] for a in apps) / statistics.median(b[k] for b in bares)
        for k in ("wall", "cpu", "browser")
    }
    verdict = "met" if ratio["wall"] <= GOAL else "NOT met"
    print(
        f"first page ÷ bare page: wall {ratio['wall']:.2f}×, server CPU {ratio['cpu']:.2f}×, "
        f"browser {ratio['browser']:.2f}× (goal wall ≤ {GOAL}×: {verdict})"
    )
    print(f"load average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
