"""A cluster-backed project in the browser (issue 26): the test starts a Dask ``LocalCluster``
(two worker processes on the loopback interface) and an app server with
``RLSCORE_DASK_SCHEDULER`` pointing at it, creates a project of 30 000 rows of Parquet with the
CLI, and labels five points by key on the Label page. The database holds each label on the
point whose heading was on screen, and every pick is the in-memory engine's on the same
features (:class:`~rlscore.query.LowRankARLS`, linear kernel on the Nyström features the test
computes itself from the documented landmark rows). The sidebar names the project with its
pool's size; the plot draws a sample of the pool over the density layer of every row, counted
on the workers (the browser holds the sample and the grid's cells, nothing more).

Each key is pressed only once its point has been drawn for the minimum dwell.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from app_page import heading_number, open_app, settle, stored, wait_dwell, wait_text
from browser_context import new_context
from playwright.sync_api import expect

from rlscore.cli import main as cli_main
from rlscore.core.kernels.lowrank import LowRankKernel
from rlscore.query import LowRankARLS

distributed = pytest.importorskip("distributed")

from rlscore.data.cluster.parquet_pool import SCHEDULER_ENV, write_pool  # noqa: E402
from rlscore.sessions.cluster.engine import DENSITY_BINS, PLOT_SAMPLE  # noqa: E402

N, D, M = 30_000, 4, 40
SIGMA, LAM, CANDIDATES, RISK = 2.0, 0.5, 30, 2000
CLASSES = ["neg", "pos"]


def _reference(X: np.ndarray) -> LowRankARLS:
    """The in-memory engine on the features the cluster builds: the RBF Nyström map fitted on
    the landmark rows ``default_rng(0).choice(n, m, replace=False)`` (sorted)."""
    rows = np.sort(np.random.default_rng(0).choice(N, M, replace=False))
    fmap = LowRankKernel(kernel="rbf", sigma=SIGMA, n_landmarks=M, landmarks="uniform")
    phi = fmap.fit(X[rows]).transform(X)
    ref = LowRankARLS(kernel="linear", lam=LAM, candidates=CANDIDATES, risk_sample=RISK)
    return ref.start(phi, CLASSES)


def _plot_contents(page) -> dict:
    """What the pool plot holds in the browser: the sum of each density layer's counts, its
    cells, and the scatter points (once the density layer is drawn)."""
    page.wait_for_function(
        "() => { const gd = document.querySelector('.js-plotly-plot');"
        " return gd && gd._fullData && gd._fullData.some(t => t.type === 'heatmap'); }"
    )
    return page.evaluate(
        """() => {
        const data = document.querySelector('.js-plotly-plot')._fullData;
        const heat = data.filter(t => t.type === 'heatmap');
        const sum = z => Array.from(z, row => Array.from(row).reduce((a, b) => a + b, 0))
            .reduce((a, b) => a + b, 0);
        return {
            density: heat.map(t => sum(t.z)),
            cells: heat.reduce((a, t) => a + Array.from(t.z).reduce((c, r) => c + r.length, 0), 0),
            points: data.filter(t => t.type !== 'heatmap')
                .reduce((a, t) => a + (t.x ? t.x.length : 0), 0),
        };
    }"""
    )


def test_label_five_points_of_a_pool_on_a_cluster(
    browser, start_server, scheduler, tmp_path, artifacts
):
    rng = np.random.default_rng(2626)
    y = rng.integers(0, 2, N)
    X = rng.normal(size=(N, D)) + 1.5 * y[:, None]
    truth = np.array(CLASSES)[y]
    folder = tmp_path / "pool"
    write_pool(X, folder, rows_per_file=10_000)
    srv = start_server(**{SCHEDULER_ENV: scheduler})
    argv = [
        "create-cluster-project", "big", str(folder), "--db", str(srv.db), "--classes", "neg,pos",
        "--sigma", str(SIGMA), "--lam", str(LAM), "--landmarks", str(M),
        "--candidates", str(CANDIDATES), "--risk-sample", str(RISK),
    ]  # fmt: skip
    assert cli_main(argv) == 0
    ref = _reference(X)

    context = new_context(browser)
    page = context.new_page()
    shown: dict[int, str] = {}  # point whose heading was on screen → label of the key pressed
    try:
        open_app(page, f"{srv.url}/?project=big", 0, total=N)
        # the project is the sidebar's choice, named with its pool's size, and the plot is
        # the cluster's sample over the density of the whole pool counted on the workers
        project_box = page.get_by_role("combobox", name="Project")
        expect(project_box).to_have_value(f"big (cluster, {N:,} points)")
        expect(page.get_by_text("A sample of", exact=False).first).to_be_visible()
        drawn = _plot_contents(page)
        assert drawn["density"] == [N]  # one density layer, every pool row counted
        assert drawn["cells"] == DENSITY_BINS**2
        assert 0 < drawn["points"] <= PLOT_SAMPLE + 2  # the sample, its query and the star
        expect(page.get_by_test_id("stException")).to_have_count(0)
        for k in range(5):
            q = heading_number(page, "Next query:")
            assert q == ref.next_query()[0]  # the in-memory engine's pick
            label = truth[q]
            wait_dwell(page, q)
            page.keyboard.press(str(1 + CLASSES.index(label)))
            wait_text(page, f"Labeled {k + 1} of {N}")
            shown[q] = label
            ref.teach(q, label)
        settle(page)
        expect(page.get_by_test_id("stException")).to_have_count(0)
        # no view of the page failed for want of features on this server
        failed = page.get_by_test_id("stAlert").filter(has_text=re.compile("failed"))
        expect(failed).to_have_count(0)
        page.screenshot(path=artifacts / "label_cluster_project.png", full_page=True)
    finally:
        context.close()

    labels = stored(srv.db, "big").labels
    assert labels == shown  # each label on the point shown when its key was pressed


def test_without_a_scheduler_the_page_names_the_variable(browser, start_server, tmp_path):
    folder = tmp_path / "pool"
    write_pool(np.random.default_rng(0).normal(size=(100, 2)), folder)
    srv = start_server()  # no RLSCORE_DASK_SCHEDULER
    argv = ["create-cluster-project", "far", str(folder), "--db", str(srv.db), "--classes", "a,b"]
    assert cli_main(argv) == 0
    context = new_context(browser)
    page = context.new_page()
    try:
        page.goto(f"{srv.url}/?project=far&annotator=ada")
        settle(page)
        alert = page.get_by_test_id("stAlert").filter(has_text=SCHEDULER_ENV)
        expect(alert.first).to_be_visible()
        expect(page.get_by_test_id("stException")).to_have_count(0)
    finally:
        context.close()
