"""The Label page's "when to stop" panel: the accuracy estimate with its interval over the
labels, the strategy's risk beside it, and "you can stop" or "keep going", with the evidence
in an expander (issue 24; the state is :mod:`rlscore.sessions.stopping.stopping_view`'s).

The panel is drawn in the Label page's figures fragment, so it follows each label one step
behind the query panel, like the figures (:mod:`rlscore.ui.label.refresh`), and says at how many
labels it was computed.

The budget "until the stop rule fires" is kept here too: labeling in a tab ends where the
rule fires — by hand and by Auto-label alike (``LabelingSession.auto_label(...,
until_stop=True)``) — unless the tab chose to go on (:func:`go_on_after_stop`); whether it
fired is :func:`~rlscore.sessions.stopping.stopping_view.stop_rule_fired`'s (single- and
multi-label).
"""

from __future__ import annotations

import streamlit as st

from rlscore.core.conventions.counted_words import counted
from rlscore.core.evaluation.set_accuracy import MIN_CHECKS
from rlscore.sessions.state.loo_refit import judges_a_stand_in
from rlscore.sessions.stopping.accuracy_estimate import AUDIT_EVERY, RISK_MIN_LABELS
from rlscore.sessions.stopping.stop_rule import evidence_lines
from rlscore.sessions.stopping.stopping_view import StoppingView, stop_rule_fired, stopping_view
from rlscore.sessions.views.label_page import QueryPanelState
from rlscore.ui.figures.lazy_expander import open_expander_content
from rlscore.ui.label.refresh import request_page_run
from rlscore.ui.shell.errors import report_errors
from rlscore.ui.shell.flash import flash
from rlscore.ui.shell.params import current_annotator, update_params
from rlscore.ui.shell.roles import gate
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.store import SessionHandle, get_store
from rlscore.ui.shell.strategy_names import strategy_name_text
from rlscore.viz.figures.stopping_figure import accuracy_figure


def stopping_panel(handle: SessionHandle, p: dict) -> None:
    """Draw the panel for the tab's session ``handle`` and settings ``p``."""
    with report_errors("Estimating the accuracy"):
        with handle.lock:
            view = stopping_view(handle.session)
        _draw(view, p, handle)


def _draw(view: StoppingView, p: dict, handle: SessionHandle) -> None:
    st.markdown("**How good is the model — can I stop?**")
    with st.container(key="stopping_panel"):
        decision, estimate = view.decision, view.estimate
        if decision is None or estimate is None:
            st.info(f"No accuracy estimate yet: {view.reason}.")
            return
        _headline(estimate, int(p.get("audit_every") or 0), handle)
        if judges_a_stand_in(handle.session.engine):
            st.caption(STAND_IN_NOTE)
        show_advice(decision, p)
        with open_expander_content(CURVES_LABEL, key="stopping_curves") as shown:
            if shown:
                _curves(view)
        with st.expander("Other figures, and how they differ from the headline"):
            _other_figures(estimate)
        with st.expander("Why: the evidence for the stop advice"):
            _evidence(view)
        st.caption(f"As of {counted(view.n_labels, 'label')}.")


#: the expander of the estimate's curves (closed by default: drawn only while open)
CURVES_LABEL = "Curves: the accuracy estimate after each label"


def _curves(view: StoppingView) -> None:
    """The headline estimate, its interval, the LOO and the truth column after each label."""
    if len(view.labels) < 2:  # one point is no curve
        st.caption("The curves start with the first label.")
        return
    fig = accuracy_figure(
        view.labels,
        view.accuracy,
        view.accuracy_low,
        view.accuracy_high,
        loo=view.loo,
        truth=view.truth,
        stop_at=view.decision.fired_at_labels,
    )
    st.plotly_chart(fig, key="stopping_figure", config={"displaylogo": False})


def _headline(estimate, every: int, handle: SessionHandle) -> None:
    """Model accuracy with its interval and the checks it rests on; the calibrated expected
    errors beside it."""
    c1, c2 = st.columns(2)
    h = estimate.headline
    checks = counted(h.n_checks, "random check") if h else ""
    # one figure from as many checks as a multi-label project's headline waits for
    if h is not None and h.n_checks >= MIN_CHECKS:
        c1.metric("Model accuracy", f"≈ {h.estimate:.0%}", help=HEADLINE_HELP)
        c1.caption(f"95% interval {h.low:.0%} – {h.high:.0%}, from {checks}")
    elif h is not None:
        # one check right reads "≈ 100%" with an interval of 3–100%: the interval is the figure
        c1.metric("Model accuracy", f"{h.low:.0%} – {h.high:.0%}", help=HEADLINE_HELP)
        c1.caption(
            f"95% interval, from {checks}: too few for one figure (it shows from {MIN_CHECKS})"
        )
    else:
        c1.metric("Model accuracy", "not known yet", help=HEADLINE_HELP)
    _more_checks(c1, h is None, every, handle)
    if estimate.expected_error_rate is None:
        return
    if estimate.n_labels < RISK_MIN_LABELS:  # not measured that early: no figure to trust
        c2.metric("Expected errors on the unlabeled points", "—", help=RISK_HELP)
        c2.caption(f"Shown from {RISK_MIN_LABELS} labels on: its calibration needs them.")
        return
    c2.metric(
        "Expected errors on the unlabeled points",
        f"≈ {_share(estimate.expected_error_rate)}",
        help=RISK_HELP,
    )


#: under the figures of a strategy whose own model is not the RLS they judge
STAND_IN_NOTE = (
    "These figures judge an RLS fitted on the same labels with this kernel, σ and λ; this "
    "strategy's own model draws the pool plot, and its predictions can differ."
)
#: what the headline is, in the help of its metric
HEADLINE_HELP = (
    "The share of the random checks (labels drawn uniformly at random from the points not "
    "labeled yet) that the model, fitted on all the other labels, predicts right: a fair "
    "test of the model on new points like the pool's. The interval is the exact "
    "(Clopper–Pearson) 95% interval for that many checks; it narrows as checks accumulate. "
    f"With fewer than {MIN_CHECKS} checks the interval alone is shown."
)
#: what the calibrated expected error rate is
RISK_HELP = (
    "The model's own chance of being wrong on each point not labeled yet, averaged: its "
    "confidence calibrated on the leave-one-out predictions of the labels (Platt scaling). "
    "A model-based figure: no interval, and it relies on the calibration. Its benchmark "
    f"measured it from {RISK_MIN_LABELS} labels on (within 2–4 points of the true error rate "
    "in the median): it is shown from then."
)


def _more_checks(column, none_yet: bool, every: int, handle: SessionHandle) -> None:
    """Why there is no headline yet, and the offer of random checks (which narrow it)."""
    if every:
        if none_yet:
            column.caption(f"Random checks: 1 query in {every}; none labeled yet.")
        return
    if none_yet:
        column.caption(
            "No random check among the labels yet: the strategy chose every label, so no "
            f"unbiased test exists. {_own_draws(handle)}"
        )
    offer_random_checks(column, handle)


def _own_draws(handle: SessionHandle) -> str:
    """Whether the strategy itself draws queries at random (focused ARLS's exploration share),
    and what a random check every :data:`AUDIT_EVERY` queries adds."""
    name = strategy_name_text(handle.session.strategy_name)
    share = float(getattr(handle.session.engine, "uniform_share", 0.0))
    if share >= 1:
        return f"{name} draws every query at random: each label is a random check."
    if share > 0:
        return (
            f"{name} draws about 1 query in {round(1 / share)} at random once every class has "
            f"a label; a random check every {AUDIT_EVERY} queries adds more."
        )
    return (
        f"{name} draws no query at random: without random checks the estimate stays unknown. "
        f"A random check every {AUDIT_EVERY} queries gives it its tests."
    )


def offer_random_checks(container, handle: SessionHandle) -> None:
    """The button that turns on a random check every :data:`AUDIT_EVERY` queries (the
    single-label When-to-stop panel and the multi-label figures)."""
    # a project setting: drawn disabled, naming the role, for whom may not change it
    allowed = gate(
        get_store(),
        handle.session.project_name,
        current_annotator(),
        "settings",
        help="Random checks give the headline's estimate and narrow its interval. A project "
        "setting (the sidebar's 'Random check every k queries').",
    )
    container.button(
        f"Random check every {AUDIT_EVERY} queries",
        key="audit_on",
        on_click=switch_audit_on,
        args=(handle,),
        **allowed,
    )


def _other_figures(estimate) -> None:
    """The figures that are not the headline, each with how it differs."""
    if estimate.truth is not None:
        st.write(
            f"**Accuracy against the truth column: {estimate.truth:.1%}** — on the points not "
            "labeled yet, against the project's truth column (a demo or a benchmark: real "
            "projects have none). The remaining points are the easier ones, so this is "
            "usually above the headline."
        )
    if estimate.loo is not None:
        lo, hi = estimate.loo_interval
        st.write(
            f"**Leave-one-out accuracy on all {counted(estimate.n_labels, 'label')}: "
            f"{estimate.loo:.0%}** "
            f"(95% interval {lo:.0%} – {hi:.0%}) — every label, not only the random checks. "
            "The strategy chose hard points, so this is usually well below the model's "
            "accuracy on new points: it is not an estimate of it."
        )
    st.write(
        "The strategy's selection criterion (its estimated risk) is shown beside the learner "
        "settings: it ranks the queries and is not a count of errors."
    )


def switch_audit_on(handle: SessionHandle) -> None:
    """The project's random check every :data:`AUDIT_EVERY` queries, from now on (the offer's
    callback; refused with the reason for a user who may not change the project)."""
    try:
        update_params(audit_every=AUDIT_EVERY)
    except ValueError as exc:  # e.g. not the project's owner
        flash("error", f"Setting not saved: {md_text(exc)}")
        return
    with handle.lock:  # the query panel's next query already (this run is the fragment's)
        handle.session.set_params(audit_every=AUDIT_EVERY)
    # the fragment would rerun with the page's settings of before the click, still offering
    # the checks: the whole page runs, with the new setting (the sidebar's too)
    request_page_run()


def _evidence(view: StoppingView) -> None:
    for line in evidence_lines(view.decision):
        st.write(line)


def _share(rate: float) -> str:
    """A share as a percentage, with a decimal below 10 % (0.3 % is not 0 %)."""
    return f"{rate:.1%}" if rate < 0.1 else f"{rate:.0%}"


def show_advice(decision, p: dict) -> None:
    """A stop decision (single-label or multi-label) as a sentence: green when it says stop,
    with a note when it ends the project's budget "until the stop rule fires" (settings
    ``p``). The messages hold numbers and rule names only, never a user's text."""
    sentence = decision.message[:1].upper() + decision.message[1:] + "."
    if decision.stop:
        st.success(sentence)
        if p.get("until_stop"):
            st.caption("This project's budget is 'until the stop rule fires': it is reached.")
    else:
        st.info(sentence)


#: why labeling ended: the query panel's notice and Auto-label's say it alike
STOP_REACHED = "the stop rule fired, and this project labels until it does"
#: how many times this tab chose to go on: part of what the Label page's views show
#: (``query_panel.view_state``), so its figures (Auto-label's button) follow the panel then
_GO_ON_COUNT = "go_on_gen"


def _go_on_key(project_uid: int | None) -> str:
    return f"go_on_after_stop_{project_uid}"


def go_on_count() -> int:
    """How many times this tab chose to go on after the stop rule fired (any project)."""
    return int(st.session_state.get(_GO_ON_COUNT, 0))


def go_on_after_stop(project_uid: int | None) -> None:
    """Keep labeling in this tab although the stop rule fired ("until the stop rule fires")."""
    st.session_state[_go_on_key(project_uid)] = True
    st.session_state[_GO_ON_COUNT] = go_on_count() + 1


def stopped_here(state: QueryPanelState) -> None:
    """The panel when the project's budget, "until the stop rule fires", is reached in this
    tab (single- and multi-label): done, like a budget, with a way to go on in this tab."""
    st.success(f"Done: {STOP_REACHED}. Go on anyway, or pick a point in the plot.")
    st.button(
        "Keep labeling anyway",
        key="go_on_after_stop",
        on_click=go_on_after_stop,
        args=(state.project_uid,),
        help="More labels in this tab; the stop advice below says what they bring.",
    )


def labels_until_stop(handle: SessionHandle, p: dict) -> bool:
    """Whether the stop rule ends labeling in this tab once it fires: the project's budget is
    "until the stop rule fires" (``until_stop`` of the settings ``p``) and the tab has not
    chosen to go on."""
    return bool(p.get("until_stop")) and not st.session_state.get(
        _go_on_key(handle.session.project.uid)
    )


def stop_ends_labeling(handle: SessionHandle, p: dict) -> bool:
    """Whether the stop rule fired and ends labeling in this tab
    (:func:`labels_until_stop`). Call under the handle's lock."""
    return labels_until_stop(handle, p) and stop_rule_fired(handle.session)


__all__ = [
    "STOP_REACHED",
    "go_on_after_stop",
    "go_on_count",
    "labels_until_stop",
    "offer_random_checks",
    "show_advice",
    "stop_ends_labeling",
    "stopped_here",
    "stopping_panel",
]
