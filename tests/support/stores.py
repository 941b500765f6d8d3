"""Small projects, raw SQL behind a store's back (the storage tests)."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import numpy as np
import psycopg

from rlscore.data.projects.project import Project

#: seconds a process of a multiprocess test waits for the others at a barrier
BARRIER_SECONDS = 60


def small_project(name="p", n=6, classes=(-1, 1), truth=True) -> Project:
    rng = np.random.default_rng(0)
    return Project(
        name=name,
        X=rng.normal(size=(n, 3)),
        feature_names=["a", "b", "c"],
        ids=[f"id{i}" for i in range(n)],
        truth=np.array([classes[i % len(classes)] for i in range(n)]) if truth else None,
        classes=list(classes),
        meta={"description": "test", "sigma": 1.5, "lam": 0.3, "image_shape": None},
    )


def raw_sql(target: str, sql: str, params: tuple = ()) -> list[tuple]:
    """Run ``sql`` (``?`` markers) on a connection of its own to the database ``target`` and
    commit: what another program sees, or a change behind the store's back."""
    if target.startswith("postgres"):
        with psycopg.connect(target, autocommit=True) as con:
            cur = con.execute(sql.replace("?", "%s"), params)
            return cur.fetchall() if cur.description else []
    with closing(sqlite3.connect(target)) as con, con:
        return con.execute(sql, params).fetchall()
