"""Inter-annotator agreement: the coefficients against scikit-learn, the ``krippendorff``
package and published values; the project report and ``python -m rlscore agreement``."""

from __future__ import annotations

import json
import math
import warnings

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from rlscore.cli import main as cli_main
from rlscore.cli.commands.agreement import main
from rlscore.core.evaluation.agreement import (
    NO_OVERLAP,
    ONE_CLASS,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    pairwise_cohen,
    undefined_reason,
)
from rlscore.data.projects.project import Project
from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.state.settings import save_project_settings
from rlscore.sessions.team.agreement_report import (
    ONE_ANNOTATOR,
    agreement_report,
    log_agreement,
    project_agreement,
)
from rlscore.sessions.team.agreement_tables import (
    annotator_table,
    annotator_table_note,
    pair_table,
    pair_table_note,
)
from rlscore.storage import Event, open_store

# -- helpers -----------------------------------------------------------------------------------


def ratings_from_counts(counts: list[list[int]], classes: list) -> list[list]:
    """Items × raters labels with ``counts[i][k]`` ratings of class ``k`` on item ``i``."""
    return [[c for c, n in zip(classes, row, strict=True) for _ in range(n)] for row in counts]


def random_ratings(rng, n_items, n_raters, classes, p_missing):
    table = rng.choice(np.asarray(classes, dtype=object), size=(n_items, n_raters))
    table[rng.random((n_items, n_raters)) < p_missing] = None
    return table


def codes_for_krippendorff(table) -> np.ndarray:
    """Raters × items float codes, NaN for missing: the ``krippendorff`` package's input."""
    classes = {}
    out = np.full(table.shape, np.nan)
    for (i, r), v in np.ndenumerate(table):
        if v is not None:
            out[i, r] = classes.setdefault(v, len(classes))
    return out.T


# -- Cohen's kappa -----------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["cat", "dog", "fish"]), st.sampled_from(["cat", "dog", "fish"])),
        min_size=1,
        max_size=40,
    )
)
def test_cohen_equals_scikit_learn(pairs):
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns where κ is 0 / 0
        ref = cohen_kappa_score(a, b)
    ours = cohen_kappa(a, b)
    assert math.isnan(ours) == (undefined_reason(pairs) is not None)
    if np.isnan(ref):
        assert np.isnan(ours) and undefined_reason(pairs) == ONE_CLASS
    else:
        assert ours == pytest.approx(ref, abs=1e-12)


def test_cohen_with_missing_and_int_labels_equals_scikit_learn_on_the_items_both_rated():
    rng = np.random.default_rng(0)
    for _ in range(50):
        table = random_ratings(rng, 30, 2, [1, 2, 3, 4], 0.3)
        both = np.not_equal(table, None).all(axis=1)
        ref = cohen_kappa_score(table[both, 0].astype(int), table[both, 1].astype(int))
        assert cohen_kappa(table[:, 0], table[:, 1]) == pytest.approx(ref, abs=1e-12)


def test_cohen_by_hand():
    # p_o = 3/4, p_e = (2·3 + 2·1)/16 = 1/2: κ = (3/4 - 1/2) / (1/2) = 1/2
    assert cohen_kappa(["y", "y", "n", "n"], ["y", "y", "y", "n"]) == pytest.approx(0.5)
    # constant raters on different classes: p_o = p_e = 0, κ = 0 (defined)
    assert cohen_kappa(["y", "y"], ["n", "n"]) == 0.0


def test_cohen_nan_cases_and_errors():
    assert math.isnan(cohen_kappa(["y", "y", "y"], ["y", "y", "y"]))  # p_e = 1
    assert math.isnan(cohen_kappa([], []))
    assert math.isnan(cohen_kappa(["y", None], [None, "n"]))  # no item rated by both
    assert undefined_reason([["y", None], [None, "n"]]) == NO_OVERLAP
    with pytest.raises(ValueError, match="different numbers of items"):
        cohen_kappa(["y", "n"], ["y"])
    with pytest.raises(ValueError, match="hashable"):
        cohen_kappa([["y"]], [["n"]])


# -- Fleiss' kappa -----------------------------------------------------------------------------

#: Fleiss (1971)-style worked example of Wikipedia's "Fleiss' kappa": 10 items, 14 raters,
#: 5 categories; P̄ = 0.378, P_e = 0.213, κ = 0.210
WIKIPEDIA_COUNTS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def fleiss_1971(counts: np.ndarray) -> float:
    """Fleiss' formula as published: every item has the same number m of ratings."""
    N, m = counts.shape[0], counts.sum(axis=1)[0]
    assert (counts.sum(axis=1) == m).all()
    p_j = counts.sum(axis=0) / (N * m)
    P_i = ((counts**2).sum(axis=1) - m) / (m * (m - 1))
    return (P_i.mean() - (p_j**2).sum()) / (1 - (p_j**2).sum())


def test_fleiss_wikipedia_example():
    ratings = ratings_from_counts(WIKIPEDIA_COUNTS, [1, 2, 3, 4, 5])
    assert fleiss_kappa(ratings) == pytest.approx(0.20993, abs=1e-5)
    assert fleiss_kappa(ratings) == pytest.approx(fleiss_1971(np.array(WIKIPEDIA_COUNTS)))


def test_fleiss_reduces_to_the_1971_formula_with_a_constant_number_of_raters():
    rng = np.random.default_rng(1)
    for _ in range(50):
        m, k = rng.integers(2, 8), rng.integers(2, 5)
        table = random_ratings(rng, rng.integers(2, 40), m, list("abcd"[:k]), 0.0)
        counts = np.array([[list(row).count(c) for c in "abcd"] for row in table])
        if undefined_reason(table) is None:
            assert fleiss_kappa(table) == pytest.approx(fleiss_1971(counts), abs=1e-12)


def test_fleiss_with_a_varying_number_of_raters_by_hand():
    ratings = [
        ["a", "a", "b"],  # P = (2·1)/(3·2) = 1/3; shares a 2/3, b 1/3
        ["b", "b", None],  # P = 1;                shares a 0,   b 1
        [None, "a", "b"],  # P = 0;                shares a 1/2, b 1/2
        ["a", None, None],  # one rating: left out
    ]
    # P̄ = 4/9; π_a = (2/3 + 0 + 1/2)/3 = 7/18, π_b = 11/18; P_e = 170/324
    p_bar, p_e = 4 / 9, (49 + 121) / 324
    assert fleiss_kappa(ratings) == pytest.approx((p_bar - p_e) / (1 - p_e))
    assert fleiss_kappa(ratings) == pytest.approx(fleiss_kappa(ratings[:3]))


# -- Krippendorff's alpha ----------------------------------------------------------------------

#: Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", the example with four
#: observers, twelve units and missing values: nominal α = 0.743
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def test_krippendorff_2011_example():
    items_by_raters = [list(col) for col in zip(*KRIPPENDORFF_2011, strict=True)]
    assert krippendorff_alpha(items_by_raters) == pytest.approx(0.743, abs=5e-4)
    # the same with string labels and NaN for missing
    as_text = [[None if v is None else f"c{v}" for v in row] for row in items_by_raters]
    as_nan = np.array(items_by_raters, dtype=float)
    assert krippendorff_alpha(as_text) == krippendorff_alpha(as_nan)
    assert krippendorff_alpha(as_nan) == pytest.approx(
        krippendorff.alpha(reliability_data=as_nan.T, level_of_measurement="nominal")
    )


def test_krippendorff_equals_the_krippendorff_package_with_missing_ratings():
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(100):
        n_raters = rng.integers(2, 7)
        table = random_ratings(rng, rng.integers(2, 40), n_raters, ["x", "y", "z"], 0.4)
        if undefined_reason(table) is not None:
            continue
        ref = krippendorff.alpha(
            reliability_data=codes_for_krippendorff(table), level_of_measurement="nominal"
        )
        assert krippendorff_alpha(table) == pytest.approx(ref, abs=1e-12)
        checked += 1
    assert checked > 80


# -- all three ---------------------------------------------------------------------------------


def test_perfect_agreement_is_one():
    ratings = [["a", "a", None], ["b", None, "b"], ["c", "c", "c"], [None, "a", "a"]]
    assert fleiss_kappa(ratings) == pytest.approx(1.0)
    assert krippendorff_alpha(ratings) == pytest.approx(1.0)
    assert cohen_kappa(["a", "b", "c"], ["a", "b", "c"]) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("ratings", "reason"),
    [
        ([["a", None], [None, "b"]], NO_OVERLAP),  # no item rated twice
        (np.empty((0, 3), dtype=object), NO_OVERLAP),  # no items
        ([["a", "a"], ["a", "a"], ["b", None]], ONE_CLASS),  # b is never paired
    ],
)
def test_undefined_is_nan_with_a_reason(ratings, reason):
    assert undefined_reason(ratings) == reason
    assert math.isnan(fleiss_kappa(ratings)) and math.isnan(krippendorff_alpha(ratings))


def test_bad_input_raises():
    with pytest.raises(ValueError, match="at least two raters"):
        fleiss_kappa([["a"], ["b"]])  # a single rater
    with pytest.raises(ValueError, match="2-D"):
        krippendorff_alpha(["a", "b"])
    with pytest.raises(ValueError, match="2-D"):
        fleiss_kappa(np.array(["a", "b"], dtype=object))
    with pytest.raises(ValueError, match="differ in length"):
        fleiss_kappa([["a", "b"], ["a"]])
    with pytest.raises(ValueError, match="2 rater names for 3 columns"):
        pairwise_cohen([["a", "b", "c"]], ["x", "y"])


def test_pairwise_cohen():
    rng = np.random.default_rng(3)
    table = random_ratings(rng, 25, 3, ["cat", "dog"], 0.3)
    pairs = pairwise_cohen(table, ["ann", "bob", "cyd"])
    assert list(pairs) == [("ann", "bob"), ("ann", "cyd"), ("bob", "cyd")]
    for (a, b), (kappa, n) in pairs.items():
        i, j = ["ann", "bob", "cyd"].index(a), ["ann", "bob", "cyd"].index(b)
        both = np.not_equal(table[:, [i, j]], None).all(axis=1)
        assert n == both.sum()
        ref = cohen_kappa_score(table[both, i].astype(str), table[both, j].astype(str))
        assert kappa == pytest.approx(ref, abs=1e-12)


# -- the project report ------------------------------------------------------------------------


def team_events(reviews: bool = True) -> list[Event]:
    """Three annotators on points 0–6; an undone label on point 2; reviews of points 3, 4."""
    spec = [
        ("label", 0, "cat", "ann", 2.0),
        ("label", 0, "cat", "bob", 4.0),
        ("label", 0, "dog", "cyd", 6.0),
        ("label", 1, "dog", "ann", 1.0),
        ("label", 1, "dog", "bob", 3.0),
        ("label", 1, "dog", "cyd", 5.0),
        ("label", 2, "cat", "ann", 3.0),
        ("label", 2, "dog", "bob", 5.0),
        ("label", 2, "dog", "cyd", None),
        ("undo", None, None, "cyd", None),  # reverts cyd's label of point 2
        ("label", 5, "cat", "ann", 1.0),  # labeled once, never reviewed
        ("label", 6, "cat", "bob", 1.0),
        ("label", 6, "cat", "cyd", 3.0),
    ]
    if reviews:
        spec += [
            ("label", 3, "cat", "cyd", 4.0),
            ("review", 3, "dog", "rev", None),
            ("label", 4, "dog", "ann", None),
            ("label", 4, "cat", "bob", 2.0),
            ("review", 4, "cat", "rev", None),
        ]
    events = []
    for i, (kind, point, label, who, seconds) in enumerate(spec, start=1):
        target = i - 1 if kind == "undo" else None
        events.append(Event(kind, point, label, who, seconds=seconds, id=i, target=target))
    return events


# the ratings of team_events(): point -> annotator -> current label (cyd's point 2 undone)
RATINGS = {
    0: {"ann": "cat", "bob": "cat", "cyd": "dog"},
    1: {"ann": "dog", "bob": "dog", "cyd": "dog"},
    2: {"ann": "cat", "bob": "dog"},
    3: {"cyd": "cat"},
    4: {"ann": "dog", "bob": "cat"},
    5: {"ann": "cat"},
    6: {"bob": "cat", "cyd": "cat"},
}
# majority; point 2's tie goes to the class labeled last (bob's dog); 3 and 4 are reviewed
FINAL = {0: "cat", 1: "dog", 2: "dog", 3: "dog", 4: "cat", 5: "cat", 6: "cat"}
# point 2's 1–1 is a tie no review decided; point 4's 1–1 was reviewed
TIES = {2}
SECONDS = {
    "ann": [2.0, 1.0, 3.0, 1.0],
    "bob": [4.0, 3.0, 5.0, 1.0, 2.0],
    "cyd": [6.0, 5.0, 3.0, 4.0],
}


def check_team_report(report):
    # overlap: points 0, 1, 2, 4, 6 with counts (cat, dog) = (2,1), (0,3), (1,1), (1,1), (2,0)
    assert report.n_points_overlap == 5
    # Fleiss: P_i = 1/3, 1, 0, 0, 1 → P̄ = 7/15; π_cat = (2/3 + 0 + 1/2 + 1/2 + 1)/5 = 8/15,
    # P_e = (8² + 7²)/15² = 113/225; κ = (105/225 - 113/225)/(112/225) = -1/14
    assert report.fleiss_kappa == pytest.approx(-1 / 14)
    # coincidences o_cc = 1 + 2, o_cd = o_dc = 1 + 1 + 1, o_dd = 3: n_c = n_d = 6, n = 12;
    # α = 1 - 11 · (3 + 3) / (2 · 6 · 6) = 1/12
    assert report.krippendorff_alpha == pytest.approx(1 / 12)
    assert report.reason is None
    pairs = {(r.annotator_a, r.annotator_b): (r.n_items, r.kappa) for r in report.pairwise}
    assert list(pairs) == [("ann", "bob"), ("ann", "cyd"), ("bob", "cyd")]
    # ann-bob on 0, 1, 2, 4: p_o = 1/2, marginals (2, 2) and (2, 2): p_e = 1/2, κ = 0
    assert pairs["ann", "bob"] == (4, pytest.approx(0.0))
    # ann-cyd on 0, 1: p_o = 1/2, p_e = (1·0 + 1·2)/4 = 1/2, κ = 0
    assert pairs["ann", "cyd"] == (2, pytest.approx(0.0))
    # bob-cyd on 0, 1, 6: p_o = 2/3, p_e = (2·1 + 1·2)/9 = 4/9, κ = (2/9)/(5/9) = 0.4
    assert pairs["bob", "cyd"] == (3, pytest.approx(0.4))
    rows = {r.annotator: r for r in report.per_annotator}
    assert list(rows) == ["ann", "bob", "cyd"]
    # ann: 5 labels, seconds 2, 1, 3, 1 (point 4 unmeasured); judged on 0, 1, 4 (point 5 is
    # theirs alone, point 2 a tie without a review): right on 0, 1, wrong on 4 (reviewed cat)
    assert (rows["ann"].labels, rows["ann"].median_seconds) == (5, 1.5)
    assert (rows["ann"].agreement, rows["ann"].n) == (pytest.approx(2 / 3), 3)
    # bob: 5 labels, seconds 4, 3, 5, 1, 2; judged on 0, 1, 4, 6 (not the tie 2), all equal
    # to the final label (bob's dog on the tie 2 is final only because bob labeled last)
    assert (rows["bob"].labels, rows["bob"].median_seconds) == (5, 3.0)
    assert (rows["bob"].agreement, rows["bob"].n) == (1.0, 4)
    # cyd: 4 labels (point 2 undone), seconds 6, 5, 4, 3; wrong on 0 and on reviewed 3
    assert (rows["cyd"].labels, rows["cyd"].median_seconds) == (4, 4.5)
    assert (rows["cyd"].agreement, rows["cyd"].n) == (0.5, 4)
    assert report.disagreements() == [0, 2]  # point 4 disagrees but a review decided it
    assert report.ties == TIES  # still a disagreement, left out of the agreement only


def test_report_by_hand():
    check_team_report(agreement_report(RATINGS, FINAL, SECONDS, reviewed={3, 4}, ties=TIES))


def test_report_through_the_label_log():
    log = LabelLog(team_events(), rule="majority")
    assert log.ratings() == RATINGS
    assert log.labels == FINAL
    assert set(log.reviews) == {3, 4}
    assert {p for p in range(7) if log.tied(p)} == TIES
    assert not any(LabelLog(team_events()).tied(p) for p in range(7))  # "latest": no tie
    check_team_report(log_agreement(log))


def _ties_by_hand(by_point: dict[int, list[tuple[str, str]]]) -> set[int]:
    """Points whose labels (annotator, class; one each) have no single most given class."""
    ties = set()
    for p, labels in by_point.items():
        counts = sorted(sum(y == c for _, y in labels) for c in {y for _, y in labels})
        if len(counts) > 1 and counts[-1] == counts[-2]:
            ties.add(p)
    return ties


def test_who_labels_a_tie_last_does_not_change_anyones_agreement():
    """Two annotators per point (overlap 2), 25 shared points, 6 of them 1–1 without a review:
    "sloppy" labeled second and was credited with every tie (100 %, "good" 76 %). Each
    annotator's agreement is now over the points with a majority or a review, by hand: the
    same whichever of them labeled a tie last."""
    rng = np.random.default_rng(17)
    truth = rng.choice(["in", "out"], size=25)
    wrong = set(rng.choice(25, size=6, replace=False).tolist())  # sloppy's mistakes
    flip = {"in": "out", "out": "in"}
    by_point = {
        p: [("good", str(y)), ("sloppy", flip[str(y)] if p in wrong else str(y))]
        for p, y in enumerate(truth)
    }
    by_point[25] = [("good", "in"), ("sloppy", "out"), ("cy", "in")]  # 2–1: a majority
    assert _ties_by_hand(by_point) == wrong

    def report(order: int, review: bool = False):
        events = []
        for p, labels in by_point.items():
            for who, y in labels[::order]:
                events.append(Event("label", p, y, who, id=len(events) + 1))
        if review:  # a reviewer decides the first tie for "good"'s label
            p = min(wrong)
            events.append(Event("review", p, str(truth[p]), "rev", id=len(events) + 1))
        return {r.annotator: (r.agreement, r.n) for r in log_agreement(
            LabelLog(events, rule="majority")).per_annotator}  # fmt: skip

    # 19 agreed points and the 2–1 point: good right on all 20, sloppy wrong on the 2–1 one
    want = {"cy": (1.0, 1), "good": (1.0, 20), "sloppy": (pytest.approx(19 / 20), 20)}
    assert report(1) == want and report(-1) == want
    # a reviewed tie counts: good right on it, sloppy wrong, whoever labeled last
    want = {"cy": (1.0, 1), "good": (1.0, 21), "sloppy": (pytest.approx(19 / 21), 21)}
    assert report(1, review=True) == want and report(-1, review=True) == want


def test_report_text_and_dict():
    report = agreement_report(RATINGS, FINAL, SECONDS, reviewed={3, 4}, ties=TIES)
    text = report.to_text()
    assert "Points labeled by two or more annotators: 5" in text
    assert "Fleiss' kappa:         -0.071" in text
    assert "Krippendorff's alpha:  0.083" in text
    lines = text.splitlines()
    assert "  ann          bob               4  0.000" in lines
    assert "  bob          cyd               3  0.400" in lines
    assert "  cyd             4       4.5      0.500       4" in lines
    assert "  ann             5       1.5      0.667       3" in lines
    assert (
        "Annotators (agreement with the final label on points overlapped or reviewed, ties "
        "without a review left out)" in lines
    )
    assert (
        "  Left out: 1 tie without a review (a tie's final label is only the latest of the "
        "tied labels)" in lines
    )
    assert "  point 0: ann=cat, bob=cat, cyd=dog" in lines
    data = json.loads(json.dumps(report.to_dict(), allow_nan=False))
    assert data["n_points_overlap"] == 5
    assert data["fleiss_kappa"] == pytest.approx(-1 / 14)
    assert [d["point"] for d in data["disagreements"]] == [0, 2]
    assert data["ties_without_review"] == [2]
    assert data["per_annotator"][2] == {
        "annotator": "cyd",
        "labels": 4,
        "median_seconds": 4.5,
        "agreement": 0.5,
        "n": 4,
    }


def test_report_without_overlap():
    one = agreement_report({0: {"ann": "cat"}, 1: {"ann": "dog"}}, {0: "cat", 1: "dog"})
    assert one.reason == ONE_ANNOTATOR and math.isnan(one.fleiss_kappa)
    assert one.pairwise == [] and one.per_annotator[0].n == 0
    assert "not defined (fewer than two annotators have labeled)" in one.to_text()
    assert json.loads(json.dumps(one.to_dict(), allow_nan=False))["fleiss_kappa"] is None
    two = agreement_report({0: {"ann": "cat"}, 1: {"bob": "dog"}}, {0: "cat", 1: "dog"})
    assert two.reason == NO_OVERLAP and two.n_points_overlap == 0
    assert [(r.n_items, math.isnan(r.kappa)) for r in two.pairwise] == [(0, True)]
    assert "  ann          bob               0      -" in two.to_text().splitlines()


def test_the_review_pages_tables_have_readable_columns_and_dashes_that_say_why():
    """The Review page showed ``median_seconds``, ``n`` and "None" under agreement: dee's one
    point was labeled by no one else and decided by no reviewer (and recorded no time)."""
    ratings = {**RATINGS, 7: {"dee": "cat"}}
    report = agreement_report(ratings, {**FINAL, 7: "cat"}, SECONDS, reviewed={3, 4})
    rows = annotator_table(report)
    assert rows[0] == {
        "Annotator": "ann",
        "Labels": 5,
        "Median seconds per label": "1.5",
        "Agreement with the final label": "50%",
        "Points compared": 4,
    }
    assert rows[3] == {
        "Annotator": "dee",
        "Labels": 1,
        "Median seconds per label": "—",
        "Agreement with the final label": "—",
        "Points compared": 0,
    }
    assert annotator_table_note(report) == (
        "Agreement — for dee: no one else labeled their points and no reviewer decided one, "
        "so there is nothing to compare their labels with (a point only they labeled agrees "
        "with its final label by construction). Median seconds — for dee: none of their "
        "labels recorded its time."
    )
    assert annotator_table_note(agreement_report(RATINGS, FINAL, SECONDS, {3, 4})) is None
    # with the tie 2 left out, and eve whose one shared point is a tie with ann
    ratings = {**RATINGS, 8: {"ann": "cat", "eve": "dog"}}
    final = {**FINAL, 8: "dog"}
    tied = agreement_report(ratings, final, SECONDS, reviewed={3, 4}, ties={2, 8})
    rows = {r["Annotator"]: r for r in annotator_table(tied)}
    assert rows["ann"]["Agreement with the final label"] == "67%"
    assert rows["ann"]["Points compared"] == 3
    assert (rows["eve"]["Agreement with the final label"], rows["eve"]["Points compared"]) == (
        "—",
        0,
    )
    assert annotator_table_note(tied) == (
        "Left out of the agreement with the final label: 2 ties no reviewer decided; a tie's "
        "final label is only the latest of the tied labels, so counting it would credit "
        "whoever labeled last. Agreement — for eve: each of their points that someone else "
        "labeled is a tie no reviewer decided. Median seconds — for eve: none of their labels "
        "recorded its time."
    )
    pairs = pair_table(report)
    assert pairs[2] == {
        "Annotator A": "ann",
        "Annotator B": "dee",
        "Points both labeled": 0,
        "Cohen's κ": "—",
    }
    assert pairs[0]["Cohen's κ"] == "0.000" and pairs[3]["Cohen's κ"] == "0.400"
    assert pair_table_note(report) == (
        "Cohen's κ —: the two annotators share no labeled point, or both gave the same single "
        "answer on every point they share (chance agreement is then certain)."
    )


# -- python -m rlscore agreement ---------------------------------------------------------------


@pytest.fixture
def db(tmp_path):
    """The team's labels without the reviews (the store does not take review events yet),
    in a project that asks for three annotators per point (so its final labels are the
    majority's), and a project without labels."""
    path = tmp_path / "labels.sqlite3"
    X = np.arange(14.0).reshape(7, 2)
    with open_store(path) as s:
        s.create_project(Project("team", X, ["w", "h"], list("abcdefg"), None, ["cat", "dog"]))
        s.create_project(Project("empty", np.eye(2), ["x", "y"], ["p", "q"], None, ["cat", "dog"]))
        for e in team_events(reviews=False):
            s.append_event("team", Event(e.kind, e.point, e.label, e.annotator, seconds=e.seconds))
        save_project_settings(s, "team", {"overlap": 3})
    return path


# without the reviews: overlap 0, 1, 2, 6; Fleiss P̄ = 7/12, π_cat = 13/24, κ = 23/143;
# coincidences o_cc = 3, o_cd = o_dc = 2, o_dd = 3: α = 1 - 9 · 4/(2 · 25) = 0.28
def test_cli_text(db, capsys):
    assert cli_main(["agreement", "--db", str(db), "--project", "team"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == [
        "Points labeled by two or more annotators: 4",
        f"Fleiss' kappa:         {23 / 143:.3f}",
        "Krippendorff's alpha:  0.280",
    ]
    # ann-bob on 0, 1, 2: p_o = 2/3, p_e = (2·1 + 1·2)/9, κ = 0.4
    assert "  ann          bob               3  0.400" in lines
    # ann: 4 labels, median of 2, 1, 3, 1; right on 0, 1; 2 is a tie (its final label dog
    # only because bob labeled it last), left out
    assert "  ann             4       1.5      1.000       2" in lines
    assert "  Left out: 1 tie without a review (a tie's final label is only the latest of the " \
        "tied labels)" in lines  # fmt: skip
    assert "Disagreements without a review: 2" in lines


def test_cli_json(db, capsys):
    assert main(["--db", str(db), "--project", "team", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n_points_overlap"] == 4
    assert data["fleiss_kappa"] == pytest.approx(23 / 143)
    assert data["krippendorff_alpha"] == pytest.approx(0.28)
    rows = {r["annotator"]: r for r in data["per_annotator"]}
    # the tie 2 left out
    assert rows["bob"] == {"annotator": "bob", "labels": 4, "median_seconds": 3.5,
                           "agreement": 1.0, "n": 3}  # fmt: skip
    assert data["ties_without_review"] == [2]
    assert rows["cyd"]["median_seconds"] == 5.0 and rows["cyd"]["agreement"] == pytest.approx(2 / 3)


def test_cli_latest_rule(db, capsys):
    # under "latest" point 0's final label is cyd's dog (the last given): bob is right on 1, 2,
    # 6 of 0, 1, 2, 6
    assert main(["--db", str(db), "--project", "team", "--json", "--rule", "latest"]) == 0
    rows = {r["annotator"]: r for r in json.loads(capsys.readouterr().out)["per_annotator"]}
    assert rows["bob"]["agreement"] == 0.75


def test_cli_errors(db, tmp_path, capsys):
    assert main(["--db", str(db), "--project", "nope"]) == 2
    assert "no project named 'nope'" in capsys.readouterr().err
    assert main(["--db", str(db), "--project", "empty"]) == 2
    assert "'empty' has no labels yet" in capsys.readouterr().err
    assert main(["--db", str(tmp_path / "missing.sqlite3"), "--project", "team"]) == 2
    assert "no label database" in capsys.readouterr().err
    assert not (tmp_path / "missing.sqlite3").exists()
    assert main(["--db", str(db)]) == 2  # --project is required (argparse's usage error)


def test_project_agreement_follows_the_projects_rule(db):
    with open_store(db) as s:
        report = project_agreement(s, "team")
        assert report.n_points_overlap == 4 and report.disagreements() == [0, 2]
        assert report.final[0] == "cat"  # the majority's
        save_project_settings(s, "team", {"overlap": 1})
        assert project_agreement(s, "team").final[0] == "dog"  # the latest label
