"""The budget "until the stop rule fires" (issue 24): a project setting, validated, and the
command line's ``simulate`` reporting where the default rule stops."""

from __future__ import annotations

import json

import pytest
from support.sessions import moons_subset

from rlscore.cli import main as cli
from rlscore.sessions.state.settings import check_settings, project_settings, save_project_settings
from rlscore.sessions.stopping.stop_rule import (
    DEFAULT_STOP_RULE,
)
from rlscore.storage import open_store


def test_until_stop_is_a_project_setting(tmp_path):
    db = tmp_path / "labels.sqlite3"
    with open_store(db) as store:
        store.create_project(moons_subset())
        assert project_settings(store, "moons")["until_stop"] is False
        save_project_settings(store, "moons", {"until_stop": True})
        assert project_settings(store, "moons")["until_stop"] is True
    with pytest.raises(ValueError, match="until_stop must be true or false"):
        check_settings({"until_stop": "yes"})
    assert (
        cli(["settings", "--db", str(db), "--project", "moons", "--set", "until_stop=false"]) == 0
    )
    with open_store(db) as store:
        assert project_settings(store, "moons")["until_stop"] is False


def test_simulate_reports_the_stop_and_stops_there(tmp_path, capsys):
    out = tmp_path / "run.json"
    args = ["simulate", "--data", "two_moons", "--queries", "160", "--init", "4", "--quiet"]
    assert cli([*args, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    run = json.loads(out.read_text())["runs"][0]
    stop = run["stop"][DEFAULT_STOP_RULE]
    assert stop["step"] is not None
    assert f"seed 0: {DEFAULT_STOP_RULE} stops at {stop['n_labels']} labels" in printed
    assert f"LOO on all labels {stop['estimate']['loo_accuracy']:.3f}" in printed
    assert cli([*args, "--until-stop", "--out", str(out)]) == 0
    cut = json.loads(out.read_text())["runs"][0]
    assert len(cut["steps"]) - 1 == stop["step"] == cut["stop"][DEFAULT_STOP_RULE]["step"]
    short = ["simulate", "--data", "two_moons", "--queries", "20", "--quiet", "--out", str(out)]
    assert cli([*short, "--stop-rule", "none", "--audit-every", "5"]) == 0
    run = json.loads(out.read_text())["runs"][0]
    assert run["stop"] is None
    assert [s["step"] for s in run["steps"] if s["audit"]] == [5, 10, 15, 20]
    assert cli([*args, "--stop-rule", "none", "--until-stop"]) == 2
    assert "--until-stop needs a --stop-rule" in capsys.readouterr().err
