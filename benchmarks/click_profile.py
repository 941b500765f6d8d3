"""Where one click's time goes: a profile of label → next query in the app.

Starts the app on a pool of ``--n`` points (ARLS, as ``app_latency.py``), opens the Label page
in headless Chromium and labels ``--clicks`` points while

* the browser records, for each click, when the app starts running (the request reached the
  server and its answer began to arrive), when the query panel shows the next point, and how
  long Chromium's main thread was busy in between (CDP ``Performance.getMetrics``,
  ``TaskDuration``: script, style, layout and paint);
* ``py-spy`` samples every thread of the server process (``py-spy record --threads``), so the
  server's time is split by what it runs: the label callback and the query panel (what the
  annotator waits for), the plot and figure fragments that follow, and Streamlit's event
  loop (sending the answer).

It prints the median phases of one click, the server's seconds per click by part, and the
functions that take the most of the panel's time. Needs ``py-spy`` (``pip install py-spy``,
the ``bench`` extra) and Debian's chromium.

Usage::

    python benchmarks/click_profile.py                  # n = 2000, 20 clicks
    python benchmarks/click_profile.py --n 5000 --clicks 30
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from functools import partial
from pathlib import Path

from app_latency import (
    PANEL,
    TIMEOUT_MS,
    open_page,
    query_on_page,
    server_cpu,
    start_pool_server,
)
from harness import load_average, pin_blas, report_machine
from streamlit_server import CHROMIUM_ARGS, chromium_executable

from rlscore.sessions.actions.dwell import MIN_DWELL_ENV  # noqa: E402

RATE = 250  # py-spy samples per second

#: per click: when it was pressed, the app started running, the panel changed, the run ended
RECORDER = """(panel) => {
  if (window.__clicks) return;
  window.__clicks = [];
  const doc = document, app = doc.querySelector('[data-testid="stApp"]');
  const state = () => { const m = doc.querySelector(panel); return m ? m.dataset.rlsState : null; };
  let cur = null;
  // trusted clicks only: the app's own refresh script presses hidden buttons by .click()
  doc.addEventListener('click', (e) => {
    if (!e.isTrusted) return;
    cur = {click: performance.now(), before: state()};
    window.__clicks.push(cur);
  }, true);
  new MutationObserver(() => {
    if (!cur) return;
    const s = app.getAttribute('data-test-script-state');
    if (s === 'running' && cur.running === undefined) cur.running = performance.now();
  }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  new MutationObserver(() => {
    if (cur && cur.panel === undefined && state() !== cur.before) cur.panel = performance.now();
  }).observe(app, {subtree: true, childList: true, attributes: true,
                   attributeFilter: ['data-rls-state']});
}"""

#: parts of the server's work, by a frame every sample of that part has (first match wins)
PARTS = [
    ("label callback (engine: label, next query)", "(rlscore/ui/label/actions.py"),
    ("query panel", "query_panel ("),
    ("pool plot fragment", "pool_plot ("),
    ("figures fragment (When-to-stop, recent labels, figures)", "figures_fragment ("),
    ("script run, other (page setup, sidebar)", "script_runner.py"),
]
#: where in the libraries the samples are, whatever the part (a frame's path or name)
INSIDE = [
    ("building the figures (rlscore/viz/figures)", ("rlscore/viz/figures/",)),
    ("the boundary's grid (decision values at 70 × 70 points)", ("decision_grid (",)),
    ("plotly (objects' validation, to_dict, to_json)", ("(plotly/", "(_plotly_utils/")),
    ("st.plotly_chart (Streamlit's side, plotly's calls in it included)", ("plotly_chart (",)),
    ("the engine and the database (rlscore core, query, sessions, storage)", None),
]
ENGINE_DIRS = ("rlscore/core/", "rlscore/query/", "rlscore/sessions/", "rlscore/storage/")


def click_phases(page, project, clicks: int, cdp, server_cpu_now) -> list[dict]:
    """Label ``clicks`` points; per click the browser's timestamps (ms), main-thread busy
    seconds from the click until the panel shows the next point (``busy``) and until the plot
    and the figures have caught up (``whole``: the label's whole drawing), and the server
    process's CPU seconds (``server_cpu_now()``, all threads) from the click until the plot and
    the figures have caught up and the run has ended: everything the server spends on a click."""
    page.evaluate(RECORDER, PANEL)
    busy, whole, server = [], [], []
    for k in range(clicks):
        q = query_on_page(page)
        # the label buttons have shortcuts; the recent-labels list has buttons named by class too
        name = re.compile(rf"^{re.escape(str(project.truth[q]))} Shortcut \d$")
        button = page.get_by_role("button", name=name)
        button.wait_for()
        before, cpu = task_seconds(cdp), server_cpu_now()
        button.click()
        page.wait_for_function(
            f"() => window.__clicks.length > {k} && window.__clicks[{k}].panel !== undefined",
            polling="raf",
        )
        busy.append(task_seconds(cdp) - before)
        # let the plot and figures catch up, as an annotator's next click would
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-rls-view]')]"
            ".every((m, _, a) => m.dataset.rlsState === a[0].dataset.rlsState)"
        )
        page.locator('[data-testid="stApp"][data-test-script-state="notRunning"]').wait_for()
        server.append(server_cpu_now() - cpu)
        whole.append(task_seconds(cdp) - before)
    marks = page.evaluate("window.__clicks")
    return [
        dict(m, busy=b, whole=w, server=c)
        for m, b, w, c in zip(marks, busy, whole, server, strict=True)
    ]


def task_seconds(cdp) -> float:
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "TaskDuration")


def start_sampler(pid: int, out: Path) -> subprocess.Popen:
    """``py-spy record`` on ``pid``, returned once it samples."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    cmd = [spy, "record", "--pid", str(pid), "--rate", str(RATE), "--format", "raw",
           "--threads", "--nonblocking", "--output", str(out)]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        if "Sampling process" in line:
            return proc
    raise RuntimeError(f"py-spy did not start: {proc.wait()}")


def stop_sampler(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGINT)
    proc.stdout.read()
    proc.wait()


#: innermost frames of a thread that waits (the event loop's select, the path watcher's sleep, a
#: pool thread's wait for work, whose work is always in a deeper frame): py-spy counts such a
#: thread as active while it waits for a core on a loaded machine (an idle server with an open
#: page uses 0.004 s of CPU a second), so their samples are left out
WAITS = (
    "EpollSelector.select (",
    "_schedule.<locals>.task (streamlit/watcher/",
    "_worker (concurrent/futures/thread.py",
)


def read_samples(raw: Path) -> list[tuple[list[str], int]]:
    """(frames root first, count) per line of py-spy's raw (collapsed) output, without the
    samples of a thread waiting in one of :data:`WAITS`."""
    samples = []
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if not any(wait in frames[-1] for wait in WAITS):
            samples.append((frames, int(count)))
    return samples


def part_of(frames: list[str]) -> str:
    stack = ";".join(frames)
    for part, mark in PARTS:
        if mark in stack:
            return part
    return "server event loop and other threads (sending the answer, websockets)"


def function_of(frame: str) -> str:
    """``name (path:line)`` → ``name (short path)``."""
    m = re.match(r"(.*) \((.*?)(?::\d+)?\)$", frame)
    if not m:
        return frame
    name, path = m.groups()
    for root in ("site-packages/", str(Path(__file__).resolve().parents[1]) + "/"):
        if root in path:
            path = path.split(root, 1)[1]
    return f"{name} ({path})"


def summarize(samples, clicks: int, what: str = "per click", cpu: float | None = None) -> None:
    per_part = Counter()
    inclusive = Counter()  # functions of the callback + panel, each counted once per sample
    engine = 0
    for frames, count in samples:
        part = part_of(frames)
        per_part[part] += count
        if not part.startswith(("label callback", "query panel")):
            continue
        if any(d in f for f in frames for d in ENGINE_DIRS):
            engine += count
        inclusive.update({fn: count for fn in {function_of(f) for f in frames} if not generic(fn)})

    def seconds(count: int) -> float:
        return count / RATE / clicks

    print(f"\nserver CPU {what} (py-spy, {RATE} samples/s, active samples only), seconds:")
    for part, count in per_part.most_common():
        print(f"  {seconds(count):7.3f}  {part}")
    print(f"  {seconds(sum(per_part.values())):7.3f}  all threads")
    inside = Counter()  # where the script thread's samples are, across the parts
    for frames, count in samples:
        for name, marks in INSIDE:
            if any(m in f for f in frames for m in marks or ENGINE_DIRS):
                inside[name] += count
    print("of them, in any part (a sample can count in more than one line):")
    for name, _ in INSIDE:
        print(f"  {seconds(inside[name]):7.3f}  {name}")
    if cpu is not None:
        # py-spy counts a thread that waits for a core as active: on a loaded machine its
        # seconds exceed the CPU; its shares, applied to the process's measured CPU, do not
        total = sum(per_part.values())
        print(f"\nthe same shares of the server's measured CPU per click ({cpu:.3f} s), seconds:")
        for part, count in [*per_part.most_common(), *((n, inside[n]) for n, _ in INSIDE)]:
            print(f"  {cpu * count / total:7.3f}  {part}")
    waited = per_part[PARTS[0][0]] + per_part[PARTS[1][0]]
    if what != "per click":
        return
    print(
        f"of the callback + panel ({seconds(waited):.3f} s per click), the engine and the "
        f"database (rlscore.core, query, sessions, storage) take {seconds(engine):.3f} s"
    )
    print("\nfunctions taking the most of the callback + panel (inclusive, s per click):")
    for fn, count in inclusive.most_common(20):
        print(f"  {seconds(count):7.3f}  {fn}")
    print("\nthe same by the innermost project function of each sample (where O(n) work of the")
    print("engine, the session and the panel shows; s per click, label callback | panel):")
    for fn, (label, panel) in innermost_project_functions(samples)[:15]:
        print(f"  {seconds(label):7.3f} | {seconds(panel):7.3f}  {fn}")


def innermost_project_functions(samples) -> list[tuple[str, tuple[int, int]]]:
    """Samples of the label callback and of the query panel by their innermost frame in
    ``rlscore/`` (the function doing or calling the work), most first."""
    label, panel = Counter(), Counter()
    for frames, count in samples:
        part = part_of(frames)
        if not part.startswith(("label callback", "query panel")):
            continue
        own = [f for f in frames if "rlscore/" in f and "rlscore/ui/" not in f]
        fn = function_of(own[-1]) if own else "(outside the engine and the session)"
        (label if part.startswith("label callback") else panel)[fn] += count
    names = sorted(set(label) | set(panel), key=lambda f: -(label[f] + panel[f]))
    return [(f, (label[f], panel[f])) for f in names]


def generic(function: str) -> bool:
    """Frames every script-thread sample has (threading, Streamlit's script runner)."""
    return any(m in function for m in ("(threading.py)", "scriptrunner/", "fragment.py"))


def report_phases(phases: list[dict]) -> None:
    med = statistics.median
    request = [p["running"] - p["click"] for p in phases if "running" in p]
    answer = [p["panel"] - p["running"] for p in phases if "running" in p]
    total = [p["panel"] - p["click"] for p in phases]
    busy = [p["busy"] * 1000 for p in phases]
    print(f"\none click, browser side (median of {len(phases)}), ms:")
    print(f"  {med(total):7.1f}  click → next query drawn (panel marker changed)")
    print(f"  {med(request):7.1f}    click → app running (request sent, server started the run)")
    print(f"  {med(answer):7.1f}    app running → next query drawn (server run + drawing)")
    print(f"  {med(busy):7.1f}  Chromium main thread busy in click → next query (CDP TaskDuration)")
    whole = [p["whole"] * 1000 for p in phases]
    print(f"  {med(whole):7.1f}  Chromium main thread busy until the plot and figures caught up")
    server = sorted(p["server"] for p in phases)
    print(
        f"\nserver process CPU per click (/proc user + system, all threads, click until the plot "
        f"and figures caught up), s: median {med(server):.3f}, min {server[0]:.3f}, "
        f"max {server[-1]:.3f}"
    )


def profile_second_tab(context, url: str, pid: int, raw: Path) -> dict:
    """Open the Label page in a second tab under the sampler; wall seconds, Chromium's
    main-thread busy seconds and the server's samples."""
    second = context.new_page()
    cdp = context.new_cdp_session(second)
    cdp.send("Performance.enable")
    sampler = start_sampler(pid, raw)
    try:
        wall = open_page(second, url)
    finally:
        stop_sampler(sampler)
    busy = task_seconds(cdp)
    second.close()
    return {"wall": wall, "busy": busy, "samples": read_samples(raw)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="pool size (default 2000)")
    parser.add_argument("--clicks", type=int, default=20, help="profiled clicks (default 20)")
    parser.add_argument("--raw", type=Path, help="also keep py-spy's samples in this file")
    parser.add_argument(
        "--summarize",
        nargs=2,
        metavar=("RAW", "CPU"),
        help="only print the parts of a kept --raw file of --clicks clicks, shared out over "
        "the server's measured CPU seconds per click",
    )
    args = parser.parse_args(argv)
    if args.summarize:
        raw, cpu = args.summarize
        summarize(read_samples(Path(raw)), args.clicks, cpu=float(cpu))
        return 0
    exe = chromium_executable()
    if exe is None:
        print("chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    pin_blas(1)  # here and, through the environment, in the server started below
    # the benchmark clicks as soon as a label button shows; a person's minimum dwell (the page's
    # guard and the server's rule, rlscore.sessions.actions.dwell) would drop those clicks
    os.environ[MIN_DWELL_ENV] = "0"
    report_machine()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        server, project, url = start_pool_server(args.n, Path(tmp))
        try:
            browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            open_page(page, url)
            load = profile_second_tab(context, url, server.proc.pid, Path(tmp) / "load.txt")
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")
            cpu_now = partial(server_cpu, server)
            click_phases(page, project, 3, cdp, cpu_now)  # warm-up, not profiled
            page.evaluate("window.__clicks = []")  # the recorder stays installed
            raw = Path(tmp) / "samples.txt"
            sampler = start_sampler(server.proc.pid, raw)
            tic = time.perf_counter()
            try:
                phases = click_phases(page, project, args.clicks, cdp, cpu_now)
            finally:
                stop_sampler(sampler)
            wall = time.perf_counter() - tic
            browser.close()
        finally:
            server.stop()
        print(f"\nn = {args.n}, ARLS, {args.clicks} clicks in {wall:.1f} s "
              f"(each waits for the plot and figures to catch up)")  # fmt: skip
        print(f"\nsecond tab: {load['wall']:.2f} s from page.goto until the query, buttons and "
              f"plot are drawn; Chromium main thread busy {load['busy']:.2f} s")  # fmt: skip
        summarize(load["samples"], 1, "while the second tab loads")
        report_phases(phases)
        cpu = statistics.median(p["server"] for p in phases)
        summarize(read_samples(raw), args.clicks, cpu=cpu)
        if args.raw:
            shutil.copy(raw, args.raw)
    print(f"# load average: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
