"""A project's labeling settings, kept in the label database for every annotator and server.

Strategy, kernel, σ, λ (or automatic λ), class weights and the labeling budget are chosen per
project, not per browser tab: the app saves them when they change (sidebar, Tune's "Apply")
and every tab, reload or server reads them back, so a reload shows the same learner and the
same next query. :func:`project_settings` is what the app and the CLI read;
:func:`save_project_settings` validates before writing, so a bad value never reaches the
database, and a saved value that is no longer valid (e.g. a strategy removed in a later
version) falls back to the project's default with the reason in ``"ignored"``.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence

from rlscore.core.conventions.input_validation import check_positive
from rlscore.core.conventions.json_values import class_keys
from rlscore.core.kernels.functions import GRAPH_KERNELS, VECTOR_KERNELS, check_sigma
from rlscore.core.kernels.landmarks import LANDMARK_RULES
from rlscore.core.kernels.rbf_width import DEFAULT_SIGMA, resolve_sigma
from rlscore.query import DEFAULT_MULTILABEL_STRATEGY, STRATEGIES, strategy_class
from rlscore.sessions.state.engine import (
    PoolTooLargeError,
    check_pool_size,
    make_engine,
    multi_label_strategy,
)
from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.team.overlap import Overlap
from rlscore.sessions.team.permissions import require
from rlscore.storage import LabelStore

#: a multi-label project's default random check, every k-th query: its strategies draw no
#: uniform point, so without checks its headline is never known; the checks cost the model's
#: test micro-F1 between −0.7 and +0.9 points per task at 100–300 labels
#: (benchmarks/multilabel_trust.py, docs/benchmarks/multilabel.md, "What the checks cost")
MULTILABEL_AUDIT_EVERY = 10

# : the settings of a project, in the order the app shows them; ``n_landmarks`` … ``refine`` : are
# the low-rank form's (``arls-lowrank``; ``candidates`` and ``risk_sample`` also A-optimal : KLR's):
# 0 means "all" (``refine``: off); ``overlap`` and ``overlap_fraction`` are the : team's
# (:mod:`rlscore.sessions.team.overlap`); ``until_stop``: the budget is "until the stop rule :
# fires" (:mod:`rlscore.sessions.stopping.accuracy_estimate`), with ``budget`` as a cap; :
# ``audit_every``: every k-th query is a random check (0: none;
# :mod:`rlscore.sessions.team.handout`)
SETTING_KEYS = (
    "strategy",
    "kernel",
    "sigma",
    "graph_t",
    "lam",
    "lam_auto",
    "class_weight",
    "budget",
    "until_stop",
    "audit_every",
    "n_landmarks",
    "landmarks",
    "candidates",
    "risk_sample",
    "refine",
    "overlap",
    "overlap_fraction",
)
#: the λ range the app offers (log₁₀ ends): its λ sliders span it, and the automatic λ of a
#: session and of the Tune page is chosen within it (docs/mathematics.md §3, "The λ grid
#: within bounds")
LAM_LOG_RANGE = (-4.0, 3.0)
#: the σ range of the app's σ sliders (log₁₀ ends)
SIGMA_LOG_RANGE = (-2.0, 2.0)
#: tried in this order for a project's default strategy: the first whose memory fits the pool
#: (focused ARLS had the best mean AULC rank of benchmarks/strategies.py; see the README)
DEFAULT_STRATEGIES = ("arls-focused", "arls-lowrank", "uncertainty", "random")
#: pools above this many points default to the low-rank form of ARLS. Below, focused ARLS runs
#: on the exact kernel with no n × n state, but its query costs O(n·l) per candidate and it
#: keeps the kernel column of every labeled point (8·n bytes per label): at this size, after
#: 1000 labels, 0.7 s per query and 0.4 GB, the low-rank form's 0.5 s and 0.3 GB
#: (benchmarks/focused_large.py)
LOW_RANK_MIN_POOL = 50_000
#: the low-rank form's defaults on a pool above :data:`LOW_RANK_MIN_POOL`: m landmarks, and
#: the candidates scored and the points the risk is estimated on per query
#: (``benchmarks/large_pools.py``: about a second per query at n = 100 000)
LOW_RANK_DEFAULTS = {"n_landmarks": 500, "landmarks": "uniform", "candidates": 500,
                     "risk_sample": 20_000, "refine": 10}  # fmt: skip
#: pools up to this size re-score the low-rank form's 10 best candidates on the exact kernel
#: (``refine``: the pick of exact ARLS on 100 of 100 steps at n = 5000, m = 500, against 64–78
#: without; benchmarks/large_pools.py). It keeps a kernel column per label, 8·n bytes: above
#: this size (1.6 MB per label) it is off by default, the sidebar switches it on
REFINE_MAX_POOL = 200_000
#: the largest m the settings accept (the r × r state and the n × m features grow with it)
MAX_LANDMARKS = 5000
#: the default widths already computed, per project (name, creation time, shape): a page
#: run reads the settings every time, the width needs the features
_POOL_SIGMAS: OrderedDict[tuple, float] = OrderedDict()
_POOL_SIGMAS_MAX = 64


def default_settings(
    n: int, meta: dict | None, sigma: float | None = None, *, multi_label: bool = False
) -> dict:
    """The settings of a project nobody has changed: its recommended σ and λ (meta), an RBF
    kernel, focused ARLS — ARLS on a low-rank kernel with candidate and risk subsampling above
    :data:`LOW_RANK_MIN_POOL` points — or, for a pool neither fits, uncertainty sampling.

    Parameters
    ----------
    n : int
        Pool size.
    meta : dict or None
        The project's meta (recommended ``sigma``, ``lam``, ``class_weight``).
    sigma : float or None
        The width when the meta recommends none: :func:`project_settings` passes the median
        distance between the pool's points (:mod:`rlscore.core.kernels.rbf_width`); None: 1.
    multi_label : bool
        A multi-label project: its strategy is :data:`rlscore.query.DEFAULT_MULTILABEL_STRATEGY`
        (multi-label ARLS, docs/benchmarks/multilabel.md) and a random check comes every
        :data:`MULTILABEL_AUDIT_EVERY` queries.

    Returns
    -------
    dict
        Keys :data:`SETTING_KEYS`; ``budget`` 0 means none.
    """
    meta = meta or {}
    settings = {
        "strategy": DEFAULT_STRATEGIES[0],
        "kernel": "rbf",
        "sigma": float(meta.get("sigma") or sigma or 1.0),
        "graph_t": 0.0,
        "lam": float(meta.get("lam") or 0.5),
        "lam_auto": False,
        "class_weight": meta.get("class_weight") or None,
        "budget": 0,
        "until_stop": False,
        # single-label: off until the owner switches it on (the When-to-stop panel offers it):
        # a random check takes one query in k from the strategy, and focused ARLS's own uniform
        # draws already give the headline its checks
        "audit_every": 0,
        "n_landmarks": LOW_RANK_DEFAULTS["n_landmarks"],
        "landmarks": LOW_RANK_DEFAULTS["landmarks"],
        "candidates": 0,
        "risk_sample": 0,
        "refine": 0,
        "overlap": 1,
        "overlap_fraction": 1.0,
    }
    if n > LOW_RANK_MIN_POOL:
        settings.update(LOW_RANK_DEFAULTS)
        if n > REFINE_MAX_POOL:
            settings["refine"] = 0
    if multi_label:  # one form of each multi-label strategy: no low-rank fallback to try
        settings["strategy"] = DEFAULT_MULTILABEL_STRATEGY
        settings["audit_every"] = MULTILABEL_AUDIT_EVERY
        return settings
    names = DEFAULT_STRATEGIES if n <= LOW_RANK_MIN_POOL else DEFAULT_STRATEGIES[1:]
    for name in names:
        settings["strategy"] = name
        try:
            engine = make_engine({**settings, **engine_settings(settings)}, settings["lam"])
            check_pool_size(engine, n, name)
        except PoolTooLargeError:
            continue
        break
    return settings


def check_class_weight(weight, classes: Sequence, *, multi_label: bool = False):
    """``class_weight`` for a project with ``classes``: None, ``"balanced"`` or a mapping
    keyed by the project's classes (a key names a class as :func:`class_keys
    <rlscore.core.conventions.json_values.class_keys>` says: ``"1"`` names the class 1) to
    positive weights.

    Raises
    ------
    ValueError
        A mapping naming a class the project does not have (naming those and the project's
        classes), a weight that is not a positive number, or a mapping for a multi-label
        project (its class weights are none or ``"balanced"``).
    """
    if not isinstance(weight, dict):
        return weight
    if multi_label:
        raise ValueError(
            "class_weight of a multi-label project must be none or 'balanced', not a mapping "
            f"class -> weight, got {weight!r}"
        )
    matched, unknown = class_keys(weight, classes)
    if unknown:
        raise ValueError(
            f"class_weight names {unknown}, which are not classes of this project: its "
            f"classes are {list(classes)}"
        )
    # the engine's check, with its message (rlscore.core.rls.class_weights)
    return {c: check_positive(w, f"class_weight[{c!r}]") for c, w in matched.items()}


def check_lam_in_range(lam: float) -> float:
    """``lam`` if it lies in :data:`LAM_LOG_RANGE` (10⁻⁴ to 10³), the range of the app's λ
    sliders and of the automatic λ, so a saved λ is one the sidebar can show and every
    strategy can fit (KLR with a linear kernel needs λ ≥ 10⁻⁴).

    Raises
    ------
    ValueError
        Naming the range.
    """
    low, high = (10.0**end for end in LAM_LOG_RANGE)
    # compared in log₁₀ with a little slack: a slider at its end gives 10**-4.0 rounded
    if not LAM_LOG_RANGE[0] - 1e-9 <= math.log10(lam) <= LAM_LOG_RANGE[1] + 1e-9:
        raise ValueError(
            f"lam must be within {low:g} … {high:g} (the range of the app's λ sliders and of "
            f"the automatic λ), got {lam:g}"
        )
    return lam


def check_settings(
    settings: dict, *, classes: Sequence | None = None, multi_label: bool = False
) -> dict:
    """Validated settings: the known keys, with plain Python values.

    ``classes`` (and ``multi_label``) are the project's: given, a ``class_weight`` mapping is
    checked against them and keyed by them (:func:`check_class_weight`); a multi-label
    project takes only the strategies that have a multi-label form.

    Raises
    ------
    ValueError
        Naming the first invalid setting and what it accepts.
    """
    out = {k: settings[k] for k in SETTING_KEYS if k in settings}
    if "strategy" in out and out["strategy"] not in STRATEGIES:
        raise ValueError(
            f"strategy {out['strategy']!r} is unknown: choose one of {list(STRATEGIES)}"
        )
    if multi_label and "strategy" in out:
        multi_label_strategy(out["strategy"])
    kernels = VECTOR_KERNELS + GRAPH_KERNELS
    if "kernel" in out and out["kernel"] not in kernels:
        raise ValueError(f"kernel {out['kernel']!r} is unknown: choose one of {list(kernels)}")
    for key in ("sigma", "lam"):
        if key in out:
            value = out[key]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{key} must be a positive number, got {value!r}")
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{key} must be a positive number, got {value!r}")
            out[key] = float(value)
    if "sigma" in out:
        # the engine's floor and message (σ² must not underflow); a σ above the slider's range
        # is kept: the data-adaptive default (the median distance) can lie there
        out["sigma"] = check_sigma(out["sigma"])
    if "lam" in out:
        check_lam_in_range(out["lam"])
    if (
        "graph_t" in out
    ):  # 0: the graph kernel's default (rlscore.core.kernels.functions.default_graph_t)
        t = out["graph_t"]
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0:
            raise ValueError(f"graph_t must be a number ≥ 0 (0: the kernel's default), got {t!r}")
        out["graph_t"] = float(t)
    for key in ("lam_auto", "until_stop"):
        if key in out and not isinstance(out[key], bool):
            raise ValueError(f"{key} must be true or false, got {out[key]!r}")
    if "class_weight" in out:
        weight = out["class_weight"]
        if weight not in (None, "balanced") and not isinstance(weight, dict):
            raise ValueError(
                "class_weight must be none, 'balanced' or a mapping class -> weight, "
                f"got {weight!r}"
            )
        if classes is not None:
            out["class_weight"] = check_class_weight(weight, classes, multi_label=multi_label)
    for key, meaning in (
        ("budget", "none"),
        ("audit_every", "none"),
        ("candidates", "all"),
        ("risk_sample", "all"),
        ("refine", "off"),
    ):
        value = out.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{key} must be a whole number ≥ 0 (0: {meaning}), got {value!r}")
    if "n_landmarks" in out:
        m = out["n_landmarks"]
        if isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= MAX_LANDMARKS:
            raise ValueError(f"n_landmarks must be a whole number 1 … {MAX_LANDMARKS}, got {m!r}")
    if "overlap" in out or "overlap_fraction" in out:
        Overlap(out.get("overlap", 1), out.get("overlap_fraction", 1.0))  # raises if invalid
        if "overlap_fraction" in out:
            out["overlap_fraction"] = float(out["overlap_fraction"])
    if "landmarks" in out and out["landmarks"] not in LANDMARK_RULES:
        raise ValueError(
            f"landmarks {out['landmarks']!r} is unknown: choose one of {list(LANDMARK_RULES)}"
        )
    return out


def engine_settings(settings: dict) -> dict:
    """The low-rank settings as strategy parameters, 0 ("all") as None (a strategy ignores the
    parameters it does not take: :func:`rlscore.query.make_strategy`). ``risk_sample`` is
    also the KLR strategies' ``risk_points``: the same idea, the risk summed over a sample.
    ``graph_t`` 0 is the graph kernel's default scale (None)."""
    out = {
        key: (settings.get(key) or None)
        for key in ("n_landmarks", "landmarks", "candidates", "risk_sample", "refine", "graph_t")
    }
    out["risk_points"] = out["risk_sample"]
    return out


def low_rank_settings(settings: dict) -> dict:
    """The low-rank settings (m, landmark rule, candidates, risk sample …) that the settings'
    strategy takes, as its parameters: :func:`engine_settings` without those it ignores (a
    session keyed on them would be rebuilt when an unused one changed)."""
    accepted = strategy_class(settings["strategy"]).param_names()
    return {k: v for k, v in engine_settings(settings).items() if k in accepted}


def final_label_log(store: LabelStore, project: str) -> LabelLog:
    """The project's label log folded with its own final-label rule (the majority where its
    settings ask for overlap, else the latest label: :attr:`Overlap.rule
    <rlscore.sessions.team.overlap.Overlap.rule>`), so an export's ``label`` is the label the
    learner trains on and the agreement and label-issues reports judge; folded with the
    default rule, the export gave an overlap project's minority label as its final one."""
    rule = Overlap.of_settings(project_settings(store, project)).rule
    return LabelLog(store.events(project), rule=rule)


def pool_sigma(store: LabelStore, summary: dict) -> float | None:
    """The default σ of a project whose meta recommends none: the median distance between two
    of its points (``sigma="median"``, :mod:`rlscore.core.kernels.rbf_width`); None if it has one.

    A sample's tuned σ (meta ``sigma``) is kept. The width is computed once per project
    (remembered by name, creation time and shape, so a project created again is measured
    again).
    """
    if (summary.get("meta") or {}).get("sigma"):
        return None
    key = (summary["name"], summary.get("created"), summary["n"], summary.get("d"))
    sigma = _POOL_SIGMAS.get(key)
    if sigma is None:
        sigma = resolve_sigma(DEFAULT_SIGMA, store.load_project(summary["name"]).X)
        _POOL_SIGMAS[key] = sigma
        while len(_POOL_SIGMAS) > _POOL_SIGMAS_MAX:
            _POOL_SIGMAS.popitem(last=False)  # a page run of another tab may race: harmless
    return sigma


def _summary(store: LabelStore, name: str) -> dict:
    """The project's summary (:meth:`LabelStore.project_summaries`)."""
    summary = next((s for s in store.project_summaries() if s["name"] == name), None)
    if summary is None:
        store.load_project(name)  # raises UnknownProjectError naming the projects
    return summary


def _classes_of(summary: dict) -> dict:
    """What :func:`check_settings` checks a project's class weights against."""
    return {"classes": summary["classes"], "multi_label": summary.get("multi_label", False)}


def project_settings(store: LabelStore, name: str) -> dict:
    """The project's settings: the saved ones over :func:`default_settings`, whose σ is the
    project's recommended one or else the data-adaptive width of :func:`pool_sigma`.

    Saved values that no longer validate (also class weights naming a class the project does
    not have) are left out, and listed under the key ``"ignored"`` (setting -> reason) so a
    caller can say so. A class-weight mapping comes back keyed by the project's classes.
    """
    summary = _summary(store, name)
    settings = default_settings(
        summary["n"],
        summary["meta"],
        pool_sigma(store, summary),
        multi_label=summary.get("multi_label", False),
    )
    saved = store.load_settings(name) or {}
    ignored = {}
    for key in SETTING_KEYS:
        if key not in saved:
            continue
        try:
            settings.update(check_settings({key: saved[key]}, **_classes_of(summary)))
        except ValueError as exc:
            ignored[key] = str(exc)
    if ignored:
        settings["ignored"] = ignored
    return settings


def save_project_settings(
    store: LabelStore, name: str, changes: dict, *, user: str | None = None, checked: bool = True
) -> dict:
    """Validate ``changes`` and save them over the project's current settings, as ``user``
    (an owner once the project has members; recorded in the audit). ``checked=False`` skips
    the role check, for a shell administrator's change (the ``settings`` command). A change of
    strategy gives back every point claimed in the project: each annotator's next query is the
    new strategy's (the Label page says which strategy proposed a point).

    Returns
    -------
    dict
        The project's settings after the change.

    Raises
    ------
    ValueError
        An invalid setting, also class weights naming a class the project does not have
        (nothing is saved).
    """
    if checked:
        require(store, name, user, "settings")  # an owner's, once the project has members
    changes = check_settings(changes, **_classes_of(_summary(store, name)))
    before = {k: v for k, v in project_settings(store, name).items() if k in SETTING_KEYS}
    settings = {**before, **changes}
    # the audit compares with the settings in force, defaults included: a first change of λ
    # is "lam: 1.0 → 0.3", not every default "None → value"
    store.save_settings(name, settings, by=user or "", before=before)
    if settings.get("strategy") != before.get("strategy"):
        store.release_claims(name)
    return settings


__all__ = [
    "DEFAULT_STRATEGIES",
    "LAM_LOG_RANGE",
    "LOW_RANK_DEFAULTS",
    "MAX_LANDMARKS",
    "MULTILABEL_AUDIT_EVERY",
    "REFINE_MAX_POOL",
    "LOW_RANK_MIN_POOL",
    "SETTING_KEYS",
    "SIGMA_LOG_RANGE",
    "check_class_weight",
    "check_lam_in_range",
    "check_settings",
    "default_settings",
    "engine_settings",
    "final_label_log",
    "low_rank_settings",
    "pool_sigma",
    "project_settings",
    "save_project_settings",
]
