"""Every module of the package imports with the installed versions of its dependencies.

In the floor pass (``tests/run.sh``) this runs against the declared minimum versions: a module
that uses a newer API than a floor allows fails here (``scipy.linalg.lapack.dtrcon``, used by
the label checker's λ search, exists from SciPy 1.15; the floor said 1.11 until this test's
first floor run).
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import rlscore


def package_modules() -> list[str]:
    """The names of ``rlscore``'s modules, sub-packages' too, but ``__main__`` (it runs the
    command line)."""
    found = pkgutil.walk_packages(rlscore.__path__, prefix="rlscore.")
    return sorted(m.name for m in found if not m.name.endswith(".__main__"))


def test_the_walk_finds_the_floors_of_the_package():
    names = package_modules()
    for floor in ("core", "query", "data", "storage", "sessions", "viz", "ui"):
        assert any(n.startswith(f"rlscore.{floor}.") for n in names), floor
    assert "rlscore.core.rls.sketched_lam" in names


@pytest.mark.parametrize("name", package_modules())
def test_every_module_imports(name):
    importlib.import_module(name)
