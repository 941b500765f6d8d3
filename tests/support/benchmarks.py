"""Import the benchmark scripts (benchmarks/*.py, not a package) as modules."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def load_benchmark(name: str):
    """Import ``benchmarks/<name>.py`` as a module (the scripts are not a package)."""
    if str(BENCH) not in sys.path:  # the scripts import their shared harness as a sibling
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
