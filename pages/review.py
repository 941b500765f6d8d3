"""Review page: the team's agreement, the points annotators disagree on, the labels that are
probably wrong, a reviewer's decisions.

Layout and wiring only: the log fold is :mod:`rlscore.sessions.state.label_log`, the agreement
measures :mod:`rlscore.sessions.team.agreement_report` (as shown:
:mod:`rlscore.sessions.team.agreement_tables`), the suspects
:mod:`rlscore.sessions.views.label_issues`, decisions
:mod:`rlscore.sessions.actions.review`, the callbacks :mod:`rlscore.ui.forms.review`. No query
engine is started: the page reads the log (and fits the label checker on the labels). The
agreement and decisions are a reviewer's (or owner's), the overlap setting an owner's, once the
project has members: their buttons are disabled with the role needed, and the engine checks
again (:mod:`rlscore.sessions.team.permissions`).
"""

from __future__ import annotations

import streamlit as st

from rlscore.sessions.actions.review import audit_trail_as, review_queue_as
from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.team import agreement_tables
from rlscore.sessions.team.agreement_report import agreement_as
from rlscore.sessions.team.overlap import MAX_OVERLAP, Overlap
from rlscore.sessions.views.label_issues import probably_wrong_queue, queue_summary
from rlscore.ui.forms import review
from rlscore.ui.label.suspects_note import mark_suspects_seen
from rlscore.ui.label.teammates import follow_teammates, mark_shown_version
from rlscore.ui.shell.errors import report_errors
from rlscore.ui.shell.flash import show_flash
from rlscore.ui.shell.navigation import end_page, enter_through_app
from rlscore.ui.shell.params import params
from rlscore.ui.shell.roles import can, gate, needs
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.sidebar import annotator_input, project_selector
from rlscore.ui.shell.store import get_store

enter_through_app(__file__)

#: disagreements shown at once (the oldest first)
SHOWN_POINTS = 10

project_selector()
reviewer = annotator_input()
p = params()
show_flash()
store = get_store()
name = p["project"]
project = events = None
with report_errors(f"Opening project {md_text(name)}"):
    project = store.load_project(name)
    events = store.events(name)
if project is None:
    end_page()
overlap = Overlap(p["overlap"], p["overlap_fraction"])
log = LabelLog(events, rule=overlap.rule)
seen = log.last_id
mark_shown_version(name, seen)
# a class, or a multi-label project's set as "a | b" text
class_text = project.label_text

st.subheader(f"Review · {md_text(name)}")
st.caption(md_text(overlap.describe()))

with st.expander("Annotators per point", expanded=False):
    c1, c2, c3 = st.columns([1, 2, 1], vertical_alignment="bottom")
    k = c1.number_input("Annotators per point", 1, MAX_OVERLAP, overlap.k, key="overlap_k")
    fraction = c2.slider(
        "Share of points", 0.05, 1.0, float(overlap.fraction), 0.05, key="overlap_fraction",
        help="A fixed pseudo-random sample of the pool gets this many annotators.",
    )  # fmt: skip
    c3.button(
        "Apply", on_click=review.apply_overlap, args=("overlap_k", "overlap_fraction"),
        key="apply_overlap", **gate(store, name, reviewer, "settings"),
    )  # fmt: skip

if can(store, name, reviewer, "agreement"):
    with report_errors("Computing the agreement"):
        report = agreement_as(store, name, reviewer, log=log)
        m1, m2, m3 = st.columns(3)
        m1.metric("Points with ≥ 2 labels", report.n_points_overlap)
        if report.multi_label:  # the set measures: {a, b} against {a} agrees in part
            m2.metric(
                "Krippendorff's α (MASI)",
                agreement_tables.measure_text(report.krippendorff_alpha),
                help="Krippendorff's α of the label sets with the MASI distance: two sets "
                "that share classes disagree in part, not fully.",
            )
            m3.metric(
                "Same set",
                agreement_tables.share_text(report.same_set),
                help="Share of these points on which every annotator gave the same set.",
            )
        else:
            m2.metric("Fleiss' κ", agreement_tables.measure_text(report.fleiss_kappa))
            m3.metric("Krippendorff's α", agreement_tables.measure_text(report.krippendorff_alpha))
        if report.reason:
            st.caption(md_text(report.reason))
        if report.pairwise:
            st.markdown(
                "**Cohen's κ per class, per pair of annotators** (does the set hold the class?)"
                if report.multi_label
                else "**Cohen's κ per pair of annotators**"
            )
            st.dataframe(agreement_tables.pair_table(report), hide_index=True)
            if note := agreement_tables.pair_table_note(report):
                st.caption(md_text(note))
        if report.per_annotator:
            st.markdown("**Per annotator**")
            st.dataframe(
                agreement_tables.annotator_table(report),
                hide_index=True,
                column_config=review.ANNOTATOR_COLUMNS,
            )
            if note := agreement_tables.annotator_table_note(report):
                st.caption(md_text(note))  # it names annotators
else:
    st.info(f"The team's agreement: {needs('agreement')}")

may_see_labels = can(store, name, reviewer, "see_labels")
queue = review_queue_as(store, name, reviewer, log) if may_see_labels else []
st.markdown(f"### Disagreements ({len(queue)})" if may_see_labels else "### Disagreements")
if not may_see_labels:
    st.info(f"The points annotators disagree on, with their labels: {needs('see_labels')}")
elif not queue:
    st.caption("No point waits for a decision.")
if queue and not reviewer:
    st.info("Enter your name in the sidebar to decide: each decision is recorded with it.")
decide_gate = gate(store, name, reviewer, "review")
for point in queue[:SHOWN_POINTS]:
    with review.point_card(project, point):
        st.dataframe(review.ratings_table(log, point, class_text), hide_index=True)
        options = review.decision_options(project, log, point)
        cols = st.columns(len(options))
        for col, c in zip(cols, options, strict=True):
            col.button(
                md_text(class_text(c)),
                key=f"decide_{point}_{c}_{seen}",
                on_click=review.decide,
                args=(name, point, c, reviewer, seen, class_text(c)),
                disabled=not reviewer or decide_gate["disabled"],
                width="stretch",
                help=decide_gate["help"]
                or f"Final label of point #{point}: {md_text(class_text(c))}",
            )

st.markdown("### Probably wrong")
if project.multi_label:
    st.info("The labels that are probably wrong: not available for multi-label projects yet.")
elif may_see_labels:
    with report_errors("Checking the labels"):
        suspects = probably_wrong_queue(project, events, p, rule=overlap.rule)
        st.caption(md_text(queue_summary(suspects)))  # a reason may name the project
        if suspects.annotators is not None:
            st.markdown("**Each annotator's estimated error rate** (against the consensus)")
            st.dataframe(review.annotator_rates(suspects.annotators), hide_index=True)
        table = suspects.suspects
        for row in [] if table is None else table.head(SHOWN_POINTS).to_dict("records"):
            point, label, suggested = int(row["index"]), row["label"], row["suggested"]
            with review.point_card(project, point):
                st.dataframe(review.suspect_table(row, class_text), hide_index=True)
                if len(log.annotations.get(point, {})) > 1:  # the labels the consensus weighed
                    st.dataframe(review.ratings_table(log, point, class_text), hide_index=True)
                keep, relabel = st.columns(2)
                for col, verb, c in ((keep, "Keep", label), (relabel, "Relabel as", suggested)):
                    col.button(
                        f"{verb} {md_text(class_text(c))}",
                        key=f"suspect_{point}_{c}_{seen}",
                        on_click=review.decide,
                        args=(name, point, c, reviewer, seen, class_text(c)),
                        disabled=not reviewer or decide_gate["disabled"],
                        width="stretch",
                    )
        mark_suspects_seen(project, reviewer, suspects)
else:
    st.info(f"The labels that are probably wrong: {needs('see_labels')}")

st.markdown("### Decisions (audit trail)")
trail = audit_trail_as(store, name, reviewer, events) if may_see_labels else []
if not may_see_labels:
    st.info(f"Who decided what: {needs('see_labels')}")
elif trail:
    st.dataframe(
        review.audit_table(trail, class_text, project),
        hide_index=True,
        column_config=review.AUDIT_COLUMNS,
    )
else:
    st.caption("No decision yet.")
mine = log.last_active(reviewer) if reviewer else None
st.button(
    "Undo my last action",
    key=f"undo_review_{seen}",
    on_click=review.undo_mine,
    args=(name, reviewer, mine.id if mine else -1),
    disabled=mine is None or not can(store, name, reviewer, "undo_own"),
    help="Reverts your own last decision, label or skip.",
)
follow_teammates(reviewer)
