"""A labeling session's parameters: where they come from, which part of the session holds each,
and what a change costs.

The app opens a session with its project's saved settings (:func:`params_from_settings`). The
session holds ``annotator``, ``stop_window`` and ``stop_tolerance`` itself and its hand-out
(:class:`~rlscore.sessions.team.handout.Handout`) ``audit_every``, ``overlap`` and
``overlap_fraction``: these change without a rebuild (an overlap that changes the final-label rule
refolds the log). Every other parameter is the engine's (``strategy``, ``kernel``, ``sigma``,
``lam``, ``class_weight`` and the strategy's own): a change rebuilds the engine from the event log
(:meth:`~rlscore.sessions.state.replay.Replay.update`). The budget is the callers' default, not a
parameter to change: each caller passes its own.

:class:`~rlscore.sessions.actions.session.LabelingSession` opens with :func:`params_from_settings`
(``from_settings``), changes with :func:`change_params` under its lock (``set_params``) and tells
them with :func:`current_params` (``get_params``).
"""

from __future__ import annotations

from rlscore.core.kernels.functions import is_graph_kernel
from rlscore.data.projects.project import Project
from rlscore.query import make_strategy, strategy_class
from rlscore.sessions.state.auto_lam import initial_lam, replayed_lam
from rlscore.sessions.state.engine import multi_label_strategy, uses_own_lam_rule
from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.state.settings import low_rank_settings, project_settings
from rlscore.sessions.team.handout import Handout, check_audit_every
from rlscore.sessions.team.overlap import Overlap
from rlscore.sessions.views.export import recorded_settings
from rlscore.sessions.views.session_view import SessionView
from rlscore.storage import LabelStore

#: the parameters the session holds itself (an attribute each)
OWN_PARAMS = ("annotator", "stop_window", "stop_tolerance")


def params_from_settings(store: LabelStore, project: str) -> dict:
    """The session's arguments of ``project``'s saved settings over its defaults
    (:func:`~rlscore.sessions.state.settings.project_settings`): strategy, kernel, σ, λ, class
    weights, low-rank settings, budget, overlap and random checks."""
    s = project_settings(store, project)
    return {
        "strategy": s["strategy"],
        "kernel": s["kernel"],
        "sigma": s["sigma"],
        "lam": "auto" if s["lam_auto"] else s["lam"],
        "class_weight": s["class_weight"],
        "budget": s["budget"] or None,
        "overlap": s["overlap"],
        "overlap_fraction": s["overlap_fraction"],
        "audit_every": s["audit_every"],
        **low_rank_settings(s),
    }


def headline_settings(store: LabelStore, project: Project, log: LabelLog) -> dict:
    """The learner settings the Label page's accuracy headline is fitted with now: those of
    the session the app opens on ``project``'s current settings (:func:`params_from_settings`),
    whatever the labels were given with, for the exports to carry the page's headline.

    A settings change (sidebar, Tune's Apply, ``python -m rlscore settings``) takes effect on
    the page at once, so the settings recorded with the newest label are not the page's until
    the next label: the exports fitted with those disagreed with the page in between.

    Parameters
    ----------
    store : LabelStore
        The label database holding the project and its settings.
    project : Project
        The project, as loaded from ``store``.
    log : LabelLog
        Its label log folded with its final-label rule
        (:func:`~rlscore.sessions.state.settings.final_label_log`).

    Returns
    -------
    dict
        ``strategy``, ``kernel``, ``sigma``, ``lam`` and, where set, ``class_weight``, as a
        label event records them (:func:`~rlscore.sessions.actions.action_events.event_params`):
        ``lam`` is the λ the session holds, an automatic one replayed from the log as the
        session chose it (:func:`~rlscore.sessions.state.auto_lam.replayed_lam`).
    """
    args = params_from_settings(store, project.name)
    lam = initial_lam(args["lam"], project.meta)
    out = {k: args[k] for k in ("strategy", "kernel", "sigma")} | {"lam": lam}
    if args["class_weight"] is not None:
        out["class_weight"] = args["class_weight"]
    if args["lam"] != "auto" or project.multi_label:  # a multi-label session keeps its first λ
        return out
    if uses_own_lam_rule(args["strategy"]) or (project.meta or {}).get("cluster"):
        # the learner chose its λ itself (a KLR's rule, a cluster's engine): no replay makes
        # it here, the newest label records it
        recorded = recorded_settings(log)
        if recorded.get("strategy") == args["strategy"]:
            out["lam"] = recorded["lam"]
        return out
    engine = make_strategy(args["strategy"], **{k: v for k, v in out.items() if k != "strategy"})
    if not is_graph_kernel(args["kernel"]):  # a graph kernel has no headline to fit
        events = store.events(project.name)
        out["lam"] = replayed_lam(engine, lam, project.X, events, project.classes, log.rule)
    return out


def change_params(session: SessionView, handout: Handout, kw: dict) -> None:
    """Give each parameter of ``kw`` to the part of ``session`` that holds it, in place:
    ``session`` itself (:data:`OWN_PARAMS`), its hand-out ``handout``, or its engine, rebuilt
    from the event log if an engine parameter changed.

    Raises
    ------
    ValueError
        ``kw`` names the budget (a caller's, not the session's), or a value is invalid. The
        parts change in that order, each value checked before its part changes: an invalid
        strategy name leaves the engine as it was.
    """
    if "budget" in kw:
        raise ValueError(
            "the budget is per caller, not session state: pass it to query(budget=…), "
            "done(budget=…), budget_left(budget) or auto_label(…, budget=…)"
        )
    kw = dict(kw)
    for key in OWN_PARAMS:
        if key in kw:
            setattr(session, key, type(getattr(session, key))(kw.pop(key)))
    if "audit_every" in kw:
        handout.audit_every = check_audit_every(kw.pop("audit_every"))
    if "overlap" in kw or "overlap_fraction" in kw:
        k = kw.pop("overlap", handout.overlap.k)
        fraction = kw.pop("overlap_fraction", handout.overlap.fraction)
        handout.set_overlap(Overlap(k, fraction))
    if isinstance(kw.get("strategy"), str):  # unknown name: error before touching state
        check_name = multi_label_strategy if session.project.multi_label else strategy_class
        check_name(kw["strategy"])
    changed = {k: v for k, v in kw.items() if session.params.get(k, None) != v}
    if changed:  # else nothing to rebuild
        session._replay.update(changed)


def current_params(session: SessionView, handout: Handout, annotator: str) -> dict:
    """Every parameter of ``session`` (its engine's, ``annotator``, its default budget, its
    stopping window and tolerance, and its hand-out ``handout``'s overlap and random checks)."""
    return {
        **session.params,
        "annotator": annotator,
        "budget": session.budget,
        "stop_window": session.stop_window,
        "stop_tolerance": session.stop_tolerance,
        "overlap": handout.overlap.k,
        "overlap_fraction": handout.overlap.fraction,
        "audit_every": handout.audit_every,
    }


__all__ = [
    "OWN_PARAMS",
    "change_params",
    "current_params",
    "headline_settings",
    "params_from_settings",
]
