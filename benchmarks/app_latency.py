"""Latency of the labeling app in a real browser: first page load and label → next query.

For pools of 500, 2000 and 5000 points with ARLS, the script starts ``streamlit run app.py``
on a fresh database, opens it in headless Chromium (Playwright, Debian's chromium) and
measures

* **first load (cold)**: ``page.goto`` until the next query, its buttons and the plot are
  drawn, on a freshly started server (kernel and engine built on this request);
* **first load (warm)**: the same in a second tab (engine cached by the server);
* **label → next query**: from the click on "Label as …" until the page shows the new query
  and the script run has finished.

Side by side, in the same run, the same label+query done without the UI:

* **engine only**: ``LabelingSession.label`` + ``query`` in-process (what the click costs
  the engine, including the database write);
* **rebuild per click**: a new ``LabelingSession`` replayed from the database + ``query``
  (what each click would cost without the app's cached session).

Goal (issue 5): ≤ 1 s per label at n = 2000, first load ≤ 5 s.

Usage::

    python benchmarks/app_latency.py            # n = 500, 2000, 5000; 8 labels each
    python benchmarks/app_latency.py --quick    # n = 500, 2000; 3 labels each
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))

from harness import load_average, report_machine  # noqa: E402
from streamlit_server import CHROMIUM_ARGS, StreamlitServer, chromium_executable  # noqa: E402

from rlscore.data.projects import Project  # noqa: E402
from rlscore.data.samples import ensure_sample_projects, make_two_moons_imbalanced  # noqa: E402
from rlscore.sessions import LabelingSession  # noqa: E402
from rlscore.storage import open_store  # noqa: E402

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
TIMEOUT_MS = 300_000
PLOT_DRAWN = (
    "() => { const gd = document.querySelector('.js-plotly-plot');"
    " return !!(gd && gd._fullData && gd._fullData.some(t => t.customdata)); }"
)
SIGMA, LAM = 2.0, 0.1


def make_project(n: int) -> Project:
    """Imbalanced two moons (10 : 1) with ``n`` points, σ = 2 meaningful."""
    n_pos = max(2, n // 11)
    X, y = make_two_moons_imbalanced(n_neg=n - n_pos, n_pos=n_pos, seed=0)
    return Project(
        name=f"moons{n}",
        X=X,
        feature_names=["x1", "x2"],
        ids=[str(i) for i in range(n)],
        truth=y,
        classes=[-1, 1],
        meta={"sigma": SIGMA, "lam": LAM, "description": f"benchmark pool of {n} points"},
    )


def query_on_page(page) -> int:
    heading = page.get_by_role("heading", name=re.compile(r"Next query: point #\d+"))
    heading.wait_for()
    return int(re.search(r"#(\d+)", heading.inner_text()).group(1))


def open_page(page, url: str) -> float:
    tic = time.perf_counter()
    page.goto(url)
    page.get_by_text("Labeled 0 of", exact=False).first.wait_for()
    query_on_page(page)
    # the pool scatter is drawn (SVG or WebGL traces alike)
    page.wait_for_function(PLOT_DRAWN)
    page.locator(IDLE).wait_for()
    return time.perf_counter() - tic


def browser_labels(page, project: Project, labels: int) -> list[float]:
    """Seconds from each label click to the next query drawn."""
    times = []
    for k in range(1, labels + 1):
        q = query_on_page(page)
        truth = project.truth[q]
        button = page.get_by_role("button", name=re.compile(rf"^Label as {truth}\b"))
        tic = time.perf_counter()
        button.click()
        page.get_by_text(f"Labeled {k} of {project.n}", exact=True).wait_for()
        page.locator(IDLE).wait_for()
        query_on_page(page)
        times.append(time.perf_counter() - tic)
    return times


def engine_labels(db: Path, project: Project, labels: int) -> tuple[list[float], list[float]]:
    """(engine only, rebuild per click) seconds per label, on a copy of the project."""
    store = open_store(db)
    name = project.name + "_engine"
    store.create_project(
        Project(name, project.X, project.feature_names, project.ids, project.truth,
                project.classes, project.meta)
    )  # fmt: skip
    session = LabelingSession(store, name, "arls", sigma=SIGMA, lam=LAM)
    session.query()
    engine, rebuild = [], []
    for _ in range(labels):
        q, _ = session.query()
        tic = time.perf_counter()
        session.label(q, project.truth[q])
        session.query()
        engine.append(time.perf_counter() - tic)
        tic = time.perf_counter()
        fresh = LabelingSession(store, name, "arls", sigma=SIGMA, lam=LAM)
        fresh.query()
        rebuild.append(time.perf_counter() - tic)
        del fresh
    store.close()
    return engine, rebuild


def run(n: int, labels: int, browser, workdir: Path) -> dict:
    db = workdir / f"bench{n}.sqlite3"
    project = make_project(n)
    with open_store(db) as store:
        ensure_sample_projects(store)
        store.create_project(project)
    server = StreamlitServer(db, workdir / f"server{n}.log").start()
    url = f"{server.url}/?project={project.name}"
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        cold = open_page(page, url)
        second = context.new_page()
        warm = open_page(second, url)
        second.close()
        clicks = browser_labels(page, project, labels)
        context.close()
    finally:
        server.stop()
    engine, rebuild = engine_labels(db, project, labels)
    return {"n": n, "cold": cold, "warm": warm, "click": clicks, "engine": engine,
            "rebuild": rebuild}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 500, 2000 and 3 labels each")
    parser.add_argument("--sizes", type=int, nargs="*", help="pool sizes (default 500 2000 5000)")
    parser.add_argument("--labels", type=int, help="labels per pool (default 8, quick 3)")
    args = parser.parse_args(argv)
    sizes = args.sizes or ([500, 2000] if args.quick else [500, 2000, 5000])
    labels = args.labels or (3 if args.quick else 8)
    exe = chromium_executable()
    if exe is None:
        print("chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    # BLAS is not pinned: the server is a separate process, as in use
    report_machine()
    results = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        for n in sizes:
            print(f"n = {n}: measuring …", flush=True)
            results.append(run(n, labels, browser, Path(tmp)))
        browser.close()

    med = statistics.median
    print()
    print(f"ARLS, RBF σ = {SIGMA}, λ = {LAM}; {labels} labels per pool; times in seconds")
    print(
        f"{'n':>6} | {'load cold':>9} | {'load warm':>9} | {'click→query med':>15} | "
        f"{'max':>6} | {'engine only':>11} | {'rebuild/click':>13}"
    )
    print("-" * 87)
    for r in results:
        print(
            f"{r['n']:>6} | {r['cold']:>9.2f} | {r['warm']:>9.2f} | {med(r['click']):>15.2f} | "
            f"{max(r['click']):>6.2f} | {med(r['engine']):>11.3f} | {med(r['rebuild']):>13.2f}"
        )
    print()
    print("click→query: browser click until the next query is drawn (median, max);")
    print("engine only: LabelingSession.label + query in-process (median);")
    print("rebuild/click: new LabelingSession replayed from the database + query (median).")
    for r in results:
        if r["n"] == 2000:
            ok = med(r["click"]) <= 1.0
            print(f"goal ≤ 1 s per label at n = 2000: {'met' if ok else 'NOT met'} "
                  f"(median {med(r['click']):.2f} s)")  # fmt: skip
    cold_ok = all(r["cold"] <= 5.0 for r in results)
    colds = ", ".join(f"{r['cold']:.1f}" for r in results)
    print(f"goal first load ≤ 5 s: {'met' if cold_ok else 'NOT met'} (cold: {colds} s)")
    print(f"# load average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
