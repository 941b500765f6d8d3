"""Simulated labeling (rlscore.experiments.simulation.simulate) and its command line."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from rlscore.cli.commands.simulate import main
from rlscore.cli.io.progress_bar import ProgressBar
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.experiments.simulation.simulate import simulate
from rlscore.query import make_strategy
from rlscore.query.arls.thesis import ARLS

SIGMA, LAM = 1.0, 0.3


@pytest.fixture
def blobs():
    rng = np.random.default_rng(2)
    X = np.concatenate([rng.normal(-1.5, 1.0, (30, 2)), rng.normal(1.5, 1.0, (30, 2))])
    y = np.repeat([-1, 1], 30)
    Xv = np.concatenate([rng.normal(-1.5, 1.0, (40, 2)), rng.normal(1.5, 1.0, (10, 2))])
    yv = np.repeat([-1, 1], [40, 10])
    return X, y, Xv, yv


def test_records_follow_the_oracle_and_match_an_independent_classifier(blobs):
    X, y, Xv, yv = blobs
    res = simulate(
        X, y, "arls", queries=5, seeds=2, init=2, validation=(Xv, yv),
        params={"sigma": SIGMA, "lam": LAM},
    )  # fmt: skip
    assert [r.seed for r in res.runs] == [0, 1]
    for run in res.runs:
        assert len(run.steps) == 6 and len(run.init) == 2
        queried = [s.index for s in run.steps[1:]]
        assert len(set(queried + run.init)) == 7
        for s in run.steps[1:]:
            assert s.label == y[s.index] and s.seconds > 0
            assert s.score is not None and s.score >= 0
        assert [s.n_labels for s in run.steps] == [2, 3, 4, 5, 6, 7]
        labeled = run.init + queried
        clf = RLSClassifier(sigma=SIGMA, lam=LAM).fit(X[labeled], y[labeled])
        wrong = clf.predict(Xv) != yv
        last = run.steps[-1]
        assert last.validation_error == pytest.approx(wrong.mean())
        per_class = (wrong[yv == -1].mean() + wrong[yv == 1].mean()) / 2
        assert last.balanced_error == pytest.approx(per_class)
    mean, sd = res.curve("validation_error")
    errors = np.array([[s.validation_error for s in r.steps] for r in res.runs])
    np.testing.assert_allclose(mean, errors.mean(0))
    np.testing.assert_allclose(sd, errors.std(0))
    json.dumps(res.to_dict())  # serialisable


def test_progress_callback_counts_every_query(blobs):
    X, y, _, _ = blobs
    calls = []
    simulate(X, y, "uncertainty", queries=4, seeds=3, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(k, 12) for k in range(1, 13)]


def test_random_runs_depend_on_the_seed_only(blobs):
    X, y, _, _ = blobs
    a = simulate(X, y, "random", queries=6, seeds=[3, 4])
    b = simulate(X, y, "random", queries=6, seeds=[3])
    idx = [[s.index for s in r.steps[1:]] for r in a.runs]
    assert idx[0] != idx[1]
    assert idx[0] == [s.index for s in b.runs[0].steps[1:]]


def test_validation_fraction_is_held_out_of_the_pool(blobs):
    X, y, _, _ = blobs
    res = simulate(X, y, ARLS(sigma=SIGMA, lam=LAM), queries=3, validation=0.25)
    assert res.n_pool == 44 and "16 points held out (0.25)" in res.validation  # 8 per class


def test_transductive_error_counts_the_unlabeled_points_only(blobs):
    """validation=None: the error of the pool points not labeled yet
    (rlscore.core.evaluation.validation_error),
    checked against RLS refitted on the labels; none left to measure once all are labeled."""
    X, y, _, _ = blobs
    idx = [0, 1, 2, 3, 30, 31, 32, 33]
    Xp, yp = X[idx], y[idx]
    res = simulate(Xp, yp, "arls", queries=20, init=3, params={"lam": 0.01})
    run = res.runs[0]
    assert len(run.steps) == 6  # 3 initial labels + the 5 remaining points
    last = run.steps[-1]
    assert last.validation_error is None and last.balanced_error is None
    assert res.validation == "the unlabeled pool points (transductive)"
    checked = 0
    for step in run.steps[:-1]:
        labeled = run.init + [s.index for s in run.steps[1 : step.step + 1]]
        if len(set(yp[labeled])) < 2:
            continue
        pred = RLSClassifier(sigma=1.0, lam=0.01).fit(Xp[labeled], yp[labeled]).predict(Xp)
        rest = np.setdiff1d(np.arange(len(idx)), labeled)
        wrong = pred[rest] != yp[rest]
        assert step.validation_error == pytest.approx(wrong.mean())
        per_class = [wrong[yp[rest] == c].mean() for c in np.unique(yp[rest])]
        assert step.balanced_error == pytest.approx(np.mean(per_class))
        checked += 1
    assert checked >= 3
    mean, _ = res.curve("validation_error")
    assert np.isnan(mean[-1])  # no value at the last step


def test_classes_are_ordered_by_the_projects_rule():
    """One function orders classes for projects and simulations (numbers before text)."""
    from importlib import import_module

    from rlscore.data.projects.class_labels import sorted_values

    assert import_module("rlscore.experiments.simulation.simulate").sorted_values is sorted_values
    X = np.arange(8.0).reshape(4, 2)
    res = simulate(X, np.array(["b", "a", "b", "a"], dtype=object), "random", queries=1)
    assert res.classes == ["a", "b"]
    res = simulate(X, np.array([2, -1, 2, -1]), "random", queries=1)
    assert res.classes == [-1, 2]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"queries": 0}, "queries must be an integer ≥ 1"),
        ({"queries": 3, "init": 60}, "init=60 labels leave no point"),
        ({"queries": 3, "seeds": 0}, "seeds must be an integer ≥ 1"),
        ({"queries": 3, "validation": 1.5}, "validation fraction must be between 0 and 1"),
        ({"queries": 3, "validation": (np.zeros((4, 3)), [1, 1, -1, -1])}, "X_val has 3 features"),
        ({"queries": 3, "validation": "half"}, "validation must be None, a fraction"),
        ({"queries": 3, "classes": [-1, 2]}, r"labels \[1\] of y are not among the classes"),
    ],
)
def test_bad_arguments_are_named(blobs, kwargs, match):
    X, y, _, _ = blobs
    with pytest.raises(ValueError, match=match):
        simulate(X, y, "arls", **kwargs)


def test_graph_kernels_measure_on_the_pool_only(blobs, capsys):
    X, y, Xv, yv = blobs
    with pytest.raises(ValueError, match="cannot predict points outside the pool"):
        simulate(X, y, "arls", queries=2, validation=(Xv, yv), params={"kernel": "graph"})
    rc = main(["--data", "spheres", "--kernel", "graph", "--queries", "2", "--quiet"])
    assert rc == 0
    captured = capsys.readouterr()
    assert "measuring the error on the pool instead" in captured.err
    assert "error on the unlabeled pool points (transductive)" in captured.out


def test_bad_strategy_and_single_class(blobs):
    X, y, _, _ = blobs
    with pytest.raises(ValueError, match="unknown strategy 'best'"):
        simulate(X, y, "best", queries=2)
    with pytest.raises(ValueError, match="only one class"):
        simulate(X, np.ones(60), "arls", queries=2)


def test_progress_bar_writes_to_its_stream():
    class Log:
        text = ""

        def write(self, s):
            self.text += s

        def flush(self):
            pass

        def isatty(self):
            return False

    log = Log()
    bar = ProgressBar("demo", stream=log)
    for k in range(1, 21):
        bar(k, 20)
    lines = log.text.splitlines()
    assert len(lines) == 11 and lines[-1].startswith("demo [" + "#" * 30 + "] 20/20")


# -- command line -------------------------------------------------------------------------
def test_cli_on_a_sample_writes_json(tmp_path, capsys):
    out = tmp_path / "run.json"
    rc = main(["--data", "spheres", "--strategy", "arls", "--sigma", "1.7", "--lam", "0.5",
               "--queries", "3", "--seeds", "1", "--quiet", "--out", str(out)])  # fmt: skip
    assert rc == 0
    record = json.loads(out.read_text())
    assert record["data"] == "spheres" and record["params"]["sigma"] == 1.7
    assert record["validation"] == "1200 separate points"
    assert len(record["runs"][0]["steps"]) == 4
    assert "queries" in capsys.readouterr().out


@pytest.mark.parametrize("strategy", ["arls-lowrank", "aopt-klr-lowrank"])
def test_cli_takes_the_low_rank_options(tmp_path, strategy):
    out = tmp_path / "run.json"
    refine = ["--refine", "3"] if strategy == "arls-lowrank" else []  # ARLS's re-scoring only
    rc = main(["--data", "spheres", "--strategy", strategy, "--n-landmarks", "30",
               "--risk-sample", "300", *refine, "--candidates", "40", "--queries", "2",
               "--quiet", "--out", str(out)])  # fmt: skip
    assert rc == 0
    params = json.loads(out.read_text())["params"]
    taken = make_strategy(strategy, **params).get_params()
    assert taken["n_landmarks"] == 30 and taken["candidates"] == 40
    if strategy == "arls-lowrank":
        assert (taken["risk_sample"], taken["refine"]) == (300, 3)
    else:
        assert taken["risk_points"] == 300


def test_cli_on_a_csv_with_a_validation_file(tmp_path, blobs):
    X, y, Xv, yv = blobs
    for name, A, labels in (("p.csv", X, y), ("v.csv", Xv, yv)):
        table = pd.DataFrame({"a": A[:, 0], "b": A[:, 1], "label": labels})
        table.to_csv(tmp_path / name, index=False)
    out = tmp_path / "r.json"
    rc = main(["--data", str(tmp_path / "p.csv"), "--strategy", "entropy", "--queries", "4",
               "--seeds", "2", "--init", "2", "--validation", str(tmp_path / "v.csv"),
               "--quiet", "--out", str(out)])  # fmt: skip
    assert rc == 0
    record = json.loads(out.read_text())
    assert record["validation"] == "50 separate points" and len(record["runs"]) == 2


@pytest.mark.parametrize(
    ("content", "extra", "match"),
    [
        ("a,b\n1,2\n3,4\n", [], "has no 'label' column"),
        ("a,label\n1,x\nz,y\n", [], "non-numeric|numeric"),
        ("a,label\n1,1\n2,-1\n3,1\n", ["--validation", "2.0"], "between 0 and 1"),
        ("a,label\n1,1\n2,-1\n3,1\n", ["--validation", "missing.csv"], "neither a fraction"),
    ],
)
def test_cli_reports_bad_input(tmp_path, capsys, content, extra, match):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    rc = main(["--data", str(path), "--queries", "2", "--quiet", *extra])
    assert rc == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and re.search(match, err)


def test_cli_unknown_data_and_strategy(capsys):
    assert main(["--data", "no_such_thing", "--queries", "2"]) == 2
    assert "neither a sample" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["--data", "spheres", "--strategy", "magic"])
    assert exc.value.code == 2


def test_python_dash_m_entry_point(tmp_path):
    out = tmp_path / "run.json"
    proc = subprocess.run(
        [sys.executable, "-m", "rlscore", "simulate", "--data", "two_moons", "--strategy",
         "arls-weighted", "--queries", "2", "--out", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "2/2 queries" in proc.stderr  # the progress bar
    assert json.loads(out.read_text())["strategy"] == "arls-weighted"


@pytest.mark.parametrize("strategy", ["arls-focused", "random", "uncertainty"])
def test_cli_records_the_headline_and_the_calibrated_risk_at_every_step(tmp_path, strategy):
    # issue 33 item 6: every step of every strategy records the Label page's figures
    out = tmp_path / "run.json"
    rc = main(["--data", "two_moons", "--strategy", strategy, "--queries", "25", "--seeds", "1",
               "--out", str(out), "--quiet"])  # fmt: skip
    assert rc == 0
    steps = json.loads(out.read_text())["runs"][0]["steps"]
    assert all({"accuracy_estimate", "accuracy_interval", "expected_error_rate"} <= set(s)
               for s in steps)  # fmt: skip
    shown = [s for s in steps if s["accuracy_estimate"] is not None]
    for s in shown:
        low, high = s["accuracy_interval"]
        assert 0.0 <= low <= s["accuracy_estimate"] <= high <= 1.0
    rates = [s["expected_error_rate"] for s in steps]
    assert rates[-1] is not None and all(0.0 <= r <= 1.0 for r in rates if r is not None)
    checks = sum(s["check"] for s in steps)
    if strategy == "random":  # every query is a uniform draw, and so are the initial labels
        assert checks == len(steps) - 1  # estimates from the first fit on (3 labels, 2 classes)
        first = steps.index(shown[0])
        assert shown == steps[first:] and steps[first]["n_labels"] <= 5
    if strategy == "uncertainty":  # a score picks every query: no check, no estimate after
        assert checks == 0


@pytest.mark.parametrize("n", [1, 2])
def test_stop_summary_counts_in_words(n):
    """'1 random check', '1 label': the summary's counts follow the noun's number."""
    from types import SimpleNamespace

    from rlscore.cli.commands.simulate import stop_summary

    estimate = {
        "n_labels": n,
        "accuracy_estimate": 1.0,
        "accuracy_interval": [0.5, 1.0],
        "accuracy_checks": n,
        "loo_accuracy": None,
        "audit_accuracy": 1.0,
        "audit_interval": [0.5, 1.0],
        "audit_labels": n,
        "truth_accuracy": None,
    }
    stops = [
        {"step": None, "n_labels": None, "estimate": estimate},
        {"step": n, "n_labels": n, "estimate": estimate},
    ]
    runs = [SimpleNamespace(seed=0, stop={"settled": stop}) for stop in stops]
    text = stop_summary(SimpleNamespace(runs=runs))
    noun = {"label": "label" if n == 1 else "labels"}
    noun["check"] = "random check" if n == 1 else "random checks"
    assert f"did not fire within {n} {noun['label']}," in text
    assert f"stops at {n} {noun['label']} (query {n})" in text
    assert f"({n} {noun['check']})" in text
    assert f"({n} {noun['label']})" in text
    assert not re.search(r"\b1 (labels|random checks)\b", text), text


@pytest.mark.parametrize(
    "options",
    [
        ["--truth", "kind"],
        ["--text-column", "text"],
        ["--feature-column", "x1", "--standardize", "yes"],
    ],
)
def test_file_options_with_a_sample_are_refused_not_ignored(capsys, options):
    """A sample's features are made: the options that make a file's were ignored without a
    word (``--truth nope`` ran on the sample's own truth)."""
    assert main(["--data", "two_moons", "--queries", "2", "--quiet", *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "two_moons" in err
    for flag in options[::2]:
        assert flag in err


@pytest.mark.parametrize(
    "strategy, options",
    [
        ("arls", ["--candidates", "40"]),
        ("aopt-klr-lowrank", ["--refine", "3"]),
        ("muq-klr", ["--candidates", "40", "--mode", "fast"]),
        ("aopt-klr", ["--unclipped"]),
        ("lgc", ["--sigma", "2"]),
    ],
)
def test_options_the_strategy_does_not_take_are_refused_not_ignored(capsys, strategy, options):
    """The strategies drop the parameters they do not take: ``--candidates 40`` with ``arls``
    ran every candidate without a word."""
    assert main(["--data", "two_moons", "--strategy", strategy, "--queries", "2", "--quiet",
                 *options]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert err.startswith("error: ") and f"--strategy {strategy}" in err
    for flag in (o for o in options if o.startswith("--")):
        assert flag in err


def test_the_options_a_strategy_takes_reach_it(tmp_path):
    out = tmp_path / "run.json"
    rc = main(["--data", "two_moons", "--strategy", "arls", "--class-weight", "none",
               "--unclipped", "--queries", "2", "--quiet", "--out", str(out)])  # fmt: skip
    assert rc == 0
    params = json.loads(out.read_text())["params"]
    assert params["class_weight"] is None and params["clip"] is False
