"""The mutation job (tests/support/mutation.py): its catalogue matches today's code, so it
cannot rot silently, and its runner tells a killed mutant from a survivor without touching
the files it copied."""

from __future__ import annotations

import ast
import functools
import signal
import subprocess
from pathlib import Path

import pytest
from support import mutation
from support.mutation import CATALOGUE, ROOT, Mutation

ENTRIES = pytest.mark.parametrize("m", CATALOGUE, ids=lambda m: m.name)


def test_names_are_unique_and_the_catalogue_is_a_job_of_minutes():
    names = [m.name for m in CATALOGUE]
    assert len(set(names)) == len(names)
    assert 25 <= len(CATALOGUE) <= 45


@ENTRIES
def test_the_original_text_occurs_exactly_once_and_the_mutant_compiles(m):
    source = (ROOT / m.path).read_text(encoding="utf-8")
    assert source.count(m.original) == 1, f"{m.name}: update the entry to today's {m.path}"
    assert m.replacement != m.original
    mutated = source.replace(m.original, m.replacement)
    assert mutated != source
    ast.parse(mutated, filename=m.path)  # a mutant that does not compile tests nothing


@functools.cache
def defined_functions(path: Path) -> frozenset[str]:
    """Names of the functions defined in the Python file ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef))


@ENTRIES
def test_the_selected_tests_exist(m):
    for path in mutation.selected_files(m.tests):
        assert (ROOT / path).is_file(), f"{m.name}: no test file {path}"
    for node in (t for t in m.tests if "::" in t):
        path = ROOT / mutation.selected_files([node])[0]
        (name,) = mutation.selected_test_names([node])
        assert name in defined_functions(path), f"{m.name}: {path.name} has no test {name}"


@ENTRIES
def test_the_mutants_stay_out_of_code_being_moved_or_deleted(m):
    assert m.path.startswith(
        (
            "rlscore/storage/",
            "rlscore/sessions/",
            "rlscore/core/evaluation/",
            "rlscore/core/conventions/",
        )
    )
    assert not m.path.startswith("rlscore/query/cluster")
    assert "trashed_members" not in m.original and "def stopping_report" not in m.original


def test_selection_by_name():
    assert mutation.select([]) == list(CATALOGUE)
    assert [m.name for m in mutation.select(["wilson-level"])] == ["wilson-level"]
    with pytest.raises(SystemExit, match="unknown mutation"):
        mutation.select(["no-such-mutant"])


@pytest.mark.parametrize(
    ("status", "verdict"),
    [(0, "survived"), (1, "killed"), (None, "killed"), (2, "error"), (4, "error"), (5, "error")],
)
def test_pytest_statuses_become_verdicts(status, verdict):
    assert mutation.verdict(status) == verdict


@pytest.fixture
def toy_tree(tmp_path):
    """A project of one module and one test of it, in a git repository (what the job copies)."""
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "__init__.py").write_text("def double(x):\n    return 2 * x\n")
    test = "from toy import double\n\n\ndef test_double():\n    assert double(3) == 6\n"
    (tmp_path / "test_toy.py").write_text(test)
    return tmp_path


def test_a_mutant_the_test_catches_is_killed_and_the_file_put_back(toy_tree, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # the toy needs no plugin: faster
    before = (toy_tree / "toy" / "__init__.py").read_text()
    caught = Mutation("m", "toy/__init__.py", "2 * x", "3 * x", ("test_toy.py",), "triple")
    missed = Mutation("m", "toy/__init__.py", "2 * x", "x * 2", ("test_toy.py",), "commuted")
    killed = mutation.run_mutant(toy_tree, caught, timeout=120)
    assert (killed.verdict, killed.detail) == ("killed", "test_toy.py::test_double")
    assert mutation.run_mutant(toy_tree, missed, timeout=120).verdict == "survived"
    loop = "while x:\n        pass"  # an endless loop: interrupted at the time limit
    endless = Mutation("m", "toy/__init__.py", "return 2 * x", loop, ("test_toy.py",), "hangs")
    hung = mutation.run_mutant(toy_tree, endless, timeout=2)
    assert (hung.verdict, hung.detail) == ("killed", "timed out after 2 s")
    assert (toy_tree / "toy" / "__init__.py").read_text() == before
    gone = Mutation("m", "toy/__init__.py", "4 * x", "5 * x", ("test_toy.py",), "rotted")
    assert mutation.run_mutant(toy_tree, gone, timeout=120).verdict == "error"


def test_a_run_past_its_time_is_interrupted_even_when_sigint_was_ignored(tmp_path, monkeypatch):
    """A CI runner may start the suite with SIGINT ignored (a background job of a shell without
    job control), and children inherit that: the interrupt at the time limit must still reach
    the run (its test's ``finally`` runs, as pytest's teardown would), not wait for the kill."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    spin = "while True:\n            pass"
    (tmp_path / "test_spin.py").write_text(
        "from pathlib import Path\n\n\ndef test_spin():\n    try:\n        "
        f"{spin}\n    finally:\n        Path('interrupted').write_text('yes')\n"
    )
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        status, output = mutation.run_pytest(tmp_path, ["test_spin.py"], timeout=2)
    finally:
        signal.signal(signal.SIGINT, before)
    assert (status, output) == (None, "timed out after 2 s")
    assert (tmp_path / "interrupted").read_text() == "yes"


def test_the_copy_holds_the_files_git_knows_and_not_the_ignored_ones(toy_tree, tmp_path_factory):
    def git(*args):
        subprocess.run(["git", *args], cwd=toy_tree, check=True, capture_output=True)

    git("init", "-q")
    (toy_tree / ".gitignore").write_text("*.sqlite3\n")
    (toy_tree / "labels.sqlite3").write_text("a database")
    git("add", "toy", ".gitignore")  # test_toy.py stays untracked: a new file being written
    dest = tmp_path_factory.mktemp("copy")
    mutation.copy_project(toy_tree, dest)
    copied = sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file())
    assert copied == [".gitignore", "test_toy.py", str(Path("toy", "__init__.py"))]
