"""The Label page's positives-only start: propose reliable negatives, show them, confirm them.

The engine is :mod:`rlscore.sessions.actions.cold_start` (Graph-OCL, Sheng §3.5). A proposal is kept
in the tab with the log version it was computed at; every proposed point is drawn with a
checkbox, and only the points still checked when the annotator presses the button are labeled,
in the annotator's name and bound to that version (a point a teammate labeled since is
refused, and said so).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from rlscore.core.conventions.counted_words import counted
from rlscore.sessions.actions.cold_start import confirm_negatives, propose_negatives
from rlscore.ui.label.point_view import brief_text, show_point
from rlscore.ui.shell.errors import user_message
from rlscore.ui.shell.flash import flash
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.store import SessionHandle

_PROPOSAL = "negatives_proposal"
#: proposed points per row
PER_ROW = 4
#: labeled positives listed (by point number) above the proposal
SHOWN_POSITIVES = 8
#: labeled points of the one class a proposal needs (one is hidden as a spy, one kept)
MIN_LABELED = 2


def _checkbox_key(seen: int, point: int) -> str:
    return f"negative_{seen}_{point}"


def _propose(handle: SessionHandle, positives: dict, seen: int) -> None:
    """Callback: compute Graph-OCL's proposal on the labels shown at version ``seen``."""
    project = handle.session.project
    try:
        proposal = propose_negatives(project, positives)
    except Exception as exc:  # shown, never raised into the page
        flash("warning", f"No proposal: {user_message(exc)}")
        return
    st.session_state[_PROPOSAL] = (project.name, seen, proposal)


def _dismiss() -> None:
    st.session_state.pop(_PROPOSAL, None)


def _confirm(handle: SessionHandle, annotator: str, text: Callable[[object], str]) -> None:
    """Callback: label the proposed points still checked as the negative class."""
    _, seen, proposal = st.session_state.pop(_PROPOSAL)
    kept = [i for i in proposal.points if st.session_state.get(_checkbox_key(seen, i), True)]
    if not kept:
        flash("info", "No point was checked: nothing labeled.")
        return
    with handle.lock:
        try:
            written, refused = confirm_negatives(
                handle.session, kept, proposal.negative, annotator, seen=seen
            )
        except Exception as exc:
            flash("warning", f"Not saved: {user_message(exc)}")
            return
    message = f"Labeled {counted(len(written), 'point')} **{md_text(text(proposal.negative))}**."
    if refused:
        shown = ", ".join(f"#{i}" for i in refused)
        message += f" Not {shown}: changed by someone else since the proposal was shown."
    flash("success" if written else "warning", message)


def _show_positives(project, labels: dict, named: str) -> None:
    """The points labeled so far (all of one class, ``named`` as the project names it), each
    as its item (a text's snippet, an image's name; the id for a project of features only),
    drawn as plain text."""
    if not labels:
        return
    points = sorted(labels)[:SHOWN_POSITIVES]
    more = len(labels) - len(points)
    st.caption(
        f"{counted(len(labels), 'point')} labeled {named} so far"
        + (f" ({len(points)} shown)" if more else "")
        + ":"
    )
    st.text("\n".join(f"#{i} · {brief_text(project, i)}" for i in points))


def cold_start_panel(
    handle: SessionHandle,
    annotator: str,
    positive,
    labels: dict,
    seen: int,
    text: Callable[[object], str],
) -> None:
    """The panel shown while a two-class project's labels are all of class ``positive``.

    Parameters
    ----------
    handle, annotator
        The session and who is labeling.
    positive
        The one class labeled so far (:func:`rlscore.sessions.actions.cold_start.cold_start_class`).
    labels
        The final labels shown at log version ``seen``.
    text
        A class as the project names it.
    """
    project = handle.session.project
    negative = next(c for c in project.classes if c != positive)
    kept = st.session_state.get(_PROPOSAL)
    if kept is not None and kept[0] != project.name:
        kept = None
    pos, neg = md_text(text(positive)), md_text(text(negative))
    with st.container(border=True):
        # the labeled class is named, never called "positive": it may be the class the
        # project lists second (issue 34: "-1" labeled first read as "positives")
        # the classes quoted: a class named "1" read as a count ("Only 1 labeled so far.
        # From your 1 points")
        st.markdown(
            f"**Only class “{pos}” labeled so far.** From your points of class “{pos}”, "
            "Graph-OCL (Sheng §3.5) can propose points that are almost surely of class "
            f"**“{neg}”**: some of them hide as spies among the unlabeled points, the pool's "
            "neighbour graph ranks every point, and those ranked below all spies are proposed "
            f"(at most as many as your points of class “{pos}”). You confirm each one. Or "
            f"label a point of class “{neg}”: the strategy then proposes as usual."
        )
        _show_positives(project, labels, pos)
        if kept is None:
            enough = len(labels) >= MIN_LABELED
            needs = (
                f"It needs at least {MIN_LABELED} points labeled {pos}: label "
                f"{counted(MIN_LABELED - len(labels), 'more point')} here or click "
                f"{'it' if MIN_LABELED - len(labels) == 1 else 'them'} in the plot."
            )
            st.button(
                f"Propose reliable {neg} points",
                key=f"propose_{seen}",
                on_click=_propose,
                args=(handle, dict(labels), seen),
                disabled=not enough,
                help=None if enough else needs,
            )
            if not enough:
                st.caption(needs)
            return
        _, at, proposal = kept
        st.caption(md_text(proposal.describe()) + " Uncheck any that are not negatives.")
        for row in range(0, len(proposal.points), PER_ROW):
            cols = st.columns(PER_ROW)
            for col, i in zip(cols, proposal.points[row : row + PER_ROW], strict=False):
                with col:
                    st.checkbox(
                        f"#{i} · id {md_text(project.ids[i])}",
                        value=True,
                        key=_checkbox_key(at, i),
                    )
                    show_point(project, i)
        c1, c2 = st.columns(2)
        c1.button(
            f"Label the checked points {md_text(text(negative))}",
            key=f"confirm_{at}",
            type="primary",
            on_click=_confirm,
            args=(handle, annotator, text),
            width="stretch",
        )
        c2.button("Dismiss", key=f"dismiss_{at}", on_click=_dismiss, width="stretch")


__all__ = ["cold_start_panel"]
