"""Cold start (issue 25): the packages re-export their public names lazily, so the app's first
page imports neither scikit-learn's heavier parts nor numba, pandas-only experiments or the
sample datasets; the names stay importable as before; the app's warm-up loads exactly the
compiled lookahead that a query runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import rlscore
from rlscore.core.lazy.exports import lazy_exports

REPO = Path(__file__).resolve().parents[1]
#: the lazy packages (rlscore.experiments stays eager: its ``simulate`` is also a submodule)
PACKAGES = ("rlscore", "rlscore.data", "rlscore.query", "rlscore.sessions")
#: what the Label page (with app.py) imports before it draws
LABEL_PAGE = (
    "rlscore.ui.shell.auth",
    "rlscore.ui.shell.navigation",
    "rlscore.ui.shell.warmup",
    "rlscore.ui.label.actions",
    "rlscore.ui.label.query_panel",
    "rlscore.ui.label.refresh",
    "rlscore.ui.label.search_panel",
    "rlscore.ui.label.stopping_panel",
    "rlscore.ui.shell.errors",
    "rlscore.ui.label.keys",
    "rlscore.ui.shell.sidebar",
    "rlscore.ui.shell.store",
    "rlscore.ui.label.teammates",
)


def loaded_after(modules: tuple[str, ...], watched: tuple[str, ...]) -> set[str]:
    """Which of ``watched`` a fresh interpreter has loaded after importing ``modules``."""
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules)
    code += f"print(' '.join(w for w in {watched!r} if w in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    return set(out.stdout.split())


def test_the_packages_import_none_of_their_heavy_modules():
    heavy = ("sklearn", "pandas", "numba", "scipy.stats", "rlscore.sessions.actions.session")
    assert loaded_after(PACKAGES, heavy) == set()


def test_the_label_page_imports_no_numba_nor_the_sklearn_it_does_not_draw_with():
    heavy = (
        "numba",
        "sklearn.datasets",
        "sklearn.decomposition",
        "sklearn.impute",
        "sklearn.metrics",
        "sklearn.neighbors",
        "sklearn.cluster",
        "rlscore.experiments.simulation.simulate",
    )
    assert loaded_after(("streamlit", *LABEL_PAGE), heavy) == set()


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_resolves_to_its_defining_module(package):
    module = __import__(package, fromlist=["__all__"])
    for name in module.__all__:
        value = getattr(module, name)
        assert name in dir(module)
        namespace: dict = {}
        exec(f"from {package} import {name} as x", namespace)  # noqa: S102 - the import is tested
        assert namespace["x"] is value


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchThing'"):
        rlscore.NoSuchThing  # noqa: B018
    with pytest.raises(ImportError):
        exec("from rlscore.query import NoSuchThing")  # noqa: S102


def test_a_name_listed_under_two_modules_is_refused():
    with pytest.raises(ValueError, match="'x' is exported from both a and b"):
        lazy_exports("p", {"a": ("x",), "b": ("x",)}, {})


def test_the_warm_up_compiles_the_signatures_a_query_runs():
    """After the warm-up, ARLS queries (two and three classes) compile nothing new."""
    code = """
import numpy as np
from rlscore.ui.shell.warmup import warm_lookahead
from rlscore.query import ARLS
from rlscore.query.arls import fused_lookahead as fused_risk
warm_lookahead()
kernels = (("b", fused_risk._binary), ("m", fused_risk._multiclass))
before = {k: len(f.signatures) for k, f in kernels}
rng = np.random.default_rng(0)
X = rng.normal(size=(1500, 2))  # a lookahead large enough to be compiled
for classes in ([0, 1], [0, 1, 2]):
    q = ARLS(sigma=1.0, lam=0.5).start(X, classes)
    q.teach_many([0, 1, 2], [classes[0], classes[1], classes[-1]])
    q.next_query()
after = {k: len(f.signatures) for k, f in kernels}
print(before, after)
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.strip()
    before, after = out.split("} {")
    assert before + "}" == "{" + after  # the same signatures, none added by the queries
    assert "'b': 1" in before and "'m': 1" in before


#: what the Label page's first run must draw without (issue 25, cold start): scikit-learn and
#: scipy.stats (about 1 s of import), pandas (0.4 s), the PostgreSQL driver on SQLite, numba
#: (0.5 s; focused ARLS's lookahead on a small pool runs in numpy), scipy.special (0.03 s; no
#: interval or Bayes confidence is drawn before the first labels)
FIRST_RUN_WITHOUT = (
    "sklearn",
    "scipy.stats",
    "scipy.special",
    "pandas",
    "psycopg",
    "rlscore.core.rls.classifier",
    "numba",
)


def test_the_label_pages_first_run_draws_the_query_without_the_heavy_modules(tmp_path):
    """A fresh interpreter runs the app's Label page once (AppTest) on a stored project of a
    database that holds the samples already: the query is drawn, and none of
    :data:`FIRST_RUN_WITHOUT` was imported to draw it."""
    db = tmp_path / "labels.sqlite3"
    setup = f"""
import numpy as np
from rlscore.data.projects.project import Project
from rlscore.data.samples.bundled import ensure_sample_projects
from rlscore.storage import open_store
X = np.random.default_rng(0).normal(size=(300, 2))
with open_store({str(db)!r}) as store:
    ensure_sample_projects(store)  # once per database (text samples need scikit-learn)
    store.create_project(Project(name="p", X=X, feature_names=["a", "b"], truth=(X[:, 0] > 0) * 1,
                                 ids=[str(i) for i in range(300)], classes=[0, 1],
                                 meta={{"sigma": 1.0, "lam": 0.1}}))
"""
    page = f"""
import os, sys
os.environ["RLSCORE_DB"] = {str(db)!r}
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=120)
at.query_params["project"] = "p"
at.query_params["annotator"] = "ann"
at.run()
assert not at.exception, [e.value for e in at.exception]
print([h.value for h in at.subheader if h.value.startswith("Next query")])
print(" ".join(m for m in {FIRST_RUN_WITHOUT!r} if m in sys.modules))
"""
    out = []
    for code in (setup, page):
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
        assert run.returncode == 0, run.stderr[-3000:]
        out = run.stdout.splitlines()
    assert out[0].startswith("['Next query: point #")
    assert out[1].split() == []
