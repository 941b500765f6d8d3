"""The Tune page in Streamlit's AppTest, on a database with some labels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from rlscore.data.samples.bundled import ensure_sample_projects
from rlscore.storage import Event, open_store
from support.app import app_page


def label_some(db: Path, name: str = "two_moons", per_class: int = 4) -> None:
    """Label the first ``per_class`` points of each class with the truth (as annotators do)."""
    with open_store(db) as store:
        ensure_sample_projects(store)
        project = store.load_project(name)
        for c in project.classes:
            for i in np.flatnonzero(project.truth == c)[:per_class]:
                store.append_event(name, Event("label", int(i), c, "ann"))


def run_page(project: str | None = None) -> AppTest:
    at = app_page("tune.py", timeout=120)
    if project is not None:
        at.query_params["project"] = project
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at
