"""The agreement report of a multi-label project (issue 38): Krippendorff's α with the MASI
distance against NLTK's AnnotationTask, Cohen's κ per class and pair against scikit-learn's
cohen_kappa_score, the share of points given the same set counted by hand, and
``python -m rlscore agreement`` printing the report of :func:`project_agreement`."""

from __future__ import annotations

import json
import math
import warnings
from itertools import combinations

import numpy as np
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import masi_distance as nltk_masi
from sklearn.metrics import cohen_kappa_score
from support.multi_label import CLASSES, tagged_project

from rlscore.cli.commands.agreement import main
from rlscore.core.evaluation.agreement import NO_OVERLAP
from rlscore.sessions.team.agreement_report import ONE_SET, agreement_report, project_agreement
from rlscore.storage import Event, open_store

ANNOTATORS = ["ada", "bob", "cy"]


def random_labels(seed: int, n: int) -> dict[int, dict[str, tuple]]:
    """point -> annotator -> set: each point labeled by one to three annotators, their sets a
    shared base set with a class sometimes toggled (so the sets agree in part)."""
    rng = np.random.default_rng(seed)
    out = {}
    for p in range(n):
        who = rng.choice(ANNOTATORS, size=rng.integers(1, 4), replace=False)
        base = set(rng.choice(CLASSES, size=rng.integers(0, 3), replace=False).tolist())
        by = {}
        for a in sorted(who.tolist()):
            s = set(base)
            if rng.random() < 0.35:
                s ^= {str(rng.choice(CLASSES))}
            by[a] = tuple(c for c in CLASSES if c in s)
        out[p] = by
    return out


def nltk_alpha(labels: dict[int, dict[str, tuple]]) -> float:
    """NLTK's α with its MASI distance over every label given (NLTK leaves out the points
    labeled once itself); two empty sets are equal, which NLTK's MASI (0 / 0) cannot say."""

    def distance(a, b):
        return 0.0 if not a and not b else nltk_masi(a, b)

    data = [(a, str(p), frozenset(s)) for p, by in labels.items() for a, s in by.items()]
    return AnnotationTask(data=data, distance=distance).alpha()


def sklearn_kappa(labels, a: str, b: str, c: str) -> tuple[float, int]:
    """scikit-learn's κ of ``a`` and ``b`` saying whether their sets hold ``c``, over the
    points both labeled, and the number of those points."""
    both = [by for by in labels.values() if a in by and b in by]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 0 / 0 where both always decide alike
        kappa = cohen_kappa_score([c in by[a] for by in both], [c in by[b] for by in both])
    return float(kappa), len(both)


@pytest.fixture
def db(tmp_path):
    """A multi-label project of 30 points labeled by three annotators (one label relabeled:
    the later set is the annotator's current one)."""
    labels = random_labels(seed=3, n=30)
    path = tmp_path / "labels.sqlite3"
    with open_store(path) as store:
        store.create_project(tagged_project(n=30))
        store.append_event("tags", Event("label", 0, ["tech"], "ada"))
        labels[0]["ada"] = ()  # the relabel below replaces ada's {tech}
        for p, by in labels.items():
            for a, s in by.items():
                store.append_event("tags", Event("label", p, list(s), a))
    return path, labels


def test_report_measures_equal_nltk_and_scikit_learn(db):
    path, labels = db
    with open_store(path) as store:
        report = project_agreement(store, "tags")
    overlap = {p: by for p, by in labels.items() if len(by) >= 2}
    assert report.multi_label and report.reason is None
    assert report.n_points_overlap == len(overlap) > 5
    assert report.krippendorff_alpha == pytest.approx(nltk_alpha(labels), abs=1e-12)
    assert math.isnan(report.fleiss_kappa)  # each distinct set as a category: not reported
    same = sum(len(set(by.values())) == 1 for by in overlap.values())
    assert 0 < same < len(overlap)
    assert report.same_set == pytest.approx(same / len(overlap))
    expected = []
    for a, b in combinations(ANNOTATORS, 2):
        for c in CLASSES:
            kappa, n = sklearn_kappa(labels, a, b, c)
            if n:
                expected.append((a, b, c, n, kappa))
    got = [
        (r.annotator_a, r.annotator_b, r.label_class, r.n_items, r.kappa) for r in report.pairwise
    ]
    assert [row[:4] for row in got] == [row[:4] for row in expected]
    for (*_, ours), (*_, ref) in zip(got, expected, strict=True):
        assert ours == pytest.approx(ref, abs=1e-12, nan_ok=True)


def test_a_set_sharing_classes_is_a_partial_disagreement():
    # point 0 with {news, sports} against {news}, then {news} against {sports}: MASI makes the
    # first a smaller disagreement, where one category per distinct set made the two equal
    final = {0: None, 1: None}
    part = {0: {"ada": ["news", "sports"], "bob": ["news"]}, 1: {"ada": ["tech"], "bob": ["tech"]}}
    none = {0: {"ada": ["news"], "bob": ["sports"]}, 1: part[1]}
    alpha_part = agreement_report(part, final, classes=CLASSES).krippendorff_alpha
    alpha_none = agreement_report(none, final, classes=CLASSES).krippendorff_alpha
    assert alpha_part == pytest.approx(nltk_alpha(part))
    assert alpha_part > alpha_none


def test_undefined_measures_say_why():
    apart = agreement_report({0: {"ada": ["news"]}, 1: {"bob": []}}, {}, classes=CLASSES)
    assert math.isnan(apart.krippendorff_alpha) and apart.reason == NO_OVERLAP
    assert math.isnan(apart.same_set) and apart.pairwise == []
    same = agreement_report({0: {"ada": [], "bob": ()}}, {}, classes=CLASSES)
    assert math.isnan(same.krippendorff_alpha) and same.reason == ONE_SET
    assert same.same_set == 1.0
    assert "not defined (every annotator gave the same label set" in same.to_text()
    with pytest.raises(ValueError, match="weather"):
        agreement_report({0: {"ada": ["weather"], "bob": []}}, {}, classes=CLASSES)


def test_cli_prints_the_report_of_project_agreement(db, capsys):
    path, _ = db
    with open_store(path) as store:
        report = project_agreement(store, "tags")
    assert main(["--db", str(path), "--project", "tags", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == json.loads(json.dumps(report.to_dict()))
    assert data["multi_label"] is True and "fleiss_kappa" not in data
    assert data["krippendorff_alpha_masi"] == pytest.approx(report.krippendorff_alpha)
    assert data["same_set"] == pytest.approx(report.same_set)
    assert {r["class"] for r in data["pairwise"]} == set(CLASSES)
    assert main(["--db", str(path), "--project", "tags"]) == 0
    text = capsys.readouterr().out
    assert text == report.to_text() + "\n"
    assert f"Krippendorff's alpha (MASI distance): {report.krippendorff_alpha:.3f}" in text
    assert f"Same set from every annotator:        {report.same_set:.1%} of them" in text
    assert "Fleiss" not in text
