"""Strategy benchmark (issue 13): every project strategy and the peers' on a fixed suite.

The data sets, the protocol (stratified held-out test set, initial labels per class, queries,
seeds) and the AULC are :mod:`strategy_suite`'s. Each run is one (strategy, data set, seed);
its curves are test accuracy and balanced accuracy after the initial labels and after every
query, and the wall time of every query step.

**Strategies.** The project's: every name of :data:`rlscore.query.STRATEGIES`, read at run
time (a strategy registered later is included), driven through the engine's protocol
(``make_strategy``, ``start``, ``teach``, ``next_query``, ``predict_at``). LGC classifies the
pool only (its kNN graph has no out-of-sample form): a test point gets the mean of the LGC
class probabilities of its ``graph_k`` nearest pool points, the induction formula of
Delalleau, Bengio & Le Roux (2005) for the same binary kNN weights. The peers', when their
packages are installed (the ``bench`` extra):

* ``skactiveml-margin``, ``skactiveml-entropy``: scikit-activeml's ``UncertaintySampling``
  (``margin_sampling``, ``entropy``);
* ``skactiveml-eer``: scikit-activeml's ``MonteCarloEER`` (Roy & McCallum's expected error
  reduction, misclassification loss) with the same model; it refits the model once per
  candidate and class, so each query scores ``--eer-pairs / T`` random unlabeled candidates
  (at least 2) and estimates the error on ``--eer-eval`` random pool points, as Roy &
  McCallum subsample;
* ``modal-uncertainty``: modAL's ``ActiveLearner`` with ``uncertainty_sampling`` (least
  confident). modAL 0.4.2.1 (its latest release) calls ``check_X_y(force_all_finite=…)``, a
  keyword scikit-learn renamed ``ensure_all_finite`` in 1.6 and removed in 1.8;
  :func:`modal_compatibility_shim` passes it on under the new name.

**Cost bounds** (stated with the results). The A-optimal KLR scores its 50 most uncertain
candidates per query (its ``candidates`` option; all of them cost about 5 s per query on the
10-class digits here) and the low-rank ARLS its 500 (the app's large-pool default,
``LOW_RANK_DEFAULTS``): :data:`BUDGET_PARAMS`, off with ``--no-budget``. Every other project
strategy scores every unlabeled point. EER (above) refits ``--eer-pairs`` = 10 times per
query by default. ``--time-cap`` stops a run that takes longer (it is then left out).

**One hyper-parameter rule for everyone.** RBF kernel, σ = the median pairwise distance of
the run's pool, λ = 0.1. The project's strategies take σ and λ directly (the KLR strategies
use the RBF kernel too, not their graph-kernel default, and ``tune="none"``: a strategy that
would choose its own λ by leave-one-out keeps the shared one). The peers' model is scikit-learn's
``SVC(kernel="rbf", gamma=1/(2σ²), C=1/(2λ), probability=True)``: dividing the RLS objective
``Σ(y − f)² + λ‖f‖²`` by 2λ gives ``½‖f‖² + 1/(2λ) Σ loss``, the SVC's form with C = 1/(2λ)
(hinge loss instead of squared loss). Its probabilities are Platt's (scikit-learn deprecated
``probability=True`` in 1.9, to be removed in 1.11; the replacement,
``CalibratedClassifierCV``, needs more labels per class than the 2 the runs start with).

**Seconds per query**: the median over all query steps of every seed of the wall time of
one step — the selection and the model update with the new label (project: ``next_query`` +
``teach``; peers: ``query`` + refit) — with BLAS pinned to one thread. Starting a run (the
pool kernel, the initial fit) is not counted.

**Ranks.** On each data set the strategies are ranked by mean AULC of accuracy (1 = best,
ties share the mean rank); the table gives each strategy's mean rank over the data sets and
its worst difference from ``random`` in points (100 × AULC).

Usage::

    python benchmarks/strategies.py --quick                # seconds: 2 data sets, 2 seeds
    OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/strategies.py --seeds 10 \\
        --queries 40 --time-cap 300 --out results.json --plot ranks.png   # the full suite
    python benchmarks/strategies.py --strategies NEW --resume --out results.json  # add one
    python benchmarks/strategies.py --from results.json --plot ranks.png  # tables, no runs
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import subprocess
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from importlib.util import find_spec
from pathlib import Path

from harness import load_average, pin_blas, report_machine

pin_blas(1)

import numpy as np  # noqa: E402
from scipy.stats import rankdata  # noqa: E402
from sklearn.metrics import accuracy_score, balanced_accuracy_score  # noqa: E402
from sklearn.neighbors import NearestNeighbors  # noqa: E402
from sklearn.svm import SVC  # noqa: E402
from strategy_suite import DATASETS, Protocol, Split, aulc, make_split  # noqa: E402

from rlscore.experiments.simulation.simulate import can_predict_outside  # noqa: E402
from rlscore.query import STRATEGIES, make_strategy  # noqa: E402
from rlscore.sessions.state.settings import DEFAULT_STRATEGIES, LOW_RANK_DEFAULTS  # noqa: E402

#: the project's default strategy (what a new project uses when its pool fits)
DEFAULT = DEFAULT_STRATEGIES[0]
#: peer strategy name → the package it needs
PEERS = {
    "skactiveml-margin": "skactiveml",
    "skactiveml-entropy": "skactiveml",
    "skactiveml-eer": "skactiveml",
    "modal-uncertainty": "modAL",
}
#: parameters that bound a project strategy's cost per query in this benchmark (module
#: docstring); ``--no-budget`` runs every strategy with its registry defaults
BUDGET_PARAMS = {
    "aopt-klr": {"candidates": 50},  # its most uncertain 50 (candidate_rule default)
    "arls-lowrank": {"candidates": LOW_RANK_DEFAULTS["candidates"]},  # the app's large-pool
}
#: --quick: small data sets, few seeds and queries
QUICK = {"datasets": ["iris", "moons_imbalanced"], "seeds": 2, "queries": 10}


# -- learners: one interface over the project's and the peers' strategies ---------------------
@dataclass(frozen=True)
class RunOptions:
    """How the runs bound their cost (module docstring)."""

    eer_pairs: int = 10  # EER refits per query: candidates = max(2, eer_pairs // T)
    eer_eval: int = 100  # pool points EER estimates the error on
    budget: bool = True  # apply BUDGET_PARAMS
    time_cap: float = float("inf")  # seconds per run, then the run stops (incomplete)


class ProjectLearner:
    """A strategy of :data:`rlscore.query.STRATEGIES` through the engine's protocol."""

    def __init__(self, name: str, params: dict | None = None) -> None:
        self.name = name
        self.params = params or {}

    def start(self, split: Split, n_classes: int, lam: float, seed: int) -> None:
        self.y = split.y_pool
        # tune="none": a strategy that would choose its own λ keeps the shared one
        q = make_strategy(
            self.name, kernel="rbf", sigma=split.sigma, lam=lam, tune="none", seed=seed,
            random_state=seed, **self.params,
        )  # fmt: skip
        K = q.pool_kernel(split.X_pool) if q.needs_pool_kernel() else None
        q.start(split.X_pool, np.arange(n_classes), K=K)
        if hasattr(q, "teach_many"):
            q.teach_many(split.init.tolist(), self.y[split.init].tolist())
        else:
            for i in split.init:
                q.teach(int(i), int(self.y[i]))
        self.q = q
        self._neighbours = None

    def step(self) -> int:
        i, _ = self.q.next_query()
        self.q.teach(i, int(self.y[i]))
        return i

    def predict(self, Z: np.ndarray) -> np.ndarray:
        if can_predict_outside(self.q):
            return np.asarray(self.q.predict_at(Z))
        # a graph on the pool only (LGC): kNN induction, each test point the mean of its
        # graph_k nearest pool points' class probabilities (the graph's own binary weights)
        if self._neighbours is None:
            k = self.q.get_params().get("graph_k", 6)
            nn = NearestNeighbors(n_neighbors=k).fit(self.q.X_)
            self._neighbours = nn.kneighbors(Z, return_distance=False)
        P = self.q.predict_proba()[self._neighbours].mean(axis=1)
        return self.q.classes_[np.argmax(P, axis=1)]


def peer_svc(sigma: float, lam: float, seed: int) -> SVC:
    """The peers' model under the shared rule: γ = 1/(2σ²), C = 1/(2λ) (module docstring)."""
    return SVC(
        kernel="rbf", gamma=1.0 / (2.0 * sigma**2), C=1.0 / (2.0 * lam), probability=True,
        random_state=seed,
    )  # fmt: skip


class SkactivemlLearner:
    """scikit-activeml's uncertainty sampling or Monte-Carlo EER with :func:`peer_svc`."""

    def __init__(self, method: str, eer_pairs: int = 10, eer_eval: int = 100) -> None:
        self.method = method
        self.eer_pairs = eer_pairs
        self.eer_eval = eer_eval

    def start(self, split: Split, n_classes: int, lam: float, seed: int) -> None:
        from skactiveml.classifier import SklearnClassifier
        from skactiveml.pool import MonteCarloEER, UncertaintySampling

        self.X, self.y_true = split.X_pool, split.y_pool
        self.y = np.full(self.X.shape[0], np.nan)  # scikit-activeml's missing label
        self.y[split.init] = self.y_true[split.init]
        self.n_classes = n_classes
        self.rng = np.random.default_rng(seed)
        self.clf = SklearnClassifier(
            peer_svc(split.sigma, lam, seed), classes=np.arange(n_classes), random_state=seed
        )
        if self.method == "eer":
            self.qs = MonteCarloEER(method="misclassification_loss", random_state=seed)
        else:
            self.qs = UncertaintySampling(method=self.method, random_state=seed)
        self._fit()

    def _fit(self) -> None:
        with _svc_probability_deprecation_ignored():
            self.clf.fit(self.X, self.y)

    def step(self) -> int:
        kwargs = {}
        if self.method == "eer":
            unlabeled = np.flatnonzero(np.isnan(self.y))
            n_cands = min(unlabeled.size, max(2, self.eer_pairs // self.n_classes))
            kwargs["candidates"] = self.rng.choice(unlabeled, size=n_cands, replace=False)
            n_eval = min(self.X.shape[0], self.eer_eval)
            kwargs["X_eval"] = self.X[self.rng.choice(self.X.shape[0], n_eval, replace=False)]
        with _svc_probability_deprecation_ignored():
            # scikit-activeml's EER refits its own copy (fit_clf=True); the others reuse ours
            fit = self.method == "eer"
            i = int(self.qs.query(self.X, self.y, clf=self.clf, fit_clf=fit, **kwargs)[0])
        self.y[i] = self.y_true[i]
        self._fit()
        return i

    def predict(self, Z: np.ndarray) -> np.ndarray:
        return self.clf.predict(Z).astype(np.int64)


def modal_compatibility_shim() -> None:
    """Let modAL 0.4.2.1 run with scikit-learn ≥ 1.8 (module docstring).

    modAL's learners call ``check_X_y(..., force_all_finite=...)``; scikit-learn 1.6 renamed
    the keyword ``ensure_all_finite`` and 1.8 removed the old name. When the installed
    ``check_X_y`` no longer takes it, modAL's module gets a wrapper that renames it.
    """
    import modAL.models.learners as learners
    from sklearn.utils import check_X_y

    if "force_all_finite" in inspect.signature(check_X_y).parameters:
        return

    def check_X_y_renamed(*args, force_all_finite=True, **kwargs):
        return check_X_y(*args, ensure_all_finite=force_all_finite, **kwargs)

    learners.check_X_y = check_X_y_renamed


class ModalLearner:
    """modAL's ``ActiveLearner`` with least-confident uncertainty sampling and
    :func:`peer_svc`, queried on the unlabeled pool points."""

    def start(self, split: Split, n_classes: int, lam: float, seed: int) -> None:
        from modAL.models import ActiveLearner
        from modAL.uncertainty import uncertainty_sampling

        modal_compatibility_shim()
        self.X, self.y = split.X_pool, split.y_pool
        self.unlabeled = np.ones(self.X.shape[0], dtype=bool)
        self.unlabeled[split.init] = False
        with _svc_probability_deprecation_ignored():
            self.learner = ActiveLearner(
                estimator=peer_svc(split.sigma, lam, seed),
                query_strategy=uncertainty_sampling,
                X_training=self.X[split.init],
                y_training=self.y[split.init],
            )

    def step(self) -> int:
        U = np.flatnonzero(self.unlabeled)
        with _svc_probability_deprecation_ignored():
            idx, _ = self.learner.query(self.X[U])
            i = int(U[int(np.ravel(idx)[0])])
            self.learner.teach(self.X[i : i + 1], self.y[i : i + 1])
        self.unlabeled[i] = False
        return i

    def predict(self, Z: np.ndarray) -> np.ndarray:
        return np.asarray(self.learner.predict(Z), dtype=np.int64)


@contextmanager
def _svc_probability_deprecation_ignored():
    """Silence scikit-learn 1.9's FutureWarning about ``SVC(probability=True)`` (module
    docstring: still the peers' model while it exists)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*probability.*", category=FutureWarning)
        yield


def make_learner(name: str, options: RunOptions = RunOptions()):
    """The learner of a project or peer strategy name."""
    if name in STRATEGIES:
        return ProjectLearner(name, BUDGET_PARAMS.get(name) if options.budget else None)
    if name == "skactiveml-margin":
        return SkactivemlLearner("margin_sampling")
    if name == "skactiveml-entropy":
        return SkactivemlLearner("entropy")
    if name == "skactiveml-eer":
        return SkactivemlLearner("eer", options.eer_pairs, options.eer_eval)
    if name == "modal-uncertainty":
        return ModalLearner()
    raise ValueError(f"unknown strategy {name!r}: choose from {available_strategies()}")


def available_strategies() -> list[str]:
    """Every project strategy (registry order) and the peers whose package is installed."""
    return list(STRATEGIES) + [n for n, pkg in PEERS.items() if find_spec(pkg) is not None]


# -- one run ---------------------------------------------------------------------------------
@cache
def load_dataset(name: str) -> tuple[np.ndarray, np.ndarray]:
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}: choose from {list(DATASETS)}")
    return DATASETS[name]()


def run_one(
    strategy: str,
    dataset: str,
    seed: int,
    protocol: Protocol,
    options: RunOptions = RunOptions(),
) -> dict:
    """One run: curves of test accuracy and balanced accuracy over the steps 0 … Q and the
    seconds of every query step. A run that fails records its error; one that exceeds
    ``options.time_cap`` seconds stops early (``capped``)."""
    X, y = load_dataset(dataset)
    split = make_split(X, y, protocol, seed)
    record = {
        "strategy": strategy, "dataset": dataset, "seed": seed, "n_pool": len(split.y_pool),
        "n_test": len(split.y_test), "n_classes": int(np.unique(y).size), "sigma": split.sigma,
        "init": split.init.tolist(), "queried": [], "accuracy": [], "balanced_accuracy": [],
        "seconds": [], "capped": False, "error": None,
    }  # fmt: skip
    learner = make_learner(strategy, options)

    def measure() -> None:
        pred = learner.predict(split.X_test)
        record["accuracy"].append(float(accuracy_score(split.y_test, pred)))
        record["balanced_accuracy"].append(float(balanced_accuracy_score(split.y_test, pred)))

    began = time.perf_counter()
    try:
        learner.start(split, record["n_classes"], protocol.lam, seed)
        record["start_seconds"] = time.perf_counter() - began
        measure()
        for _ in range(protocol.queries):
            tic = time.perf_counter()
            i = learner.step()
            record["seconds"].append(time.perf_counter() - tic)
            record["queried"].append(int(i))
            measure()
            if time.perf_counter() - began > options.time_cap:
                record["capped"] = len(record["queried"]) < protocol.queries
                break
    except Exception as exc:  # one failing strategy must not stop the suite
        record["error"] = f"{type(exc).__name__}: {exc}"
    return record


def _run_task(args: tuple) -> dict:
    return run_one(*args)


# -- the suite -------------------------------------------------------------------------------
def run_suite(
    strategies: Sequence[str],
    datasets: Sequence[str],
    protocol: Protocol,
    *,
    jobs: int = 1,
    options: RunOptions = RunOptions(),
    out: Path | None = None,
    done: Sequence[dict] = (),
) -> list[dict]:
    """Every (strategy, data set, seed) run not in ``done``; saves to ``out`` as it goes."""
    have = {(r["strategy"], r["dataset"], r["seed"]) for r in done}
    tasks = [
        (s, d, seed, protocol, options)
        for d in datasets
        for s in strategies
        for seed in protocol.seeds
        if (s, d, seed) not in have
    ]
    runs = list(done)
    meta = suite_meta(strategies, datasets, protocol, options)
    last_save = time.monotonic()
    began = time.monotonic()

    def finished(record: dict) -> None:
        nonlocal last_save
        runs.append(record)
        status = record["error"] or ("capped" if record["capped"] else "")
        med = np.median(record["seconds"]) if record["seconds"] else float("nan")
        print(
            f"[{len(runs) - len(done)}/{len(tasks)} {time.monotonic() - began:.0f}s] "
            f"{record['dataset']} {record['strategy']} seed {record['seed']}: "
            f"AULC {_aulc_or_nan(record, 'accuracy'):.3f}, {med:.4f} s/query {status}",
            flush=True,
        )
        if out is not None and time.monotonic() - last_save > 20:
            save(out, meta, runs)
            last_save = time.monotonic()

    if jobs <= 1:
        for task in tasks:
            finished(run_one(*task))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for fut in as_completed([pool.submit(_run_task, t) for t in tasks]):
                finished(fut.result())
    meta["load_average_end"] = load_average()
    if out is not None:
        save(out, meta, runs)
    return runs


def suite_meta(strategies, datasets, protocol: Protocol, options: RunOptions) -> dict:
    return {
        "strategies": list(strategies),
        "datasets": list(datasets),
        "protocol": {
            "queries": protocol.queries,
            "seeds": list(protocol.seeds),
            "init_per_class": protocol.init_per_class,
            "test_fraction": protocol.test_fraction,
            "lam": protocol.lam,
            "sigma": "median pairwise distance of the pool",
        },  # fmt: skip
        "eer_pairs": options.eer_pairs,
        "eer_eval": options.eer_eval,
        "budget_params": BUDGET_PARAMS if options.budget else {},
        "time_cap": None if options.time_cap == float("inf") else options.time_cap,
        "default_strategy": DEFAULT,
        "cores": os.cpu_count(),
        "load_average_start": load_average(),
        "command": " ".join(sys.argv),
        "code": code_version(),
    }


def code_version() -> str:
    """The commit the engine comes from, and whether its files differ from it."""
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "rlscore"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    changed = [line[3:] for line in changed if line.strip()]
    return head + (f" with uncommitted changes to {', '.join(changed)}" if changed else "")


def save(path: Path, meta: dict, runs: list[dict]) -> None:
    tmp = Path(f"{path}.tmp")
    tmp.write_text(json.dumps({"meta": meta, "runs": runs}))
    tmp.replace(path)


# -- summary, table, plot --------------------------------------------------------------------
def _aulc_or_nan(run: dict, key: str) -> float:
    complete = run["error"] is None and not run["capped"]
    return aulc(run[key]) if complete and run[key] else float("nan")


def summarise(runs: Sequence[dict]) -> dict:
    """Per (strategy, data set): AULC mean and sd (ddof 1) over the complete runs, for
    accuracy and balanced accuracy, the median seconds per query, and failed runs."""
    groups = defaultdict(list)
    for r in runs:
        groups[r["strategy"], r["dataset"]].append(r)
    out = {}
    for key, rs in groups.items():
        row = {"runs": len(rs), "failed": sum(r["error"] is not None or r["capped"] for r in rs)}
        errors = [r["error"] for r in rs if r["error"]]
        row["error"] = errors[0] if errors else None
        for metric in ("accuracy", "balanced_accuracy"):
            v = np.array([_aulc_or_nan(r, metric) for r in rs])
            v = v[~np.isnan(v)]
            row[metric] = float(v.mean()) if v.size else float("nan")
            row[metric + "_sd"] = float(v.std(ddof=1)) if v.size > 1 else float("nan")
        secs = [s for r in rs for s in r["seconds"]]
        row["seconds"] = float(np.median(secs)) if secs else float("nan")
        out[key] = row
    return out


def rank_table(summary: dict, strategies, datasets, metric: str = "accuracy") -> np.ndarray:
    """Ranks (strategies × data sets) by mean AULC, 1 = best, ties averaged; NaN where a
    strategy has no complete run (it is then left out of that data set's ranking)."""
    R = np.full((len(strategies), len(datasets)), np.nan)
    for j, d in enumerate(datasets):
        v = np.array([summary.get((s, d), {}).get(metric, np.nan) for s in strategies])
        ok = ~np.isnan(v)
        R[ok, j] = rankdata(-v[ok])
    return R


def markdown_tables(
    runs: Sequence[dict], strategies=None, datasets=None, default: str = DEFAULT
) -> str:
    """The results as markdown: a summary (mean ranks, worst gap to random, seconds) and
    per-data-set tables of AULC accuracy, AULC balanced accuracy and seconds per query."""
    summary = summarise(runs)
    strategies = strategies or _ordered({r["strategy"] for r in runs}, available_strategies())
    datasets = datasets or _ordered({r["dataset"] for r in runs}, list(DATASETS))
    R = rank_table(summary, strategies, datasets)
    Rb = rank_table(summary, strategies, datasets, "balanced_accuracy")
    mean_rank = _mean_rank(R)
    order = np.argsort(mean_rank, kind="stable")
    lines = [
        "| strategy | mean rank (AULC acc) | mean rank (AULC bal. acc) | worst AULC − random "
        "(points) | median s/query (max over data sets) |",
        "|---|---|---|---|---|",
    ]
    for k in order:
        s = strategies[k]
        gaps = [
            (100 * (summary[s, d]["accuracy"] - summary["random", d]["accuracy"]), d)
            for d in datasets
            if s != "random" and (s, d) in summary and ("random", d) in summary
        ]
        gaps = [g for g in gaps if not np.isnan(g[0])]
        worst = "{:+.1f} ({})".format(*min(gaps)) if gaps else "–"
        secs = [summary[s, d]["seconds"] for d in datasets if (s, d) in summary]
        name = f"**{s}** (default)" if s == default else s
        lines.append(
            f"| {name} | {mean_rank[k]:.2f} | {_mean_rank(Rb)[k]:.2f} | {worst} | "
            f"{_fmt_seconds(np.nanmedian(secs))} ({_fmt_seconds(np.nanmax(secs))}) |"
        )
    sections = ["\n".join(lines)]
    for title, cell in (
        ("AULC of test accuracy (× 100, mean ± sd over seeds)", _cell("accuracy")),
        ("AULC of balanced test accuracy (× 100, mean ± sd)", _cell("balanced_accuracy")),
        ("Seconds per query (median over all steps and seeds)", _cell_seconds),
    ):
        head = "| strategy | " + " | ".join(datasets) + " |"
        rows = [head, "|---" * (len(datasets) + 1) + "|"]
        for k in order:
            s = strategies[k]
            cells = [cell(summary.get((s, d)), R[k, j]) for j, d in enumerate(datasets)]
            rows.append(f"| {s} | " + " | ".join(cells) + " |")
        sections.append(f"**{title}**\n\n" + "\n".join(rows))
    notes = _failure_notes(summary)
    return "\n\n".join(sections) + (("\n\n" + notes) if notes else "")


def _mean_rank(R: np.ndarray) -> np.ndarray:
    """Mean over the data sets where the strategy is ranked (NaN where it never is)."""
    counts = (~np.isnan(R)).sum(axis=1)
    return np.where(counts > 0, np.nansum(R, axis=1) / np.maximum(counts, 1), np.nan)


def _cell(metric: str):
    def cell(row, rank) -> str:
        if row is None:
            return "–"
        if np.isnan(row[metric]):
            return "failed"
        mark = "**" if rank == 1 else ""
        sd = "" if np.isnan(row[metric + "_sd"]) else f" ± {100 * row[metric + '_sd']:.1f}"
        return f"{mark}{100 * row[metric]:.1f}{mark}{sd}"

    return cell


def _cell_seconds(row, rank) -> str:
    return "–" if row is None else _fmt_seconds(row["seconds"])


def _fmt_seconds(s: float) -> str:
    return "–" if np.isnan(s) else f"{s:.2g}" if s < 10 else f"{s:.0f}"


def _failure_notes(summary: dict) -> str:
    notes = [
        f"- {s} on {d}: {row['failed']} of {row['runs']} runs incomplete"
        + (f" ({row['error']})" if row["error"] else " (time cap)")
        for (s, d), row in summary.items()
        if row["failed"]
    ]
    if not notes:
        return ""
    return "Incomplete runs (left out of the means and ranks):\n" + "\n".join(notes)


def _ordered(names: set, preferred: Sequence[str]) -> list[str]:
    return [n for n in preferred if n in names] + sorted(names - set(preferred))


def rank_plot(runs: Sequence[dict], path: Path, default: str = DEFAULT) -> None:
    """Each data set's AULC rank per strategy (dots) and the mean rank (black bar, value)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = summarise(runs)
    strategies = _ordered({r["strategy"] for r in runs}, available_strategies())
    datasets = _ordered({r["dataset"] for r in runs}, list(DATASETS))
    R = rank_table(summary, strategies, datasets)
    mean_rank = _mean_rank(R)
    order = np.argsort(mean_rank, kind="stable")
    x = np.arange(len(order))
    fig, ax = plt.subplots(figsize=(2.5 + 0.6 * len(strategies), 4.8))
    markers = "osD^v<>phX*P"
    offsets = np.linspace(-0.25, 0.25, len(datasets))
    for j, d in enumerate(datasets):
        ax.scatter(
            x + offsets[j], R[order, j], s=16, marker=markers[j % len(markers)], label=d,
            alpha=0.8, zorder=2,
        )  # fmt: skip
    ax.scatter(x, mean_rank[order], s=500, marker="_", color="black", linewidths=2.5, zorder=3)
    for k, m in zip(x, mean_rank[order], strict=True):
        ax.annotate(f"{m:.1f}", (k, m), xytext=(0, 6), textcoords="offset points",
                    ha="center", fontsize=8, fontweight="bold")  # fmt: skip
    labels = [strategies[k] + (" (default)" if strategies[k] == default else "") for k in order]
    ax.set_xticks(x, labels, rotation=40, ha="right")
    ax.set_ylabel("AULC rank (1 = best); bar: mean")
    ax.set_ylim(len(strategies) + 0.5, 0.5)
    ax.grid(axis="y", alpha=0.3)
    n_seeds = len({r["seed"] for r in runs})
    seeds = f"{n_seeds} seed" + ("s" if n_seeds != 1 else "")
    ax.set_title(f"Rank of AULC (test accuracy): {len(datasets)} data sets, {seeds}")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="data set")
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


# -- command line ----------------------------------------------------------------------------
def _names(text: str | None, known: Sequence[str], what: str) -> list[str] | None:
    if text is None:
        return None
    names = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown {what} {unknown}: choose from {list(known)}")
    return names


def main(argv: Sequence[str] | None = None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--strategies", help="comma-separated (default: every project and peer one)")
    p.add_argument("--datasets", help=f"comma-separated (default: all of {list(DATASETS)})")
    p.add_argument("--seeds", type=int, help="seeds 0 … N − 1 (default 10)")
    p.add_argument("--queries", type=int, help="queries per run (default 40)")
    p.add_argument("--init-per-class", type=int, default=2, help="initial labels per class")
    p.add_argument("--quick", action="store_true", help=f"small suite: {QUICK}")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--eer-pairs", type=int, default=10, help="EER refits per query (÷ T)")
    p.add_argument("--eer-eval", type=int, default=100, help="EER risk points per query")
    p.add_argument("--no-budget", action="store_true", help="ignore BUDGET_PARAMS")
    p.add_argument("--time-cap", type=float, default=float("inf"), help="seconds per run")
    p.add_argument("--out", type=Path, help="write the raw curves (JSON)")
    p.add_argument("--resume", action="store_true", help="keep the runs already in --out")
    p.add_argument("--from", dest="source", type=Path, help="tables/plot from a saved JSON")
    p.add_argument("--plot", type=Path, help="rank plot (PNG)")
    p.add_argument("--markdown", type=Path, help="also write the tables to this file")
    a = p.parse_args(argv)

    report_machine()
    default = DEFAULT
    if a.source is not None:
        saved = json.loads(a.source.read_text())
        runs = saved["runs"]
        default = saved["meta"].get("default_strategy", DEFAULT)  # the default of that run
    else:
        strategies = _names(a.strategies, available_strategies(), "strategies")
        datasets = _names(a.datasets, list(DATASETS), "data sets")
        strategies = strategies or available_strategies()
        datasets = datasets or (QUICK["datasets"] if a.quick else list(DATASETS))
        seeds = a.seeds or (QUICK["seeds"] if a.quick else 10)
        queries = a.queries or (QUICK["queries"] if a.quick else 40)
        protocol = Protocol(queries, tuple(range(seeds)), a.init_per_class)
        missing = [n for n, pkg in PEERS.items() if find_spec(pkg) is None]
        if missing:
            print(f"# peers not installed (pip install -e '.[bench]'): {missing}")
        done = []
        if a.resume and a.out is not None and a.out.exists():
            done = json.loads(a.out.read_text())["runs"]
        options = RunOptions(a.eer_pairs, a.eer_eval, not a.no_budget, a.time_cap)
        runs = run_suite(
            strategies, datasets, protocol, jobs=a.jobs, options=options, out=a.out, done=done
        )
    text = markdown_tables(runs, default=default)
    print(text)
    report_machine()
    if a.markdown is not None:
        a.markdown.write_text(text + "\n")
    if a.plot is not None:
        rank_plot(runs, a.plot, default)
        print(f"# rank plot: {a.plot}")
    return runs


if __name__ == "__main__":
    main()
