"""How fast 100 000 texts become a project (issue 22: "well under a minute on 2 cores").

Texts: each is three one-line Debian package descriptions (from ``apt-cache dumpavail``,
the source of the bundled text samples) drawn at random with a fixed seed, about 130
characters. Measured in separate child processes so each peak memory is its own:

* ``rlscore``: :func:`rlscore.data.projects.table_project.project_from_table` with a text
  column (checks the items, TF-IDF, truncated SVD to 100 dimensions, the project), with the
  progress callback recording its steps;
* ``baseline``: scikit-learn alone, ``TfidfVectorizer(max_features=20000, sublinear_tf=True)``
  then ``TruncatedSVD(100)`` — the same computation without rlscore's checks.

BLAS and OpenMP threads are pinned to ``--threads`` (threadpoolctl) and the process to as
many CPUs when the system allows. Prints wall time, CPU time, peak resident memory (ru_maxrss)
and the load average before each run.

Run: ``python benchmarks/text_features.py [--n 100000] [--threads 2]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np
import pandas as pd


def debian_descriptions() -> list[str]:
    dump = subprocess.run(
        ["apt-cache", "dumpavail"], check=True, capture_output=True, text=True
    ).stdout
    return sorted(
        {
            line[len("Description: ") :]
            for line in dump.splitlines()
            if line.startswith("Description: ")
        }
    )


def make_texts(n: int, seed: int = 0) -> list[str]:
    lines = np.asarray(debian_descriptions(), dtype=object)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, lines.size, size=(n, 3))
    return [". ".join(row) for row in lines[picks]]


def _child(which: str, n: int, threads: int) -> dict:
    from threadpoolctl import threadpool_info, threadpool_limits

    if hasattr(os, "sched_setaffinity"):
        cpus = sorted(os.sched_getaffinity(0))[:threads]
        os.sched_setaffinity(0, cpus)
    texts = make_texts(n)
    df = pd.DataFrame({"text": texts, "label": np.arange(n) % 2})
    steps = []
    with threadpool_limits(limits=threads):
        pinned = sorted({(p["internal_api"], p["num_threads"]) for p in threadpool_info()})
        load = os.getloadavg()
        t0, c0 = time.perf_counter(), time.process_time()
        if which == "rlscore":
            from rlscore.data.projects.table_project import project_from_table

            p = project_from_table(
                df, "bench", truth_column="label", text_columns=["text"],
                progress=lambda f, m: steps.append((round(time.perf_counter() - t0, 2), f, m)),
            )  # fmt: skip
            shape, explained = p.X.shape, p.meta["text_features"]["explained_variance"]
        else:
            from sklearn.decomposition import TruncatedSVD
            from sklearn.feature_extraction.text import TfidfVectorizer

            W = TfidfVectorizer(max_features=20_000, sublinear_tf=True).fit_transform(texts)
            svd = TruncatedSVD(100, random_state=0)
            X = svd.fit_transform(W)
            shape, explained = X.shape, float(svd.explained_variance_ratio_.sum())
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "which": which,
        "n": n,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "loadavg_before": [round(x, 2) for x in load],
        "threads_pinned": pinned,
        "shape": list(shape),
        "explained_variance": round(explained, 4),
        "progress_steps": len(steps),
        "mean_chars": round(float(np.mean([len(t) for t in texts])), 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--child", choices=["rlscore", "baseline"], help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child, args.n, args.threads)))
        return 0
    results = []
    for which in ("baseline", "rlscore"):
        cmd = [sys.executable, __file__, "--child", which, "--n", str(args.n),
               "--threads", str(args.threads)]  # fmt: skip
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        results.append(json.loads(out.strip().splitlines()[-1]))
    print(f"{args.n:,} texts, {args.threads} threads, cpus on machine: {os.cpu_count()}")
    for r in results:
        print(
            f"{r['which']:>9}: {r['wall_s']:6.2f} s wall, {r['cpu_s']:6.2f} s cpu, peak RSS "
            f"{r['peak_rss_mb']:7.1f} MB, load before {r['loadavg_before']}, X {r['shape']}, "
            f"explained variance {r['explained_variance']}, {r['progress_steps']} progress "
            f"calls, threads {r['threads_pinned']}, {r['mean_chars']} chars/text"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
