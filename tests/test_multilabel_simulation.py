"""Simulated multi-label labeling (``simulate --multi-label``): the recorded metrics against a
from-scratch multi-label RLS on the same labels scored by scikit-learn, and the command line."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score, hamming_loss

from rlscore.cli.commands.simulate import main
from rlscore.core.rls.multilabel import MultiLabelRLS
from rlscore.experiments.simulation.multilabel import simulate_multilabel

CLASSES = ["a", "b", "c"]
SIGMA, LAM = 1.2, 0.5


def data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    hits = np.column_stack([X[:, 0] > 0, X[:, 1] > 0.2, X[:, 0] + X[:, 2] > 1.0])
    sets = [tuple(c for c, h in zip(CLASSES, row, strict=True) if h) for row in hits]
    return X, sets, hits.astype(int)


@pytest.mark.parametrize("strategy", ["arls", "uncertainty"])
def test_recorded_metrics_equal_a_refit_scored_by_scikit_learn(strategy):
    X, sets, Y = data()
    X_val, sets_val, Y_val = data(n=40, seed=1)
    result = simulate_multilabel(
        X, sets, CLASSES, strategy, queries=12, seeds=[3], init=2,
        validation=(X_val, sets_val), params={"sigma": SIGMA, "lam": LAM},
    )  # fmt: skip
    run = result.runs[0]
    labeled = list(run.init)
    for step in run.steps:
        if step.index is not None:
            labeled.append(step.index)
            assert step.label == list(sets[step.index])
        assert step.n_labels == len(labeled)
        model = MultiLabelRLS(sigma=SIGMA, lam=LAM).fit(X[labeled], Y[labeled])
        P = model.predict(X_val)
        assert step.micro_f1 == pytest.approx(f1_score(Y_val, P, average="micro", zero_division=0))
        assert step.macro_f1 == pytest.approx(f1_score(Y_val, P, average="macro", zero_division=0))
        assert step.hamming_loss == pytest.approx(hamming_loss(Y_val, P))


def test_on_the_pool_the_metrics_use_the_unlabeled_points_only():
    X, sets, Y = data(n=50)
    result = simulate_multilabel(
        X, sets, CLASSES, "random", queries=5, seeds=1, params={"sigma": SIGMA, "lam": LAM}
    )
    run = result.runs[0]
    labeled = [s.index for s in run.steps if s.index is not None]
    rest = np.setdiff1d(np.arange(50), labeled)
    P = MultiLabelRLS(sigma=SIGMA, lam=LAM).fit(X[labeled], Y[labeled]).predict(X[rest])
    assert run.steps[-1].hamming_loss == pytest.approx(hamming_loss(Y[rest], P))
    mean, _ = result.curve("micro_f1")
    assert mean.shape == (6,)
    with pytest.raises(ValueError, match="unknown record"):
        result.curve("validation_error")


def test_bad_input_is_refused_with_a_clear_message():
    X, sets, _ = data()
    with pytest.raises(ValueError, match="unknown class"):
        simulate_multilabel(X, [("z",)] * len(X), CLASSES, "arls", queries=1)
    with pytest.raises(ValueError, match="79 label sets for 80"):
        simulate_multilabel(X, sets[:-1], CLASSES, "arls", queries=1)
    with pytest.raises(ValueError, match="multi-label strategy"):
        simulate_multilabel(X, sets, CLASSES, "lgc", queries=1)


def pool_csv(tmp_path) -> str:
    """A 60-point pool whose ``labels`` column holds its label sets, as a CSV file."""
    X, sets, _ = data(n=60)
    df = pd.DataFrame(X, columns=["x0", "x1", "x2"]).assign(labels=["|".join(s) for s in sets])
    path = tmp_path / "pool.csv"
    df.to_csv(path, index=False)
    return str(path)


def test_command_line_records_the_metrics_per_step(tmp_path, capsys):
    path = pool_csv(tmp_path)
    out = tmp_path / "run.json"
    argv = ["--multi-label", "--data", path, "--truth", "labels", "--queries", "4"]
    argv += ["--seeds", "2", "--sigma", str(SIGMA), "--lam", str(LAM), "--quiet"]
    assert main([*argv, "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["multi_label"] is True
    assert record["classes"] == CLASSES
    assert record["strategy"] == "arls"
    for run in record["runs"]:
        assert len(run["steps"]) == 5
        for step in run["steps"]:
            assert {"micro_f1", "macro_f1", "hamming_loss"} <= set(step)
    assert "micro-F1" in capsys.readouterr().out
    assert main([*argv, "--strategy", "lgc"]) == 2
    assert "no multi-label variant" in capsys.readouterr().err


def test_command_line_options_reach_the_multi_label_strategy_or_are_refused(tmp_path, capsys):
    """``--class-weight`` was dropped for label sets without a word, and ``--candidates`` too."""
    path = pool_csv(tmp_path)
    out = tmp_path / "run.json"
    argv = ["--multi-label", "--data", path, "--truth", "labels", "--queries", "2"]
    argv += ["--sigma", str(SIGMA), "--lam", str(LAM), "--quiet"]
    assert main([*argv, "--class-weight", "balanced", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["params"]["class_weight"] == "balanced"
    assert main([*argv, "--candidates", "10"]) == 2
    err = capsys.readouterr().err
    assert "--candidates does not apply to --strategy arls --multi-label" in err


@pytest.mark.parametrize(
    "options, message",
    [
        (["--stop-rule", "stabilizing"], "--stop-rule stabilizing does not apply to --multi-label"),
        (["--stop-rule", "none", "--until-stop"], "--until-stop needs a --stop-rule"),
    ],
)
def test_single_label_stop_rules_are_refused_with_label_sets(tmp_path, capsys, options, message):
    argv = ["--multi-label", "--data", pool_csv(tmp_path), "--truth", "labels", "--queries", "2"]
    assert main([*argv, "--quiet", *options]) == 2
    assert message in capsys.readouterr().err


def test_the_set_stop_rule_is_reported_and_recorded(tmp_path, capsys):
    out = tmp_path / "run.json"
    argv = ["--multi-label", "--data", pool_csv(tmp_path), "--truth", "labels", "--queries", "3"]
    assert main([*argv, "--quiet", "--until-stop", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    # three queries are too few for the rule (it compares models 20 labels apart)
    assert "seed 0: set-agreement did not fire within" in printed
    run = json.loads(out.read_text())["runs"][0]
    assert run["stop"] == {"rule": "set-agreement", "step": None, "n_labels": None}


def test_a_truth_column_given_as_an_input_is_named(tmp_path, capsys):
    argv = ["--multi-label", "--data", pool_csv(tmp_path), "--truth", "labels", "--queries", "2"]
    assert main([*argv, "--quiet", "--text-column", "labels"]) == 2
    assert "--truth labels is also given as --text-column" in capsys.readouterr().err


@pytest.mark.parametrize("cell", ['["a", null]', "[2, null]"])
def test_a_list_cell_holding_null_is_one_error_line(tmp_path, capsys, cell):
    # '[2, null]' beside the class 2 ended in "unexpected TypeError" (None sorted with 2)
    path = tmp_path / "pool.csv"
    rows = [(0.1, "a|2"), (0.5, cell), (0.9, "2"), (0.3, "a")]
    pd.DataFrame(rows, columns=["x0", "labels"]).to_csv(path, index=False)
    argv = ["--multi-label", "--data", str(path), "--truth", "labels", "--queries", "1"]
    assert main([*argv, "--quiet"]) == 2
    err = capsys.readouterr().err
    # the row and cell named, as create-project names them
    named = f"error: truth column 'labels', row 2, cell {cell!r}: the list holds null"
    assert err.startswith(named)
    assert len(err.strip().splitlines()) == 1
