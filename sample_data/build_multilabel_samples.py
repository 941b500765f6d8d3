"""Build the bundled multi-label text samples from the Debian package lists on this machine
(offline; issue 38).

Source: the ``Packages`` indexes apt keeps in ``/var/lib/apt/lists`` (read through
``apt-cache dumpavail``, as ``build_text_samples.py`` does). Many packages carry *debtags*
(``Tag:`` field), a faceted classification kept by Debian: ``works-with::image``,
``use::editing`` … A package has any number of tags of a facet, so a facet is a natural
"select all that apply" question about the package's one-line description.

License: only Debian *main* is read (every package there is free software by the DFSG; its
description is part of its ``debian/control`` file, which Debian publishes to mirror and
redistribute). The package name, the description and the tags are kept, nothing else.

Writes to ``sample_data/`` (next to this script):

* ``debian_works_with.csv`` / ``_validation.csv`` — the multi-label sample: what kind of data a
  package works with, among text, audio, image, mail, file, db and video (``works-with::image``
  and its sub-tags such as ``image:raster`` count as image). Packages tagged with another kind
  only (source code, archives …) have the empty set. 1000 + 400 descriptions.
* ``debian_use.csv`` / ``_validation.csv`` — a second facet for the benchmark: what a package
  is used for, among converting, editing, viewing, checking, monitor, playing and configuring.
  600 + 300 descriptions, none shared with the first sample.

Columns: ``package``, ``text`` (the description), ``labels`` (the label set, classes joined
by ``|``, empty for none: rlscore.core.conventions.label_sets). Sampling is seeded; the rows
depend on the apt lists present. Run: ``python sample_data/build_multilabel_samples.py``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parent
WORKS_WITH = ("text", "audio", "image", "mail", "file", "db", "video")
USE = ("converting", "editing", "viewing", "checking", "monitor", "playing", "configuring")
_SKIP_SUFFIX = re.compile(r"-(?:dbg|dbgsym|doc|data|common|dev)$")


def read_tagged_packages() -> pd.DataFrame:
    """One row per tagged binary package of main: name, description, its tags."""
    dump = subprocess.run(
        ["apt-cache", "dumpavail"], check=True, capture_output=True, text=True
    ).stdout
    rows = []
    for record in dump.split("\n\n"):
        fields = dict(re.findall(r"^([A-Za-z-]+): (.*)$", record, re.M))
        tag = re.search(r"^Tag: (.*(?:\n .*)*)", record, re.M)
        if not fields.get("Package") or not fields.get("Description") or tag is None:
            continue
        if "/" in fields.get("Section", ""):
            continue  # "contrib/…" and "non-free/…" sections are not main
        tags = frozenset(t.strip() for t in tag.group(1).replace("\n", " ").split(","))
        rows.append((fields["Package"], fields["Description"].strip(), tags))
    df = pd.DataFrame(rows, columns=["package", "text", "tags"])
    df = df[~df["package"].str.contains(_SKIP_SUFFIX)]
    df = df.drop_duplicates("text").drop_duplicates("package")
    return df.sort_values("package").reset_index(drop=True)


def facet_sets(tags: pd.Series, facet: str, classes: tuple) -> pd.Series:
    """The label set of each package over ``classes`` of ``facet`` (a sub-tag ``c:x`` counts
    as ``c``), or None for a package without a tag of the facet."""

    def one(ts: frozenset):
        values = {t.split("::", 1)[1].split(":")[0] for t in ts if t.startswith(facet + "::")}
        if not values:
            return None
        return "|".join(c for c in classes if c in values)

    return tags.map(one)


def _write(df: pd.DataFrame, name: str) -> None:
    df[["package", "text", "labels"]].to_csv(OUT / name, index=False)


def build(df: pd.DataFrame) -> None:
    """Write both samples from the tagged package table."""
    rng = np.random.default_rng(38)
    works = df.assign(labels=facet_sets(df["tags"], "works-with", WORKS_WITH)).dropna(
        subset=["labels"]
    )
    works = works.sample(n=1400, random_state=rng)
    _write(works.iloc[:1000], "debian_works_with.csv")
    _write(works.iloc[1000:], "debian_works_with_validation.csv")
    rest = df[~df["package"].isin(works["package"])]
    use = rest.assign(labels=facet_sets(rest["tags"], "use", USE)).dropna(subset=["labels"])
    use = use.sample(n=900, random_state=rng)
    _write(use.iloc[:600], "debian_use.csv")
    _write(use.iloc[600:], "debian_use_validation.csv")


if __name__ == "__main__":
    build(read_tagged_packages())
    print(f"wrote the Debian multi-label samples to {OUT}")
