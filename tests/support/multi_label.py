"""A small multi-label project (the multi-label tests): three classes, label sets cycled
over the points, the empty set among them."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from rlscore.data.projects.project import Project
from rlscore.storage import Event, open_store

CLASSES = ["news", "sports", "tech"]
#: true label sets, cycled over the points: the empty set is a label like any other
SETS = [("news",), ("news", "sports"), (), ("sports", "tech"), ("news", "sports", "tech")]


def tagged_project(name: str = "tags", n: int = 7, d: int = 2, seed: int = 0) -> Project:
    """A multi-label project of ``n`` random points whose true sets cycle through
    :data:`SETS` (as JSON lists, as a store holds them)."""
    rng = np.random.default_rng(seed)
    return Project(
        name=name,
        X=rng.normal(size=(n, d)),
        feature_names=[f"f{j}" for j in range(d)],
        ids=[f"t{i}" for i in range(n)],
        truth=[list(SETS[i % len(SETS)]) for i in range(n)],
        classes=CLASSES,
        meta={"sigma": 1.0},
        multi_label=True,
    )


def labeled_tags_db(path: Path, sets: list[list[str]]) -> Path:
    """A SQLite label store at ``path`` holding :func:`tagged_project` (30 points, name
    ``tags``) with point ``i`` labeled ``sets[i]`` by ``ada``."""
    with open_store(path) as store:
        store.create_project(tagged_project(n=30))
        for i, labels in enumerate(sets):
            store.append_event("tags", Event("label", i, labels, "ada"))
    return path
