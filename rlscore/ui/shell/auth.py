"""Who uses the app: the user signed in through OpenID Connect, or in local mode a typed name.

**Sign-in** is Streamlit's own (``st.login``, ``st.user``, ``st.logout``; Authlib does the
OpenID Connect flow). It is on when the server's secrets (``.streamlit/secrets.toml``) have an
``[auth]`` section — one provider, or several as ``[auth.<name>]`` subsections. Then every
page needs a signed-in user (:func:`gate`, run by ``app.py`` before any page), and the
annotator is that user: the typed-name box and ``?annotator=`` are gone (a crafted
``?annotator=`` is ignored and dropped from the address bar).

**The identity** (:func:`identity`) is the one name under which a user's labels, roles and
audit records are stored: the e-mail address, in lower case, when the provider says it is
verified (``email_verified``); else ``<sub>@<issuer>``, the provider's stable subject with the
issuer's host and path (``https://`` dropped), since a ``sub`` is unique only per issuer. An
unverified address is never used: anyone can put any address on an account at some
providers. The page shows the user's ``name`` claim (:func:`display_name`).

**Local mode** (no ``[auth]``): today's typed name, on one machine. The app says once per
browser session, in the sidebar, that nobody is authenticated, and refuses to run on an
address other than loopback (``server.address`` 127.0.0.1, localhost or ::1; unset means
every interface) unless :data:`ALLOW_ENV` is ``1`` — the page then shows only how to
configure sign-in.

The first user to sign in to a fresh database becomes the owner of its projects
(:func:`~rlscore.sessions.team.permissions.claim_ownership`, called at each sign-in).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from rlscore.core.conventions.user_names import clean_name
from rlscore.sessions.team.permissions import claim_ownership
from rlscore.ui.shell.navigation import end_page
from rlscore.ui.shell.safe_text import md_text
from rlscore.ui.shell.store import get_store

#: environment variable: ``1`` lets the app run without sign-in on a non-loopback address
ALLOW_ENV = "RLSCORE_ALLOW_UNAUTHENTICATED"
#: the addresses that only this machine can reach
LOOPBACK = ("127.0.0.1", "localhost", "::1")
#: keys of an ``[auth]`` (sub)section that make it a provider (as Streamlit reads it)
_PROVIDER_KEYS = ("client_id", "server_metadata_url")
_CLAIMED = "auth_claimed_for"
_NOTICE_SHOWN = "auth_local_notice_shown"


def identity(claims: Mapping[str, object]) -> str | None:
    """The stable identity of a signed-in user from their ID token's claims.

    Parameters
    ----------
    claims : mapping
        ``st.user``'s claims (``email``, ``email_verified``, ``sub``, ``iss`` …).

    Returns
    -------
    str or None
        The e-mail address in lower case when ``email_verified`` is true (a boolean, or the
        string ``"true"`` some providers send); else ``<sub>@<issuer without scheme>``;
        None without a ``sub`` (nobody to name). Spelled as every user's name is
        (:func:`~rlscore.core.conventions.user_names.clean_name`: no control character).
    """
    identity = _identity(claims)
    return None if identity is None else clean_name(identity)


def _identity(claims: Mapping[str, object]) -> str | None:
    email = str(claims.get("email") or "").strip()
    verified = claims.get("email_verified")
    if email and "@" in email and (verified is True or str(verified).lower() == "true"):
        return email.casefold()
    sub = str(claims.get("sub") or "").strip()
    if not sub:
        return None
    issuer = str(claims.get("iss") or "").strip()
    for scheme in ("https://", "http://"):
        if issuer.startswith(scheme):
            issuer = issuer[len(scheme) :]
    issuer = issuer.rstrip("/")
    return f"{sub}@{issuer}" if issuer else sub


def display_name(claims: Mapping[str, object]) -> str:
    """What the page calls a signed-in user: the ``name`` claim, else their identity."""
    name = " ".join(str(claims.get("name") or "").split())
    return name or identity(claims) or "unknown user"


def is_loopback(address: str | None) -> bool:
    """Whether a server bound to ``address`` is reachable from this machine only (None or ""
    — Streamlit's default — binds every interface)."""
    return str(address or "").strip().strip("[]").lower() in LOOPBACK


def unauthenticated_allowed() -> bool:
    """Whether :data:`ALLOW_ENV` lets the app run without sign-in on any address."""
    return os.environ.get(ALLOW_ENV, "").strip() == "1"


def _auth_section() -> Mapping | None:
    try:
        section = st.secrets.get("auth")
    except (StreamlitSecretNotFoundError, FileNotFoundError):  # no secrets file at all
        return None
    return section if isinstance(section, Mapping) else None


def sign_in_configured() -> bool:
    """Whether the server's secrets configure OpenID Connect sign-in (an ``[auth]``)."""
    return _auth_section() is not None


def providers() -> list[str | None]:
    """The sign-in providers of ``[auth]``: None for the one configured in ``[auth]`` itself,
    and the name of each ``[auth.<name>]`` subsection, as ``st.login`` takes them."""
    section = _auth_section() or {}
    names: list[str | None] = []
    if any(key in section for key in _PROVIDER_KEYS):
        names.append(None)
    for name, value in section.items():
        if isinstance(value, Mapping) and any(key in value for key in _PROVIDER_KEYS):
            names.append(str(name))
    return names


def _logged_in() -> bool:
    # st.user.is_logged_in, read as a mapping key: Streamlit sets it only once it has read an
    # [auth] section itself (not where the secrets come from elsewhere, as in AppTest)
    return st.user.get("is_logged_in") is True


def _claims() -> dict:
    return dict(st.user.to_dict()) if _logged_in() else {}


def current_user() -> str | None:
    """The signed-in user's identity (:func:`identity`), or None: nobody signed in, or the
    local mode (where the annotator is a typed name, :mod:`rlscore.ui.shell.params`)."""
    if not sign_in_configured():
        return None
    claims = _claims()
    return identity(claims) if claims else None


def gate(url_paths: Sequence[str] = ()) -> None:
    """Let the page run only for whom may see it (``app.py`` calls it before any page).

    With sign-in configured: a visitor not signed in sees only the sign-in button(s); a
    signed-in user is shown by name with a sign-out button in the sidebar, and claims a fresh
    database's projects. In local mode: refused (only a message) on a non-loopback address
    unless :data:`ALLOW_ENV`; else the once-per-session notice that nobody is authenticated.

    Parameters
    ----------
    url_paths : sequence of str
        The app's page addresses (``"tune"``, …): a screen shown instead of the page answers
        each of them, so a deep link to a page shows it, not Streamlit's "page not found".
    """
    if sign_in_configured():
        _signed_in_gate(url_paths)
    else:
        _local_gate(url_paths)


def _only(screen, url_paths: Sequence[str]) -> None:
    """Show ``screen`` as the app's one page (no navigation to the others) and stop."""
    # registering a navigation of this one page keeps Streamlit from listing pages/ instead;
    # the same screen under every page's address: a deep link is not a page "not found"
    pages = [st.Page(screen, title="rlscore", default=True)] + [
        st.Page(screen, title="rlscore", url_path=path) for path in url_paths if path
    ]
    st.navigation(pages, position="hidden").run()
    end_page()


def _sign_in_screen() -> None:
    st.title("rlscore")
    st.write("Sign in to label, review and manage this server's projects.")
    for provider in providers() or [None]:
        label = "Sign in" if provider is None else f"Sign in with {provider}"
        key = f"sign_in_{provider or 'default'}"
        if st.button(label, key=key, type="primary", icon=":material/login:"):
            if provider is None:
                st.login()
            else:
                st.login(provider)


def _refusal_screen() -> None:
    address = st.get_option("server.address")
    shown = md_text(address) if address else "every network interface"
    st.title("Sign-in is not configured")
    st.error(
        f"This server listens on {shown}, where anyone who can reach it could label "
        "under any name, so rlscore refuses to run without sign-in. Configure OpenID "
        "Connect sign-in (an [auth] section in .streamlit/secrets.toml, see "
        "docs/deployment.md, 'Sign-in'), or start the server on 127.0.0.1 "
        f"(--server.address 127.0.0.1), or set {ALLOW_ENV}=1 to run unauthenticated "
        "on purpose (e.g. behind a proxy that signs users in)."
    )


def _nameless_screen() -> None:
    st.error(
        "The sign-in provider named no user (no subject in its ID token): ask the server's "
        "administrator to check the provider's settings."
    )
    if st.button("Sign out"):
        st.logout()


def _signed_in_gate(url_paths: Sequence[str]) -> None:
    if not _logged_in():
        _only(_sign_in_screen, url_paths)
    claims = _claims()
    user = identity(claims)
    if user is None:
        _only(_nameless_screen, url_paths)
    if st.session_state.get(_CLAIMED) != user:
        # the first user of a fresh database owns its projects; a no-op ever after
        claim_ownership(get_store(), user)
        st.session_state[_CLAIMED] = user
    with st.sidebar:
        st.markdown(f"Signed in as **{md_text(display_name(claims))}**")
        st.caption(md_text(user))
        if st.button("Sign out", key="sign_out", icon=":material/logout:"):
            st.logout()


def _local_gate(url_paths: Sequence[str]) -> None:
    if not is_loopback(st.get_option("server.address")) and not unauthenticated_allowed():
        _only(_refusal_screen, url_paths)
    if not st.session_state.get(_NOTICE_SHOWN):
        st.session_state[_NOTICE_SHOWN] = True
        # in the sidebar, not a toast: a toast covered the Review page's table (issue 34)
        st.sidebar.info(
            "Local mode: no sign-in is configured, so nobody is authenticated — the annotator "
            "is whatever name is typed.",
            icon=":material/lock_open:",
        )
    st.sidebar.caption("Local mode: not signed in (names are not checked).")


__all__ = [
    "ALLOW_ENV",
    "LOOPBACK",
    "current_user",
    "display_name",
    "gate",
    "identity",
    "is_loopback",
    "providers",
    "sign_in_configured",
    "unauthenticated_allowed",
]
