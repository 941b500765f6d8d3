"""``python -m rlscore labels``: list projects, print labels as CSV or JSON."""

import io
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from rlscore.cli.commands.labels import main
from rlscore.data.projects.project import Project
from rlscore.storage import Event, open_store


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "labels.sqlite3"
    with open_store(path) as s:
        s.create_project(
            Project(
                "pets", np.arange(8.0).reshape(4, 2), ["w", "h"], list("abcd"), None, ["cat", "dog"]
            )
        )
        s.create_project(Project("empty", np.eye(2), ["x", "y"], ["p", "q"], None, [0, 1]))
        s.append_event("pets", Event("label", 2, "dog", "ann", seconds=1.25, params={"lam": 0.5}))
        s.append_event("pets", Event("label", 0, "cat", "bob"))
        s.append_event("pets", Event("label", 3, "cat", "bob"))
        s.append_event("pets", Event("undo"))  # reverts point 3
        s.append_event("pets", Event("label", 2, "cat", "ann"))  # relabel
    return path


def test_list_projects(db, capsys):
    assert main(["--db", str(db)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["empty\t0 labeled of 2", "pets\t2 labeled of 4"]


def test_csv(db, capsys):
    assert main(["--db", str(db), "--project", "pets"]) == 0
    df = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert df["point_id"].tolist() == ["a", "c"]  # in the order of the label now in effect
    assert df["label"].tolist() == ["cat", "cat"]
    assert df["annotator"].tolist() == ["bob", "ann"]
    assert df[["w", "h"]].to_numpy().tolist() == [[0.0, 1.0], [4.0, 5.0]]


def test_json_without_features(db, capsys):
    assert main(["--db", str(db), "--project", "pets", "--format", "json", "--no-features"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [(r["point_id"], r["index"], r["label"]) for r in records] == [
        ("a", 0, "cat"),
        ("c", 2, "cat"),
    ]
    assert "features" not in records[0]


def test_empty_project_and_errors(db, tmp_path, capsys):
    assert main(["--db", str(db), "--project", "empty"]) == 0
    assert capsys.readouterr().out.startswith("point_id,index,label")
    assert main(["--db", str(db), "--project", "nope"]) == 2
    assert "no project named 'nope'" in capsys.readouterr().err
    assert main(["--db", str(tmp_path / "missing.sqlite3")]) == 2
    assert "no label database" in capsys.readouterr().err
    assert not (tmp_path / "missing.sqlite3").exists()
    assert main(["--db", str(db), "--format", "xml"]) == 2  # argparse's usage error


def test_db_from_environment(db, monkeypatch, capsys):
    monkeypatch.setenv("RLSCORE_DB", str(db))
    assert main(["--project", "pets", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2


def test_python_dash_m(db):
    proc = subprocess.run(
        [sys.executable, "-m", "rlscore", "labels", "--db", str(db), "--project", "pets"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("point_id,index,label,annotator,timestamp")
    assert len(proc.stdout.splitlines()) == 3


@pytest.mark.parametrize("overlap", [1, 3])
@pytest.mark.parametrize("as_user", [False, True])
def test_the_final_label_follows_the_projects_rule(tmp_path, capsys, overlap, as_user):
    """Three annotators on point 0: two say "cat", the latest says "dog". With overlap the
    project's final label is the majority's, else the latest; the export's ``label`` and
    ``decided_by`` say which (it printed the latest's "dog" as decided by "majority")."""
    from collections import Counter

    from rlscore.sessions import save_project_settings

    path = tmp_path / "team.sqlite3"
    given = [("ada", "cat"), ("bob", "cat"), ("cy", "dog")]
    with open_store(path) as s:
        s.create_project(
            Project("pets", np.arange(8.0).reshape(4, 2), ["w", "h"], list("abcd"), None,
                    ["cat", "dog"])
        )  # fmt: skip
        save_project_settings(s, "pets", {"overlap": overlap}, checked=False)
        for who, label in given:
            s.append_event("pets", Event("label", 0, label, who))
    argv = ["--db", str(path), "--project", "pets", "--format", "json", "--no-estimate"]
    assert main(argv + (["--as", "owner@example.org"] if as_user else [])) == 0
    (row,) = json.loads(capsys.readouterr().out)
    majority = Counter(label for _, label in given).most_common(1)[0][0]
    rule, want = ("majority", majority) if overlap > 1 else ("latest", given[-1][1])
    assert (row["label"], row["decided_by"], row["n_annotators"]) == (want, rule, 3)


def test_parquet_is_refused_on_a_terminal_and_written_to_a_pipe(db):
    """Parquet without --output went to the terminal as binary; to a pipe it is still written."""
    import os
    import pty

    command = [sys.executable, "-m", "rlscore", "labels", "--db", str(db), "--project", "pets",
               "--format", "parquet"]  # fmt: skip
    leader, follower = pty.openpty()
    proc = subprocess.run(command, stdout=follower, stderr=subprocess.PIPE, timeout=120)
    os.close(follower)
    os.close(leader)
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith("error: Parquet is a binary format")
    piped = subprocess.run(command, capture_output=True, timeout=120, check=True)
    assert pd.read_parquet(io.BytesIO(piped.stdout))["point_id"].tolist() == ["a", "c"]
