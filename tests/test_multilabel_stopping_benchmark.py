"""benchmarks/multilabel_stopping.py (tiny sizes): the curves its candidates read against
scikit-learn's κ and F1 of the same memberships, where each candidate fires against a walk
over the curves written out here, and a short run end to end."""

from __future__ import annotations

import json

import numpy as np
from sklearn.metrics import cohen_kappa_score, f1_score
from support.benchmarks import load_benchmark


def random_members(steps=30, n=40, classes=3, seed=0):
    """Memberships that drift: each step flips a few (point, class) entries."""
    rng = np.random.default_rng(seed)
    now = rng.random((n, classes)) < 0.3
    out = []
    for _ in range(steps):
        now = now.copy()
        flips = rng.integers(0, n, size=2)
        now[flips, rng.integers(0, classes)] ^= True
        out.append(now)
    return out


def test_set_curves_equal_sklearn_kappa_and_f1():
    bench = load_benchmark("multilabel_stopping")
    members = random_members()
    curves = bench.set_curves(members)
    lag = bench.LAG
    for t, now in enumerate(members):
        if t < lag:
            assert curves["kappa_mean"][t] is None and curves["f1_agree"][t] is None
            continue
        before = members[t - lag]
        kappas = [cohen_kappa_score(before[:, k], now[:, k]) for k in range(now.shape[1])]
        assert np.isclose(curves["kappa_mean"][t], np.mean(kappas))
        assert np.isclose(curves["kappa_min"][t], np.min(kappas))
        # the older model's sets measured against the newer's
        expected = f1_score(now, before, average="micro")
        assert np.isclose(curves["f1_agree"][t], expected)
    t = bench.HAMMING_WINDOW + 3
    changed = np.mean(members[t] != members[t - bench.HAMMING_WINDOW])
    assert np.isclose(curves["hamming"][t], changed)


def crafted_run(steps=120):
    """A run whose κ rises linearly and whose confidence rises until step 70, flat after."""
    n_labels = list(range(5, 5 + steps))
    kappa = [None if t < 20 else min(1.0, 0.9 + t / 1000) for t in range(steps)]
    confidence = [0.3 + 0.007 * min(t, 70) for t in range(steps)]
    f1 = [min(0.8, 0.3 + t / 150) for t in range(steps)]
    return {
        "task": "crafted", "seed": 0, "n_labels": n_labels,
        "all_classes": [t >= 3 for t in range(steps)], "micro_f1": f1,
        "confidence": confidence, "kappa_mean": kappa, "kappa_min": kappa,
        "f1_agree": kappa, "hamming": [None] * steps,
    }  # fmt: skip


def walk_kappa(kappa, threshold, ready):
    """The first step from ``ready`` with 4 κ values 20 steps apart, averaging ≥ threshold."""
    for t in range(ready, len(kappa)):
        values = [kappa[t - 20 * j] if t - 20 * j >= 0 else None for j in range(4)]
        if None not in values and np.mean(values) >= threshold:
            return t
    return None


def walk_plateau(curve, ready):
    """The first step from ``ready`` whose last 21 values lie within 0.01."""
    for t in range(max(ready, 20), len(curve)):
        window = curve[t - 20 : t + 1]
        if max(window) - min(window) <= 0.01:
            return t
    return None


def test_candidates_fire_where_a_walk_over_the_curves_says():
    bench = load_benchmark("multilabel_stopping")
    run = crafted_run()
    ready = next(t for t in range(len(run["n_labels"])) if run["n_labels"][t] >= 10 and t >= 3)
    for threshold in (0.95, 0.97, 0.99):
        expected = walk_kappa(run["kappa_mean"], threshold, ready)
        assert bench.stop_step(run, f"kappa-mean@{threshold}") == expected
    kappa_stop = bench.stop_step(run, "kappa-mean@0.95")
    plateau_stop = walk_plateau(run["confidence"], ready)
    assert plateau_stop > kappa_stop  # the plateau part decides
    assert bench.stop_step(run, "settled-mean@0.95") == max(kappa_stop, plateau_stop)
    assert bench.stop_step(run, "budget-100") == run["n_labels"].index(100)
    end = run["micro_f1"][-1]
    assert bench.stop_step(run, "hindsight") == next(
        t for t, f in enumerate(run["micro_f1"]) if t >= ready and end - f <= bench.CLOSE
    )


def test_a_short_run_and_its_tables(tmp_path, capsys):
    bench = load_benchmark("multilabel_stopping")
    out = tmp_path / "runs.json"
    assert bench.main(["--tasks", "synthetic-c", "--seeds", "1", "--labels", "30",
                       "--out", str(out)]) == 0  # fmt: skip
    runs = json.loads(out.read_text())
    assert len(runs) == 1 and runs[0]["n_labels"][-1] == 30
    assert len(runs[0]["micro_f1"]) == len(runs[0]["n_labels"]) == 26
    printed = capsys.readouterr().out
    assert "**synthetic-c**" in printed and "| hindsight |" in printed
