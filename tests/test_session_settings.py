"""A project's settings in the label database: validated, shared, read back after a reload,
and the same from Python, the command line and the app."""

from __future__ import annotations

import json

import numpy as np
import pytest

import rlscore.core.conventions.memory_budget
from rlscore.cli import main as cli
from rlscore.sessions import LabelingSession
from rlscore.sessions.state.engine import make_engine
from rlscore.sessions.state.settings import (
    LOW_RANK_DEFAULTS,
    LOW_RANK_MIN_POOL,
    REFINE_MAX_POOL,
    SETTING_KEYS,
    check_settings,
    default_settings,
    engine_settings,
    project_settings,
    save_project_settings,
)
from rlscore.sessions.team.overlap import Overlap
from rlscore.sessions.team.permissions import PermissionDeniedError, add_member
from rlscore.storage import UnknownProjectError, open_store


def test_defaults_come_from_the_project_meta(store):
    project = store.load_project("moons")
    s = project_settings(store, "moons")
    assert set(s) == set(SETTING_KEYS)
    assert s["sigma"] == float(project.meta.get("sigma") or 1.0)
    assert s["strategy"] == "arls-focused" and s["budget"] == 0 and s["lam_auto"] is False


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
        ({"n_landmarks": 0}, "n_landmarks must be a whole number"),
        ({"n_landmarks": 10**6}, "n_landmarks must be a whole number"),
        ({"landmarks": "best"}, "landmarks 'best' is unknown"),
        ({"candidates": -5}, "candidates must be a whole number"),
        ({"risk_sample": 0.5}, "risk_sample must be a whole number"),
        # what the engine refuses, and a λ the app's sliders cannot show
        ({"sigma": 1e-300}, r"sigma = 1e-300 is too small: .* use σ ≥ 1e-150"),
        ({"lam": 1e10}, r"lam must be within 0.0001 … 1000 .*, got 1e\+10"),
        ({"lam": 1e-300}, r"lam must be within 0.0001 … 1000 .*, got 1e-300"),
        ({"lam": 9.9e-5}, r"lam must be within 0.0001 … 1000"),
    ],
)
def test_invalid_settings_are_refused_and_nothing_is_saved(store, change, message):
    with pytest.raises(ValueError, match=message):
        save_project_settings(store, "moons", change)
    assert store.load_settings("moons") is None


def test_a_saved_value_that_no_longer_validates_falls_back_and_says_so(store):
    store.save_settings("moons", {"strategy": "retired-strategy", "sigma": 2.5})
    s = project_settings(store, "moons")
    assert s["strategy"] == "arls-focused" and s["sigma"] == 2.5
    assert "strategy" in s["ignored"]


def test_unknown_project(store):
    with pytest.raises(UnknownProjectError):
        project_settings(store, "nope")


def test_a_large_pool_defaults_to_the_low_rank_form_with_subsampling():
    assert default_settings(200, {})["strategy"] == "arls-focused"
    small = default_settings(LOW_RANK_MIN_POOL, {})
    assert small["strategy"] == "arls-focused" and small["candidates"] == small["risk_sample"] == 0
    large = default_settings(LOW_RANK_MIN_POOL + 1, {})
    assert large["strategy"] == "arls-lowrank"
    assert {k: large[k] for k in LOW_RANK_DEFAULTS} == LOW_RANK_DEFAULTS
    engine = make_engine(large, large["lam"])
    assert engine.get_params()["n_landmarks"] == 500  # the defaults reach the strategy
    assert default_settings(2_000_000, {})["strategy"] == "arls-lowrank"


def test_the_exact_re_score_is_on_by_default_up_to_its_pool_size():
    assert default_settings(LOW_RANK_MIN_POOL + 1, {})["refine"] == 10
    assert default_settings(REFINE_MAX_POOL, {})["refine"] == 10
    assert default_settings(REFINE_MAX_POOL + 1, {})["refine"] == 0
    assert default_settings(LOW_RANK_MIN_POOL, {})["refine"] == 0  # the exact kernel: no use
    with pytest.raises(ValueError, match="refine must be a whole number ≥ 0"):
        check_settings({"refine": -1})


def test_a_pool_no_arls_form_fits_defaults_to_a_baseline(monkeypatch):
    # 2 GB free: the n × 500 features of 2 000 000 points (8 GB) do not fit either
    monkeypatch.setattr(
        rlscore.core.conventions.memory_budget, "available_memory_bytes", lambda: 2 * 10**9
    )
    assert default_settings(2_000_000, {})["strategy"] in ("uncertainty", "random")


def test_low_rank_settings_reach_the_strategy_as_parameters(store):
    save_project_settings(
        store, "moons", {"strategy": "arls-lowrank", "n_landmarks": 40, "landmarks": "uniform",
                         "candidates": 30, "risk_sample": 0, "refine": 5}
    )  # fmt: skip
    s = project_settings(store, "moons")
    assert engine_settings(s) == {
        "n_landmarks": 40, "landmarks": "uniform", "candidates": 30, "risk_sample": None,
        "refine": 5, "graph_t": None, "risk_points": None,
    }  # fmt: skip
    engine = make_engine({**s, **engine_settings(s)}, s["lam"])
    params = engine.get_params()
    assert (params["n_landmarks"], params["candidates"], params["risk_sample"]) == (40, 30, None)
    assert params["refine"] == 5


def test_the_risk_sample_is_the_klr_strategies_risk_points(store):
    save_project_settings(
        store, "moons", {"strategy": "aopt-klr-lowrank", "n_landmarks": 30, "candidates": 20,
                         "risk_sample": 50}
    )  # fmt: skip
    s = project_settings(store, "moons")
    engine = make_engine({**s, **engine_settings(s)}, s["lam"])
    params = engine.get_params()
    assert (params["n_landmarks"], params["candidates"], params["risk_points"]) == (30, 20, 50)


def test_the_command_line_shows_and_changes_settings(store, capsys):
    db = str(store.path)
    assert cli(["settings", "--db", db, "--project", "moons", "--set", "sigma=1.25",
                "--set", "strategy=entropy", "--set", "lam_auto=true"]) == 0  # fmt: skip
    shown = json.loads(capsys.readouterr().out)
    assert (shown["sigma"], shown["strategy"], shown["lam_auto"]) == (1.25, "entropy", True)
    assert project_settings(store, "moons")["strategy"] == "entropy"
    assert cli(["settings", "--db", db, "--project", "moons", "--set", "sigma=-3"]) == 2
    assert "sigma must be a positive number" in capsys.readouterr().err
    assert cli(["settings", "--db", db, "--project", "moons", "--set", "colour=red"]) == 2
    assert cli(["settings", "--db", db, "--project", "nope"]) == 2


def test_a_session_from_the_settings_labels_with_what_the_command_line_shows(store, capsys):
    """``LabelingSession.from_settings`` opens the project as the app does: a label records
    the strategy, σ, λ and class weights that ``settings`` prints (the constructor's own
    defaults, λ = 1 and no class weights, are not the project's), and the team settings
    (overlap, random checks, budget) are the saved ones."""
    db = str(store.path)
    assert cli(["settings", "--db", db, "--project", "moons", "--set", "strategy=arls",
                "--set", "lam=0.3", "--set", "class_weight=balanced", "--set", "overlap=2",
                "--set", "overlap_fraction=0.5", "--set", "budget=7"]) == 0  # fmt: skip
    shown = json.loads(capsys.readouterr().out)
    session = LabelingSession.from_settings(store, "moons", annotator="ada", snapshots=False)
    i, _ = session.query()
    session.label(i, store.load_project("moons").truth[i])
    recorded = next(e for e in store.events("moons") if e.kind == "label").params
    assert recorded == {k: shown[k] for k in ("strategy", "kernel", "sigma", "lam", "class_weight")}
    assert session.overlap == Overlap(2, 0.5)
    assert session.budget_left() == shown["budget"] - 1
    # an argument given replaces its setting
    other = LabelingSession.from_settings(store, "moons", lam=0.05, snapshots=False)
    assert other.params["lam"] == 0.05 and other.params["strategy"] == "arls"


def test_a_session_from_the_settings_is_refused_to_a_non_member(store):
    save_project_settings(store, "moons", {"lam": 0.2})
    add_member(store, "moons", "alice", "owner", None)
    with pytest.raises(PermissionDeniedError):
        LabelingSession.from_settings(store, "moons", annotator="bob", snapshots=False)
    assert LabelingSession.from_settings(store, "moons", annotator="alice").params["lam"] == 0.2


def _cli_settings(store, capsys, *assignments) -> tuple[int, str]:
    sets = [a for text in assignments for a in ("--set", text)]
    code = cli(["settings", "--db", str(store.path), "--project", "moons", *sets])
    captured = capsys.readouterr()
    return code, captured.err


def test_a_class_weight_mapping_from_the_command_line_names_the_classes_by_their_text(
    store, capsys
):
    """JSON keys are text: ``{"1": 5}`` names the class 1 of a project whose classes are
    numbers, and the project opens with class 1 weighed 5 (the engine's per-class weights)."""
    classes = store.load_project("moons").classes
    assert 1 in classes and "1" not in classes  # numeric classes
    assert _cli_settings(store, capsys, 'class_weight={"1": 5}') == (0, "")
    assert project_settings(store, "moons")["class_weight"] == {1: 5.0}
    session = LabelingSession.from_settings(store, "moons", snapshots=False)
    expected = np.where(np.asarray(classes) == 1, 5.0, 1.0)
    np.testing.assert_array_equal(session.engine._class_weight, expected)
    # the Python API keys by the project's classes too, and refuses what they do not have
    assert save_project_settings(store, "moons", {"class_weight": {"-1": 2}})["class_weight"] == {
        -1: 2.0
    }
    session.set_params(class_weight={"1": 3})
    assert session.get_params()["class_weight"] == {1: 3.0}


@pytest.mark.parametrize("weight", ['{"7": 5}', '{"1": 5, "neg": 2}', '{"1": -5}'])
def test_a_class_weight_mapping_the_project_cannot_use_is_refused_when_set(store, capsys, weight):
    code, err = _cli_settings(store, capsys, f"class_weight={weight}")
    assert code == 2
    classes = store.load_project("moons").classes
    if "-5" in weight:
        assert err == "error: class_weight[1] must be > 0, got -5\n"
    else:
        unknown = [k for k in json.loads(weight) if k not in ("1", "-1")]
        assert err == (
            f"error: class_weight names {unknown}, which are not classes of this project: "
            f"its classes are {classes}\n"
        )
    assert store.load_settings("moons") is None  # nothing saved
    with pytest.raises(ValueError, match=r"class_weight names \[7\], which are not classes"):
        save_project_settings(store, "moons", {"class_weight": {7: 5}})
    session = LabelingSession.from_settings(store, "moons", snapshots=False)
    with pytest.raises(ValueError, match=r"class_weight names \['7'\], which are not classes"):
        session.set_params(class_weight={"7": 5})
    assert session.get_params()["class_weight"] is None  # kept as it was


def test_a_stored_class_weight_naming_no_class_is_ignored_and_the_project_opens(store):
    store.save_settings("moons", {"class_weight": {"7": 5}, "lam": 0.3})
    s = project_settings(store, "moons")
    assert s["class_weight"] is None and s["lam"] == 0.3
    assert s["ignored"] == {
        "class_weight": "class_weight names ['7'], which are not classes of this project: its "
        f"classes are {store.load_project('moons').classes}"
    }
    session = LabelingSession.from_settings(store, "moons", snapshots=False)
    assert session.get_params()["class_weight"] is None


@pytest.mark.parametrize(("text", "value"), [("none", None), ("None", None), ("null", None),
                                             ("balanced", "balanced")])  # fmt: skip
def test_the_command_line_takes_the_words_its_messages_use(store, capsys, text, value):
    save_project_settings(store, "moons", {"class_weight": "balanced" if value is None else None})
    assert _cli_settings(store, capsys, f"class_weight={text}") == (0, "")
    assert project_settings(store, "moons")["class_weight"] == value
    assert _cli_settings(store, capsys, "lam_auto=True") == (0, "")
    assert project_settings(store, "moons")["lam_auto"] is True


def test_a_change_of_strategy_gives_back_every_claim_and_the_next_queries_are_the_new_ones(store):
    """Claims made by the old strategy would be shown as the new one's proposals: a change of
    strategy drops them all, and the next query of each annotator is the new strategy's."""
    save_project_settings(store, "moons", {"strategy": "arls"})
    session = LabelingSession.from_settings(store, "moons", annotator="ada", snapshots=False)
    truth = store.load_project("moons").truth
    for _ in range(4):
        i, _ = session.query(annotator="ada")
        session.label(i, truth[i], annotator="ada")
    session.query(annotator="bob")
    session.query(annotator="ada")
    save_project_settings(store, "moons", {"lam": 0.5}, user="ada")
    assert {who for who, _ in store.claims("moons").values()} == {"ada", "bob"}
    save_project_settings(store, "moons", {"strategy": "uncertainty"}, user="ada")
    assert store.claims("moons") == {}
    session.set_params(strategy="uncertainty", lam=0.5)
    first, _ = session.query(annotator="bob")
    # uncertainty sampling's pick: the smallest margin among the open points
    margins = np.abs(session.engine.decision_function()).ravel()
    margins[list(session.labels)] = np.inf
    assert margins[first] == margins.min()


def test_the_command_line_refuses_what_the_app_cannot_open_or_show(store, capsys):
    """``--set sigma=1e-300`` was accepted, then every Label page failed opening the project;
    ``lam=1e10`` sat the slider at its end. Now: one ``error:`` line, exit 2, nothing saved.
    The ends of the λ range (as a slider gives them) and a σ above the σ slider (the
    data-adaptive default can lie there) are accepted."""
    for assignment, message in [
        ("sigma=1e-300", "sigma = 1e-300 is too small: σ² underflows, use σ ≥ 1e-150"),
        ("lam=1e10", "lam must be within 0.0001 … 1000"),
        ("lam=1e-300", "lam must be within 0.0001 … 1000"),
    ]:
        code, err = _cli_settings(store, capsys, assignment)
        assert code == 2 and err.startswith(f"error: {message}") and err.count("\n") == 1
        assert store.load_settings("moons") is None
    for lam in (10**-4.0, 10**3.0):
        assert save_project_settings(store, "moons", {"lam": lam})["lam"] == lam
    assert _cli_settings(store, capsys, "sigma=250")[0] == 0
    assert project_settings(store, "moons")["sigma"] == 250.0
