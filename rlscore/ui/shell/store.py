"""The label store and the cached labeling sessions, shared by every browser tab.

The heavy state — the pool kernel and the query engine inside a
:class:`~rlscore.sessions.LabelingSession` — is cached with ``st.cache_resource`` per
(database, project, strategy, kernel, σ, λ, class weights and, for the strategies that take
them, the low-rank settings), shared by every browser tab, and
guarded by a lock. Nothing a single tab chooses for itself (the labeling budget, the
annotator) is part of the cache key or stored on the shared session: it is passed to the
session's methods. The label log in the database is the truth: every run calls
``session.sync()`` to replay events written by other tabs or processes.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

import streamlit as st

from rlscore.data.samples.bundled import ensure_sample_projects
from rlscore.sessions import LabelingSession
from rlscore.sessions.state.settings import low_rank_settings
from rlscore.sessions.views.project_overview import ProjectOverview
from rlscore.storage import LabelStore, open_store


@dataclass
class SessionHandle:
    """A cached labeling session and the lock that serialises its use across tabs."""

    session: LabelingSession
    lock: threading.RLock = field(default_factory=threading.RLock)
    #: derived data that depends only on the session (e.g. the 2-D projection of the pool)
    cache: dict = field(default_factory=dict)


def db_path() -> str | None:
    """The label database: ``RLSCORE_DB`` if set, else the store's default."""
    return os.environ.get("RLSCORE_DB") or None


@st.cache_resource(show_spinner=False)
def _store(path: str | None) -> LabelStore:
    store = open_store(path)
    ensure_sample_projects(store)
    return store


def get_store() -> LabelStore:
    """The label store for this server (opened once, sample projects created on first use)."""
    return _store(db_path())


@st.cache_resource(show_spinner=False)
def _overview(path: str | None) -> ProjectOverview:
    return ProjectOverview(_store(path))


def get_overview() -> ProjectOverview:
    """The overview of the store's projects, shared by every tab: each run of the Data page
    reads only the events committed since the last one."""
    return _overview(db_path())


@st.cache_resource(max_entries=2, show_spinner="Building the kernel and the query engine…")
def _session(
    path: str | None,
    project: str,
    uid: int | None,
    strategy: str,
    kernel: str,
    sigma: float,
    lam: float | str,
    class_weight: str | None,
    low_rank: tuple,
) -> SessionHandle:
    # max_entries bounds memory: each entry holds n×n matrices (200 MB at n = 5000).
    session = LabelingSession(
        _store(path),
        project,
        strategy=strategy,
        kernel=kernel,
        sigma=sigma,
        lam=lam,
        class_weight=class_weight,
        # shared by every user of the server: get_session checks each user's read
        checked=False,
        **dict(low_rank),
    )
    return SessionHandle(session)


def get_session(p: dict) -> SessionHandle:
    """The cached session for the settings ``p`` (see :mod:`rlscore.ui.shell.params`), synchronised
    with the database.

    Parameters
    ----------
    p : dict
        The current settings; only the learner's settings select the session (the tab's
        budget and annotator are passed to its methods).

    Returns
    -------
    SessionHandle
    """
    handle = _session(
        db_path(),
        p["project"],
        # a project deleted and uploaded again under the same name gets a new uid
        get_store().project_uid(p["project"]),
        p["strategy"],
        p["kernel"],
        float(p["sigma"]),
        "auto" if p["lam_auto"] else float(p["lam"]),
        p["class_weight"],
        # only a strategy that takes them keys its session on the low-rank settings
        tuple(sorted(low_rank_settings(p).items())),
    )
    with handle.lock:
        # the team's overlap is not part of the cache key: it refolds the log, no new kernel
        handle.session.set_params(overlap=p["overlap"], overlap_fraction=p["overlap_fraction"])
        handle.session.set_params(audit_every=p.get("audit_every", 0))  # random checks, 1 in k
        handle.session.sync()
    return handle
