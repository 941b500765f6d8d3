"""Compare page: simulate query strategies against the ground truth, N queries × K seeds.

Layout and wiring only: the simulations are :mod:`rlscore.experiments.comparison.compare`'s. A run
that fails (a pool too large for a strategy, too little memory, bad settings) is reported as a
message (:mod:`rlscore.ui.shell.errors`), never as a traceback.
"""

from __future__ import annotations

import streamlit as st

from rlscore.experiments.comparison.compare import compare_strategies, held_out_validation
from rlscore.experiments.comparison.model_curves import EVALUATION_MODELS, MIN_PER_CLASS
from rlscore.experiments.comparison.runs import (
    final_summary,
    run_defaults,
    simulation_settings,
    summary_cells,
    uses_low_rank,
)
from rlscore.ui.shell.errors import report_errors
from rlscore.ui.shell.flash import show_flash
from rlscore.ui.shell.navigation import end_page, enter_through_app
from rlscore.ui.shell.params import params
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.sidebar import project_selector
from rlscore.ui.shell.store import get_store
from rlscore.ui.shell.strategy_names import STRATEGY_LABELS, low_rank_note, risk_chart_labels
from rlscore.viz.figures.curves import learning_curves_figure

enter_through_app(__file__)

project_selector()
p = params()
st.title(f"Compare strategies · {md_text(p['project'])}")
show_flash()
project = None
with report_errors(f"Opening project {md_text(p['project'])}"):
    project = get_store().load_project(p["project"])
if project is None:
    end_page()
if project.truth is None:
    st.warning(
        f"Project **{md_text(project.name)}** has no ground truth, so strategies cannot be "
        "simulated. Choose a sample project, or upload data with a truth column on the Data page."
    )
    end_page()
if project.multi_label:  # the simulations score one class per point
    st.info("Compare (simulated strategies): not available for multi-label projects yet.")
    end_page()
if project.n < 2:
    st.warning(f"Project **{md_text(project.name)}** has a single point: nothing to compare.")
    end_page()

settings = simulation_settings(p)
defaults = run_defaults(project.n)
st.caption(
    "An oracle answers every query with the true label; the error is measured as the run "
    f"reports below. Settings from the session: kernel {p['kernel']}, "
    f"σ = {p['sigma']:.4g}, λ = {p['lam']:.4g}"
    + (" (fixed: the automatic λ is not re-tuned during simulations)" if p["lam_auto"] else "")
    + f", class weights {p['class_weight'] or 'none'}."
)
if uses_low_rank(project.n):
    approximation = low_rank_note({**p, "strategy": "arls-lowrank"}, project.n)
    st.caption(f"ARLS, low-rank kernel: {md_text(approximation)}")

with st.form("compare"):
    chosen = st.multiselect(
        "Strategies",
        list(STRATEGY_LABELS),
        default=list(defaults.strategies),
        format_func=STRATEGY_LABELS.__getitem__,
    )
    c1, c2, c3 = st.columns(3)
    queries = c1.number_input(
        "Queries N",
        min_value=1,
        max_value=defaults.max_queries,
        value=defaults.queries,
    )
    seeds = c2.number_input("Seeds K", min_value=1, max_value=50, value=defaults.seeds)
    init = c3.number_input(
        "Random initial labels",
        min_value=0,
        max_value=defaults.max_init,
        value=defaults.init,
        help="Drawn per seed before the first query, so deterministic strategies differ "
        "between seeds.",
    )
    model = st.selectbox(
        "Also measure a model on each strategy's labels",
        [None, *EVALUATION_MODELS],
        format_func=lambda m: "—" if m is None else EVALUATION_MODELS[m][0],
        key="compare_model",
        help="After every query this model is fitted on the labels the strategy gathered and "
        "measured like the strategy's own learner. BDLDA suits many features and few labels; "
        "it separates two classes, one from the rest beyond two.",
    )
    run = st.form_submit_button("Run", type="primary")

if run:
    bar = st.progress(0.0, text="Simulating…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / total, text=f"Simulating… {done} of {total} queries")

    table = None
    with report_errors("Running the comparison"):
        validation, where = held_out_validation(project, chosen, settings)
        table = compare_strategies(
            project.X,
            project.truth,
            chosen,
            queries=int(queries),
            seeds=int(seeds),
            init=int(init),
            params=settings,
            classes=project.classes,
            validation=validation,
            model=model,
            progress=progress,
        )
    if table is None:
        bar.empty()
        end_page()
    bar.progress(1.0, text="Done.")
    # the uid tells a project deleted and uploaded again under the same name
    st.session_state["compare_results"] = ((project.name, project.uid), table, where, model)

results = st.session_state.get("compare_results")
if results is None or results[0] != (project.name, project.uid):
    st.info("Choose strategies and press Run.")
    end_page()
table, where, model = results[1:]
st.caption(f"In this run {where}.")

left, right = st.columns(2, gap="medium")
with left:
    st.subheader("Learning curves (validation error)")
    st.plotly_chart(
        learning_curves_figure(
            table,
            "validation_error",
            x="n_labels",
            y_title="error (mean ± sd)",
            names=STRATEGY_LABELS,
        ),
        key="learning",
    )
with right:
    risk_title, risk_names = risk_chart_labels(table["strategy"])
    st.subheader(risk_title[:1].upper() + risk_title[1:])
    st.plotly_chart(
        learning_curves_figure(
            table,
            "estimated_risk",
            x="n_labels",
            y_title=f"{risk_title} (mean ± sd)",
            names=risk_names,
        ),
        key="risk",
    )
if model is not None:
    model_name = EVALUATION_MODELS[model][0]
    st.subheader(f"{model_name} on each strategy's labels (validation error)")
    st.plotly_chart(
        learning_curves_figure(
            table, "model_error", x="n_labels", y_title="error (mean ± sd)", names=STRATEGY_LABELS
        ),
        key="model_learning",
    )
    st.caption(
        f"{md_text(model_name)} refitted after every query on the labels of each run; no "
        f"value until the labels hold {MIN_PER_CLASS} points of each of two classes or more."
    )
st.subheader("After the last query")
st.dataframe(
    summary_cells(final_summary(table, with_model=model is not None, names=STRATEGY_LABELS))
)
st.download_button(
    "Download results (CSV)",
    table.to_csv(index=False),
    file_name=f"compare_{project.name}.csv",
    mime="text/csv",
    key="download",
    on_click="ignore",
)
