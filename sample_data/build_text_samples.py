"""Build the bundled text samples from the Debian package lists on this machine (offline).

Source: the ``Packages`` indexes apt keeps in ``/var/lib/apt/lists`` (read through
``apt-cache dumpavail``; present on any Debian or Ubuntu machine after ``apt-get update``,
no network needed to rebuild). Each binary package has a one-line description written by its
maintainer and a *section* (games, science, sound, …) chosen by Debian.

License: only Debian *main* is read. Every package in main is free software by the Debian
Free Software Guidelines, and its description is part of its ``debian/control`` file,
distributed under the package's own free license; Debian publishes these indexes for anyone
to mirror and redistribute. The description and the package name are kept, nothing else.

Writes to ``sample_data/`` (next to this script):

* ``debian_sections.csv`` / ``_validation.csv``: 4 balanced classes — games, graphics,
  science, sound — 250 + 100 descriptions each (pool + validation).
* ``debian_games.csv`` / ``_validation.csv``: the rare class: 40 games among 2000
  descriptions of other sections (2 %), label 1 = game, −1 = other; balanced validation
  (200 + 200). A cold start with search ("game", "puzzle") finds the seeds.

Columns: ``package`` (shown as context), ``text`` (the description), ``label``. Sampling is
seeded; the rows depend on the apt lists present, so rebuilding on another Debian release
gives another (equally valid) sample. Run: ``python sample_data/build_text_samples.py``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parent
SECTIONS = ("games", "graphics", "science", "sound")
RARE_OTHERS = ("admin", "editors", "graphics", "mail", "net", "science", "sound", "text", "utils")
_SKIP_SUFFIX = re.compile(r"-(?:dbg|dbgsym|doc|data|common|dev)$")


def read_packages() -> pd.DataFrame:
    """One row per binary package of main: name, section (last path part), description."""
    dump = subprocess.run(
        ["apt-cache", "dumpavail"], check=True, capture_output=True, text=True
    ).stdout
    rows = []
    for record in dump.split("\n\n"):
        fields = dict(re.findall(r"^([A-Za-z-]+): (.*)$", record, re.M))
        section = fields.get("Section", "")
        if not fields.get("Package") or not fields.get("Description") or "/" in section:
            continue  # "contrib/…" and "non-free/…" sections are not main
        rows.append((fields["Package"], section, fields["Description"].strip()))
    df = pd.DataFrame(rows, columns=["package", "section", "text"])
    df = df[~df["package"].str.contains(_SKIP_SUFFIX)]
    # one row per description: "-data"/"-common" twins and rebuilt variants say the same
    df = df.drop_duplicates("text").drop_duplicates("package")
    return df.sort_values("package").reset_index(drop=True)


def _take(df: pd.DataFrame, counts: dict, rng: np.random.Generator) -> pd.DataFrame:
    parts = [df[df["section"] == s].sample(n=k, random_state=rng) for s, k in counts.items()]
    return pd.concat(parts).sample(frac=1.0, random_state=rng)


def _write(df: pd.DataFrame, name: str) -> None:
    df[["package", "text", "label"]].to_csv(OUT / name, index=False)


def build(df: pd.DataFrame) -> None:
    """Write both samples from the package table."""
    rng = np.random.default_rng(0)
    both = _take(df, {s: 350 for s in SECTIONS}, rng).assign(label=lambda d: d["section"])
    first = both.groupby("section").cumcount() < 250  # stratified: 250 + 100 per section
    _write(both[first], "debian_sections.csv")
    _write(both[~first], "debian_sections_validation.csv")

    rest = df[~df["package"].isin(both["package"])]
    games = rest[rest["section"] == "games"].sample(n=240, random_state=rng)
    others = rest[rest["section"].isin(RARE_OTHERS)].sample(n=2160, random_state=rng)
    games, others = games.assign(label=1), others.assign(label=-1)
    pool = pd.concat([games.iloc[:40], others.iloc[:1960]]).sample(frac=1.0, random_state=rng)
    val = pd.concat([games.iloc[40:], others.iloc[1960:]]).sample(frac=1.0, random_state=rng)
    _write(pool, "debian_games.csv")
    _write(val, "debian_games_validation.csv")


if __name__ == "__main__":
    build(read_packages())
    print(f"wrote the Debian text samples to {OUT}")
