"""The Admin page's wiring — a project's members, its audit trail, deleted projects — and the
Data page's audited export and recoverable deletion.

Every callback acts as the user the page was drawn for (an argument bound to the button, as
the Label page's buttons are) through the checked functions of
:mod:`rlscore.sessions.team.permissions`: a refusal, from a disabled button forced or a crafted
callback, is flashed with the role it needs (:func:`rlscore.ui.shell.errors.flash_errors`), never
raised into the page.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import streamlit as st

from rlscore.core.conventions.counted_words import counted
from rlscore.data.projects.project import Project
from rlscore.sessions.stopping.accuracy_estimate import ESTIMATE_COLUMNS
from rlscore.sessions.stopping.set_accuracy import SET_ESTIMATE_COLUMNS
from rlscore.sessions.team import permissions
from rlscore.sessions.team.audit import audit_as, export_audit, export_project, project_audit
from rlscore.storage import LabelStore, UnknownProjectError
from rlscore.storage.sql.access import AuditRecord, member_id
from rlscore.ui.shell.errors import flash_errors
from rlscore.ui.shell.flash import flash
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.store import get_store

#: widget keys of the "add a member" form
NEW_MEMBER, NEW_ROLE = "new_member", "new_member_role"


def role_key(member: str) -> str:
    """Key of the role choice of ``member``'s row."""
    return f"role_of_{member}"


def seed_role_choice(member: str, stored: str) -> None:
    """Show ``member``'s stored role in their row's box when it is new or has changed (an
    owner elsewhere), and keep a choice not yet applied otherwise: choosing is a rerun of its
    own, and seeding every run put the stored role back before "Change role" read the box."""
    seen = f"{role_key(member)}_stored"
    if st.session_state.get(seen) != stored or role_key(member) not in st.session_state:
        st.session_state[role_key(member)] = stored
        st.session_state[seen] = stored


def add_member(project: str, user: str | None) -> None:
    """Callback: add the member typed in the form with the role chosen there, as ``user``."""
    member = str(st.session_state.get(NEW_MEMBER) or "").strip()
    role = st.session_state.get(NEW_ROLE, "annotator")
    if not member:
        flash("warning", "Type the new member's name or e-mail address first.")
        return
    with flash_errors("Member not added"):
        permissions.add_member(get_store(), project, member, role, user)
        st.session_state[NEW_MEMBER] = ""
        # the spelling stored and compared (an address in lower case), not the typed one
        stored = member_id(member)
        flash("success", f"Added {md_text(stored)} as {role} of {md_text(project)}.")


def change_role(project: str, user: str | None, member: str) -> None:
    """Callback: give ``member`` the role chosen in their row, as ``user``."""
    role = st.session_state.get(role_key(member))
    with flash_errors("Role not changed"):
        permissions.add_member(get_store(), project, member, role, user)
        flash("success", f"{md_text(member)} is now {role} of {md_text(project)}.")


def remove_member(project: str, user: str | None, member: str) -> None:
    """Callback: remove ``member`` from ``project``, as ``user``."""
    with flash_errors("Member not removed"):
        permissions.remove_member(get_store(), project, member, user)
        flash("success", f"Removed {md_text(member)} from {md_text(project)}.")


def restore(project: str, user: str | None) -> None:
    """Callback: bring back the deleted project ``project``, as ``user``."""
    with flash_errors(f"Project {md_text(project)} not restored"):
        permissions.restore_project(get_store(), project, user)
        flash("success", f"Restored project {md_text(project)} with its labels.")


def delete_project(name: str, user: str | None) -> None:
    """Callback of "Delete project": delete ``name``, the project shown when it was clicked,
    as ``user`` (an owner, or anyone in an open project), recoverably.

    The project may have been deleted meanwhile (another tab); that is said, not raised. A
    refusal names the role needed.
    """
    if st.session_state.get("confirm_delete") != name:
        return  # not confirmed for this project (the button is disabled then)
    st.session_state["confirm_delete"] = ""
    with flash_errors(f"Project '{md_text(name)}' not deleted"):
        store = get_store()
        try:
            # who may restore it: its owners, or anyone if it has no members (read before the
            # deletion takes the members with it)
            restorers = "Its owners" if store.members(name) else "As it had no members, anyone"
            permissions.delete_project(store, name, user)
        except UnknownProjectError:
            flash("info", f"Project '{md_text(name)}' was already deleted (in another tab).")
        else:
            flash(
                "success",
                f"Deleted project '{md_text(name)}'. {restorers} can restore it with its labels "
                f"on the Admin page for {grace_days()}.",
            )


def delete_caption(project: str, n_labels: int) -> str:
    """What deleting ``project`` (with ``n_labels`` labels) does, as the Data page says it:
    Markdown, the name escaped."""
    return (
        f"Deletes '{md_text(project)}' and its {counted(n_labels, 'label')} for every "
        "annotator. It can be restored with its labels on the Admin page for "
        f"{grace_days()} (then it is purged for good)."
    )


def export_caption(project: Project, n_labels: int) -> str:
    """What a download of ``project``'s labels holds, as the Data page says it.

    Parameters
    ----------
    project : Project
        The project chosen on the page.
    n_labels : int
        Its number of labeled points.

    Returns
    -------
    str
        Markdown naming the columns, the Label page's headline among them under the names the
        export gives it: a multi-label project's micro-F1
        (:data:`~rlscore.sessions.stopping.set_accuracy.SET_ESTIMATE_COLUMNS`), else the
        accuracy estimate (:data:`~rlscore.sessions.stopping.accuracy_estimate.ESTIMATE_COLUMNS`).
    """
    carried = "the feature values and the accuracy estimate at export time"
    columns = ESTIMATE_COLUMNS
    if project.multi_label:  # sets: one column per class, and the micro-F1 of the sets
        carried = (
            "the feature values; each class as a 0/1 column and the set as one `|`-joined "
            "column; the micro-F1 estimate at export time"
        )
        columns = SET_ESTIMATE_COLUMNS
    names = ", ".join(f"`{c}`" for c in columns)
    return (
        f"{counted(n_labels, 'labeled point')}: point id, index, the final label and how it was "
        "decided (latest label, majority or review), every annotator's own label, timestamp, "
        f"seconds spent, strategy, kernel, σ, λ, {carried} ({names}, the Label page's "
        "headline). Each download is recorded in the project's audit (who, when, which "
        "format); the audit downloads beside it."
    )


def grace_days() -> str:
    """The grace period of a deleted project, in words."""
    try:
        days = permissions.grace_seconds() / 86400
    except ValueError as exc:  # a misconfigured server: said, not raised into the page
        return f"a grace period the server does not read ({md_text(exc)})"
    return f"{days:g} day" + ("" if days == 1 else "s")


def export_file(name: str, user: str | None, fmt: str, part: str) -> str | bytes:
    """The ``part`` ("labels" or "audit") of an export of ``name`` as ``user``, built when
    the download is clicked: the labels with the accuracy estimate at export time, recorded in
    the audit; or the audit alone, a read like the Admin page's table (not recorded, and no
    labels built: it was written down as a labels export). A refusal (a disabled button
    forced) downloads the refusal as text instead."""
    try:
        if part == "audit":
            return export_audit(audit_as(get_store(), name, user), fmt)
        return export_project(get_store(), name, user, fmt, estimate=True).labels
    except permissions.PermissionDeniedError as exc:
        return f"not exported: {exc}\n"


def when(ts: float) -> str:
    """A moment as shown on the page (UTC)."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%S")


def describe(record: AuditRecord) -> str:
    """What an audit record says, in words (plain text: shown in a table)."""
    d = record.details or {}
    if record.action == "settings":
        return "; ".join(
            f"{key}: {v[0]!r} → {v[1]!r}"
            if isinstance(v, list | tuple) and len(v) == 2
            else f"{key}: {v!r}"
            for key, v in d.items()
        )
    if record.action == "member":
        member, role, previous = d.get("member"), d.get("role"), d.get("previous")
        if role is None:
            return f"removed {member} ({previous})"
        if previous is None:
            return f"added {member} as {role}" + (" (first user)" if d.get("first_user") else "")
        return f"{member}: {previous} → {role}"
    if record.action == "export":
        return f"exported the labels as {str(d.get('format', '')).upper()}" + (
            " with the accuracy estimate" if d.get("estimate") else ""
        )
    if record.action == "delete":
        return "deleted (recoverable)" if d.get("recoverable") else "deleted"
    if record.action == "restore":
        return "restored"
    if record.action == "purge":
        return "purged after the grace period"
    return json.dumps(d, ensure_ascii=False)


def audit_table(records: list[AuditRecord]) -> list[dict]:
    """The audit records as table rows, newest first: when, who, what."""
    return [
        {
            "when (UTC)": when(r.timestamp),
            "who": r.actor or "(unnamed: local mode)",
            "action": r.action,
            "what": describe(r),
        }
        for r in reversed(records)
    ]


def project_audit_table(store: LabelStore, project: str) -> list[dict]:
    """:func:`audit_table` of ``project``'s audit."""
    return audit_table(project_audit(store, project))


def deleted_projects(store: LabelStore, user: str | None) -> list[tuple[dict, bool]]:
    """The deleted projects still in their grace period, newest first, each as a row (name,
    when and by whom deleted, until when it can be restored, its members) and whether
    ``user`` may restore it (an owner of it; anyone if it had no members)."""
    grace = permissions.grace_seconds()
    return [
        (
            {
                "project": t["name"],
                "deleted (UTC)": when(t["deleted"]),
                "by": t["deleted_by"] or "(unnamed: local mode)",
                "restorable until (UTC)": when(t["deleted"] + grace),
                "members": ", ".join(f"{m} ({r})" for m, r in t["members"].items()),
            },
            permissions.allowed(t["members"], user, "restore"),
        )
        for t in store.trashed_projects()
    ]


__all__ = [
    "NEW_MEMBER",
    "NEW_ROLE",
    "add_member",
    "audit_table",
    "change_role",
    "seed_role_choice",
    "delete_project",
    "deleted_projects",
    "describe",
    "export_caption",
    "export_file",
    "grace_days",
    "project_audit_table",
    "remove_member",
    "restore",
    "role_key",
    "when",
]
