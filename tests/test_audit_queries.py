"""Random checks in the app (issue 24): every k-th query drawn uniformly at random from the open
points, marked as an audit in the log, read back by the accuracy estimate, and claimed like
any query so two annotators never share a point."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from scipy.stats import chisquare
from support.sessions import moons_store, session

from rlscore.core.evaluation.accuracy_interval import wilson_interval
from rlscore.core.rls.classifier import RLSClassifier
from rlscore.sessions.state.label_log import LabelLog
from rlscore.sessions.state.settings import check_settings, default_settings
from rlscore.sessions.stopping.stopping_view import stopping_view
from rlscore.sessions.team.claims import MAX_CANDIDATES, audit_candidates


def _audits(store) -> list[tuple[int, bool]]:
    """(point, marked as an audit) of every label event, in log order."""
    return [
        (e.point, bool(e.params.get("audit"))) for e in store.events("moons") if e.kind == "label"
    ]


def _label_queries(s, k: int, who: str = "ann") -> list[int]:
    truth = s.project.truth
    points = []
    for _ in range(k):
        i, _score = s.query(annotator=who)
        s.label(i, truth[i], annotator=who)
        points.append(i)
    return points


def test_every_kth_query_is_a_random_check_marked_in_the_log(tmp_path):
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5, audit_every=3)
    truth = s.project.truth
    for n in range(9):
        engine_pick, _ = s.query(claim=False)
        i, _score = s.query(annotator="ann")
        if (n + 1) % 3:  # not a check: the engine's own query
            assert i == engine_pick
        s.label(i, truth[i], annotator="ann")
    marked = [audit for _, audit in _audits(store)]
    assert marked == [False, False, True] * 3
    # off again: no check
    s.set_params(audit_every=0)
    _label_queries(s, 3)
    assert not any(audit for _, audit in _audits(store)[9:])
    assert s.get_params()["audit_every"] == 0
    with pytest.raises(ValueError, match="audit_every"):
        s.set_params(audit_every=-1)


def test_random_checks_are_uniform_over_the_open_points(tmp_path):
    """The hand-out's draw, end to end: many annotators each asked once for a check at the
    same state (each claim released before the next), chi-square against uniform."""
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5)
    truth = s.project.truth
    for i in [*np.flatnonzero(truth == 1)[:2], *np.flatnonzero(truth == -1)[:2]]:
        s.label(int(i), truth[i], annotator="ann")
    s.skip(int(np.flatnonzero(truth == -1)[5]), annotator="ann")
    s.set_params(audit_every=1)  # every query is a check
    open_points = sorted(set(range(s.project.n)) - set(s.labels) - s.skipped)
    counts = dict.fromkeys(open_points, 0)
    draws = 20 * len(open_points)
    for k in range(draws):
        i, _score = s.query(annotator=f"a{k}")
        counts[i] += 1  # KeyError if a labeled or skipped point were drawn
        s.release(f"a{k}")
    observed = np.asarray(list(counts.values()))
    assert chisquare(observed).pvalue > 1e-3


def test_audit_candidates_draw_uniformly_and_skip_taken_points():
    log = LabelLog([])
    rng = np.random.default_rng(0)
    firsts = np.asarray([audit_candidates(30, log, {3, 7}, rng)[0] for _ in range(6000)])
    assert not set(firsts.tolist()) & {3, 7}
    counts = np.bincount(firsts, minlength=30)
    assert chisquare(np.delete(counts, [3, 7])).pvalue > 1e-3
    assert audit_candidates(2, log, {0, 1}, rng) == []


@pytest.mark.parametrize("taken", [set(range(0, 30, 3)), set(range(20))], ids=["few", "most"])
def test_audit_candidates_are_a_uniform_ordered_sample_of_the_open_points(taken):
    """Drawn by rejection while at least half the pool is open, from the listed open points
    beyond: every candidate open and distinct, the first and the second uniform."""
    log, rng = LabelLog([]), np.random.default_rng(1)
    open_points = sorted(set(range(30)) - taken)
    draws = [audit_candidates(30, log, taken, rng) for _ in range(6000)]
    for d in draws[:200]:
        assert len(d) == min(len(open_points), MAX_CANDIDATES + 1) == len(set(d))
        assert set(d) <= set(open_points)
    for position in (0, 1):
        counts = np.bincount([d[position] for d in draws], minlength=30)[open_points]
        assert chisquare(counts).pvalue > 1e-3


def test_audit_candidates_on_a_large_pool_allocate_nothing_of_its_size():
    log = LabelLog([])
    tracemalloc.start()
    got = audit_candidates(10**8, log, {5, 6}, np.random.default_rng(0))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(got) == MAX_CANDIDATES + 1 and not set(got) & {5, 6}
    assert peak < 1 << 20  # a mask of the pool alone would be 100 MB


def test_the_audit_estimate_is_the_share_predicted_right_before_labeling(tmp_path):
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5, audit_every=2)
    truth = s.project.truth
    for i in [*np.flatnonzero(truth == 1)[:2], *np.flatnonzero(truth == -1)[:2]]:
        s.label(int(i), truth[i], annotator="ann")
    _label_queries(s, 16)
    view = stopping_view(s)

    # direct: each check predicted by a refit on the labels before it, in label order
    order = list(s.labels.items())
    marked = {p for p, audit in _audits(store) if audit}
    hits = []
    for n, (point, label) in enumerate(order):
        if point not in marked:
            continue
        idx = [p for p, _ in order[:n]]
        y = np.asarray([v for _, v in order[:n]])
        clf = RLSClassifier(sigma=2.0, lam=0.5).fit(s.project.X[idx], y)
        hits.append(bool(clf.predict(s.project.X[[point]])[0] == label))
    assert len(hits) >= 6
    assert view.estimate.audit_n == len(hits)
    assert view.estimate.audit == pytest.approx(np.mean(hits))
    assert view.estimate.audit_interval == wilson_interval(sum(hits), len(hits))

    # the log is what counts: a session rebuilt from it reads the same checks
    again = stopping_view(session(store, strategy="uncertainty", sigma=2.0, lam=0.5))
    assert again.estimate.audit_n == len(hits)
    assert again.estimate.audit == view.estimate.audit


def test_two_annotators_on_two_servers_never_share_a_check(tmp_path):
    store = moons_store(tmp_path)
    # two sessions on one database: two servers, each with every query a random check
    a = session(store, strategy="uncertainty", sigma=2.0, lam=0.5, audit_every=1)
    b = session(store, strategy="uncertainty", sigma=2.0, lam=0.5, audit_every=1)
    truth = a.project.truth
    for _ in range(12):
        i, _ = a.query(annotator="ann")
        j, _ = b.query(annotator="bob")
        assert i != j
        assert a.query(annotator="ann")[0] == i  # a reload shows the same point
        a.label(i, truth[i], annotator="ann")
        b.sync()
        b.label(j, truth[j], annotator="bob")
        a.sync()
    labeled = [p for p, _ in _audits(store)]
    assert len(labeled) == len(set(labeled)) == 24
    assert all(audit for _, audit in _audits(store))


def test_audit_every_is_a_project_setting():
    assert default_settings(10, None)["audit_every"] == 0
    assert check_settings({"audit_every": 10})["audit_every"] == 10
    for bad in (-1, 2.5, True, "10"):
        with pytest.raises(ValueError, match="audit_every"):
            check_settings({"audit_every": bad})


def test_only_the_annotator_handed_a_check_labels_it_as_one(tmp_path):
    store = moons_store(tmp_path)
    s = session(store, strategy="uncertainty", sigma=2.0, lam=0.5, audit_every=1)
    truth = s.project.truth
    i, _ = s.query(annotator="ann")
    assert s.is_random_check(i, "ann") and not s.is_random_check(i, "bob")
    s.label(i, truth[i], annotator="bob")  # picked in the plot by a teammate
    j, _ = s.query(annotator="ann")
    s.label(j, truth[j], annotator="ann")
    assert _audits(store) == [(i, False), (j, True)]
    assert not s.is_random_check(j)
