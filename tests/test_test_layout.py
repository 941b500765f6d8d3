"""The tests' own layout: a test module never imports another test module (or a conftest).

Reference implementations live in ``tests/reference/``, shared helpers in ``tests/support/``
(and the browser tests' ``tests/e2e/*.py`` helper modules), fixtures in ``conftest.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
SOURCES = sorted(
    p for p in TESTS.rglob("*.py") if "artifacts" not in p.parts and ".venv" not in p.parts
)


def is_test_module(name: str) -> bool:
    """Whether the module named ``name`` (dotted) is a test module or a conftest."""
    last = name.rsplit(".", 1)[-1]
    return last.startswith("test_") or last == "conftest"


def imports_of_test_modules(source: str) -> list[str]:
    """The test modules ``source`` imports, at the top or inside functions."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if is_test_module(a.name)]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] + [f"{node.module or ''}.{a.name}" for a in node.names]
            found += [n for n in names if is_test_module(n)]
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(TESTS)))
def test_no_module_of_the_tests_imports_a_test_module(path):
    found = imports_of_test_modules(path.read_text(encoding="utf-8"))
    assert not found, (
        f"{path.relative_to(TESTS)} imports {found}: move what it needs to tests/reference/ "
        "(references), tests/support/ (helpers) or conftest.py (fixtures)"
    )


@pytest.mark.parametrize(
    "source",
    [
        "from test_session_replay import session",
        "import test_arls_reference",
        "from conftest import new_context",
        "def f():\n    from test_storage import race\n",
        "from . import test_app",
    ],
)
def test_the_layout_check_flags_imports_of_test_modules(source):
    assert imports_of_test_modules(source)


def test_the_layout_check_lets_references_and_helpers_pass():
    source = "from reference.rls import brute_loo\nfrom support.sessions import session\n"
    assert imports_of_test_modules(source) == []
