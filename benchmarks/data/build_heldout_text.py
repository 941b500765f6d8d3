"""Build the two held-out text tasks of ``benchmarks/heldout_tasks.py`` (run once; the CSVs are
committed, so nothing is fetched when a benchmark or a test runs).

Tasks, each a CSV ``text,label`` in this folder (deduplicated, no text in two classes, balanced):

* ``npm_plugin_families.csv``: npm package descriptions labelled by the tool the package
  extends, read off its name: ``eslint`` (``eslint-plugin-*``, ``@scope/eslint-plugin*``),
  ``babel`` (``babel-plugin-*``), ``webpack`` (``*-loader``, ``*webpack-plugin*``),
  ``postcss`` (``postcss-*``), ``gulp`` (``gulp-*``); 200 of each.
* ``pypi_framework_extensions.csv``: PyPI package summaries labelled by the framework the
  package extends, read off its name: ``flask`` (``flask-*``), ``fastapi`` (``fastapi-*``),
  ``pytest`` (``pytest-*``), ``sphinx`` (``sphinx-*``, ``sphinxcontrib-*``), ``mkdocs``
  (``mkdocs-*``); 200 of each. Two confusable pairs (two web frameworks, two doc builders)
  keep it from being trivial.

The label comes from the package's *name* and the text is only its description, so a task asks
"what does this package extend?" from what the authors wrote about it. The family's own name is
masked in the text (replaced by ``TOOL``, whole words, any case, e.g. "ESLint", "Flask's"):
without the mask most descriptions say their family outright and the task is close to a keyword
lookup (5-fold accuracy of scikit-learn's RBF ``SVC()`` on the project's text features,
measured 2026-11-28 with the same draw unmasked: npm 87.6 %, PyPI 96.3 %; masked: printed by
``python benchmarks/heldout_tasks.py``, 65.5 % and 62.9 %). A package whose name matches two
families (``postcss-loader``) is left out; descriptions shorter than 15 characters, the
registry's placeholder texts and texts that occur twice (after masking and case-folding, within
or across classes) are dropped; then 200 per class are drawn with
``numpy.random.default_rng(0)``.

**Source.** Public registry metadata (package name and its one-line description/summary, as the
npm registry and PyPI publish them for every package: public metadata that the registries serve
to anyone, short factual strings written by each package's authors), read from a snapshot of
the registries' package lists with one ``name version … summary`` row per package
(tab-separated, header first; the last column is the summary), taken on 2026-11-28. Build:
``python benchmarks/data/build_heldout_text.py --npm npm.tsv --pypi pypi.tsv``.
"""

from __future__ import annotations

import argparse
import csv
import re
from collections import Counter
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PER_CLASS = 200
MIN_CHARS = 15
SEED = 0

#: task → (label → (regular expression on the package name, words masked in its texts))
FAMILIES: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {
    "npm_plugin_families": {
        "eslint": (r"^(@[^/]+/)?eslint-plugin(-|$)", ("eslint",)),
        "babel": (r"^babel-plugin-", ("babel", "babeljs", "babel7")),
        "webpack": (r"(-loader$|webpack-plugin)", ("webpack", "webpack4", "webpack5")),
        "postcss": (r"^postcss-", ("postcss",)),
        "gulp": (r"^gulp-", ("gulp", "gulpjs", "gulpfile")),
    },
    "pypi_framework_extensions": {
        "flask": (r"^flask-", ("flask",)),
        "fastapi": (r"^fastapi-", ("fastapi",)),
        "pytest": (r"^pytest-", ("pytest", "py.test")),
        "sphinx": (r"^sphinx(contrib)?-", ("sphinx", "sphinxcontrib")),
        "mkdocs": (r"^mkdocs-", ("mkdocs",)),
    },
}
#: descriptions that say nothing about the package (templates of project generators)
PLACEHOLDERS = re.compile(
    r"^(add your description here|a short description|my short description|"
    r"a python package|description|test|todo|none)\b",
    re.IGNORECASE,
)


def read_summaries(path: Path) -> list[tuple[str, str]]:
    """(name, summary) of every package in a registry list (tab-separated, header first)."""
    csv.field_size_limit(1 << 30)
    with path.open(encoding="utf-8", newline="") as f:
        rows = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(rows)
        return [(row[0], row[-1]) for row in rows if len(row) >= 2]


def mask(text: str, words: tuple[str, ...]) -> str:
    """``text`` with each of ``words`` → TOOL: as a whole word or a part of a hyphenated name
    (``Flask-WTF`` → ``TOOL-WTF``), any case, with an optional ``'s``."""
    alternatives = "|".join(re.escape(w) for w in words)
    return re.sub(rf"(?<![\w.])(?:{alternatives})(?:'s)?(?!\w)", "TOOL", text, flags=re.I)


def clean(summary: str) -> str:
    """One line, single spaces, without a leading ``[tested here: …]`` note of the list."""
    summary = re.sub(r"^\[tested here:[^\]]*\]\s*", "", summary.strip())
    return " ".join(summary.split())


def build_task(packages: list[tuple[str, str]], families: dict) -> list[tuple[str, str]]:
    """Rows (text, label) of one task: :data:`PER_CLASS` per family (module docstring)."""
    items = []
    for name, summary in packages:
        hits = [label for label, (pattern, _) in families.items() if re.search(pattern, name)]
        text = clean(summary)
        if len(hits) == 1 and len(text) >= MIN_CHARS and not PLACEHOLDERS.match(text):
            items.append((mask(text, families[hits[0]][1]), hits[0]))
    # a text seen twice is dropped altogether: within a class it is a template, across
    # classes it would be one item with two labels
    seen = Counter(text.casefold() for text, _ in items)
    rng = np.random.default_rng(SEED)
    rows = []
    for label in families:
        texts = sorted(t for t, lab in items if lab == label and seen[t.casefold()] == 1)
        if len(texts) < PER_CLASS:
            raise SystemExit(f"{label}: only {len(texts)} usable descriptions")
        chosen = np.sort(rng.choice(len(texts), PER_CLASS, replace=False))
        rows += [(texts[i], label) for i in chosen]
    return rows


def write_csv(rows: list[tuple[str, str]], path: Path) -> None:
    """Write ``text,label`` rows to ``path`` (quoted as needed, UTF-8)."""
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "label"])
        writer.writerows(rows)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--npm", type=Path, required=True, help="the npm package list (TSV)")
    p.add_argument("--pypi", type=Path, required=True, help="the PyPI package list (TSV)")
    args = p.parse_args(argv)
    sources = {"npm_plugin_families": args.npm, "pypi_framework_extensions": args.pypi}
    for task, source in sources.items():
        rows = build_task(read_summaries(source), FAMILIES[task])
        out = HERE / f"{task}.csv"
        write_csv(rows, out)
        print(f"{out.name}: {len(rows)} rows, {out.stat().st_size / 1e3:.0f} kB")


if __name__ == "__main__":
    main()
