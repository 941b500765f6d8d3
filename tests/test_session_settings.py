"""A project's settings in the label database: validated, shared, read back after a reload,
and the same from Python, the command line and the app."""

from __future__ import annotations

import json

import pytest

from rlscore.cli import main as cli
from rlscore.sessions.settings import (
    SETTING_KEYS,
    default_settings,
    project_settings,
    save_project_settings,
)
from rlscore.storage import UnknownProjectError, open_store


def test_defaults_come_from_the_project_meta(store):
    project = store.load_project("moons")
    s = project_settings(store, "moons")
    assert set(s) == set(SETTING_KEYS)
    assert s["sigma"] == float(project.meta.get("sigma") or 1.0)
    assert s["strategy"] == "arls" and s["budget"] == 0 and s["lam_auto"] is False


def test_saved_settings_are_read_back_by_another_connection(store):
    save_project_settings(store, "moons", {"strategy": "uncertainty", "sigma": 0.7})
    save_project_settings(store, "moons", {"lam_auto": True, "budget": 30})
    with open_store(store.path) as other:  # another tab's server, or a restart
        s = project_settings(other, "moons")
    assert (s["strategy"], s["sigma"], s["lam_auto"], s["budget"]) == ("uncertainty", 0.7, True, 30)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"strategy": "best"}, "strategy 'best' is unknown"),
        ({"kernel": "cosine"}, "kernel 'cosine' is unknown"),
        ({"sigma": 0}, "sigma must be a positive number"),
        ({"lam": float("nan")}, "lam must be a positive number"),
        ({"lam": "0.1"}, "lam must be a positive number"),
        ({"lam_auto": "yes"}, "lam_auto must be true or false"),
        ({"class_weight": "heavy"}, "class_weight must be"),
        ({"budget": -1}, "budget must be a whole number"),
        ({"budget": 2.5}, "budget must be a whole number"),
    ],
)
def test_invalid_settings_are_refused_and_nothing_is_saved(store, change, message):
    with pytest.raises(ValueError, match=message):
        save_project_settings(store, "moons", change)
    assert store.load_settings("moons") is None


def test_a_saved_value_that_no_longer_validates_falls_back_and_says_so(store):
    store.save_settings("moons", {"strategy": "retired-strategy", "sigma": 2.5})
    s = project_settings(store, "moons")
    assert s["strategy"] == "arls" and s["sigma"] == 2.5
    assert "strategy" in s["ignored"]


def test_unknown_project(store):
    with pytest.raises(UnknownProjectError):
        project_settings(store, "nope")


def test_a_pool_too_large_for_arls_defaults_to_a_strategy_that_fits():
    assert default_settings(200, {})["strategy"] == "arls"
    assert default_settings(2_000_000, {})["strategy"] in ("uncertainty", "random")


def test_the_command_line_shows_and_changes_settings(store, capsys):
    db = str(store.path)
    assert cli(["settings", "--db", db, "--project", "moons", "--set", "sigma=1.25",
                "--set", "strategy=entropy", "--set", "lam_auto=true"]) == 0  # fmt: skip
    shown = json.loads(capsys.readouterr().out)
    assert (shown["sigma"], shown["strategy"], shown["lam_auto"]) == (1.25, "entropy", True)
    assert project_settings(store, "moons")["strategy"] == "entropy"
    assert cli(["settings", "--db", db, "--project", "moons", "--set", "sigma=-3"]) == 1
    assert "sigma must be a positive number" in capsys.readouterr().err
    assert cli(["settings", "--db", db, "--project", "moons", "--set", "colour=red"]) == 1
    assert cli(["settings", "--db", db, "--project", "nope"]) == 1
