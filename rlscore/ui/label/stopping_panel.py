"""The Label page's "when to stop" panel: the accuracy estimate with its interval over the
labels, the strategy's risk beside it, and "you can stop" or "keep going", with the evidence
in an expander (issue 24; the state is :mod:`rlscore.sessions.stopping.stopping_view`'s).

The panel is drawn in the Label page's figures fragment, so it follows each label one step
behind the query panel, like the figures (:mod:`rlscore.ui.label.refresh`), and says at how many
labels it was computed.
"""

from __future__ import annotations

import streamlit as st

from rlscore.sessions.stopping.accuracy_estimate import (
    AUDIT_EVERY,
)
from rlscore.sessions.stopping.stop_rule import (
    MIN_STOP_LABELS,
    STOP_RULE_PARAMS,
)
from rlscore.sessions.stopping.stopping_view import StoppingView, stopping_view
from rlscore.ui.shell.errors import report_errors
from rlscore.ui.shell.flash import flash
from rlscore.ui.shell.params import update_params
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.store import SessionHandle
from rlscore.ui.shell.strategy_names import risk_wording
from rlscore.viz.figures.stopping_figure import accuracy_figure

#: what each rule checks, in words (docs/mathematics.md §"Knowing when to stop")
RULE_WORDS = {
    "stabilizing": (
        "Stabilizing predictions (Bloodgood & Vijay-Shanker 2009): the model's predictions on "
        "a fixed sample of the pool agree with those of the model {lag} labels earlier with "
        "Cohen's κ averaging at least {threshold} over the last {window} comparisons."
    ),
    "confidence-drop": (
        "Confidence drop (Vlachos 2008): the model's mean confidence on a fixed sample of the "
        "pool fell at each of the last {patience} checks, {lag} labels apart."
    ),
    "risk-plateau": (
        "Risk plateau: the strategy's estimated risk moved by at most {epsilon:.0%} of its "
        "value over the last {window} labels."
    ),
    "loo-plateau": (
        "Leave-one-out plateau: the leave-one-out error moved by at most {epsilon:.0%} over "
        "the last {window} labels."
    ),
}


def stopping_panel(handle: SessionHandle, p: dict) -> None:
    """Draw the panel for the tab's session ``handle`` and settings ``p``."""
    with report_errors("Estimating the accuracy"):
        with handle.lock:
            view = stopping_view(handle.session)
        _draw(view, p, handle)


def _draw(view: StoppingView, p: dict, handle: SessionHandle) -> None:
    st.markdown("**When to stop**")
    with st.container(key="stopping_panel"):
        decision, estimate = view.decision, view.estimate
        if decision is None or estimate is None:
            st.info(f"No accuracy estimate yet: {view.reason}.")
            return
        if decision.stop:
            st.success(_sentence(decision.message))
            if p.get("until_stop"):
                st.caption("This project's budget is 'until the stop rule fires': it is reached.")
        else:
            st.info(_sentence(decision.message))
        c1, c2, c3 = st.columns(3)
        if estimate.loo is not None:
            lo, hi = estimate.loo_interval
            c1.metric(
                "Accuracy estimate (leave-one-out)",
                f"{estimate.loo:.0%}",
                help=(
                    "Each labeled point predicted by the model fitted on the other labels. "
                    "The labels were chosen by the strategy, not at random, so this is "
                    "biased (usually pessimistic: the strategy asks about hard points)."
                ),
            )
            c1.caption(f"95% interval {lo:.0%} – {hi:.0%} over {estimate.n_labels} labels")
        else:
            c1.metric("Accuracy estimate (leave-one-out)", "–")
            c1.caption(view.reason or "")
        if estimate.truth is not None:
            c2.metric(
                "Agreement with the truth column",
                f"{estimate.truth:.0%}",
                help="The predictions on the points not labeled yet, against the project's "
                "truth column.",
            )
        _audit(c3, estimate, int(p.get("audit_every") or 0), handle)
        if len(view.labels) > 1:
            risk_name, _help = risk_wording(p["strategy"])
            fig = accuracy_figure(
                view.labels,
                view.loo,
                view.loo_low,
                view.loo_high,
                truth=view.truth,
                risk=view.risk,
                risk_name=risk_name,
                stop_at=decision.fired_at_labels,
            )
            st.plotly_chart(fig, key="stopping_figure", config={"displaylogo": False})
        else:  # one point is no curve (and a chart costs the browser a third of a second)
            st.caption("The curves start with the first label.")
        with st.expander("Why: the evidence"):
            _evidence(view)
        st.caption(f"As of {view.n_labels} labels.")


def _audit(column, estimate, every: int, handle: SessionHandle) -> None:
    """The random checks' accuracy with its interval, or the offer to switch them on."""
    if estimate.audit is not None:
        a_lo, a_hi = estimate.audit_interval
        column.metric(
            "Random-check accuracy",
            f"{estimate.audit:.0%}",
            help="The model's guess on each random check, made before its label: unbiased "
            "for the pool, but wide with few checks, and it lags a model that improves.",
        )
        column.caption(
            f"95% interval {a_lo:.0%} – {a_hi:.0%} over {estimate.audit_n} random checks"
        )
    elif every:
        column.caption(f"Random checks: 1 query in {every}; none labeled yet.")
    else:
        column.caption(
            "No random checks: the estimate above is the only one, and it is biased. A random "
            f"check every {AUDIT_EVERY} queries gives an unbiased one."
        )
        column.button(
            f"Random check every {AUDIT_EVERY} queries",
            key="audit_on",
            on_click=_switch_audit_on,
            args=(handle,),
            help="A project setting (the sidebar's 'Random check every k queries').",
        )


def _switch_audit_on(handle: SessionHandle) -> None:
    try:
        update_params(audit_every=AUDIT_EVERY)
    except ValueError as exc:  # e.g. not the project's owner
        flash("error", f"Setting not saved: {md_text(exc)}")
        return
    with handle.lock:  # the query panel's next query already (this run is the fragment's)
        handle.session.set_params(audit_every=AUDIT_EVERY)


def _evidence(view: StoppingView) -> None:
    decision, estimate = view.decision, view.estimate
    params = STOP_RULE_PARAMS[decision.rule]
    st.write(RULE_WORDS[decision.rule].format(**params))
    st.write(f"No rule fires before {MIN_STOP_LABELS} labels, nor before every class has a label.")
    #: what the rule's recorded curve is, in words
    what = {
        "stabilizing": "κ between models {lag} labels apart",
        "confidence-drop": "mean confidence on the stop sample, every {lag} labels",
    }
    recent = decision.evidence["recent"]
    if decision.rule in what and recent:
        lag = params["lag"]
        count = params.get("window", params.get("patience", 3) + 1)
        picked = recent[::-1][::lag][:count]
        last = ", ".join("–" if v is None else f"{v:.4f}" for v in picked)
        st.write(f"Latest {what[decision.rule].format(lag=lag)} (newest first): {last}.")
    if decision.more_labels:
        st.write(
            f"At least {decision.more_labels} more labels before the rule can fire, if the "
            "predictions stay as stable as they are now."
        )
    st.write(
        "The accuracy estimate is the exact leave-one-out accuracy of the regularized "
        "least-squares model on the labels, with a 95% Wilson interval. It is biased: the "
        "labels were chosen by the strategy, not drawn at random (docs/mathematics.md)."
    )
    if estimate.audit is None:
        st.write("No random check labeled yet: the unbiased estimate is not shown.")


def _sentence(message: str) -> str:
    return message[:1].upper() + message[1:] + "."


__all__ = ["stopping_panel"]
