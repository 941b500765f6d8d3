"""Issue 37: finding wrong labels — rlscore's exact-LOO checker against cleanlab.

For each task of the strategy suite (:mod:`strategy_suite`, its pool: the 70 % stratified split
of seed ``s``, features standardised, σ by the median heuristic), a share ``rate`` of the
labels is flipped, and each checker ranks the labels, most suspicious first:

* **uniform** — ``round(rate·n)`` points drawn uniformly, each given a different class drawn
  uniformly;
* **class-conditional** — class ``c`` (of T) loses ``round(r_c·n_c)`` labels to class
  ``c + 1 mod T``, ``r_c = rate·(½ + c/(T−1))`` (rates from ½·rate to 1.5·rate, mean ``rate``);
* **active** — the labels a default session collects: focused ARLS (the default strategy)
  labels ``--active-labels`` points of the pool with the true labels (2 of each class
  first), then ``rate`` of *those* labels are flipped uniformly — the case of the app, where
  the labeled points are the hard ones near the boundary.

Checkers (each timed from the labels to its ranking):

* ``rlscore`` — :func:`rlscore.label_issues` (exact LOO RLS, λ by LOO, Platt-calibrated score);
* ``cleanlab-rls`` — cleanlab's ``find_label_issues`` (confident learning, ``n_jobs=1``, issues
  ranked by self-confidence) on 5-fold cross-validated ``predict_proba`` of the same RLS model
  (σ, λ by LOO within each fold), then the unflagged labels by cleanlab's label quality score;
* ``cleanlab-lr`` — the same with scikit-learn's ``LogisticRegression(max_iter=1000)``;
* ``cleanlab-loo`` — cleanlab on RLS's exact LOO probabilities (clipped soft scores), one fit:
  an ablation separating the out-of-sample model from the ranking rule.

Measures: precision at k = number of flipped labels, AUROC of the ranking (flipped = positive;
scikit-learn's ``roc_auc_score`` on the rank), seconds. Printed: per setting and rate, the mean
over tasks of the per-task median over seeds, and the median seconds.

``--floor`` measures instead, on each task's pool (seed 0, true labels; with ``--floor-size
N`` its first N points, e.g. 150 as in the active case), the median seconds of ``rlscore``,
``cleanlab-rls``, ``exact-floor`` (the least any checker with the exact λ search does,
:func:`exact_search_floor`: kernel, eigendecomposition, 50-λ scan, LOO values, order, frame)
and the factorisations of the pool's kernel: one eigendecomposition with
eigenvectors (what λ by LOO over the eigenvalue grid reuses), the eigenvalues alone, the exact
λ search (that eigendecomposition and the 50-λ LOO scan,
:meth:`rlscore.core.rls.eigen_loo.EigenLOO.best_lam`: ``rlscore``'s on up to
``EXACT_SEARCH_MAX`` labels), the sketched λ search
(:func:`rlscore.core.rls.sketched_lam.sketched_loo_lam`) and the exact LOO values at one λ
from one Cholesky factor (:func:`rlscore.core.rls.cholesky_loo.cholesky_loo`).

``--profile`` splits ``rlscore``'s call on the same pools (in-process: the median process
time of ``--profile-calls`` rounds after a warm-up, each round timing the call and each stage
once, so that all see the same load): the kernel, the eigendecomposition and the 50-λ
scan of the exact λ search (the sketched search above ``EXACT_SEARCH_MAX`` labels), the LOO
values at the λ, the label scores (margins, Platt's fit) and the rest of the call (input
checks, σ, label coding, sorting, the frame: the call's median less the stages').

``--review`` measures instead the Review page's usual case, which the suite's pools do not
cover: ``--review-labels`` points (40 and 80) drawn at random from the pool of a bundled sample
(``REVIEW_SAMPLES``: the imbalanced two moons (10 : 1) and circles, breast cancer, the Debian
games text sample), 5 % of them flipped uniformly to another class of the sample, σ the
sample's own; every checker, P@k and
AUROC per sample and size, mean over the seeds.

``--lam-search`` measures the sketched λ search (:mod:`rlscore.core.rls.sketched_lam`, used
by ``rlscore`` on pools of more than ``EXACT_SEARCH_MAX`` labels): on each such pool with 10 %
of the labels flipped uniformly, the exact LOO classification error at its λ against the full
eigendecomposition search's minimum.

Usage::

    OPENBLAS_NUM_THREADS=1 nice -n 10 .venv/bin/python benchmarks/label_issues.py \\
        --seeds 3 [--tasks wine iris] [--settings uniform active] [--out FILE.jsonl]
    OPENBLAS_NUM_THREADS=1 nice -n 10 .venv/bin/python benchmarks/label_issues.py --floor \\
        [--floor-size 150]
    OPENBLAS_NUM_THREADS=1 nice -n 10 .venv/bin/python benchmarks/label_issues.py --profile \\
        [--floor-size 150] [--profile-calls 200]
    OPENBLAS_NUM_THREADS=1 nice -n 10 .venv/bin/python benchmarks/label_issues.py --lam-search \\
        --seeds 4
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import load_average, pin_blas, report_machine, timed  # noqa: E402

pin_blas(1)

import numpy as np  # noqa: E402
import scipy.linalg  # noqa: E402
from cleanlab.filter import find_label_issues  # noqa: E402
from cleanlab.rank import get_label_quality_scores  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402
from sklearn.model_selection import StratifiedKFold  # noqa: E402
from strategy_suite import DATASETS, LAM, Protocol, make_split  # noqa: E402

import rlscore  # noqa: E402
from rlscore.core.conventions.ova_encoding import ova_targets  # noqa: E402
from rlscore.core.evaluation.label_issues import label_scores  # noqa: E402
from rlscore.core.kernels.functions import kernel_matrix  # noqa: E402
from rlscore.core.rls.cholesky_loo import EXACT_SEARCH_MAX, cholesky_loo  # noqa: E402
from rlscore.core.rls.classifier import RLSClassifier  # noqa: E402
from rlscore.core.rls.confidence import soft_probabilities  # noqa: E402
from rlscore.core.rls.eigen_loo import EigenLOO  # noqa: E402
from rlscore.core.rls.path import RLSPath  # noqa: E402
from rlscore.core.rls.sketched_lam import sketched_loo_lam  # noqa: E402
from rlscore.query import NoCandidatesError, make_strategy  # noqa: E402

RATES = (0.05, 0.10, 0.20)
SETTINGS = ("uniform", "class-conditional", "active")
METHODS = ("rlscore", "cleanlab-rls", "cleanlab-lr", "cleanlab-loo")


# -- noise ------------------------------------------------------------------------------------
def flip_uniform(y: np.ndarray, rate: float, rng, classes=None) -> tuple[np.ndarray, np.ndarray]:
    """``round(rate·n)`` labels, each changed to another class drawn uniformly (of ``classes``;
    None: those of ``y``)."""
    classes = np.unique(y) if classes is None else np.asarray(classes)
    flipped = rng.choice(y.size, size=round(rate * y.size), replace=False)
    noisy = y.copy()
    for i in flipped:
        noisy[i] = rng.choice(classes[classes != y[i]])
    return noisy, np.sort(flipped)


def flip_class_conditional(y: np.ndarray, rate: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """Class ``c`` loses ``round(r_c·n_c)`` labels to the next class (module docstring)."""
    classes = np.unique(y)
    T = classes.size
    noisy, flipped = y.copy(), []
    for c, cls in enumerate(classes):
        members = np.flatnonzero(y == cls)
        r_c = rate * (0.5 + c / (T - 1))
        chosen = rng.choice(members, size=round(r_c * members.size), replace=False)
        noisy[chosen] = classes[(c + 1) % T]
        flipped.extend(chosen.tolist())
    return noisy, np.sort(np.asarray(flipped, dtype=np.intp))


def active_labels(split, n_labels: int, seed: int) -> np.ndarray:
    """The pool points focused ARLS asks for, in order, answered with the true labels."""
    q = make_strategy("arls-focused", sigma=split.sigma, lam=LAM)
    if "seed" in q.get_params():
        q.set_params(seed=seed)
    q.start(split.X_pool, np.unique(split.y_pool))
    for i in split.init:
        q.teach(int(i), split.y_pool[i])
    while len(q.labeled_) < min(n_labels, split.X_pool.shape[0]):
        try:
            i, _ = q.next_query()
        except NoCandidatesError:
            break
        q.teach(i, split.y_pool[i])
    return np.asarray(list(q.labeled_), dtype=np.intp)


# -- checkers: each returns the label positions, most suspicious first ------------------------
def rank_rlscore(X, y, sigma):
    table = rlscore.label_issues(X, y, sigma=sigma, lam="auto")
    return table["index"].to_numpy()


def _cleanlab_ranking(codes: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """cleanlab's issues ranked by self-confidence, then the rest by label quality."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # one process, as rlscore's checker: the machine's cores are shared
        issues = find_label_issues(
            codes, probs, return_indices_ranked_by="self_confidence", n_jobs=1
        )
        quality = get_label_quality_scores(codes, probs)
    rest = np.setdiff1d(np.arange(codes.size), issues)
    return np.concatenate([issues, rest[np.argsort(quality[rest], kind="stable")]])


def _cv_probs(make_model, X, codes, T, seed) -> np.ndarray:
    """5-fold out-of-fold ``predict_proba``, a column per class (0 for a class a fold lacks)."""
    probs = np.zeros((codes.size, T))
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a class with fewer than 5 labels (the active case)
        for train, test in folds.split(X, codes):
            model = make_model().fit(X[train], codes[train])
            probs[np.ix_(test, model.classes_)] = model.predict_proba(X[test])
    return probs


def rank_cleanlab(X, codes, T, seed, make_model):
    return _cleanlab_ranking(codes, _cv_probs(make_model, X, codes, T, seed))


def rank_cleanlab_loo(X, codes, sigma):
    model = RLSClassifier(sigma=sigma, lam="auto").fit(X, codes)
    return _cleanlab_ranking(codes, soft_probabilities(model.loo_decision_))


def evaluate(X, noisy, flipped, sigma, seed) -> dict[str, dict]:
    """Each checker's precision at k, AUROC and seconds on one noisy labeling."""
    classes, codes = np.unique(noisy, return_inverse=True)
    T = classes.size
    truth = np.zeros(codes.size, dtype=bool)
    truth[flipped] = True
    rankers = {
        "rlscore": lambda: rank_rlscore(X, codes, sigma),
        "cleanlab-rls": lambda: rank_cleanlab(
            X, codes, T, seed, lambda: RLSClassifier(sigma=sigma, lam="auto")
        ),
        "cleanlab-lr": lambda: rank_cleanlab(
            X, codes, T, seed, lambda: LogisticRegression(max_iter=1000)
        ),
        "cleanlab-loo": lambda: rank_cleanlab_loo(X, codes, sigma),
    }
    out = {}
    for name, ranker in rankers.items():
        t0 = time.perf_counter()
        order = ranker()
        seconds = time.perf_counter() - t0
        rank_score = np.empty(codes.size)
        rank_score[order] = np.arange(codes.size, 0, -1)  # first = highest
        out[name] = {
            "precision_at_k": float(truth[order[: flipped.size]].mean()),
            "auroc": float(roc_auc_score(truth, rank_score)),
            "seconds": seconds,
        }
    return out


# -- runs -------------------------------------------------------------------------------------
def run_task(task: str, seeds, settings, rates, active_n: int) -> list[dict]:
    X, y = DATASETS[task]()
    records = []
    for seed in seeds:
        split = make_split(X, y, Protocol(), seed)
        chosen = active_labels(split, active_n, seed) if "active" in settings else None
        for setting in settings:
            for rate in rates:
                rng = np.random.default_rng([seed, int(rate * 1000), SETTINGS.index(setting)])
                if setting == "active":
                    Xs, ys = split.X_pool[chosen], split.y_pool[chosen]
                    noisy, flipped = flip_uniform(ys, rate, rng)
                elif setting == "uniform":
                    Xs, ys = split.X_pool, split.y_pool
                    noisy, flipped = flip_uniform(ys, rate, rng)
                else:
                    Xs, ys = split.X_pool, split.y_pool
                    noisy, flipped = flip_class_conditional(ys, rate, rng)
                if flipped.size == 0:
                    continue
                result = evaluate(Xs, noisy, flipped, split.sigma, seed)
                for method, figures in result.items():
                    records.append(
                        {"task": task, "seed": seed, "setting": setting, "rate": rate,
                         "n": int(ys.size), "flips": int(flipped.size), "method": method,
                         **figures}
                    )  # fmt: skip
        print(f"# {task} seed {seed} done (load {load_average()})", flush=True)
    return records


def time_ratios(records: list[dict]) -> np.ndarray:
    """rlscore's seconds over cleanlab-rls' for each labeling (task, seed, setting, rate)."""
    seconds = {
        (r["task"], r["seed"], r["setting"], r["rate"], r["method"]): r["seconds"] for r in records
    }
    return np.array(
        [
            t / seconds[(*key[:4], "cleanlab-rls")]
            for key, t in seconds.items()
            if key[4] == "rlscore" and (*key[:4], "cleanlab-rls") in seconds
        ]
    )


def summarise(records: list[dict]) -> None:
    """Per setting and rate: the mean over tasks of each task's median over seeds."""
    print("\nsetting            rate  method        P@k    AUROC  seconds(median)")
    for setting in SETTINGS:
        for rate in sorted({r["rate"] for r in records}):
            rows = [r for r in records if r["setting"] == setting and r["rate"] == rate]
            if not rows:
                continue
            for method in METHODS:
                mine = [r for r in rows if r["method"] == method]
                tasks = sorted({r["task"] for r in mine})
                per_task = {
                    key: [statistics.median(r[key] for r in mine if r["task"] == t) for t in tasks]
                    for key in ("precision_at_k", "auroc")
                }
                print(
                    f"{setting:<18} {rate:4.2f}  {method:<12} "
                    f"{np.mean(per_task['precision_at_k']):6.3f} {np.mean(per_task['auroc']):6.3f}"
                    f"  {statistics.median(r['seconds'] for r in mine):8.4f}"
                )
    print("\ntime per labeling: rlscore's seconds / cleanlab-rls' on the same noisy labels")
    for setting in SETTINGS:
        ratios = time_ratios([r for r in records if r["setting"] == setting])
        if ratios.size:
            print(
                f"{setting:<18} median {np.median(ratios):.3f}  quartiles "
                f"{np.quantile(ratios, 0.25):.3f}–{np.quantile(ratios, 0.75):.3f}  "
                f"≤ 0.1 in {int(np.sum(ratios <= 0.1))} of {ratios.size}"
            )
    print("\nper task, all settings and rates (median over runs): P@k / AUROC / seconds")
    for task in sorted({r["task"] for r in records}):
        cells = []
        for method in METHODS:
            mine = [r for r in records if r["task"] == task and r["method"] == method]
            cells.append(
                f"{method} {statistics.median(r['precision_at_k'] for r in mine):.3f}/"
                f"{statistics.median(r['auroc'] for r in mine):.3f}/"
                f"{statistics.median(r['seconds'] for r in mine):.3f}"
            )
        print(f"{task:<18} " + "  ".join(cells))


def pool_head(task: str, size: int = 0) -> tuple:
    """``task``'s pool (seed 0, true labels), or its first ``size`` points: the points, the
    classes, the class positions, σ, the RBF kernel and the one-vs-all targets."""
    X, y = DATASETS[task]()
    split = make_split(X, y, Protocol(), 0)
    keep = slice(None) if size <= 0 else slice(0, size)
    Xp, classes = split.X_pool[keep], np.unique(split.y_pool[keep])
    codes = np.searchsorted(classes, split.y_pool[keep])
    K = kernel_matrix(Xp, kernel="rbf", sigma=split.sigma)
    return Xp, classes, codes, split.sigma, K, ova_targets(codes, classes.size)


def exact_search_floor(Xp, codes, sigma, n_classes: int):
    """The least a checker with the exact λ search does (``--floor``'s ``exact-floor``): the
    RBF kernel, the eigendecomposition and the 50-λ scan, the LOO values at the λ chosen,
    the label margins in order and a two-column frame — no input checks, no calibrated score."""
    import pandas as pd

    Y = ova_targets(codes, n_classes)
    path = EigenLOO.of_kernel(kernel_matrix(Xp, kernel="rbf", sigma=sigma), Y)
    F = path.loo(np.array([path.best_lam()]))[:, 0]
    if n_classes == 2:
        s = -2.0 * F[:, 0] * Y[:, 0]  # the pair (−f, f)'s margin
    else:
        rows, own = np.arange(codes.size), F[np.arange(codes.size), codes]
        F[rows, codes] = -np.inf
        s = F.max(axis=1) - own
    order = np.argsort(-s, kind="stable")
    return pd.DataFrame({"index": order, "label_margin": s[order]})


def floor_seconds(task: str, repeats: int, size: int = 0) -> tuple[int, int, dict[str, float]]:
    """The pool size, the number of classes and the median seconds of the checkers and the
    factorisations on ``task``'s pool, or its first ``size`` points (module docstring)."""
    Xp, classes, codes, sigma, K, Y = pool_head(task, size)
    model = lambda: RLSClassifier(sigma=sigma, lam="auto")  # noqa: E731
    runs = {
        "rlscore": lambda: rank_rlscore(Xp, codes, sigma),
        "cleanlab-rls": lambda: rank_cleanlab(Xp, codes, classes.size, 0, model),
        "exact-floor": lambda: exact_search_floor(Xp, codes, sigma, classes.size),
        "eigh": lambda: scipy.linalg.eigh(K, driver="evd", check_finite=False),
        "eigvalsh": lambda: scipy.linalg.eigh(K, eigvals_only=True, check_finite=False),
        "exact": lambda: EigenLOO.of_kernel(K, Y).best_lam(),
        "sketch": lambda: sketched_loo_lam(K, Y),
        "cholesky": lambda: cholesky_loo(K, Y, 1e-3),
    }
    return Xp.shape[0], classes.size, {k: timed(fn, repeats=repeats) for k, fn in runs.items()}


def floor(tasks, repeats: int, size: int = 0) -> None:
    """Print :func:`floor_seconds` of each task, with the ratios to ``cleanlab-rls``."""
    print("\ntask               n    T  rlscore  cleanlab-rls  exact-floor  eigh(vectors)  "
          "eigvalsh  exact-search  sketch  cholesky-loo  rlscore/cleanlab-rls  "
          "exact-floor/cleanlab-rls  eigh/cleanlab-rls")  # fmt: skip
    ratios = {"rlscore": [], "exact-floor": []}
    for task in tasks:
        n, T, s = floor_seconds(task, repeats, size)
        for name, values in ratios.items():
            values.append(s[name] / s["cleanlab-rls"])
        print(
            f"{task:<18} {n:4d} {T:3d} {s['rlscore']:8.4f} "
            f"{s['cleanlab-rls']:13.4f} {s['exact-floor']:12.4f} {s['eigh']:14.4f} "
            f"{s['eigvalsh']:9.4f} {s['exact']:13.4f} "
            f"{s['sketch']:7.4f} {s['cholesky']:13.4f} "
            f"{s['rlscore'] / s['cleanlab-rls']:21.2f} "
            f"{s['exact-floor'] / s['cleanlab-rls']:25.2f} "
            f"{s['eigh'] / s['cleanlab-rls']:18.2f}  (load {load_average()})",
            flush=True,
        )
    print(
        "median over the tasks: rlscore/cleanlab-rls "
        f"{statistics.median(ratios['rlscore']):.3f}, exact-floor/cleanlab-rls "
        f"{statistics.median(ratios['exact-floor']):.3f} (min "
        f"{min(ratios['exact-floor']):.3f})"
    )


def profile_seconds(task: str, calls: int, size: int = 0) -> tuple[int, int, dict[str, float]]:
    """The pool size, the number of classes and the median process seconds of ``rlscore``'s
    call and of its stages (:func:`interleaved_cpu_seconds`, ``calls`` rounds) on ``task``'s
    pool or its first ``size`` points: the kernel, the λ search (on up to
    ``EXACT_SEARCH_MAX`` labels the eigendecomposition and the 50-λ scan, apart; above, the
    sketched search), the LOO values at the λ, the label scores (margins and Platt's fit)
    and the rest (the call less those: input checks, σ, label coding, sorting, the frame)."""
    Xp, classes, codes, sigma, K, Y = pool_head(task, size)
    exact = Xp.shape[0] <= EXACT_SEARCH_MAX
    if exact:
        path = EigenLOO.of_kernel(K, Y)
        lam = path.best_lam()
        loo = path.loo(np.array([lam]))[:, 0]
    else:
        lam = sketched_loo_lam(K, Y)
        loo = cholesky_loo(K, Y, lam)
    F = loo[:, 0] if classes.size == 2 else loo
    runs = {
        "rlscore": lambda: rank_rlscore(Xp, codes, sigma),
        "kernel": lambda: kernel_matrix(Xp, kernel="rbf", sigma=sigma),
        "decomposition": (lambda: EigenLOO.of_kernel(K, Y)) if exact else None,
        "scan": path.best_lam if exact else (lambda: sketched_loo_lam(K, Y)),
        "loo": (lambda: path.loo(np.array([lam]))) if exact else (lambda: cholesky_loo(K, Y, lam)),
        "scores": lambda: label_scores(F, codes),
    }
    s = interleaved_cpu_seconds({k: fn for k, fn in runs.items() if fn}, calls)
    s.setdefault("decomposition", 0.0)
    s["rest"] = s["rlscore"] - sum(v for k, v in s.items() if k != "rlscore")
    return Xp.shape[0], classes.size, s


def interleaved_cpu_seconds(runs: dict, calls: int, warmup: int = 10) -> dict[str, float]:
    """The median process time of each of ``runs``' functions over ``calls`` rounds, each
    round calling every function once: on a machine shared with other runs the stages see
    the same load, and process time leaves out the time the process waits for a core."""
    times: dict[str, list[float]] = {k: [] for k in runs}
    for i in range(warmup + calls):
        for name, fn in runs.items():
            t0 = time.process_time()
            fn()
            if i >= warmup:
                times[name].append(time.process_time() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def profile(tasks, calls: int, size: int = 0) -> None:
    """Print :func:`profile_seconds` of each task in milliseconds."""
    print("\ntask               n    T  rlscore ms  kernel  eigendecomposition  λ scan (sketch "
          "above 250)  LOO at λ  label scores  rest")  # fmt: skip
    for task in tasks:
        n, T, s = profile_seconds(task, calls, size)
        ms = {k: 1e3 * v for k, v in s.items()}
        print(
            f"{task:<18} {n:4d} {T:3d} {ms['rlscore']:10.3f} {ms['kernel']:7.3f} "
            f"{ms['decomposition']:19.3f} {ms['scan']:26.3f} {ms['loo']:9.3f} "
            f"{ms['scores']:13.3f} {ms['rest']:5.3f}  (load {load_average()})",
            flush=True,
        )


def lam_search_excess(task: str, seeds) -> list[tuple[int, float, float]]:
    """On ``task``'s pool with 10 % of the labels flipped uniformly (each seed): the exact LOO
    classification error at the full search's λ and at the sketched search's, by the full
    eigendecomposition path (the reference)."""
    X, y = DATASETS[task]()
    out = []
    for seed in seeds:
        split = make_split(X, y, Protocol(), seed)
        classes, codes = np.unique(split.y_pool, return_inverse=True)
        noisy, _ = flip_uniform(codes, 0.10, np.random.default_rng([seed, 100, 0]))
        K = kernel_matrix(split.X_pool, kernel="rbf", sigma=split.sigma)
        Y = ova_targets(noisy, classes.size)
        path = RLSPath(K, Y)
        lams = [path.best_loo_lam(), sketched_loo_lam(K, Y)]
        full, sketched = path.curve(lams)["loo_classification_error"]
        out.append((codes.size, full, sketched))
    return out


#: the bundled samples of ``--review`` (module docstring)
REVIEW_SAMPLES = ("two_moons", "circles", "breast_cancer", "debian_games")


def review_records(samples, seeds, sizes) -> list[dict]:
    """Every checker on small labelled sets of bundled samples (``--review``, docstring)."""
    from rlscore.data.samples.bundled import load_sample, sample_meta

    records = []
    for name in samples:
        X, y = load_sample(name).X, np.asarray(load_sample(name).y)
        for n, seed in ((n, seed) for n in sizes for seed in seeds):
            rng = np.random.default_rng([seed, n])
            picked = rng.choice(y.size, n, replace=False)
            # to any class of the project, as a slip of the key: the rare class may be absent
            noisy, flipped = flip_uniform(y[picked], 0.05, rng, np.unique(y))
            if np.unique(noisy).size < 2:
                continue  # one class among the labels: no checker runs
            result = evaluate(X[picked], noisy, flipped, sample_meta(name)["sigma"], seed)
            records += [
                {"task": name, "seed": seed, "n": n, "method": method, **figures}
                for method, figures in result.items()
            ]
        print(f"# {name} done (load {load_average()})", flush=True)
    return records


def review_summary(records: list[dict]) -> None:
    """Per sample and size: each checker's mean P@k / AUROC over the seeds."""
    print("\nsample          labels  runs  " + "  ".join(f"{m:>17}" for m in METHODS))
    for name in dict.fromkeys(r["task"] for r in records):
        for n in sorted({r["n"] for r in records if r["task"] == name}):
            cells, runs = [], 0
            for method in METHODS:
                mine = [r for r in records if (r["task"], r["n"], r["method"]) == (name, n, method)]
                runs = len(mine)
                p = np.mean([r["precision_at_k"] for r in mine])
                a = np.mean([r["auroc"] for r in mine])
                cells.append(f"{p:.3f} / {a:.3f}".rjust(17))
            print(f"{name:<15} {n:6d} {runs:5d}  " + "  ".join(cells))


def lam_search(tasks, seeds) -> None:
    """Print :func:`lam_search_excess` for the pools the sketch serves, and its summary."""
    print("\ntask               n    seed  LOO error at full λ  at sketched λ  excess")
    excess = []
    for task in tasks:
        for seed, (n, full, sketched) in zip(seeds, lam_search_excess(task, seeds), strict=True):
            if n <= EXACT_SEARCH_MAX:
                break  # the exact search serves this pool
            excess.append(sketched - full)
            print(
                f"{task:<18} {n:4d} {seed:5d} {full:20.4f} {sketched:14.4f} {sketched - full:7.4f}"
            )
    if excess:
        print(f"mean excess {np.mean(excess):.4f}, max {np.max(excess):.4f} over {len(excess)}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--tasks", nargs="*", default=list(DATASETS))
    parser.add_argument("--settings", nargs="*", default=list(SETTINGS), choices=SETTINGS)
    parser.add_argument("--rates", nargs="*", type=float, default=list(RATES))
    parser.add_argument("--active-labels", type=int, default=150)
    parser.add_argument("--out", default=None, help="write every record here (JSON lines)")
    parser.add_argument(
        "--floor", action="store_true", help="time the factorisations instead (docstring)"
    )
    parser.add_argument("--repeats", type=int, default=5, help="repeats of each --floor time")
    parser.add_argument(
        "--floor-size",
        type=int,
        default=0,
        help="--floor or --profile on each pool's first N points (0: all)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="time rlscore's call and its stages, --profile-calls calls each (docstring)",
    )
    parser.add_argument("--profile-calls", type=int, default=200)
    parser.add_argument(
        "--lam-search",
        action="store_true",
        help="the sketched λ search's exact LOO error against the full search's (docstring)",
    )
    parser.add_argument("--review", action="store_true", help="the Review page's case (docstring)")
    parser.add_argument("--review-labels", nargs="*", type=int, default=[40, 80])
    args = parser.parse_args(argv)
    report_machine()
    print(f"# command: {' '.join(sys.argv)}", flush=True)
    if args.lam_search:
        lam_search(args.tasks, list(range(args.seeds)))
        report_machine()
        return 0
    if args.profile:
        profile(args.tasks, args.profile_calls, args.floor_size)
        report_machine()
        return 0
    if args.floor:
        floor(args.tasks, args.repeats, args.floor_size)
        report_machine()
        return 0
    if args.review:
        records = review_records(REVIEW_SAMPLES, range(args.seeds), args.review_labels)
        if args.out:
            Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in records))
        review_summary(records)
        report_machine()
        return 0
    records = []
    for task in args.tasks:
        records += run_task(task, range(args.seeds), args.settings, args.rates, args.active_labels)
        if args.out:
            Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in records))
    summarise(records)
    report_machine()
    return 0


if __name__ == "__main__":
    sys.exit(main())
