"""The documentation stays in the repository and its links and citations resolve.

Docstrings and comments cite the mathematics as ``docs/mathematics.md §N``; a citation of a
section that does not exist, or of a file outside the repository (the old ``SPEC``), fails
here, and so does a relative link in the Markdown documents that points at nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MATHEMATICS = REPO / "docs" / "mathematics.md"
#: the trees whose text may cite the mathematics (the docs themselves are checked below)
CITING = ("rlscore", "benchmarks", "tests", "pages", "sample_data")
MARKDOWN = [REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "CHANGELOG.md"] + sorted(
    (REPO / "docs").rglob("*.md")
)


def _sources() -> list[Path]:
    files = [REPO / "app.py"]
    for top in CITING:
        files += [p for p in (REPO / top).rglob("*.py") if "artifacts" not in p.parts]
    return files


def _sections() -> set[str]:
    """The section numbers of docs/mathematics.md: its headings ``## §N. …``."""
    return set(re.findall(r"^## §(\d+)\.", MATHEMATICS.read_text(encoding="utf-8"), re.M))


def test_every_cited_section_of_the_mathematics_exists():
    sections = _sections()
    assert sections == {str(k) for k in range(1, 10)}, sections
    cite = re.compile(r"docs/mathematics\.md,?\s+((?:§\d+[–,\s]*(?:and\s+)?)+)")
    missing = []
    n = 0
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        for m in cite.finditer(text):
            for k in re.findall(r"§(\d+)", m.group(1)):
                n += 1
                if k not in sections:
                    missing.append(f"{path.relative_to(REPO)}: §{k}")
    assert n > 50, f"only {n} citations found: is the pattern still the one the code uses?"
    assert not missing, missing


# the markers are spelled in two pieces so that this file does not itself cite outside the repo
@pytest.mark.parametrize("marker", ["SPEC §", "SPEC's", "../" + "shared/", "SPEC" + ".md"])
def test_no_source_cites_a_document_outside_the_repository(marker):
    offenders = [
        f"{p.relative_to(REPO)}:{i}"
        for p in _sources() + MARKDOWN
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if marker in line and p.resolve() != Path(__file__).resolve()
    ]
    assert not offenders, offenders


def test_relative_links_of_the_markdown_documents_resolve():
    broken = []
    for doc in MARKDOWN:
        for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (doc.parent / target.split("#", 1)[0]).exists():
                broken.append(f"{doc.relative_to(REPO)} → {target}")
    assert not broken, broken


def _heading_anchors(doc: Path) -> set[str]:
    """The anchors GitHub gives the headings of ``doc``: lower case, every character but
    letters, digits, ``_``, ``-`` and spaces dropped, spaces turned into ``-``, a repeated
    anchor suffixed ``-1``, ``-2`` …; lines inside fenced code blocks are no headings."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        heading = None if fenced else re.match(r"#{1,6} (.+)", line)
        if heading is None:
            continue
        anchor = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        anchors.add(anchor if count == 0 else f"{anchor}-{count}")
    return anchors


def test_the_anchors_of_the_markdown_links_name_a_heading():
    """A link to ``page.md#anchor`` (or ``#anchor`` on the same page) lands on a heading: a
    section renamed or moved to another page breaks the links that pointed at it."""
    broken = []
    n = 0
    for doc in MARKDOWN:
        for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or "#" not in target:
                continue
            path, anchor = target.split("#", 1)
            page = (doc.parent / path) if path else doc
            if page.suffix != ".md" or not page.exists():
                continue  # a missing page is the test above's
            n += 1
            if anchor not in _heading_anchors(page):
                broken.append(f"{doc.relative_to(REPO)} → {target}")
    assert n > 20, f"only {n} links with an anchor found: is the link pattern still right?"
    assert not broken, broken


def test_the_readme_stays_short_and_its_image_small():
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 300
    image = REPO / "docs" / "images" / "label-page.png"
    assert image.stat().st_size < 300_000


def test_the_architecture_page_lists_every_module_and_page():
    """docs/architecture.md names every module of the package and every page, so a newcomer
    finds each one on its floor (a new module without a line there fails here)."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    files = [p for p in (REPO / "rlscore").rglob("*.py") if p.name != "__init__.py"]
    files += sorted((REPO / "pages").glob("*.py"))
    missing = [p.relative_to(REPO).as_posix() for p in files]
    missing = [m for m in missing if f"`{m}`" not in text]
    assert not missing, f"docs/architecture.md does not list {missing}"


def test_the_command_line_page_lists_every_setting_the_settings_command_takes():
    """docs/cli.md's ``settings`` row names the keys ``--set`` takes (two were missing)."""
    from rlscore.sessions.state.settings import SETTING_KEYS

    text = (REPO / "docs" / "cli.md").read_text()
    listed = re.search(r"`--set KEY=VALUE` \(([^)]*)\)", text)[1].split(", ")
    assert listed == list(SETTING_KEYS)
