"""The sidebar: the project choice, the annotator and the project's learner settings.

Each widget is re-seeded from :func:`~rlscore.ui.shell.params.params` on every run and writes back
only when the user changes it (``on_change``): the learner settings to the label database
(every annotator of the project sees them), the project and the annotator to this tab and its
address bar. A slider on a log scale would otherwise round exact values such as σ = 1.7.
"""

from __future__ import annotations

import streamlit as st

from rlscore.core.kernels.functions import (
    GRAPH_KERNELS,
    LAPLACIAN_DEFAULT_T,
    VECTOR_KERNELS,
    VON_NEUMANN_FRACTION,
    is_graph_kernel,
)
from rlscore.core.kernels.landmarks import LANDMARK_RULES
from rlscore.data.samples.bundled import list_samples
from rlscore.query import MULTILABEL_STRATEGIES
from rlscore.sessions.state.settings import LAM_LOG_RANGE, MAX_LANDMARKS, SIGMA_LOG_RANGE
from rlscore.sessions.views.project_overview import project_label
from rlscore.ui.label import actions
from rlscore.ui.shell.auth import sign_in_configured
from rlscore.ui.shell.errors import flash_errors
from rlscore.ui.shell.flash import flash
from rlscore.ui.shell.params import (
    clean_annotator,
    current_annotator,
    current_project,
    log_position,
    params,
    set_annotator,
    sync_address_bar,
    update_params,
)
from rlscore.ui.shell.roles import can, needs, reads_checked, visible_projects
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.store import get_store
from rlscore.ui.shell.strategy_names import STRATEGY_HELP, strategy_labels, strategy_parameters

KERNELS = VECTOR_KERNELS + GRAPH_KERNELS


def kernels_for(strategy: str) -> tuple[str, ...]:
    """The kernels the sidebar offers with ``strategy``: all of :data:`KERNELS`, but only the
    vector kernels for a low-rank strategy (one taking ``n_landmarks``: a graph kernel is an
    n × n inverse, not a low-rank map)."""
    return VECTOR_KERNELS if "n_landmarks" in strategy_parameters(strategy) else KERNELS


def _identity(value):
    return value


#: the class-weight radio's choice for weights per class (set from Python or the command line)
CUSTOM_WEIGHTS = "custom"


def _weight(choice: str):
    """The class-weight setting of a radio choice; "custom" keeps the mapping in force."""
    if choice == CUSTOM_WEIGHTS:
        return params()["class_weight"]
    return None if choice == "none" else choice


#: setting -> (settings value -> widget value, widget value -> settings value)
_CONVERT = {
    "sigma": (lambda v: log_position(v, SIGMA_LOG_RANGE), lambda x: float(10**x)),
    "lam": (lambda v: log_position(v, LAM_LOG_RANGE), lambda x: float(10**x)),
    "graph_t": (float, float),
    "class_weight": (lambda v: CUSTOM_WEIGHTS if isinstance(v, dict) else v or "none", _weight),
    "budget": (_identity, int),
    "audit_every": (_identity, int),
    "n_landmarks": (_identity, int),
    "candidates": (_identity, int),
    "risk_sample": (_identity, int),
    "refine": (_identity, int),
}


def graph_t_text(kernel: str, t: float) -> str:
    """What the graph-kernel scale setting ``t`` (0: the kernel's default) means for
    ``kernel``, in words for the sidebar (docs/mathematics.md §2)."""
    if kernel == "von_neumann":
        bound = "the von Neumann kernel (I − tB)⁻¹ needs t < 1/ρ(B), ρ(B) ≥ k on a kNN graph"
        if t:
            return f"t = {t:g}; {bound}"
        return f"t = default, {VON_NEUMANN_FRACTION:g}/ρ(B) of this pool's graph; {bound}"
    return f"t = {t:g}" if t else f"t = default ({LAPLACIAN_DEFAULT_T:g})"


def _bind(p: dict, name: str, locked: bool, disabled: bool = False) -> dict:
    """Widget keyword arguments tying a sidebar widget to the setting ``name``; ``locked``: the
    user may not change the project's settings (the widget only shows them)."""
    key = f"w_{name}"
    to_widget = _CONVERT.get(name, (_identity, _identity))[0]
    st.session_state[key] = to_widget(p[name])
    return {"key": key, "on_change": _changed, "args": (name,), "disabled": locked or disabled}


def _changed(name: str) -> None:
    from_widget = _CONVERT.get(name, (_identity, _identity))[1]
    # anything else (an unreachable label database) is flashed too, never raised into the page
    with flash_errors("Setting not saved"):
        try:
            update_params(**{name: from_widget(st.session_state[f"w_{name}"])})
        except ValueError as exc:
            flash("error", f"Setting not saved: {md_text(exc)}")


def _project_changed() -> None:
    actions.continue_with(st.session_state["w_project"])


def _annotator_changed() -> None:
    name = clean_annotator(st.session_state["w_annotator"])
    if name:
        set_annotator(name)


def announce_project_choice(project: str) -> None:
    """Flash why the tab shows ``project`` when it is not the one the tab or its address
    asked for (:func:`~rlscore.ui.shell.params.current_project` notes the reason): every page
    that reads the tab's project says it on that page, not on the next one."""
    gone = st.session_state.pop("project_gone", None)
    if gone is not None:
        why = "was deleted or is no longer open to you" if reads_checked() else "was deleted"
        flash("warning", f"Project {md_text(gone)} {why}; showing {md_text(project)}.")
    several = st.session_state.pop("project_several", None)
    if several is not None:
        named = ", ".join(md_text(p) for p in several)
        flash("info", f"The address names several projects ({named}); showing {md_text(project)}.")
    refused = st.session_state.pop("project_refused", None)
    if refused is not None and not refused.strip():  # ?project= with nothing after it
        flash("info", f"There is no project name in the address; showing {md_text(project)}.")
    elif refused is not None:
        why = " (it does not exist, or it has members and you are not one of them)"
        flash(
            "info",
            f"There is no project {md_text(refused)} that you can open"
            f"{why if reads_checked() else ''}; showing {md_text(project)}.",
        )


def project_selector() -> str:
    """Sidebar project choice (this tab's; the address bar follows it).

    Returns
    -------
    str
        The current project.
    """
    project = current_project()
    announce_project_choice(project)
    sync_address_bar()
    samples = set(list_samples())
    # one read of every project's size and meta, for the options and their labels: only the
    # projects this user may read are listed
    store = get_store()
    visible = set(visible_projects(store))
    summaries = {s["name"]: s for s in store.project_summaries() if s["name"] in visible}
    st.session_state["w_project"] = project
    st.sidebar.selectbox(
        "Project",
        list(summaries),
        key="w_project",
        on_change=_project_changed,
        # option labels are plain text (no Markdown), so names are shown as typed
        format_func=lambda name: project_label(
            name, summaries[name]["n"], summaries[name]["meta"], samples
        ),
        help="Bundled samples, the projects uploaded on the Data page and those whose pool "
        "lives on a cluster.",
    )
    return project


def annotator_input() -> str | None:
    """The annotator: with sign-in, the signed-in user's identity (shown by ``app.py``'s
    :func:`~rlscore.ui.shell.auth.gate`; no box to type in); in local mode the name typed in the
    sidebar (this tab's, kept in the address bar)."""
    name = current_annotator()
    sync_address_bar()
    if sign_in_configured():
        return name
    st.session_state["w_annotator"] = name or ""
    st.sidebar.text_input(
        "Annotator",
        key="w_annotator",
        on_change=_annotator_changed,
        max_chars=60,
        help="Your name, written with each of your labels; kept in the page's link.",
    )
    return name


def learner_sidebar() -> dict:
    """Sidebar controls for the project's strategy, kernel, σ or the graph kernel's t, λ, class
    weights and budget.

    Changes are saved for the project (every annotator, tab and server sees them).

    Returns
    -------
    dict
        The current settings (:func:`rlscore.ui.shell.params.params`).
    """
    p = params()
    st.sidebar.caption("Learner settings of this project, shared by every annotator.")
    for key, reason in st.session_state.get("ignored_settings", {}).items():
        st.sidebar.warning(
            md_text(f"The saved {key} is not used: {reason}. Its default is in force until "
                    "it is chosen again here.")
        )  # fmt: skip
    locked = settings_locked()
    strategy_and_kernel(p, locked)
    kernel_scale_controls(p, locked)
    regularisation_controls(p, locked)
    low_rank_controls(p, locked)
    budget_controls(p, locked)
    return p


def settings_locked() -> bool:
    """Whether the annotator may not change the project's settings (then the sidebar says who
    may). The controls are shown to everyone, changeable by whoever may; the save is checked
    again below the UI."""
    locked = not can(get_store(), current_project(), current_annotator(), "settings")
    if locked:
        st.sidebar.caption(md_text(needs("settings")))
    return locked


def _multi_label(project: str) -> bool:
    """Whether ``project`` is multi-label (one read of the projects' summaries)."""
    summary = next((s for s in get_store().project_summaries() if s["name"] == project), {})
    return bool(summary.get("multi_label", False))


def strategy_and_kernel(p: dict, locked: bool) -> None:
    """The strategy and the kernels it works with (:func:`kernels_for`); a kernel the strategy
    cannot use stays selectable, with a warning saying why; ``locked``: shown, not
    changeable."""
    sb = st.sidebar
    multi_label = _multi_label(current_project())
    labels = strategy_labels(multi_label)  # "recommended": the default of the project's kind
    names = list(labels)
    if multi_label:
        # the strategies with a multi-label variant (and the one saved, to be shown as it is)
        names = [n for n in names if n in MULTILABEL_STRATEGIES or n == p["strategy"]]
    sb.selectbox(
        "Strategy",
        names,
        format_func=labels.__getitem__,
        help=STRATEGY_HELP.get(p["strategy"]),
        **_bind(p, "strategy", locked),
    )
    offered = kernels_for(p["strategy"])
    if p["kernel"] not in offered:
        # kept selectable (a widget must show its value), and said why it cannot work
        offered = (*offered, p["kernel"])
        sb.warning(
            f"{labels.get(p['strategy'], p['strategy'])} works with a vector kernel "
            f"({', '.join(VECTOR_KERNELS)}) only: choose one."
        )
    sb.selectbox(
        "Kernel",
        list(offered),
        help="Graph kernels (regularized, diffusion, …) are built on a 6-nearest-neighbour "
        "graph of the pool.",
        **_bind(p, "kernel", locked),
    )


def kernel_scale_controls(p: dict, locked: bool) -> None:
    """The kernel's scale: a graph kernel's t (enabled with a graph kernel) and the RBF width σ
    (enabled with the RBF kernel), each with its value in words; ``locked``: shown, not
    changeable."""
    sb = st.sidebar
    graph = is_graph_kernel(p["kernel"])
    sb.number_input(
        "Graph kernel t (0 = default)",
        min_value=0.0,
        step=0.1,
        format="%g",
        help="The graph kernel's scale: (I + tL)⁻¹, (I + tL̃)⁻¹, exp(−(t/2)L̃) take any t > 0 "
        f"(default {LAPLACIAN_DEFAULT_T:g}); the von Neumann kernel (I − tB)⁻¹ only "
        f"0 < t < 1/ρ(B) (default {VON_NEUMANN_FRACTION:g}/ρ(B), ρ(B) the largest eigenvalue "
        "of the pool's graph). KLR strategies with λ auto choose t of the two regularized "
        "kernels themselves.",
        **_bind(p, "graph_t", locked, disabled=not graph),
    )
    if graph:
        sb.caption(graph_t_text(p["kernel"], p["graph_t"]))
    sb.slider(
        "σ (log₁₀)",
        *SIGMA_LOG_RANGE,
        step=0.05,
        help="RBF width: k(x, z) = exp(−‖x − z‖² / (2σ²)).",
        **_bind(p, "sigma", locked, disabled=p["kernel"] != "rbf"),
    )
    sb.caption(f"σ = {p['sigma']:.4g}")


def regularisation_controls(p: dict, locked: bool) -> None:
    """λ, chosen by leave-one-out or set (the slider is disabled while λ is automatic), and the
    class weights; ``locked``: shown, not changeable."""
    sb = st.sidebar
    sb.toggle(
        "λ auto (LOO)",
        help="Choose λ by exact leave-one-out error on the labeled points "
        "(re-chosen at 4, 8, 16, … labels). KLR strategies choose λ, and a graph kernel's t, "
        "by their leave-one-out log-loss instead.",
        **_bind(p, "lam_auto", locked),
    )
    sb.slider(
        "λ (log₁₀)",
        *LAM_LOG_RANGE,
        step=0.05,
        help="Regularisation: RLS solves (K + λ A⁻¹) c = y.",
        **_bind(p, "lam", locked, disabled=p["lam_auto"]),
    )
    sb.caption("λ = auto (LOO)" if p["lam_auto"] else f"λ = {p['lam']:.4g}")
    weights = p["class_weight"]
    custom = isinstance(weights, dict)
    sb.radio(
        "Class weights",
        ["none", "balanced", *([CUSTOM_WEIGHTS] if custom else [])],
        horizontal=True,
        help="Balanced weights equalise the classes (for imbalanced data). Weights per class "
        "are set from Python or the command line (`settings --set class_weight=...`).",
        **_bind(p, "class_weight", locked),
    )
    if custom:
        sb.caption(
            md_text("Weights per class: " + ", ".join(f"{k}: {v:g}" for k, v in weights.items()))
        )


def budget_controls(p: dict, locked: bool) -> None:
    """When labeling ends and how the model's accuracy is checked: the budget, the stop rule and
    the random checks; ``locked``: shown, not changeable."""
    sb = st.sidebar
    sb.number_input(
        "Labeling budget (0 = none)",
        min_value=0,
        step=10,
        help="Labels the project asks for in all (every annotator together).",
        **_bind(p, "budget", locked),
    )
    sb.toggle(
        "Until the stop rule fires",
        help="Labeling ends when the When-to-stop panel says you can stop (the budget above, "
        "if any, still caps it); each tab can go on anyway.",
        **_bind(p, "until_stop", locked),
    )
    sb.number_input(
        "Random check every k queries (0 = none)",
        min_value=0,
        step=1,
        help="Every k-th query is drawn at random from the unlabeled points instead of by the "
        "strategy: the model's guesses on these give an unbiased accuracy estimate (When to "
        "stop), at the price of one query in k. 10 is a good start.",
        **_bind(p, "audit_every", locked),
    )


def low_rank_controls(p: dict, locked: bool) -> None:
    """The low-rank kernel's controls, for the strategies that take them
    (docs/mathematics.md §7); ``locked``: shown, not changeable."""
    sb, taken = st.sidebar, strategy_parameters(p["strategy"])
    if "n_landmarks" in taken:
        sb.number_input(
            "Landmarks m (low-rank kernel)",
            min_value=1,
            max_value=MAX_LANDMARKS,
            step=50,
            help="The kernel is approximated from m landmark points (Nyström): more is "
            "closer to the exact kernel, slower and bigger (n × m features).",
            **_bind(p, "n_landmarks", locked),
        )
        sb.selectbox(
            "Landmark rule",
            list(LANDMARK_RULES),
            help="How the landmarks are chosen: uniformly at random, k-means centres, "
            "pivoted incomplete Cholesky, …",
            **_bind(p, "landmarks", locked),
        )
    if "candidates" in taken:
        sb.number_input(
            "Candidates scored per query (0 = all)",
            min_value=0,
            step=100,
            help="Score only this many candidates: half the most uncertain, half at random.",
            **_bind(p, "candidates", locked),
        )
    if taken & {"risk_sample", "risk_points"}:
        sb.number_input(
            "Risk estimated on (points, 0 = the whole pool)",
            min_value=0,
            step=1000,
            help="Estimate each candidate's risk on this many randomly drawn pool points.",
            **_bind(p, "risk_sample", locked),
        )
    if "refine" in taken:
        sb.number_input(
            "Exact re-score of the best (0 = off)",
            min_value=0,
            step=5,
            help="Score again, on the exact kernel, the candidates the low-rank kernel ranks "
            "best, and ask the best of those: the point exact ARLS would ask (it keeps one "
            "kernel column per label, 8 bytes per pool point).",
            **_bind(p, "refine", locked),
        )
