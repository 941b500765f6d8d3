"""benchmarks/cluster_pool.py runs end to end on a small pool, and the cluster picks what the
in-memory engine picks (times are not checked)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed")

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "cluster_pool.py"


@pytest.mark.cluster  # the script starts a LocalCluster
@pytest.mark.slow
def test_the_benchmark_runs_and_agrees_with_the_in_memory_engine():
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--n", "20000", "--rows-per-file", "5000", "--m", "20",
         "--queries", "2", "--candidates", "20", "--risk-sample", "2000",
         "--memory-limit", "1GiB"],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    rows = re.findall(
        r"^\s*(arls-lowrank|arls-focused|uncertainty|entropy|random) .* (\d) of 2$",
        out.stdout,
        re.M,
    )
    names = ["arls-lowrank", "arls-focused", "uncertainty", "entropy", "random"]
    assert [name for name, _ in rows] == names
    assert all(same == "2" for _, same in rows)
    assert "peak RSS" in out.stdout and "load average at the end" in out.stdout
