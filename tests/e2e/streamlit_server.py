"""Start and stop a real ``streamlit run app.py`` server for browser tests and benchmarks."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_executable() -> str | None:
    """Debian's chromium if installed (Playwright must not download its own)."""
    if os.path.exists(CHROMIUM):
        return CHROMIUM
    return shutil.which("chromium")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StreamlitServer:
    """A Streamlit server on a free port with its own label database.

    ``start()`` returns once ``/_stcore/health`` answers ``ok`` (polled, no fixed sleep);
    ``kill()`` sends SIGKILL, as a crash would.
    """

    def __init__(
        self,
        db: Path | str,
        log: Path,
        port: int | None = None,
        script: str = "app.py",
        poll_seconds: float = 0.0,
        address: str = "127.0.0.1",
        secrets: Path | None = None,
    ):
        # a postgresql:// URL stays a string; a SQLite file becomes a path
        self.db = db if "://" in str(db) else Path(db)
        # teammates' polling (rlscore.ui.label.teammates) is off unless a test asks for it: a
        # periodic fragment run would be counted as the run a click triggered
        self.poll_seconds = poll_seconds
        self.log_path = Path(log)
        # the log is appended to (a test may restart its server); what earlier runs of the
        # tests left in it is not this server's
        self._log_start = self.log_path.stat().st_size if self.log_path.exists() else 0
        self.port = port or free_port()
        self.script = script
        # the address the server binds (the tests always connect through 127.0.0.1) and the
        # secrets file it reads instead of .streamlit/secrets.toml (sign-in tests)
        self.address = address
        self.secrets = secrets
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> StreamlitServer:
        env = dict(
            os.environ,
            RLSCORE_DB=str(self.db),
            PYTHONUNBUFFERED="1",
            RLSCORE_POLL_SECONDS=str(self.poll_seconds),
        )
        cmd = [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            self.script,
            "--server.headless",
            "true",
            "--server.port",
            str(self.port),
            "--server.address",
            self.address,
            "--server.fileWatcherType",
            "none",
            "--browser.gatherUsageStats",
            "false",
        ]
        if self.secrets is not None:
            cmd += ["--secrets.files", str(self.secrets)]
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=self._log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.proc.returncode}: {self.log()}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.status == 200 and r.read().strip() == b"ok":
                        return self
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            # back off between polls of the health endpoint (not a wait for a result)
            time.sleep(0.1)
        self.stop()
        raise TimeoutError(f"streamlit not healthy after {timeout} s: {self.log()}")

    def log(self) -> str:
        return self.written()[-4000:]

    def written(self) -> str:
        """Everything this server object's runs wrote to the log."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(self._log_start)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def kill(self) -> None:
        """SIGKILL the server (simulates a crash: no clean shutdown)."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)
        self._close_log()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)
        self._close_log()

    def _close_log(self) -> None:
        log = getattr(self, "_log", None)
        if log and not log.closed:
            log.close()

    def __enter__(self) -> StreamlitServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
