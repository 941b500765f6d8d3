"""Server CPU of one slider step on the Tune page (issue 36 item 7: ≤ 0.5 s).

The Tune page (``pages/tune.py``, inside ``app.py`` as a browser gets it) runs in Streamlit's
``AppTest`` in this process on two projects made here, each with ``--labels`` labels from its
truth (as annotators would have given them):

* ``moons2000``: the imbalanced two moons of ``app_latency.py``, 2 000 points, σ = 2;
* ``texts300``: 300 items drawn (seed 0) from the bundled ``debian_sections`` sample, with its
  text features (TF-IDF reduced to 100 dimensions) and its σ.

A step moves the σ slider or the λ slider (alternately, each over a fixed path of positions
not visited before in the run, so no cached figure is reused) and reruns the page: its CPU is
``time.process_time()`` around ``at.run()``, all threads of this process (AppTest runs the
script in a thread of it), which is what a server spends on the step. Beside it, in the same
run, the same measure of a trivial script (one slider and a line of text) in AppTest: what
Streamlit's own rerun costs. Medians of ``--steps`` steps per slider after one warm-up run;
BLAS pinned to one thread; the load average printed before and after.

Usage::

    python benchmarks/tune_slider.py                    # 40 labels, 12 steps per slider
    python benchmarks/tune_slider.py --labels 80 --steps 20
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from harness import load_average, pin_blas, report_machine

REPO = Path(__file__).resolve().parents[1]
GOAL = 0.5  # seconds of server CPU per slider step (issue 36 item 7)
TEXT_SAMPLE, TEXT_ITEMS = "debian_sections", 300
TRIVIAL = """
import streamlit as st

value = st.slider("x", 0.0, 1.0, 0.5, step=0.05, key="x")
st.write(f"x = {value}")
"""


def make_projects(db: Path, labels: int) -> list[str]:
    """The two projects in a fresh store at ``db``, each with ``labels`` labels from its truth
    (the same number per class where the classes allow, seed 0); their names."""
    import numpy as np
    from app_latency import make_project

    from rlscore.data.items.columns import ItemColumn
    from rlscore.data.projects.project import Project
    from rlscore.data.samples.bundled import ensure_sample_projects
    from rlscore.storage import Event, open_store

    with open_store(db) as store:
        ensure_sample_projects(store)
        texts = store.load_project(TEXT_SAMPLE)
        keep = np.sort(np.random.default_rng(0).choice(texts.n, TEXT_ITEMS, replace=False))
        subset = Project(
            name=f"texts{TEXT_ITEMS}",
            X=texts.X[keep],
            feature_names=list(texts.feature_names),
            ids=[texts.ids[i] for i in keep],
            truth=texts.truth[keep],
            classes=list(texts.classes),
            meta={**texts.meta, "description": f"{TEXT_ITEMS} items of {TEXT_SAMPLE}"},
            items=[ItemColumn(c.name, c.kind, [c.values[i] for i in keep]) for c in texts.items],
        )
        projects = [make_project(2000), subset]
        rng = np.random.default_rng(0)
        for project in projects:
            store.create_project(project)
            per_class = max(1, labels // len(project.classes))
            for c in project.classes:
                of_class = np.flatnonzero(project.truth == c)
                chosen = rng.choice(of_class, min(per_class, of_class.size), replace=False)
                for i in chosen:
                    store.append_event(project.name, Event("label", int(i), c, "bench"))
    return [p.name for p in projects]


def cpu_of_run(at) -> float:
    """CPU seconds of this process (every thread) for one ``at.run()``; fails on an exception
    shown on the page, so a broken page is never timed as a fast one."""
    tic = time.process_time()
    at.run()
    cpu = time.process_time() - tic
    if at.exception:
        raise RuntimeError(f"the page raised: {[e.value for e in at.exception]}")
    return cpu


def slider_steps(at, key: str, positions: list[float]) -> list[float]:
    """CPU of a rerun after each move of the slider ``key`` to the next of ``positions``."""
    out = []
    for x in positions:
        at.slider(key=key).set_value(x)
        out.append(cpu_of_run(at))
    return out


def tune_page(project: str, timeout: float):
    """The Tune page of ``project`` in AppTest, run once (the warm-up: imports, the session)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=timeout)
    at.switch_page("pages/tune.py")
    at.query_params["project"] = project
    at.query_params["annotator"] = "bench"
    warm = cpu_of_run(at)
    if not at.get("plotly_chart"):  # the page stopped early (e.g. too few labels)
        raise RuntimeError(f"no figure on the Tune page of {project}")
    return at, warm


def positions(bounds: tuple[float, float], steps: int) -> list[float]:
    """``steps`` slider positions (multiples of its 0.05 step) spread over ``bounds``'s middle
    half, each different: a step never reruns a setting already shown."""
    lo, hi = bounds
    span = (hi - lo) / 2
    return [round((lo + span / 2 + span * k / max(steps - 1, 1)) * 20) / 20 for k in range(steps)]


def trivial_steps(steps: int, timeout: float) -> list[float]:
    """CPU per rerun of a one-slider script after a move of its slider: Streamlit's own."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_string(TRIVIAL, default_timeout=timeout)
    cpu_of_run(at)
    return slider_steps(at, "x", [round(0.05 * (k % 20), 2) for k in range(1, steps + 1)])


def summary(name: str, cpu: list[float], goal: bool = True) -> str:
    med = statistics.median(cpu)
    verdict = f"≤ {GOAL} s: {'met' if med <= GOAL else 'NOT met'}" if goal else ""
    return (
        f"{name:>20} | {med:6.3f} | {min(cpu):6.3f} | {max(cpu):6.3f} | {len(cpu):5d} | {verdict}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=int, default=40, help="labels per project (40)")
    parser.add_argument("--steps", type=int, default=12, help="steps per slider (12)")
    parser.add_argument("--timeout", type=float, default=300.0, help="AppTest timeout, s")
    args = parser.parse_args(argv)
    if args.labels < 4 or args.steps < 1:
        parser.error("--labels must be at least 4 (the page needs 3 from 2 classes), --steps ≥ 1")
    # Streamlit reads .streamlit/config.toml from the working directory: the app's own (its
    # address, without which the page refuses to run unauthenticated)
    os.chdir(REPO)
    pin_blas(1)
    report_machine()
    from rlscore.sessions.state.settings import LAM_LOG_RANGE, SIGMA_LOG_RANGE

    sliders = {"tune_log_sigma": SIGMA_LOG_RANGE, "tune_log_lam": LAM_LOG_RANGE}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["RLSCORE_DB"] = str(Path(tmp) / "tune.sqlite3")
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")  # the sessions' snapshots
        names = make_projects(Path(os.environ["RLSCORE_DB"]), args.labels)
        baseline = trivial_steps(2 * args.steps, args.timeout)
        rows = []
        for name in names:
            at, warm = tune_page(name, args.timeout)
            print(f"# {name}: first run (imports, session, figures) {warm:.2f} s CPU", flush=True)
            for key, bounds in sliders.items():
                cpu = slider_steps(at, key, positions(bounds, args.steps))
                rows.append(summary(f"{name} {key.removeprefix('tune_log_')}", cpu))
    print(
        f"\nTune page, server CPU per slider step (process CPU around at.run(), all threads), "
        f"{args.labels} labels, seconds\n"
        f"{'project, slider':>20} | median |    min |    max | steps | goal"
    )
    print("\n".join(rows))
    print(summary("baseline", baseline, goal=False) + "a one-slider script: Streamlit's rerun")
    print(f"# load average: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
