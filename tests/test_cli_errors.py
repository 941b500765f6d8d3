"""Bad invocations of the command line (``python -m rlscore …``).

Every one must end with exit status 2 and exactly one ``error:`` line on standard error, with
no Python traceback, and must leave every file it was given as it was: the same bytes, and
no file or folder created (a command that reads a database never creates or converts one).
The cases are every command × {missing file, folder given as a file, non-database file,
empty file, another program's SQLite database, bad option values, an output into a missing
folder, an unreachable PostgreSQL server}. Each case runs in this process through
:func:`rlscore.cli.main` (what ``python -m rlscore`` calls), and the failures issue 27 lists
run again as real subprocesses, all started at once (an interpreter start imports scikit-learn:
seconds each).
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rlscore.cli import main as cli_main
from rlscore.data.projects.project import Project
from rlscore.storage import open_store

#: a password that must never be echoed
SECRET = "s3cret-pw"


def _unused_port() -> int:
    """A local TCP port nothing listens on (the OS's free port, released again)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """The inputs of the bad invocations, in one folder ``inputs``."""
    root = tmp_path_factory.mktemp("cli_errors")
    inputs = root / "inputs"
    inputs.mkdir()
    db = inputs / "labels.sqlite3"
    with open_store(db) as store:
        rng = np.random.default_rng(0)
        store.create_project(
            Project(
                name="tiny",
                X=rng.normal(size=(12, 2)),
                feature_names=["a", "b"],
                ids=[f"p{i}" for i in range(12)],
                truth=None,
                classes=["no", "yes"],
            )
        )
    text = inputs / "notes.txt"
    text.write_text("not a database\n")
    empty = inputs / "empty.sqlite3"
    empty.write_bytes(b"")
    other = inputs / "other.sqlite3"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x INTEGER)")
        conn.execute("INSERT INTO t VALUES (1)")
    conn.close()
    csv = inputs / "points.csv"
    csv.write_text("a,b,label\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(20)))
    (inputs / "folder").mkdir()
    return {
        "root": root,
        "db": db,
        "text": text,
        "empty": empty,
        "other": other,
        "csv": csv,
        "folder": inputs / "folder",
        "missing": inputs / "missing.sqlite3",
        "missing_dir_file": inputs / "no_such_folder" / "out.json",
        "pg": _pg(_unused_port()),
    }


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every file and folder under ``root`` (a folder maps to None) with its bytes. The
    valid database's WAL files are left out: SQLite may create them to read it."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.name.startswith("labels.sqlite3-"):
            continue
        out[str(p.relative_to(root))] = None if p.is_dir() else p.read_bytes()
    return out


def _pg(port: int, password: bool = True) -> str:
    auth = f"ada:{SECRET}" if password else "ada"
    return f"postgresql://{auth}@127.0.0.1:{port}/labels"


#: (id, command line with {placeholders} for :func:`files`, words the error line must hold)
CASES = [
    # -- labels --------------------------------------------------------------------------
    ("labels-missing-db", "labels --db {missing}", "no label database"),
    ("labels-missing-db-project", "labels --db {missing} --project tiny", "no label database"),
    ("labels-folder-db", "labels --db {folder}", "is a folder"),
    ("labels-text-db", "labels --db {text}", "not an rlscore label database"),
    ("labels-empty-db", "labels --db {empty}", "is empty"),
    ("labels-empty-db-project", "labels --db {empty} --project tiny", "is empty"),
    ("labels-other-sqlite", "labels --db {other}", "not an rlscore label database"),
    ("labels-unknown-project", "labels --db {db} --project nope", "nope"),
    ("labels-bad-format", "labels --db {db} --project tiny --format xml", "xml"),
    (
        "labels-output-missing-folder",
        "labels --db {db} --project tiny --output {missing_dir_file}",
        "does not exist",
    ),
    ("labels-output-folder", "labels --db {db} --project tiny --output {folder}", "is a folder"),
    ("labels-unknown-option", "labels --db {db} --colour red", "unrecognized"),
    # a URL of another kind was read as a file path: "no label database at mysql:/x/y"
    ("labels-mysql-url", "labels --db mysql://ada@127.0.0.1/x", "mysql:// is not supported"),
    ("labels-sqlite-url", "labels --db sqlite:///{db}", "sqlite:// is not supported"),
    ("members-sqlite-url", "members --db sqlite:///{db} --project tiny", "sqlite:// is not"),
    # -- settings ------------------------------------------------------------------------
    ("settings-missing-db", "settings --db {missing} --project tiny", "no label database"),
    (
        "settings-missing-db-set",
        "settings --db {missing} --project tiny --set sigma=2",
        "no label database",
    ),
    ("settings-folder-db", "settings --db {folder} --project tiny", "is a folder"),
    ("settings-text-db", "settings --db {text} --project tiny", "not an rlscore"),
    ("settings-empty-db", "settings --db {empty} --project tiny", "is empty"),
    ("settings-empty-db-set", "settings --db {empty} --project tiny --set lam=2", "is empty"),
    ("settings-other-sqlite", "settings --db {other} --project tiny", "not an rlscore"),
    ("settings-unknown-project", "settings --db {db} --project nope", "nope"),
    ("settings-no-project", "settings --db {db}", "--project"),
    ("settings-negative-sigma", "settings --db {db} --project tiny --set sigma=-3", "sigma"),
    ("settings-nan-lam", "settings --db {db} --project tiny --set lam=NaN", "lam"),
    ("settings-unknown-key", "settings --db {db} --project tiny --set colour=red", "colour"),
    ("settings-no-equals", "settings --db {db} --project tiny --set sigma", "KEY=VALUE"),
    ("settings-bad-kernel", "settings --db {db} --project tiny --set kernel=heat", "heat"),
    ("settings-bad-strategy", "settings --db {db} --project tiny --set strategy=magic", "magic"),
    ("settings-negative-graph-t", "settings --db {db} --project tiny --set graph_t=-1", "graph_t"),
    ("settings-bad-budget", "settings --db {db} --project tiny --set budget=-5", "budget"),
    # -- agreement -----------------------------------------------------------------------
    ("agreement-missing-db", "agreement --db {missing} --project tiny", "no label database"),
    ("agreement-folder-db", "agreement --db {folder} --project tiny", "is a folder"),
    ("agreement-text-db", "agreement --db {text} --project tiny", "not an rlscore"),
    ("agreement-empty-db", "agreement --db {empty} --project tiny", "is empty"),
    ("agreement-other-sqlite", "agreement --db {other} --project tiny", "not an rlscore"),
    ("agreement-unknown-project", "agreement --db {db} --project nope", "nope"),
    ("agreement-no-labels", "agreement --db {db} --project tiny", "no labels"),
    ("agreement-bad-rule", "agreement --db {db} --project tiny --rule loudest", "loudest"),
    ("agreement-no-project", "agreement --db {db}", "--project"),
    # -- negatives -----------------------------------------------------------------------
    ("negatives-missing-db", "negatives --db {missing} --project tiny", "no label database"),
    ("negatives-folder-db", "negatives --db {folder} --project tiny", "is a folder"),
    ("negatives-text-db", "negatives --db {text} --project tiny", "not an rlscore"),
    ("negatives-empty-db", "negatives --db {empty} --project tiny", "is empty"),
    ("negatives-other-sqlite", "negatives --db {other} --project tiny", "not an rlscore"),
    ("negatives-unknown-project", "negatives --db {db} --project nope", "nope"),
    ("negatives-no-labels", "negatives --db {db} --project tiny", "tiny"),
    ("negatives-bad-neighbors", "negatives --db {db} --project tiny --neighbors abc", "abc"),
    ("negatives-zero-neighbors", "negatives --db {db} --project tiny --neighbors 0", "error"),
    # -- label-issues --------------------------------------------------------------------
    ("issues-missing-db", "label-issues --db {missing} --project tiny", "no label database"),
    ("issues-folder-db", "label-issues --db {folder} --project tiny", "is a folder"),
    ("issues-empty-db", "label-issues --db {empty} --project tiny", "is empty"),
    ("issues-other-sqlite", "label-issues --db {other} --project tiny", "not an rlscore"),
    ("issues-unknown-project", "label-issues --db {db} --project nope", "nope"),
    ("issues-no-labels", "label-issues --db {db} --project tiny", "has no label yet"),
    ("issues-no-project", "label-issues --db {db}", "--project"),
    ("issues-zero-top", "label-issues --db {db} --project tiny --top 0", "--top"),
    ("issues-bad-top", "label-issues --db {db} --project tiny --top many", "many"),
    (
        "issues-out-missing-folder",
        "label-issues --db {db} --project tiny --out {missing_dir_file}",
        "does not exist",
    ),
    # -- simulate ------------------------------------------------------------------------
    ("simulate-missing-data", "simulate --data {missing} --quiet", "neither a sample"),
    ("simulate-folder-data", "simulate --data {folder} --quiet", "folder"),
    ("simulate-empty-data", "simulate --data {empty} --quiet", "empty"),
    ("simulate-text-data", "simulate --data {text} --quiet", "notes.txt"),
    (
        "simulate-out-missing-folder",
        "simulate --data two_moons --queries 2 --quiet --out {missing_dir_file}",
        "does not exist",
    ),
    (
        "simulate-out-folder",
        "simulate --data two_moons --queries 2 --quiet --out {folder}",
        "is a folder",
    ),
    ("simulate-bad-kernel", "simulate --data two_moons --kernel heat --queries 2 --quiet", "heat"),
    ("simulate-zero-sigma", "simulate --data two_moons --sigma 0 --queries 2 --quiet", "sigma"),
    ("simulate-negative-lam", "simulate --data two_moons --lam -1 --queries 2 --quiet", "lam"),
    ("simulate-bad-strategy", "simulate --data two_moons --strategy magic", "magic"),
    ("simulate-bad-queries", "simulate --data two_moons --queries many", "many"),
    (
        "simulate-validation-fraction",
        "simulate --data {csv} --validation 1.5 --queries 2 --quiet",
        "validation",
    ),
    (
        "simulate-validation-missing",
        "simulate --data {csv} --validation {missing} --queries 2 --quiet",
        "validation",
    ),
    (
        "simulate-von-neumann-t",
        "simulate --data two_moons --kernel von_neumann --graph-t 5 --queries 2 --quiet",
        "1/ρ(B)",
    ),
    # -- an unreachable PostgreSQL server (a password in the URL is never echoed) -------------
    ("labels-pg", "labels --db {pg}", "cannot connect"),
    ("labels-pg-project", "labels --db {pg} --project tiny", "cannot connect"),
    ("settings-pg", "settings --db {pg} --project tiny", "cannot connect"),
    ("settings-pg-set", "settings --db {pg} --project tiny --set sigma=2", "cannot connect"),
    ("agreement-pg", "agreement --db {pg} --project tiny", "cannot connect"),
    ("negatives-pg", "negatives --db {pg} --project tiny", "cannot connect"),
    ("labels-pg-bad-port", "labels --db postgresql://ada:s3cret-pw@127.0.0.1:http/x", "port"),
    # -- the dispatcher --------------------------------------------------------------------
    ("unknown-command", "relabel --db {db}", "unknown command"),
    ("samples-arguments", "samples --now", "takes no arguments"),
]


def _environment(**changes: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "RLSCORE_DB"}
    env.update(changes)
    return env


def _run_all(commands: dict[str, list[str]]) -> dict[str, subprocess.CompletedProcess]:
    """``python -m rlscore …`` for every command line at once; the finished processes."""
    env = _environment()
    started = {
        key: subprocess.Popen(
            [sys.executable, "-m", "rlscore", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for key, args in commands.items()
    }
    done = {}
    for key, proc in started.items():
        out, err = proc.communicate(timeout=900)
        done[key] = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    return done


def _in_process(args: list[str], capsys, monkeypatch) -> subprocess.CompletedProcess:
    """What ``python -m rlscore args`` does, run in this process."""
    monkeypatch.delenv("RLSCORE_DB", raising=False)
    capsys.readouterr()
    code = cli_main(args)
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, captured.out, captured.err)


def _args(command: str, files: dict[str, Path]) -> list[str]:
    return [part.format(**{k: str(v) for k, v in files.items()}) for part in command.split()]


def _assert_one_error(proc: subprocess.CompletedProcess, words: str) -> str:
    """Exit status 2, one ``error:`` line naming ``words``, no traceback; returns the line."""
    everything = proc.stdout + proc.stderr
    assert "Traceback" not in everything, everything
    errors = [line for line in proc.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1, proc.stderr
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert words in errors[0], errors[0]
    assert SECRET not in everything
    return errors[0]


@pytest.mark.parametrize(("command", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_invocation_is_one_error_line_and_changes_no_file(
    files, command, words, capsys, monkeypatch
):
    before = _tree(files["root"])
    _assert_one_error(_in_process(_args(command, files), capsys, monkeypatch), words)
    assert _tree(files["root"]) == before  # same bytes, nothing created


#: the failures issue 27 found ending in a traceback or changing a file, as subprocesses
SUBPROCESS_CASES = [
    "labels-pg-project",
    "labels-output-missing-folder",
    "simulate-out-missing-folder",
    "labels-text-db",
    "settings-text-db",
    "agreement-text-db",
    "negatives-text-db",
    "labels-empty-db",
    "settings-missing-db",
    "settings-missing-db-set",
    "simulate-von-neumann-t",
]


@pytest.fixture(scope="module")
def subprocess_runs(files) -> tuple[dict, dict, dict]:
    """(the cases' results, the folder's files before, after) for :data:`SUBPROCESS_CASES`."""
    commands = {c[0]: _args(c[1], files) for c in CASES if c[0] in SUBPROCESS_CASES}
    before = _tree(files["root"])
    return _run_all(commands), before, _tree(files["root"])


@pytest.mark.parametrize("case", SUBPROCESS_CASES)
def test_as_a_subprocess_too(subprocess_runs, case):
    runs, before, after = subprocess_runs
    words = next(c[2] for c in CASES if c[0] == case)
    _assert_one_error(runs[case], words)
    assert after == before


def test_the_default_database_is_named_not_created(tmp_path, capsys, monkeypatch):
    """No --db and no $RLSCORE_DB: the default file is named, and not created."""
    default = tmp_path / "share" / "rlscore" / "labels.sqlite3"
    monkeypatch.setattr("rlscore.storage.DEFAULT_DB", default)
    for command in (["labels"], ["settings", "--project", "tiny"]):
        _assert_one_error(_in_process(command, capsys, monkeypatch), str(default))
    assert list(tmp_path.rglob("*")) == []


def test_an_empty_file_named_by_the_environment_stays_empty(files, capsys, monkeypatch):
    before = _tree(files["root"])
    monkeypatch.setenv("RLSCORE_DB", str(files["empty"]))
    capsys.readouterr()
    code = cli_main(["labels"])
    err = capsys.readouterr().err
    _assert_one_error(subprocess.CompletedProcess([], code, "", err), "is empty")
    assert _tree(files["root"]) == before


def test_an_unreachable_server_is_named_by_host_and_port(files, capsys, monkeypatch):
    port = files["pg"].rsplit(":", 1)[1].split("/")[0]
    proc = _in_process(["labels", "--db", files["pg"]], capsys, monkeypatch)
    assert f"127.0.0.1:{port}" in _assert_one_error(proc, "cannot connect")


def test_a_missing_postgresql_database_is_one_line(pg_cluster, capsys, monkeypatch):
    url = pg_cluster.url("no_such_database_here")
    proc = _in_process(["labels", "--db", url], capsys, monkeypatch)
    line = _assert_one_error(proc, "no_such_database_here")
    assert "cannot connect" in line


def test_a_good_invocation_still_works_and_reads_without_writing(
    files, tmp_path, capsys, monkeypatch
):
    """The checks refuse only what they should: the real database is listed, a project's
    labels are written where asked, and the database file's bytes stay the same."""
    before = files["db"].read_bytes()
    proc = _in_process(["labels", "--db", str(files["db"])], capsys, monkeypatch)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["tiny\t0 labeled of 12"]
    out = tmp_path / "tiny.csv"
    args = ["labels", "--db", str(files["db"]), "--project", "tiny", "--output", str(out)]
    proc = _in_process(args, capsys, monkeypatch)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().splitlines()[0].startswith("point_id,index,label")
    assert files["db"].read_bytes() == before


def test_a_reader_that_stops_early_ends_the_command_quietly():
    """``python -m rlscore labels … | head -1``: the pipe closes under a command still writing.
    It printed ``error: [Errno 32] Broken pipe`` and exited 2; it now stops without a word,
    with Python's own status for a broken pipe (1)."""
    code = (
        "from rlscore.cli.io.errors import run_command\n"
        "def main(argv):\n"
        "    for k in range(200_000):\n"
        "        print(f'row {k}')\n"
        "raise SystemExit(run_command(main, []))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout.readline() == b"row 0\n"
    proc.stdout.close()  # what head does after its line
    assert proc.wait(timeout=60) == 1
    assert proc.stderr.read() == b""
