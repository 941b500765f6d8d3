"""The package's floors, read from the source: imports only go downward and never in a circle.

Floors (README "Layout"): ``core`` (math) → ``query`` (strategies) → ``data``, ``storage`` →
``sessions`` → ``experiments``, ``viz``, ``cli`` → ``ui`` (Streamlit). Every import counts,
also those inside functions: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "rlscore"
FLOOR = {
    "core": 0,
    "query": 1,
    "data": 2,
    "storage": 2,
    "sessions": 3,
    "experiments": 4,
    "viz": 4,
    "cli": 4,
    "ui": 5,
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Absolute names of the rlscore modules (or packages) that a file imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("rlscore"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rlscore"):
            found.add(node.module)
            # "from rlscore.query import arls" imports the submodule rlscore.query.arls
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
GRAPH = {name: {m for m in _imports(path) if m in MODULES} for name, path in MODULES.items()}


def _floor(module: str) -> int | None:
    parts = module.split(".")
    return FLOOR.get(parts[1]) if len(parts) > 1 else None


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _floor(m) is not None))
def test_imports_only_go_down(module):
    mine = _floor(module)
    upward = sorted(m for m in GRAPH[module] if (_floor(m) or 0) > mine)
    assert not upward, f"{module} (floor {mine}) imports higher floors: {upward}"


def test_every_subpackage_has_a_floor():
    subpackages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert subpackages == set(FLOOR), "give new subpackages a floor in FLOOR and the README"
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__"))
    assert not loose, f"modules outside the floors: {loose}"


def test_no_import_cycles():
    # a package's __init__ re-exports its modules: an edge to the package is an edge to them
    def edges(module: str) -> set[str]:
        out = set()
        for m in GRAPH[module]:
            if MODULES[m].name == "__init__.py" and not module.startswith(m + "."):
                out |= {m}
            elif MODULES[m].name != "__init__.py":
                out.add(m)
        return out

    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in edges(m):
            if state.get(n) == 1:
                cycle = stack[stack.index(n) :] + [n]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(MODULES):
        if m not in state:
            visit(m)


def test_only_the_ui_layer_imports_streamlit():
    offenders = []
    for name, path in MODULES.items():
        if name.startswith("rlscore.ui"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [node.module or ""]
            else:
                continue
            if any(m.split(".")[0] == "streamlit" for m in mods):
                offenders.append(f"{name}:{node.lineno}")
    assert not offenders, offenders


def _readme_imports() -> list[tuple[str, str]]:
    text = (PACKAGE.parent / "README.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in text.split("```python")[1:]]
    pairs = []
    for block in blocks:
        for line in block.splitlines():
            if line.startswith("from "):
                node = ast.parse(line.split("#", 1)[0]).body[0]
                pairs += [(node.module, alias.name) for alias in node.names]
    return pairs


def test_every_name_the_readme_imports_exists():
    pairs = _readme_imports()
    assert ("rlscore", "ARLS") in pairs  # the README's examples were read
    missing = []
    for module, name in pairs + [("rlscore.query", "ARLS"), ("rlscore.query", "AOptimalKLR")]:
        if not hasattr(importlib.import_module(module), name):
            missing.append(f"{module}.{name}")
    assert not missing, f"the README imports names that do not exist: {missing}"
