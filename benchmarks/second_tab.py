"""Where a second tab of the Label page spends its time, against two bare Streamlit pages.

Issue 25's goal is a second tab within 1.2× a bare Streamlit page drawing the same plot
(``app_latency.py`` measures that ratio). This script asks *why* the Label page is slower, in
one run, on fresh servers, alternating, medians of ``--loads``:

* **app**: the Label page on a 2000-point pool (``app_latency.py``'s project), second tab;
* **bare**: ``app_latency.py``'s bare page — the same figure (read back from the app's
  page), a heading and two buttons, Streamlit and plotly only;
* **bare + the same elements**: the bare page plus, in the sidebar and below the plot, as
  many elements of each kind as the Label page drew (read back from its page: buttons,
  sliders, select boxes, number inputs, toggles, radios, text inputs, metrics, markdown,
  HTML, headings, progress bars, alerts, the same help icons, an expander), with dummy
  labels and no project code, behind an ``st.navigation`` of as many pages.

For each it prints the wall time of the second tab, Chromium's main-thread busy time (CDP
``TaskDuration``) and script time (``ScriptDuration``), the server's CPU, and the long tasks
(≥ 50 ms, the browser's ``longtask`` entries): if the Label page costs what the bare page
with its elements costs, its remaining time over the bare page is Streamlit drawing those
elements, not the project's code. ``--loads`` rounds (default 5); ``--profile 3`` adds
three rounds sampled by Chromium's JavaScript profiler (not timed), printing each page's
script self time per file (Streamlit's frontend chunks, plotly.js, …; medians)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/second_tab.py --loads 7 --profile 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import Counter
from pathlib import Path

import app_latency as latency
from harness import load_average, pin_blas, report_machine
from playwright.sync_api import sync_playwright

N = 2000

#: what a Streamlit element container holds, by the test id of the widget inside it
KINDS = (
    "stSlider", "stSelectbox", "stNumberInput", "stCheckbox", "stRadio", "stTextInput",
    "stButton", "stMetric", "stHeading", "stProgress", "stAlert", "stHtml", "stMarkdown",
    "stPlotlyChart",
)  # fmt: skip

#: the Label page's elements, in order: (where, kind, has a help icon, inside an expander)
INVENTORY_JS = f"""() => {{
  const kinds = {list(KINDS)!r};
  const out = [];
  document.querySelectorAll('[data-testid="stElementContainer"]').forEach(e => {{
    const kind = kinds.find(k => e.querySelector(`[data-testid="${{k}}"]`));
    if (!kind) return;
    out.push([e.closest('[data-testid="stSidebar"]') ? 'sidebar' : 'main', kind,
              !!e.querySelector('[data-testid="stTooltipIcon"]'),
              !!e.closest('[data-testid="stExpander"]')]);
  }});
  const pages = document.querySelectorAll('[data-testid="stSidebarNavLink"]').length;
  return {{elements: out, pages}};
}}"""

#: every long task (≥ 50 ms) of the page since it opened, [start, duration] in ms
LONG_TASKS_INIT = """
window.__longTasks = [];
new PerformanceObserver((list) => list.getEntries().forEach(
  (e) => window.__longTasks.push([e.startTime, e.duration]))).observe(
  {type: 'longtask', buffered: true});
"""

#: one Streamlit call per kind, with dummy labels (``k``: a number making keys unique)
CALLS = {
    "stSlider": "{at}.slider('slider {k}', 0.0, 1.0, 0.5, key='w{k}'{help})",
    "stSelectbox": "{at}.selectbox('select {k}', ['first', 'second'], key='w{k}'{help})",
    "stNumberInput": "{at}.number_input('number {k}', value=0, key='w{k}'{help})",
    "stCheckbox": "{at}.toggle('toggle {k}', key='w{k}'{help})",
    "stRadio": "{at}.radio('radio {k}', ['none', 'balanced'], horizontal=True, key='w{k}'{help})",
    "stTextInput": "{at}.text_input('text {k}', 'bench', key='w{k}'{help})",
    "stButton": "{at}.button('button {k}', key='w{k}'{help})",
    "stMetric": "{at}.metric('metric {k}', {k}{help})",
    "stHeading": "{at}.subheader('Heading {k}')",
    "stProgress": "{at}.progress(0.0)",
    "stAlert": "{at}.info('Keep going: an alert {k}.')",
    "stHtml": "{at}.html('<span>{k}</span>')",
    "stMarkdown": "{at}.caption('Some caption text, number {k}, as the page has.'{help})",
}


def mimic_script(figure: Path, inventory: dict) -> str:
    """The bare page plus as many elements of each kind as the Label page drew."""
    lines = [
        "import plotly.io as pio",
        "import streamlit as st",
        "",
        "def label_page():",
        "    left, right = st.columns([2, 3])",
        "    with left:",
        "        st.subheader('Next query: point #0')",
        "        st.button('-1', key='neg')",
        "        st.button('1', key='pos')",
        "    with right:",
        f"        figure = pio.from_json(open({str(figure)!r}).read(), skip_invalid=True)",
        "        st.plotly_chart(figure, key='pool')",
        "    expander = st.expander('Find items')",
    ]
    for k, (where, kind, has_help, in_expander) in enumerate(inventory["elements"]):
        if kind == "stPlotlyChart" or kind not in CALLS:
            continue
        at = "st.sidebar" if where == "sidebar" else "expander" if in_expander else "st"
        help_text = ", help='What this setting does.'" if has_help else ""
        if kind in ("stHeading", "stProgress", "stAlert", "stHtml"):
            help_text = ""
        lines.append("    " + CALLS[kind].format(at=at, k=k, help=help_text))
    pages = max(1, inventory["pages"])
    lines += [
        "",
        "st.set_page_config(layout='wide')",
        "pages = [st.Page(label_page, title='Label', url_path='label', default=True)]",
        f"pages += [st.Page(lambda: None, title=f'Page {{i}}', url_path=f'p{{i}}') "
        f"for i in range(1, {pages})]",
        "st.navigation(pages).run()",
    ]
    return "\n".join(lines) + "\n"


def open_mimic(page, url: str) -> float:
    """Like the bare page: the heading, the plot drawn, the script idle."""
    return latency.open_bare(page, url)


def script_self_times(profile: dict) -> Counter:
    """Self seconds per script file (its name without the build hash, or the V8 category
    such as ``(program)`` or ``(garbage collector)``) of a CDP ``Profiler`` profile."""
    frames = {node["id"]: node["callFrame"] for node in profile["nodes"]}
    out: Counter = Counter()
    for node, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        frame = frames[node]
        source = frame["url"].rsplit("/", 1)[-1].split(".")[0]
        out[source or frame["functionName"] or "(anonymous)"] += delta / 1e6
    out.pop("(idle)", None)
    return out


def second_tab(server, browser, url: str, opener, profile: bool = False) -> dict:
    """A first tab (not measured), then a second tab: its wall seconds, Chromium's busy and
    script seconds, the server's CPU seconds and the long tasks; with ``profile``, the
    second tab's script self seconds per file instead (sampled, so not timed)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(latency.TIMEOUT_MS)
    context.add_init_script(LONG_TASKS_INIT)
    try:
        first = context.new_page()
        opener(first, url)
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable")
        if profile:
            cdp.send("Profiler.enable")
            cdp.send("Profiler.setSamplingInterval", {"interval": 200})  # µs
            cdp.send("Profiler.start")
        cpu = latency.server_cpu(server)
        wall = opener(page, url)
        server_cpu = latency.server_cpu(server) - cpu
        if profile:
            return {"profile": script_self_times(cdp.send("Profiler.stop")["profile"])}
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        tasks = page.evaluate("() => window.__longTasks")
        inventory = page.evaluate(INVENTORY_JS)
        figure = page.evaluate(latency.FIGURE_JS)
        return {
            "wall": wall,
            "busy": metrics["TaskDuration"],
            "script": metrics["ScriptDuration"],
            "server": server_cpu,
            "long": sum(d for _, d in tasks) / 1000,
            "n_long": len(tasks),
            "inventory": inventory,
            "figure": figure,
        }
    finally:
        context.close()


def run(loads: int, workdir: Path, profile: int = 0) -> tuple[dict, dict]:
    """``loads`` rounds of (app, bare, bare + elements), each on a fresh server: the timed
    second tabs per page; then ``profile`` rounds sampled by the profiler (not timed): the
    script self seconds per file of each page, one Counter per round."""
    out: dict[str, list[dict]] = {"app": [], "bare": [], "bare + elements": []}
    profiles: dict[str, list[Counter]] = {name: [] for name in out}
    figure, scripts = workdir / "figure.json", {"bare": None, "bare + elements": None}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=latency.chromium_executable(), args=latency.CHROMIUM_ARGS
        )
        for r in range(loads + profile):
            sampled = r >= loads
            server, _, url = latency.start_pool_server(N, workdir / f"app{r}")
            try:
                results = {"app": second_tab(server, browser, url, latency.open_page, sampled)}
            finally:
                server.stop()
            if r == 0:
                app = results["app"]
                figure.write_text(app["figure"])
                scripts["bare"] = workdir / "bare.py"
                scripts["bare"].write_text(latency.BARE_APP.format(path=str(figure)))
                scripts["bare + elements"] = workdir / "mimic.py"
                scripts["bare + elements"].write_text(mimic_script(figure, app["inventory"]))
            for name, script in scripts.items():
                log = workdir / f"{script.stem}{r}.log"
                server = latency.StreamlitServer(
                    workdir / "unused.sqlite3", log, script=str(script)
                ).start()
                try:
                    results[name] = second_tab(
                        server, browser, server.url, latency.open_bare, sampled
                    )
                finally:
                    server.stop()
            for name, result in results.items():
                if sampled:
                    profiles[name].append(result["profile"])
                else:
                    out[name].append(result)
    return out, profiles


def report_profiles(profiles: dict[str, list[Counter]], top: int = 12) -> None:
    """The files taking the most script self time in the Label page's second tab, beside
    the same files in the two bare pages (medians over the sampled rounds)."""
    rounds = len(profiles["app"])
    if not rounds:
        return
    med = {
        name: Counter({f: statistics.median(c[f] for c in runs) for f in set().union(*runs)})
        for name, runs in profiles.items()
    }
    totals = {
        name: statistics.median(sum(c.values()) for c in runs) for name, runs in profiles.items()
    }
    print(
        f"\nscript self seconds per file in a second tab, medians of {rounds} rounds sampled by "
        "the profiler (every 200 µs: slower than the timed rounds, so read them side by side)"
    )
    print(f"{'file':>22} | " + " | ".join(f"{n:>15}" for n in med))
    for source, _ in med["app"].most_common(top):
        print(f"{source[:22]:>22} | " + " | ".join(f"{med[n][source]:15.3f}" for n in med))
    print(f"{'all, busy':>22} | " + " | ".join(f"{totals[n]:15.3f}" for n in med))


def report(results: dict[str, list[dict]]) -> None:
    app = results["app"][0]["inventory"]
    kinds = Counter(f"{where}:{kind}" for where, kind, *_ in app["elements"])
    print(f"the Label page's elements ({len(app['elements'])}, {app['pages']} pages): "
          + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))  # fmt: skip
    print(
        f"bare: 1 heading, 2 buttons, the plot; bare + elements: the bare page and "
        f"{len(app['elements']) - 1} elements like the Label page's"
    )
    med = statistics.median
    bare = med(x["wall"] for x in results["bare"])
    print(f"\nsecond tab, n = {N}, medians of {len(results['app'])}; seconds")
    print(f"{'page':>16} | {'wall':>5} | {'÷ bare':>6} | {'browser busy':>12} | "
          f"{'script':>6} | {'long tasks':>10} | {'count':>5} | {'server CPU':>10}")  # fmt: skip
    for name, rows in results.items():
        wall = med(x["wall"] for x in rows)
        print(
            f"{name:>16} | {wall:5.2f} | {wall / bare:5.2f}× | "
            f"{med(x['busy'] for x in rows):12.2f} | {med(x['script'] for x in rows):6.2f} | "
            f"{med(x['long'] for x in rows):10.2f} | {med(x['n_long'] for x in rows):5.0f} | "
            f"{med(x['server'] for x in rows):10.3f}"
        )
    mimic = med(x["wall"] for x in results["bare + elements"])
    app_wall = med(x["wall"] for x in results["app"])
    print(f"Label page ÷ bare + the same elements: {app_wall / mimic:.2f}×")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=5, help="rounds (default 5)")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="rounds sampled by the JavaScript profiler after the timed ones (default 0)",
    )
    args = parser.parse_args(argv)
    pin_blas()
    report_machine()
    latency.compile_package()
    with tempfile.TemporaryDirectory() as tmp:
        results, profiles = run(args.loads, Path(tmp), args.profile)
    report(results)
    report_profiles(profiles)
    print(f"# load average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
