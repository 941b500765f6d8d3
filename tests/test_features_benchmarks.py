"""The text benchmarks run (tiny sizes; times are printed by the scripts, not checked)."""

import re

import pytest
from support.benchmarks import load_benchmark


@pytest.mark.slow
def test_text_feature_benchmark_equals_the_plain_sklearn_pipeline_below_the_sample(capsys):
    bench = load_benchmark("text_features")
    assert bench.main(["--n", "3000", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    rows = dict(
        re.findall(r"(baseline|rlscore): .*explained variance ([0-9.]+), \d+ progress", out)
    )
    assert set(rows) == {"baseline", "rlscore"}
    # 3000 texts < svd_sample: rlscore fits the same TF-IDF and seeded SVD as scikit-learn
    assert rows["rlscore"] == rows["baseline"]
    assert "X [3000, 100]" in out


def test_text_strategy_benchmark_reports_aulc_and_accuracy(capsys):
    bench = load_benchmark("text_strategies")
    argv = ["--seeds", "1", "--queries", "3", "--tasks", "debian_games",
            "--strategies", "random,arls-focused"]  # fmt: skip
    assert bench.main(argv) == 0
    out = capsys.readouterr().out
    assert "debian_games: AULC of test accuracy" in out
    for strategy in ("random", "arls-focused"):
        assert re.search(rf"^{strategy}\s+0\.\d{{3}} ± nan\s+0\.\d{{3}}", out, re.M), out
