"""The documented way to try sign-in by hand: ``python tests/support/oidc_provider.py``.

docs/deployment.md ("Trying sign-in locally") gives that command. Run as a process, it
serves OpenID Connect discovery on the port asked for and writes an ``[auth]`` section that
points at it and at the app's callback, readable by its owner only (it holds secrets).
"""

from __future__ import annotations

import json
import socket
import stat
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_command_serves_discovery_on_its_port_and_writes_matching_secrets(tmp_path):
    port, secrets = free_port(), tmp_path / "secrets.toml"
    command = [sys.executable, str(REPO / "tests/support/oidc_provider.py"), "--port", str(port)]
    command += ["--users", "alice,bob", "--app-url", "http://localhost:8765/", "--secrets"]
    proc = subprocess.Popen([*command, str(secrets)], stdout=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()  # printed once the provider listens
        assert first.startswith(f"OpenID Connect provider at http://127.0.0.1:{port} ")
        auth = tomllib.loads(secrets.read_text())["auth"]
        assert auth["redirect_uri"] == "http://localhost:8765/oauth2callback"
        assert auth["server_metadata_url"].startswith(f"http://127.0.0.1:{port}/")
        assert stat.S_IMODE(secrets.stat().st_mode) == 0o600
        with urllib.request.urlopen(auth["server_metadata_url"], timeout=30) as answer:
            metadata = json.load(answer)
        assert metadata["issuer"] == f"http://127.0.0.1:{port}"
        assert auth["client_secret"] not in first + proc.stdout.readline()  # not printed
    finally:
        proc.terminate()
        proc.wait(timeout=30)
