"""``python -m rlscore simulate``: run a query strategy against known labels from the shell."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from rlscore.cli.io.output_files import output_file
from rlscore.cli.io.progress_bar import ProgressBar
from rlscore.core.conventions.counted_words import counted
from rlscore.core.kernels.landmarks import LANDMARK_RULES
from rlscore.core.kernels.rbf_width import DEFAULT_SIGMA
from rlscore.data.features.text import ANALYZERS
from rlscore.data.projects.class_labels import truth_and_classes
from rlscore.data.projects.table_project import project_from_table
from rlscore.data.samples.bundled import list_samples, load_sample
from rlscore.data.upload.table_reading import read_table
from rlscore.experiments.simulation.multilabel import (
    MultiLabelSimulationResult,
    simulate_multilabel,
)
from rlscore.experiments.simulation.simulate import SimulationResult, can_predict_outside, simulate
from rlscore.query import (
    DEFAULT_MULTILABEL_STRATEGY,
    MULTILABEL_STRATEGIES,
    STRATEGIES,
    make_strategy,
    multilabel_strategy_class,
    strategy_class,
)
from rlscore.sessions.stopping.stop_rule import (
    DEFAULT_STOP_RULE,
    STOP_RULE_PARAMS,
)


def _load_data(args: argparse.Namespace):
    """(X, y, validation-or-None, meta) from a sample name or a CSV/Parquet path.

    With a validation file and item columns (texts, images, embeddings), the features of the
    pool and of the validation rows are built together, so both are in one basis.
    """
    spec = args.data
    if spec in list_samples():
        pool = load_sample(spec, "pool")
        val = load_sample(spec, "validation")
        return pool.X, pool.y, (val.X, val.y), dict(pool.meta)
    path = Path(spec)
    if not path.exists():
        raise ValueError(
            f"--data {spec!r} is neither a sample ({', '.join(list_samples())}) "
            "nor an existing file"
        )
    df, n, options, val_path = _pool_table(args, path)
    project = project_from_table(df, path.stem, truth_column=args.truth, **options)
    X, y = project.X, np.asarray(project.truth)
    validation = None if val_path is None else (X[n:], y[n:])
    return X[:n], y[:n], validation, {"feature_names": project.feature_names}


def _pool_table(args: argparse.Namespace, path: Path):
    """The ``--data`` file's table with the ``--validation`` file's rows after its ``n`` own
    (features of both in one basis), the keywords of :func:`project_from_table` for its
    features, and the validation file (None without one)."""
    df = _read_labeled_table(path, args.truth)
    n = df.shape[0]
    options = _item_options(args)
    if args.feature_column is not None:
        options["feature_columns"] = args.feature_column
    elif not any(options.get(k) for k in ("text_columns", "image_column", "embedding_column")):
        # a numeric table: every other column is a feature
        options["feature_columns"] = [c for c in map(str, df.columns) if c != args.truth]
    val_path = _validation_file(args.validation)
    if val_path is not None:
        val = _read_labeled_table(val_path, args.truth)
        missing = [c for c in df.columns if c not in val.columns]
        if missing:
            raise ValueError(f"{val_path.name} lacks the columns {missing} of {path.name}")
        df = pd.concat([df, val[list(df.columns)]], ignore_index=True)
    return df, n, options, val_path


def _item_options(args: argparse.Namespace) -> dict:
    """The keyword arguments of :func:`project_from_table` the item options give."""
    if args.image_column is not None and args.image_root is None:
        raise ValueError("--image-column needs --image-root: the folder the image paths are in")
    options = {
        "standardize": STANDARDIZE[args.standardize],
        "text_columns": args.text_column,
        "image_column": args.image_column,
        "image_root": args.image_root,
        "embedding_column": args.embedding_column,
    }
    settings = {
        "analyzer": args.text_analyzer,
        "n_components": args.text_dimension,
        "vocabulary_size": args.vocabulary_size,
    }
    settings = {k: v for k, v in settings.items() if v is not None}
    if settings:
        options["text_settings"] = settings
    return options


#: ``--standardize`` -> project_from_table's ``standardize`` (auto: decided from the data)
STANDARDIZE = {"auto": None, "yes": True, "no": False}


def _read_labeled_table(path: Path, truth: str):
    df = read_table(path, path.name)
    if truth not in df.columns:
        raise ValueError(
            f"{path.name} has no {truth!r} column (columns: {list(df.columns)}): the "
            "simulation needs the true label of every point (name the column with --truth)"
        )
    return df


def _validation_file(value: str | None) -> Path | None:
    """The validation file ``--validation`` names, None for a fraction or nothing."""
    if value is None:
        return None
    try:
        float(value)
        return None
    except ValueError:
        pass
    path = Path(value)
    if not path.exists():
        raise ValueError(f"--validation {value!r} is neither a fraction nor an existing file")
    return path


def build_parser() -> argparse.ArgumentParser:
    """The arguments of ``python -m rlscore simulate``: the data, the strategy and its
    parameters, the runs, and the stopping rule (the order ``--help`` lists them in)."""
    p = argparse.ArgumentParser(
        prog="python -m rlscore simulate",
        description="Run a query strategy against known labels and record the learning curve.",
    )
    add_data_arguments(p)
    add_strategy_arguments(p)
    add_run_arguments(p)
    add_stop_arguments(p)
    return p


def add_data_arguments(p: argparse.ArgumentParser) -> None:
    """``--data`` and ``--truth``, and how a file's features are made."""
    p.add_argument(
        "--data", required=True, help="sample name or CSV/Parquet file with a truth column"
    )
    p.add_argument("--truth", default=None, help="the file's truth column (default: label)")
    p.add_argument(
        "--multi-label",
        action="store_true",
        help="a multi-label project: the truth column holds label sets ('a|b', empty for none) "
        f"and --strategy is one of {', '.join(MULTILABEL_STRATEGIES)} "
        f"(default {DEFAULT_MULTILABEL_STRATEGY}); records micro_f1, macro_f1, hamming_loss",
    )
    _add_item_arguments(p)


def _add_item_arguments(p: argparse.ArgumentParser) -> None:
    """The features of a ``--data`` file: numeric columns, texts, images or embeddings, named
    as :func:`~rlscore.data.projects.table_project.project_from_table`'s keywords."""
    items = p.add_argument_group(
        "items (a --data file): features made from texts, images or embeddings, as "
        "rlscore.data.project_from_table makes them"
    )
    items.add_argument(
        "--feature-column",
        action="append",
        help="numeric feature column (repeat for several; default: every column but the "
        "truth when no text, image or embedding column is given, else none)",
    )
    items.add_argument(
        "--standardize",
        choices=list(STANDARDIZE),
        default=None,
        help="standardise the numeric feature columns (auto: when their spreads differ "
        "more than 10-fold; beside text, image or embedding features, auto and yes also weight "
        "them against those features, no keeps them as they are)",
    )
    items.add_argument(
        "--text-column",
        action="append",
        help="column of texts: TF-IDF + truncated SVD features (repeat for several columns)",
    )
    items.add_argument("--image-column", help="column of image paths relative to --image-root")
    items.add_argument("--image-root", help="folder the image paths are relative to")
    items.add_argument(
        "--embedding-column",
        help="column holding one vector per row (JSON list text, or lists in Parquet)",
    )
    items.add_argument("--text-analyzer", choices=list(ANALYZERS), help="default: word")
    items.add_argument("--text-dimension", type=int, help="dimension of the text features (100)")
    items.add_argument("--vocabulary-size", type=int, help="terms kept (default 20000)")


def add_strategy_arguments(p: argparse.ArgumentParser) -> None:
    """``--strategy`` and its parameters: the kernel, σ, λ, the weighting, and those of the
    low-rank and the A-optimal KLR strategies."""
    p.add_argument(
        "--strategy",
        choices=sorted(STRATEGIES),
        help="query strategy (default arls-focused: the best mean rank in "
        "benchmarks/strategies.py; arls is the thesis's ARLS; with --multi-label "
        f"{DEFAULT_MULTILABEL_STRATEGY})",
    )
    p.add_argument("--kernel", default="rbf", help="rbf, linear, polynomial or a graph kernel")
    p.add_argument(
        "--sigma",
        type=float,
        help="RBF width (default: the sample's, else the median distance between two points)",
    )
    p.add_argument("--lam", type=float, help="regularisation λ (default: the sample's, else 1)")
    p.add_argument("--degree", type=int, default=2, help="polynomial degree")
    p.add_argument(
        "--class-weight", choices=["none", "balanced"], help="override the strategy's weighting"
    )
    p.add_argument("--unclipped", action="store_true", help="unclipped probability estimates")
    p.add_argument(
        "--candidates", type=int, help="score only this many candidates per query (aopt-klr, "
        "aopt-klr-lowrank, arls-lowrank)"
    )  # fmt: skip
    _add_low_rank_arguments(p)
    _add_klr_arguments(p)


def _add_low_rank_arguments(p: argparse.ArgumentParser) -> None:
    """The Nyström kernel of ``arls-lowrank``: landmarks, risk sample, exact re-scoring."""
    low = p.add_argument_group("low-rank kernel (arls-lowrank, for pools of 10 000+ points)")
    low.add_argument("--n-landmarks", type=int, help="landmarks m of the Nyström kernel")
    low.add_argument("--landmarks", choices=list(LANDMARK_RULES), help="landmark rule")
    low.add_argument(
        "--risk-sample", type=int, help="estimate the risk on this many points (also aopt-klr)"
    )
    low.add_argument(
        "--refine", type=int, help="re-score this many best candidates on the exact kernel"
    )


def _add_klr_arguments(p: argparse.ArgumentParser) -> None:
    """The A-optimal KLR strategies' mode and candidates, and the graph kernels' k and t."""
    klr = p.add_argument_group("A-optimal KLR (aopt-klr, muq-klr)")
    klr.add_argument("--mode", choices=["auto", "exact", "fast"], help="refit per candidate or not")
    klr.add_argument("--candidate-rule", choices=["uncertainty", "random"])
    klr.add_argument("--graph-k", type=int, help="neighbours of the kNN graph (graph kernels)")
    klr.add_argument("--graph-t", type=float, help="t of the graph kernel")


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """How many queries, runs and initial labels, where the error is measured, and the
    output."""
    p.add_argument(
        "--queries",
        type=int,
        default=50,
        help="labels queried per run (a run ends earlier when no unlabeled point is left)",
    )
    p.add_argument("--seeds", type=int, default=1, help="number of runs (seeds 0, 1, …)")
    p.add_argument("--init", type=int, default=0, help="random initial labels per run")
    p.add_argument(
        "--validation",
        help="fraction of the pool to hold out, or a file like --data (default: the sample's "
        "validation split, else the pool itself)",
    )
    p.add_argument("--out", help="write the records as JSON to this file")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m rlscore simulate``; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.out is not None:  # before the run: a missing folder must not cost a simulation
            output_file(args.out, "--out")
        _check_file_options(args)
        if args.multi_label:
            return _main_multilabel(args)
        args.strategy = args.strategy or "arls-focused"
        X, y, validation, meta = _load_data(args)
        if args.validation is not None and _validation_file(args.validation) is None:
            validation = float(args.validation)
        params = _kernel_params(args, meta)
        params.update(_strategy_options(args, strategy_class(args.strategy).param_names()))
        if args.validation is None and validation is not None:
            probe = make_strategy(args.strategy, **params)
            if not can_predict_outside(probe):
                print(
                    f"note: {args.strategy} with kernel {args.kernel!r} cannot predict points "
                    "outside the pool: measuring the error on the pool instead",
                    file=sys.stderr,
                )
                validation = None
        bar = None if args.quiet else ProgressBar(f"{args.strategy} on {args.data}")
        result = simulate(
            X,
            y,
            args.strategy,
            queries=args.queries,
            seeds=args.seeds,
            init=args.init,
            validation=validation,
            params=params,
            progress=bar,
            **stop_options(args),
        )
    except (ValueError, MemoryError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(summary_table(result))
    print(stop_summary(result))
    if args.out:
        out = {"data": args.data, **result.to_dict()}
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


#: the options that say how a ``--data`` file's table becomes features (dest names)
FILE_OPTIONS = (
    "truth", "feature_column", "standardize", "text_column", "image_column", "image_root",
    "embedding_column", "text_analyzer", "text_dimension", "vocabulary_size",
)  # fmt: skip


def _check_file_options(args: argparse.Namespace) -> None:
    """Refuse the file options with a sample (its features are made: they were ignored
    without a word), then fill in their defaults (``--truth label``, ``--standardize auto``)."""
    given = [name for name in FILE_OPTIONS if getattr(args, name) is not None]
    if args.data in list_samples() and given:
        options = ", ".join("--" + name.replace("_", "-") for name in given)
        raise ValueError(
            f"--data {args.data} is a bundled sample, whose features are made already: "
            f"{options} {'applies' if len(given) == 1 else 'apply'} only to a CSV or Parquet "
            "file"
        )
    args.truth = "label" if args.truth is None else args.truth
    args.standardize = "auto" if args.standardize is None else args.standardize
    for option in ("feature_column", "text_column", "image_column", "embedding_column"):
        value = getattr(args, option)
        if args.truth in ([] if value is None else [value] if isinstance(value, str) else value):
            raise ValueError(
                f"--truth {args.truth} is also given as --{option.replace('_', '-')}: the "
                "truth column cannot be an input of the model"
            )


#: the strategy options: option (dest) -> the strategy parameters it sets, and its value there
STRATEGY_OPTIONS = {
    "sigma": (("sigma",), None),  # also in _kernel_params: here to be refused where not taken
    "lam": (("lam",), None),
    "class_weight": (("class_weight",), lambda v: None if v == "none" else v),
    "unclipped": (("clip",), lambda v: not v),
    "candidates": (("candidates",), None),
    "mode": (("mode",), None),
    "candidate_rule": (("candidate_rule",), None),
    "graph_k": (("graph_k",), None),
    "graph_t": (("graph_t",), None),
    "n_landmarks": (("n_landmarks",), None),
    "landmarks": (("landmarks",), None),
    # the low-rank ARLS's name, and the KLR strategies' (risk_points)
    "risk_sample": (("risk_sample", "risk_points"), None),
    "refine": (("refine",), None),
}


def _strategy_options(args: argparse.Namespace, accepted) -> dict:
    """The strategy parameters of the options given; an option the strategy does not take is
    refused, naming the strategy (the strategies drop parameters they do not take, so it was
    ignored without a word)."""
    params, refused = {}, []
    for dest, (names, convert) in STRATEGY_OPTIONS.items():
        value = getattr(args, dest)
        if value is None or value is False:  # not given (``--unclipped`` is a switch)
            continue
        taken = [name for name in names if name in accepted]
        if not taken:
            refused.append("--" + dest.replace("_", "-"))
        for name in taken:
            params[name] = value if convert is None else convert(value)
    if refused:
        options = ", ".join(refused)
        raise ValueError(
            f"{options} {'does' if len(refused) == 1 else 'do'} not apply to --strategy "
            f"{args.strategy}{' --multi-label' if args.multi_label else ''}: leave "
            f"{'it' if len(refused) == 1 else 'them'} out or choose a strategy that takes "
            f"{'it' if len(refused) == 1 else 'them'} (docs/cli.md)"
        )
    return params


def _kernel_params(args: argparse.Namespace, meta: dict) -> dict:
    """The kernel and λ of the strategy: the options, else the sample's, else the defaults."""
    return {
        "kernel": args.kernel,
        # a file's width is read off its points (docs/mathematics.md §1)
        "sigma": args.sigma if args.sigma is not None else meta.get("sigma", DEFAULT_SIGMA),
        "lam": args.lam if args.lam is not None else meta.get("lam", 1.0),
        "degree": args.degree,
    }


# -- issue 38: multi-label projects ------------------------------------------------------------
def _main_multilabel(args: argparse.Namespace) -> int:
    """``simulate --multi-label``: the truth column holds label sets (docs/multilabel.md)."""
    args.strategy = args.strategy or DEFAULT_MULTILABEL_STRATEGY
    if args.stop_rule not in (DEFAULT_STOP_RULE, "none"):
        raise ValueError(
            f"--stop-rule {args.stop_rule} does not apply to --multi-label: label sets have "
            "one stop rule, set-agreement (docs/multilabel.md §6)"
        )
    if args.until_stop and args.stop_rule == "none":
        raise ValueError("--until-stop needs a --stop-rule")
    if args.strategy not in MULTILABEL_STRATEGIES:
        raise ValueError(
            f"--strategy {args.strategy} has no multi-label variant: choose one of "
            f"{', '.join(MULTILABEL_STRATEGIES)}"
        )
    if args.data in list_samples():
        raise ValueError(
            f"--data {args.data} is a single-label sample: --multi-label needs a file whose "
            "truth column holds label sets"
        )
    X, sets, validation, classes = _load_multilabel_data(args)
    params = _kernel_params(args, {})
    params.update(_strategy_options(args, multilabel_strategy_class(args.strategy).param_names()))
    bar = None if args.quiet else ProgressBar(f"{args.strategy} on {args.data}")
    result = simulate_multilabel(
        X,
        sets,
        classes,
        args.strategy,
        queries=args.queries,
        seeds=args.seeds,
        init=args.init,
        validation=validation,
        params=params,
        progress=bar,
        until_stop=args.until_stop,
    )
    print(multilabel_summary_table(result))
    if args.stop_rule != "none":
        print(set_stop_summary(result))
    if args.out:
        out = {"data": args.data, **result.to_dict()}
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


def _load_multilabel_data(args: argparse.Namespace):
    """(X, sets, validation, classes) of a file whose truth column holds label sets."""
    path = Path(args.data)
    if not path.exists():
        raise ValueError(f"--data {args.data!r} is not an existing file")
    df, n, options, val_path = _pool_table(args, path)
    # create-project's reading of the truth cells: a bad cell is refused naming its row
    truth, classes = truth_and_classes(df, args.truth, None, multi_label=True)
    sets = list(truth)
    X = project_from_table(df.drop(columns=[args.truth]), path.stem, **options).X
    if val_path is not None:
        return X[:n], sets[:n], (X[n:], sets[n:]), classes
    fraction = None if args.validation is None else float(args.validation)
    return X, sets, fraction, classes


def multilabel_summary_table(result: MultiLabelSimulationResult, rows: int = 10) -> str:
    """Mean ± sd of micro-F1, macro-F1 and the Hamming loss at ~``rows`` steps."""
    curves = {k: result.curve(k) for k in ("micro_f1", "macro_f1", "hamming_loss")}
    risk, _ = result.curve("estimated_risk")
    last = risk.size - 1
    picks = sorted({int(round(k)) for k in np.linspace(0, last, min(rows, last + 1))})
    lines = [
        f"{result.strategy} (multi-label, {len(result.classes)} classes) · "
        f"{counted(len(result.runs), 'run')} · measured on {result.validation}",
        f"{'queries':>8} {'micro-F1':>15} {'macro-F1':>15} {'Hamming':>15} {'est. risk':>10}",
    ]
    for k in picks:
        cells = "".join(f"{m[k]:>8.4f} ± {sd[k]:<5.3f}" for m, sd in curves.values())
        lines.append(f"{k:>8} {cells}{risk[k]:>10.2f}")
    return "\n".join(lines)


def set_stop_summary(result: MultiLabelSimulationResult) -> str:
    """One line per run: where the ``set-agreement`` stop rule fired."""
    lines = []
    for run in result.runs:
        stop = run.stop
        where = (
            f"stops at {counted(stop['n_labels'], 'label')} (query {stop['step']})"
            if stop["step"] is not None
            else f"did not fire within {counted(run.steps[-1].n_labels, 'label')}"
        )
        lines.append(f"seed {run.seed}: {stop['rule']} {where}")
    return "\n".join(lines)


def summary_table(result: SimulationResult, rows: int = 10) -> str:
    """Mean ± sd of the validation errors and the estimated risk at ~``rows`` steps."""
    err, err_sd = result.curve("validation_error")
    bal, bal_sd = result.curve("balanced_error")
    risk, _ = result.curve("estimated_risk")
    secs, _ = result.curve("seconds")
    last = err.size - 1
    picks = sorted({int(round(k)) for k in np.linspace(0, last, min(rows, last + 1))})
    lines = [
        f"{result.strategy} · {counted(len(result.runs), 'run')} · error on {result.validation}",
        f"{'queries':>8} {'error':>15} {'balanced error':>15} {'est. risk':>10} {'s/query':>8}",
    ]
    for k in picks:
        lines.append(
            f"{k:>8} {err[k]:>8.4f} ± {err_sd[k]:<5.3f}{bal[k]:>8.4f} ± {bal_sd[k]:<5.3f}"
            f"{risk[k]:>10.2f} {secs[k]:>8.4f}"
        )
    return "\n".join(lines)


# -- issue 24: the stop rule's point and the accuracy estimate there ---------------------------
def add_stop_arguments(p: argparse.ArgumentParser) -> None:
    """``--stop-rule``, ``--until-stop`` and ``--audit-every``."""
    stop = p.add_argument_group("stopping (docs/mathematics.md, 'Knowing when to stop')")
    stop.add_argument(
        "--stop-rule",
        default=DEFAULT_STOP_RULE,
        choices=[*STOP_RULE_PARAMS, "none"],
        help=f"report where this rule stops each run (default {DEFAULT_STOP_RULE})",
    )
    stop.add_argument("--until-stop", action="store_true", help="end each run when the rule fires")
    stop.add_argument(
        "--audit-every",
        type=int,
        default=0,
        help="every k-th query drawn uniformly at random: an unbiased accuracy (0: none)",
    )


def stop_options(args: argparse.Namespace) -> dict:
    """The keyword arguments of :func:`simulate` the stopping options give."""
    rule = None if args.stop_rule == "none" else args.stop_rule
    if args.until_stop and rule is None:
        raise ValueError("--until-stop needs a --stop-rule")
    return {"stop_rule": rule, "until_stop": args.until_stop, "audit_every": args.audit_every}


def stop_summary(result: SimulationResult) -> str:
    """One line per run: where the stop rule fired and the accuracy estimate there."""
    lines = []
    for run in result.runs:
        for rule, stop in (run.stop or {}).items():
            e = stop["estimate"]
            where = (
                f"stops at {counted(stop['n_labels'], 'label')} (query {stop['step']})"
                if stop["step"] is not None
                else f"did not fire within {counted(e['n_labels'], 'label')}"
            )
            parts = [f"seed {run.seed}: {rule} {where}"]
            if e["accuracy_estimate"] is not None:
                lo, hi = e["accuracy_interval"]
                parts.append(
                    f"model accuracy {e['accuracy_estimate']:.3f} [{lo:.3f}, {hi:.3f}] "
                    f"({counted(e['accuracy_checks'], 'random check')})"
                )
            else:
                parts.append("model accuracy unknown (no random check)")
            if e["loo_accuracy"] is not None:
                lo, hi = e["loo_interval"]
                parts.append(f"LOO on all labels {e['loo_accuracy']:.3f} [{lo:.3f}, {hi:.3f}]")
            if e["audit_accuracy"] is not None:
                lo, hi = e["audit_interval"]
                parts.append(
                    f"audit {e['audit_accuracy']:.3f} [{lo:.3f}, {hi:.3f}] "
                    f"({counted(e['audit_labels'], 'label')})"
                )
            if e["truth_accuracy"] is not None:
                parts.append(f"validation accuracy {e['truth_accuracy']:.3f}")
            lines.append(", ".join(parts))
    return "\n".join(lines)
