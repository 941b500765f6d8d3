"""Admin page: a project's members and roles, its audit trail, and deleted projects.

Layout and wiring only: roles and their checks are :mod:`rlscore.sessions.team.permissions`, the
audit :mod:`rlscore.sessions.team.audit`, the callbacks and tables :mod:`rlscore.ui.forms.admin`.
Buttons the user may not use are drawn disabled with the role they need
(:mod:`rlscore.ui.shell.roles`); the engine checks every action again. Names are shown as text.
"""

from __future__ import annotations

import streamlit as st

from rlscore.sessions.team.permissions import ROLES, is_open, role_of
from rlscore.ui.forms import admin
from rlscore.ui.shell.errors import report_errors
from rlscore.ui.shell.flash import show_flash
from rlscore.ui.shell.navigation import enter_through_app
from rlscore.ui.shell.params import params
from rlscore.ui.shell.roles import gate, may_see_members, reads_checked
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.sidebar import annotator_input, project_selector
from rlscore.ui.shell.store import get_store

enter_through_app(__file__)

project_selector()
user = annotator_input()
p = params()
store = get_store()
name = p["project"]
st.title("Admin")
show_flash()

# -- members -------------------------------------------------------------------------------
st.header(f"Members · {md_text(name)}")
role = role_of(store, name, user)
st.caption(
    f"You: {md_text(user or 'nobody (type your name in the sidebar)')}"
    f" · {md_text(role or 'not a member')}"
)
if is_open(store, name):
    st.info(
        "This project has no members, so it is open: every signed-in user can list it, open "
        "it, label, review and export it (and anyone, in the local mode). Add an owner first "
        "to make it private to its members: owner (settings, members, delete, export), "
        "reviewer (review decisions, agreement), annotator (label, skip, undo their own); "
        "then only members can see it."
    )
# the members' addresses and the audit (which names them) are an owner's to read
shown = may_see_members(store, name, user)
members = store.members(name) if shown else {}
if not shown:
    st.info("The members' addresses and the audit trail are shown to the project's owners only.")
members_gate = gate(store, name, user, "members")
for member, member_role in members.items():
    c1, c2, c3, c4 = st.columns([3, 2, 1, 1], vertical_alignment="bottom")
    c1.text(member)
    admin.seed_role_choice(member, member_role)
    c2.selectbox("Role", ROLES, key=admin.role_key(member), label_visibility="collapsed",
                 disabled=members_gate["disabled"])  # fmt: skip
    c3.button("Change role", key=f"change_{member}", on_click=admin.change_role,
              args=(name, user, member), **members_gate)  # fmt: skip
    c4.button("Remove", key=f"remove_{member}", on_click=admin.remove_member,
              args=(name, user, member), **members_gate)  # fmt: skip
c1, c2, c3 = st.columns([3, 2, 2], vertical_alignment="bottom")
c1.text_input("New member (name or e-mail address)", key=admin.NEW_MEMBER,
              disabled=members_gate["disabled"])  # fmt: skip
c2.selectbox("Role", ROLES, index=len(ROLES) - 1, key=admin.NEW_ROLE,
             disabled=members_gate["disabled"])  # fmt: skip
c3.button("Add member", key="add_member", on_click=admin.add_member, args=(name, user),
          **members_gate)  # fmt: skip

# -- audit ---------------------------------------------------------------------------------
if shown:
    st.header("Audit trail")
    st.caption(
        "Settings changes, membership changes, exports, deletions and restores, with who and "
        "when. Review decisions are on the Review page."
    )
    with report_errors("Reading the audit"):
        rows = admin.project_audit_table(store, name)
        if rows:
            st.dataframe(rows, hide_index=True, key="audit_table")
        else:
            st.caption("Nothing recorded yet.")

# -- deleted projects ----------------------------------------------------------------------
st.header("Deleted projects")
deleted = []
with report_errors("Listing the deleted projects"):
    deleted = admin.deleted_projects(store, user)
    if reads_checked():  # a deleted project is listed, with its members, to its owners only
        deleted = [(row, may_restore) for row, may_restore in deleted if may_restore]
if not deleted:
    st.caption("No deleted project waits in its grace period.")
for i, (row, may_restore) in enumerate(deleted):
    c1, c2 = st.columns([5, 1], vertical_alignment="center")
    c1.text(
        f"{row['project']} · deleted {row['deleted (UTC)']} UTC by {row['by']} · restorable "
        f"until {row['restorable until (UTC)']} UTC · members: {row['members'] or 'none'}"
    )
    c2.button(
        "Restore", key=f"restore_{i}_{row['project']}", on_click=admin.restore,
        args=(row["project"], user), disabled=not may_restore,
        help=None if may_restore else "Needs the owner role in that project.",
    )  # fmt: skip
