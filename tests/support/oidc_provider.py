"""A throwaway OpenID Connect provider on 127.0.0.1 for the sign-in tests.

Just enough of OpenID Connect Core's authorization-code flow for a real client (Streamlit's
``st.login`` through Authlib) to sign a user in: a discovery document, an authorize endpoint
that shows a login form where the test types a user name (no password: whoever types a known
name is that user), a token endpoint that checks the client's secret, the code, its redirect
URI and the PKCE verifier and issues an RS256-signed ID token, and the JWKS with the public
key. Written with :mod:`http.server` and ``cryptography`` only, independently of Authlib.

Nothing leaves 127.0.0.1; the key is made per provider.

To try sign-in by hand (docs/deployment.md, "Trying sign-in locally")::

    python tests/support/oidc_provider.py --port 8600 --users alice,bob \
        --app-url http://localhost:8501 --secrets .streamlit/secrets.toml

starts the provider on port 8600 (until Ctrl-C) and writes the matching ``[auth]`` section;
``streamlit run app.py`` then asks for sign-in, and typing ``alice`` or ``bob`` in the
provider's form signs that user in (``<name>@example.org``, verified).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import html
import json
import os
import secrets
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _uint(n: int) -> str:
    return _b64url(n.to_bytes((n.bit_length() + 7) // 8, "big"))


@dataclass
class OIDCProvider:
    """An OpenID Connect provider on a free port of 127.0.0.1 (``start()`` / ``stop()``).

    Parameters
    ----------
    users : dict
        User name typed in the login form -> the claims of their ID token besides the
        protocol's own (``sub`` defaults to the user name; ``email``, ``email_verified``,
        ``name`` …).
    client_id, client_secret : str
        The one client it knows.
    """

    users: dict[str, dict]
    client_id: str = "rlscore-test"
    client_secret: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    #: the ID tokens issued, in order (what the tests can check the client received)
    issued: list[dict] = field(default_factory=list)
    #: the port on 127.0.0.1 (0: a free one)
    port: int = 0

    def __post_init__(self) -> None:
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._kid = secrets.token_hex(8)
        self._codes: dict[str, dict] = {}
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- addresses ---------------------------------------------------------------------------
    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def metadata_url(self) -> str:
        return f"{self.issuer}/.well-known/openid-configuration"

    def metadata(self) -> dict:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": ["S256"],
            "claims_supported": ["sub", "iss", "aud", "exp", "iat", "nonce", "email", "name"],
        }

    def jwks(self) -> dict:
        numbers = self._key.public_key().public_numbers()
        jwk = {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": self._kid}
        return {"keys": [{**jwk, "n": _uint(numbers.n), "e": _uint(numbers.e)}]}

    # -- the flow ----------------------------------------------------------------------------
    def _id_token(self, user: str, nonce: str | None) -> str:
        now = int(time.time())
        claims = {"sub": user, **self.users[user]}
        claims.update(iss=self.issuer, aud=self.client_id, iat=now, exp=now + 600)
        if nonce is not None:
            claims["nonce"] = nonce
        self.issued.append(claims)
        header = {"alg": "RS256", "typ": "JWT", "kid": self._kid}
        signing_input = ".".join(
            _b64url(json.dumps(part, separators=(",", ":")).encode()) for part in (header, claims)
        )
        signature = self._key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        return f"{signing_input}.{_b64url(signature)}"

    def _authorize(self, query: dict[str, str], user: str) -> str:
        """A code for ``user`` and the redirect back to the client (raises on a bad request)."""
        if query.get("client_id") != self.client_id or query.get("response_type") != "code":
            raise ValueError("unknown client or response type")
        if user not in self.users:
            raise ValueError("unknown user")
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes[code] = {**query, "user": user}
        back = {"code": code}
        if "state" in query:
            back["state"] = query["state"]
        return f"{query['redirect_uri']}?{urllib.parse.urlencode(back)}"

    def _token(self, form: dict[str, str], basic: tuple[str, str] | None) -> dict:
        client_id, secret = basic or (form.get("client_id"), form.get("client_secret"))
        if client_id != self.client_id or secret != self.client_secret:
            raise PermissionError("invalid_client")
        with self._lock:
            grant = self._codes.pop(form.get("code", ""), None)  # a code works once
        if grant is None or form.get("grant_type") != "authorization_code":
            raise ValueError("invalid_grant")
        if form.get("redirect_uri") != grant.get("redirect_uri"):
            raise ValueError("invalid_grant")
        challenge = grant.get("code_challenge")
        if challenge is not None:
            verifier = form.get("code_verifier", "")
            if _b64url(hashlib.sha256(verifier.encode()).digest()) != challenge:
                raise ValueError("invalid_grant")
        return {
            "access_token": secrets.token_urlsafe(24),
            "token_type": "Bearer",
            "expires_in": 600,
            "scope": grant.get("scope", "openid"),
            "id_token": self._id_token(grant["user"], grant.get("nonce")),
        }

    # -- the server --------------------------------------------------------------------------
    def start(self) -> OIDCProvider:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet test output
                pass

            def _send(self, status: int, body: bytes, kind: str, headers=()) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def _json(self, status: int, data: dict) -> None:
                self._send(status, json.dumps(data).encode(), "application/json")

            def do_GET(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                if url.path == "/.well-known/openid-configuration":
                    self._json(200, provider.metadata())
                elif url.path == "/jwks":
                    self._json(200, provider.jwks())
                elif url.path == "/authorize":
                    self._send(200, provider._login_form(query), "text/html; charset=utf-8")
                else:
                    self._json(404, {"error": "not_found"})

            def do_POST(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                if url.path == "/authorize":
                    query = json.loads(form.get("request", "{}"))
                    try:
                        location = provider._authorize(query, form.get("username", ""))
                    except ValueError as exc:
                        self._send(400, str(exc).encode(), "text/plain")
                        return
                    self._send(302, b"", "text/plain", [("Location", location)])
                elif url.path == "/token":
                    try:
                        self._json(200, provider._token(form, self._basic()))
                    except PermissionError:
                        self._json(401, {"error": "invalid_client"})
                    except ValueError:
                        self._json(400, {"error": "invalid_grant"})
                else:
                    self._json(404, {"error": "not_found"})

            def _basic(self) -> tuple[str, str] | None:
                auth = self.headers.get("Authorization", "")
                if not auth.startswith("Basic "):
                    return None
                user, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
                return urllib.parse.unquote_plus(user), urllib.parse.unquote_plus(secret)

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def _login_form(self, query: dict[str, str]) -> bytes:
        request = html.escape(json.dumps(query), quote=True)
        page = f"""<!doctype html><html><head><title>Test provider sign-in</title></head>
<body><h1>Test provider</h1>
<form method="post" action="/authorize">
<input type="hidden" name="request" value="{request}">
<label>User name <input name="username" autofocus></label>
<button type="submit">Sign in</button>
</form></body></html>"""
        return page.encode()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> OIDCProvider:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def secrets_toml(provider: OIDCProvider, app_url: str) -> str:
    """A ``.streamlit/secrets.toml`` text signing in to an app at ``app_url`` through
    ``provider`` (Streamlit's one-provider ``[auth]`` section)."""
    values = {
        "redirect_uri": f"{app_url}/oauth2callback",
        "cookie_secret": secrets.token_hex(32),
        "client_id": provider.client_id,
        "client_secret": provider.client_secret,
        "server_metadata_url": provider.metadata_url,
    }
    lines = ["[auth]"] + [f"{key} = {json.dumps(value)}" for key, value in values.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Start a provider for trying sign-in by hand and write the app's secrets file."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8600, help="port on 127.0.0.1")
    parser.add_argument("--users", default="alice,bob", help="comma-separated user names")
    parser.add_argument("--app-url", default="http://localhost:8501", help="the app's address")
    parser.add_argument("--secrets", default=".streamlit/secrets.toml", help="file written")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.users.split(",") if n.strip()]
    users = {
        n: {"email": f"{n}@example.org", "email_verified": True, "name": n.title()} for n in names
    }
    provider = OIDCProvider(users, port=args.port).start()
    # readable by its owner only: it holds the client secret and the cookie secret
    fd = os.open(args.secrets, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(secrets_toml(provider, args.app_url.rstrip("/")))
    print(f"OpenID Connect provider at {provider.issuer} for {', '.join(names)}")
    print(f"wrote {args.secrets}; now run: streamlit run app.py  (Ctrl-C here stops the provider)")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        provider.stop()


if __name__ == "__main__":
    main()
