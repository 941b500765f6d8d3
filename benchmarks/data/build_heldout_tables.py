"""Extract the two held-out tables of ``benchmarks/heldout_tasks.py`` from the PyPI packages
that bundle them (run once; the CSVs are committed, so nothing is fetched when a benchmark or
a test runs, and neither package is a dependency of the project).

* ``penguins.csv``: the Palmer penguins (Gorman, Williams & Fraser 2014, *PLoS ONE* 9(3):
  e90081; Horst, Hill & Gorman 2020, the ``palmerpenguins`` R package), 344 penguins of
  three species on three islands near Palmer Station, Antarctica, 2007–2009: species,
  island, bill length and depth, flipper length, body mass, sex, year. The data are
  released under CC0 (public domain); taken unchanged from ``palmerpenguins/data/penguins.csv``
  in the PyPI wheel ``palmerpenguins==0.1.6`` (package under the MIT licence).
* ``anes96.csv``: a subset of the American National Election Studies 1996 (944
  respondents: census place population, TV news per week, left–right self-placement and
  placement of Clinton and Dole, party identification on a 7-point scale, age, education,
  income, vote), public domain, taken unchanged (tab-separated) from
  ``statsmodels/datasets/anes96/anes96.csv`` in the PyPI wheel ``statsmodels==0.15.0``
  (whose ``anes96/data.py`` states: "This is public domain.").

Extracted on 2026-11-28. Build: ``python benchmarks/data/build_heldout_tables.py``
(downloads the two wheels with ``pip download --no-deps`` into a temporary folder).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: output name → (pinned requirement, path of the file inside its wheel)
SOURCES = {
    "penguins.csv": ("palmerpenguins==0.1.6", "palmerpenguins/data/penguins.csv"),
    "anes96.csv": ("statsmodels==0.15.0", "statsmodels/datasets/anes96/anes96.csv"),
}


def extract(requirement: str, member: str, folder: Path) -> bytes:
    """The bytes of ``member`` in the wheel of ``requirement`` (downloaded into ``folder``)."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(folder)]
    subprocess.run([*cmd, requirement], check=True)
    name = requirement.split("==")[0].replace("-", "_")
    (wheel,) = folder.glob(f"{name}-*.whl")
    with zipfile.ZipFile(wheel) as z:
        return z.read(member)


def main() -> None:
    for out, (requirement, member) in SOURCES.items():
        with tempfile.TemporaryDirectory() as tmp:
            (HERE / out).write_bytes(extract(requirement, member, Path(tmp)))
        print(f"{out}: from {requirement}, {(HERE / out).stat().st_size / 1e3:.0f} kB")


if __name__ == "__main__":
    main()
