"""Who the app says the user is (rlscore/ui/shell/auth.py): the identity derived from an ID token's
claims, the loopback rule, and the app's gate in Streamlit's AppTest (local mode, the refusal
on a public address, the sign-in screen). Signing in itself is tested in a real browser
against a real provider: tests/e2e/test_sign_in_browser.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest
from support.app import TIMEOUT, ok

from rlscore.ui.shell.auth import ALLOW_ENV, display_name, identity, is_loopback

REPO = Path(__file__).resolve().parents[1]
ISSUER = "https://login.example.org/realms/team/"
AT_ISSUER = "42@login.example.org/realms/team"
V = "email_verified"


@pytest.mark.parametrize(
    ("claims", "expected"),
    [
        # a verified address, in lower case (as member_id stores it)
        ({"sub": "42", "iss": ISSUER, "email": "Ada@Example.ORG", V: True}, "ada@example.org"),
        # some providers send the flag as a string
        ({"sub": "42", "iss": ISSUER, "email": "ada@example.org", V: "true"}, "ada@example.org"),
        # an unverified or unflagged address is never the identity: the subject at the issuer
        ({"sub": "42", "iss": ISSUER, "email": "ada@example.org", V: False}, AT_ISSUER),
        ({"sub": "42", "iss": ISSUER, "email": "ada@example.org"}, AT_ISSUER),
        ({"sub": "AbC", "iss": "http://127.0.0.1:5000"}, "AbC@127.0.0.1:5000"),
        ({"sub": "42"}, "42"),
        ({"email": "ada@example.org", V: True}, "ada@example.org"),
        # nobody to name
        ({"iss": ISSUER, "email": "ada@example.org"}, None),
        ({"sub": "  ", "email": "not-an-address", V: True}, None),
    ],
)  # fmt: skip
def test_identity_is_a_verified_email_else_the_subject_at_its_issuer(claims, expected):
    assert identity(claims) == expected


def test_the_same_subject_at_two_issuers_is_two_users():
    a = identity({"sub": "7", "iss": "https://kc.example.org/realms/a"})
    b = identity({"sub": "7", "iss": "https://kc.example.org/realms/b"})
    assert a != b


def test_display_name_is_the_name_claim_else_the_identity():
    assert display_name({"name": "  Ada\n Lovelace ", "sub": "1"}) == "Ada Lovelace"
    assert display_name({"sub": "42", "iss": ISSUER}) == AT_ISSUER


@pytest.mark.parametrize(
    ("address", "loopback"),
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("LOCALHOST", True),
        ("::1", True),
        ("[::1]", True),
        (None, False),  # Streamlit's default binds every interface
        ("", False),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.10", False),
        ("127.0.0.1.example.org", False),
    ],
)
def test_only_loopback_addresses_count_as_local(address, loopback):
    assert is_loopback(address) is loopback


@pytest.fixture
def db(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "labels.sqlite3"
    monkeypatch.setenv("RLSCORE_DB", str(path))
    monkeypatch.delenv(ALLOW_ENV, raising=False)
    return path


@pytest.fixture
def bound_to():
    """Pretend the server is bound to an address (AppTest runs in this process)."""
    before = config.get_option("server.address")

    def bind(address: str | None) -> None:
        config.set_option("server.address", address)

    yield bind
    config.set_option("server.address", before)


def _app(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at


def test_local_mode_on_loopback_says_once_that_nobody_is_authenticated(db, bound_to):
    bound_to("127.0.0.1")
    at = ok(_app({"annotator": "ada"}).run())
    notices = [i.value for i in at.sidebar.info if "no sign-in is configured" in i.value]
    assert len(notices) == 1 and not at.toast  # in the sidebar: nothing drawn over the page
    assert any("Local mode" in c.value for c in at.sidebar.caption)
    assert at.session_state["params"]["annotator"] == "ada"  # the typed name, as before
    assert at.sidebar.text_input(key="w_annotator").value == "ada"
    ok(at.run())
    assert not [i for i in at.sidebar.info if "no sign-in is configured" in i.value]  # once


@pytest.mark.parametrize("address", ["0.0.0.0", None, "192.168.1.10"])
def test_local_mode_on_a_public_address_shows_only_the_refusal(db, bound_to, address):
    bound_to(address)
    at = ok(_app({"annotator": "ada"}).run())
    assert [t.value for t in at.title] == ["Sign-in is not configured"]
    assert len(at.error) == 1
    for words in (ALLOW_ENV, "secrets.toml", "127.0.0.1"):
        assert words in at.error[0].value
    assert not at.button and not at.text_input and not at.sidebar.selectbox
    assert "params" not in at.session_state  # no page ran


def test_the_allow_setting_lets_local_mode_run_on_a_public_address(db, bound_to, monkeypatch):
    bound_to("0.0.0.0")
    monkeypatch.setenv(ALLOW_ENV, "1")
    at = ok(_app({"annotator": "ada"}).run())
    assert not at.error
    assert at.session_state["params"]["annotator"] == "ada"
    monkeypatch.setenv(ALLOW_ENV, "yes")  # only "1" allows it
    at = ok(_app({"annotator": "ada"}).run())
    assert [t.value for t in at.title] == ["Sign-in is not configured"]


def test_with_sign_in_configured_a_visitor_sees_only_the_sign_in_button(db, bound_to):
    bound_to("0.0.0.0")  # sign-in makes any address acceptable
    at = _app({"annotator": "mallory"})
    at.secrets["auth"] = {
        "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
        "cookie_secret": "x" * 32,
        "google": {"client_id": "a", "client_secret": "b", "server_metadata_url": "https://g/"},
        "keycloak": {"client_id": "c", "client_secret": "d", "server_metadata_url": "https://k/"},
    }
    ok(at.run())
    assert [b.label for b in at.button] == ["Sign in with google", "Sign in with keycloak"]
    assert not at.text_input and not at.sidebar.selectbox and not at.toast
    assert "params" not in at.session_state  # no page ran, mallory or not
