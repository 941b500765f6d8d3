"""A team labeling one project at once: app servers and writers on PostgreSQL and on SQLite.

Six processes label one project (``--pool`` points of a generated 2-class set, ground truth
as the annotators' answers) until ``--labels`` labels are acknowledged:

* 2 **app-server processes**, each holding *one* :class:`~rlscore.sessions.LabelingSession`
  shared by two annotator threads under one lock — what a Streamlit server does with its
  cached session and several browser tabs (:mod:`rlscore.ui.shell.store`);
* 4 **writer processes**, each with a session of its own and one annotator (scripts,
  ``python -m rlscore`` users, other servers).

Every annotator repeats what the Label page does: ``query(annotator=…)`` (claims the point in
the database), then ``label(point, answer, seen=…)``; an acknowledged label (its event id
returned) is appended to the process's own file at once. Checks after the run, read from the
database independently of the workers: **labels lost** (acknowledged ids missing from the
log, or more label events than acknowledgements), **points labeled by two annotators** (with
no overlap asked for, a point handed to two annotators at once would show here), and labels
refused as stale. Timings: the **commit** of a label (the store's ``append_event``, one
transaction) and the whole ``label`` call (commit, sync, engine update), p50 / p99 over all
labels. The strategy is ``random`` by default so the figures are the database's, not an
engine's (``--strategy`` to change).

A second, shorter run per backend **kills** one writer and one app server with SIGKILL
mid-run and checks that every label they acknowledged before dying is in the log.

PostgreSQL: a throwaway cluster started by this script (``tests/pg_cluster.py``) with its
durability settings back to PostgreSQL's defaults (``fsync``, ``synchronous_commit``,
``full_page_writes`` on), or ``--pg-url`` for a server of your own. SQLite: one file in WAL
mode with ``synchronous = FULL`` (the store's settings). Baseline: the SQLite run beside it.

Run ``python benchmarks/team_load.py`` (about two minutes on 2 cores) or ``--quick``.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

from harness import load_average, pin_blas, report_machine

pin_blas(1)

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from rlscore.data.projects.project import Project  # noqa: E402
from rlscore.sessions import LabelingSession, LabelLog  # noqa: E402
from rlscore.storage import StaleActionError, open_store  # noqa: E402

PROJECT = "team"
SERVERS, THREADS_PER_SERVER, WRITERS = 2, 2, 4


def make_project(n: int, seed: int = 0) -> Project:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    truth = np.where(X[:, 0] + np.sin(2 * X[:, 1]) > 0, 1, -1)
    return Project(
        PROJECT,
        X,
        [f"x{j}" for j in range(4)],
        [f"p{i}" for i in range(n)],
        truth.astype(object),
        [-1, 1],
        meta={"sigma": 1.0, "lam": 0.5},
    )


# -- workers (run in spawned processes) -----------------------------------------------------
def _timed_store(db: str, commits: list[float]):
    """The store with its ``append_event`` timed (the label's commit, one transaction)."""
    store = open_store(db)
    append = store.append_event

    def timed_append(*args, **kw):
        t0 = time.perf_counter()
        eid = append(*args, **kw)  # a refused (stale) label raises: not a commit
        commits.append(time.perf_counter() - t0)
        return eid

    store.append_event = timed_append
    return store


def _annotate(session, lock, name, truth, done, target, ack, stats) -> None:
    """One annotator: query (claim), label with ``seen``, record the acknowledgement."""
    while True:
        with done.get_lock():
            if done.value >= target:
                return
        with lock:
            session.sync()  # what every page run does first (rlscore.ui.shell.store.get_session)
            seen = session.last_event_id
            q = session.query(annotator=name)
            if q is None:
                return
            point = q[0]
            t0 = time.perf_counter()
            try:
                eid = session.label(point, truth[point], annotator=name, seen=seen)
            except StaleActionError:
                stats["refused"] += 1
                continue
            stats["label"].append(time.perf_counter() - t0)
        ack.write(f"{eid} {point} {name}\n")
        ack.flush()  # acknowledged: on disk before the next label
        with done.get_lock():
            done.value += 1


def worker(db, names, strategy, done, target, ack_path, out_queue) -> None:
    commits: list[float] = []
    store = _timed_store(db, commits)
    session = LabelingSession(store, PROJECT, strategy, snapshots=False)
    truth = session.project.truth
    lock = threading.RLock()
    stats = {"refused": 0, "label": []}
    with open(ack_path, "a") as ack:
        threads = [
            threading.Thread(
                target=_annotate,
                args=(session, lock, name, truth, done, target, ack, stats),
            )
            for name in names
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    out_queue.put({"commit": commits, "label": stats["label"], "refused": stats["refused"]})


# -- one run --------------------------------------------------------------------------------
def run(db: str, n_labels: int, strategy: str, workdir: Path, kill: bool) -> dict:
    ctx = mp.get_context("spawn")
    done = ctx.Value("i", 0)
    out = ctx.Queue()
    roles = [[f"server{s}-tab{t}" for t in range(THREADS_PER_SERVER)] for s in range(SERVERS)]
    roles += [[f"writer{w}"] for w in range(WRITERS)]
    procs, acks = [], []
    for k, names in enumerate(roles):
        ack = workdir / f"ack{k}.txt"
        ack.write_text("")
        acks.append(ack)
        p = ctx.Process(target=worker, args=(db, names, strategy, done, n_labels, ack, out))
        procs.append(p)
    t0 = time.perf_counter()
    for p in procs:
        p.start()
    killed = []
    if kill:
        # SIGKILL one app server and one writer once a third of the labels are in
        deadline = time.monotonic() + 600
        while done.value < n_labels // 3 and time.monotonic() < deadline:
            procs[0].join(0.02)
        for k in (0, SERVERS):
            os.kill(procs[k].pid, signal.SIGKILL)
            killed.append(k)
    results = []
    alive = len(procs) - len(killed)
    while len(results) < alive:
        results.append(out.get(timeout=1800))
    for p in procs:
        p.join()
    wall = time.perf_counter() - t0
    acknowledged = {}
    for ack in acks:
        for line in ack.read_text().splitlines():
            eid, point, name = line.split()
            acknowledged[int(eid)] = (int(point), name)
    with open_store(db) as store:
        events = store.events(PROJECT)
    labels = {e.id: e for e in events if e.kind == "label"}
    lost = [eid for eid in acknowledged if eid not in labels]
    by_point: dict[int, set[str]] = {}
    for e in labels.values():
        by_point.setdefault(e.point, set()).add(e.annotator)
    return {
        "wall": wall,
        "acknowledged": len(acknowledged),
        "label_events": len(labels),
        "lost": len(lost),
        "unacknowledged_commits": len(labels) - len(acknowledged),
        "double": sum(len(a) > 1 for a in by_point.values()),
        "final_labels": len(LabelLog(events).labels),
        "refused": sum(r["refused"] for r in results),
        "commit": [c for r in results for c in r["commit"]],
        "label": [c for r in results for c in r["label"]],
        "killed": killed,
    }


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) * 1000 if values else float("nan")


def report(name: str, r: dict) -> None:
    print(
        f"{name:<10} {r['acknowledged']:>5} acknowledged in {r['wall']:6.1f} s · lost "
        f"{r['lost']} · label events {r['label_events']} · points labeled twice "
        f"{r['double']} · refused as stale {r['refused']}"
    )
    print(
        f"{'':<10} commit p50 {_pct(r['commit'], 50):6.1f} ms  p99 {_pct(r['commit'], 99):6.1f} ms"
        f" · label call p50 {_pct(r['label'], 50):6.1f} ms  p99 {_pct(r['label'], 99):6.1f} ms"
        f" (over {len(r['label'])} labels)"
    )


def report_kill(name: str, r: dict) -> None:
    print(
        f"{name:<10} SIGKILL of an app server and a writer at ~1/3: {r['acknowledged']} "
        f"acknowledged, lost {r['lost']}, committed but not acknowledged "
        f"{r['unacknowledged_commits']} (a kill between commit and acknowledgement), "
        f"points labeled twice {r['double']}"
    )


def fresh_database(kind: str, workdir: Path, cluster, n: int, tag: str) -> str:
    if kind == "sqlite":
        db = str(workdir / f"{tag}.sqlite3")
    else:
        db = cluster.create_database()
    with open_store(db) as store:
        store.create_project(make_project(n))
    return db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=int, default=2000)
    parser.add_argument("--pool", type=int, default=3000)
    parser.add_argument("--strategy", default="random")
    parser.add_argument("--pg-url", default=None, help="an existing PostgreSQL database")
    parser.add_argument("--quick", action="store_true", help="200 labels, a pool of 400")
    args = parser.parse_args()
    if args.quick:
        args.labels, args.pool = 200, 400
    report_machine()
    print(
        f"# {SERVERS} app-server processes × {THREADS_PER_SERVER} annotator threads + "
        f"{WRITERS} writer processes, {args.labels} labels, pool {args.pool}, "
        f"strategy {args.strategy}"
    )
    cluster = None
    if args.pg_url is None:
        import psycopg
        from pg_cluster import PostgresCluster

        cluster = PostgresCluster().start()
        # the test cluster trades durability for speed; a team's server would not
        with psycopg.connect(cluster.url(), autocommit=True) as admin:
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                admin.execute(f"ALTER SYSTEM SET {setting} = on")
            admin.execute("SELECT pg_reload_conf()")
        print(f"# PostgreSQL: throwaway cluster, started in {cluster.startup_seconds:.1f} s, "
              "fsync/synchronous_commit/full_page_writes on")  # fmt: skip
    try:
        with tempfile.TemporaryDirectory() as tmp:
            workdir = Path(tmp)
            for kind in ("postgres", "sqlite"):
                if kind == "postgres" and args.pg_url is not None:
                    db = args.pg_url
                    with open_store(db) as store:
                        if PROJECT in store.list_projects():
                            store.delete_project(PROJECT)
                        store.create_project(make_project(args.pool))
                else:
                    db = fresh_database(kind, workdir, cluster, args.pool, f"{kind}-run")
                report(kind, run(db, args.labels, args.strategy, workdir, kill=False))
            for kind in ("postgres", "sqlite"):
                if kind == "postgres" and args.pg_url is not None:
                    continue
                db = fresh_database(kind, workdir, cluster, args.pool, f"{kind}-kill")
                n_kill = max(60, args.labels // 4)
                report_kill(kind, run(db, n_kill, args.strategy, workdir, kill=True))
    finally:
        if cluster is not None:
            cluster.stop()
    print(f"# load average after: {load_average()}")


if __name__ == "__main__":
    main()
