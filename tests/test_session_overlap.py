"""Overlap (several annotators per point), the majority label, reviews and the team export."""

from __future__ import annotations

import io
import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from support.sessions import assert_same_state, session

from rlscore.sessions import LabelingSession, LabelLog, export_labels
from rlscore.sessions.actions.review import audit_trail
from rlscore.sessions.state.settings import project_settings, save_project_settings
from rlscore.sessions.team.overlap import Overlap
from rlscore.storage import Event, StaleActionError

ANNOTATORS = ["ada", "bob", "cy", "dee"]


def _random_events(seed: int, n_events: int = 120, n_points: int = 12) -> list[Event]:
    """Labels, reviews, skips and undos by several annotators, ids in commit order."""
    rng = np.random.default_rng(seed)
    events: list[Event] = []
    active: list[int] = []
    for eid in range(1, n_events + 1):
        r = rng.random()
        who = str(rng.choice(ANNOTATORS))
        point = int(rng.integers(n_points))
        if r < 0.12 and active:
            target = active.pop(int(rng.integers(len(active))))
            events.append(Event("undo", target=target, annotator=who, id=eid))
            continue
        kind = "review" if r < 0.2 else "skip" if r < 0.3 else "label"
        label = None if kind == "skip" else str(rng.choice(["x", "y", "z"]))
        events.append(Event(kind, point=point, label=label, annotator=who, id=eid))
        active.append(eid)
    return events


def _reference_fold(events: list[Event], rule: str) -> dict[int, object]:
    """Final labels computed from scratch on the whole list (no incremental state)."""
    undone = {e.target for e in events if e.kind == "undo"}
    alive = [e for e in events if e.kind != "undo" and e.id not in undone]
    final = {}
    for point in {e.point for e in alive}:
        mine = [e for e in alive if e.point == point]
        reviews = [e for e in mine if e.kind == "review"]
        if reviews:
            final[point] = max(reviews, key=lambda e: e.id).label
            continue
        latest = {}
        for e in sorted((e for e in mine if e.kind == "label"), key=lambda e: e.id):
            latest[e.annotator] = e
        if not latest:
            continue
        if rule == "latest":
            final[point] = max(latest.values(), key=lambda e: e.id).label
            continue
        votes = Counter(e.label for e in latest.values())
        best = max(votes.values())
        tied = [e for e in latest.values() if votes[e.label] == best]
        final[point] = max(tied, key=lambda e: e.id).label
    return final


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("rule", ["latest", "majority"])
def test_final_labels_equal_a_fold_from_scratch(seed, rule):
    events = _random_events(seed)
    log = LabelLog(events, rule=rule)
    assert log.labels == _reference_fold(events, rule)
    # each annotator's own current label, reviews excluded
    undone = {e.target for e in events if e.kind == "undo"}
    expected: dict[int, dict[str, object]] = {}
    for e in events:
        if e.kind == "label" and e.id not in undone:
            expected.setdefault(e.point, {})[e.annotator] = e.label
    assert log.ratings() == expected
    # ties: under "majority", no review holds and the most given label is not alone
    reviewed = {e.point for e in events if e.kind == "review" and e.id not in undone}
    ties = set()
    for point, by in expected.items():
        counts = Counter(by.values()).most_common()
        if rule == "majority" and point not in reviewed and len(counts) > 1:
            ties.update([point] if counts[0][1] == counts[1][1] else [])
    assert {p for p in range(12) if log.tied(p)} == ties


def test_majority_tie_goes_to_the_most_recent_label_and_a_review_decides():
    ev = [
        Event("label", 3, "x", "ada", id=1),
        Event("label", 3, "y", "bob", id=2),
    ]
    log = LabelLog(ev, rule="majority")
    assert log.labels[3] == "y" and log.disagreements() == [3]
    assert log.tied(3) and not log.tied(4)  # 1–1; an unlabeled point ties nothing
    log.apply(Event("label", 3, "x", "cy", id=3))
    assert log.labels[3] == "x" and not log.tied(3)  # 2–1
    log.apply(Event("label", 3, "y", "cy", id=4))  # cy changes their mind: 2 y vs 1 x
    assert log.labels[3] == "y" and log.ratings()[3] == {"ada": "x", "bob": "y", "cy": "y"}
    log.apply(Event("review", 3, "x", "rev", id=5))
    assert log.labels[3] == "x" and log.label_events[3].kind == "review"
    assert log.disagreements() == []
    log.apply(Event("undo", target=5, annotator="rev", id=6))
    assert log.labels[3] == "y" and log.disagreements() == [3] and not log.tied(3)  # 2–1
    log.apply(Event("label", 3, "x", "bob", id=7))  # bob changes their mind: x 2–1
    assert log.labels[3] == "x" and not log.tied(3)
    log.apply(Event("undo", target=1, annotator="ada", id=8))  # bob's x, cy's y: 1–1
    assert log.tied(3) and log.labels[3] == "x"  # bob's, labeled last
    log.apply(Event("review", 3, "y", "rev", id=9))
    assert log.labels[3] == "y" and not log.tied(3)  # a review decides a tie
    # under "latest" a teammate's relabel is a correction: the newest label holds
    assert LabelLog(ev + [Event("label", 3, "x", "cy", id=3)]).labels[3] == "x"
    assert LabelLog([ev[0], ev[1], Event("label", 3, "y", "cy", id=3)]).labels[3] == "y"


def test_overlap_validation_and_sample():
    for bad, match in [(0, "≥ 1"), (1.5, "whole number"), (True, "whole number"), (99, "at most")]:
        with pytest.raises(ValueError, match=match):
            Overlap(bad)
    for bad in (0, 1.2, float("nan"), "half"):
        with pytest.raises(ValueError, match="overlap_fraction"):
            Overlap(2, bad)
    rule = Overlap(2, 0.3, seed=7)
    share = np.mean([rule.in_sample(i) for i in range(20_000)])
    assert abs(share - 0.3) < 0.015  # a binomial share: sd 0.0032
    assert [rule.in_sample(i) for i in range(50)] == [rule.in_sample(i) for i in range(50)]
    assert Overlap(2, 0.3, seed=8).in_sample != rule.in_sample
    assert Overlap(1).rule == "latest" and Overlap(3).rule == "majority"


def test_overlap_hands_a_labeled_point_to_k_annotators_then_moves_on(store):
    s = session(store, overlap=2)
    p, _ = s.query(annotator="ada")
    s.label(p, 1, annotator="ada", seen=s.last_event_id)
    # bob is handed ada's point first (it waits for a second label), ada is not
    assert s.query(annotator="bob")[0] == p
    q_ada = s.query(annotator="ada")[0]
    assert q_ada != p
    s.label(p, -1, annotator="bob", seen=s.last_event_id)
    assert s.labels[p] == -1  # a tie: the most recent label
    # two annotators have labeled p: cy gets a fresh query, not p
    q_cy = s.query(annotator="cy")[0]
    assert q_cy not in (p, q_ada)
    assert s.progress() == {"ada": 1, "bob": 1}
    # a skip by an annotator the point waits for: not proposed to them again
    s.label(q_ada, 1, annotator="ada", seen=s.last_event_id)
    assert s.query(annotator="dee")[0] == q_ada
    s.skip(q_ada, annotator="dee", seen=s.last_event_id)
    assert s.labels[q_ada] == 1 and s.query(annotator="dee")[0] != q_ada
    assert s.query(annotator="bob")[0] == q_ada
    # without overlap a labeled point cannot be skipped
    with pytest.raises(ValueError, match="is labeled"):
        session(store).skip(p, annotator="eve")


def test_a_point_never_waits_for_the_annotator_who_labeled_it():
    log = LabelLog([Event("label", 3, "x", "ada", id=1)], rule="majority")
    overlap = Overlap(2)
    assert overlap.wanted_from(log, "ada") == []
    assert overlap.wanted_from(log, "bob") == [3]


def test_an_annotator_is_not_handed_back_their_own_label_before_a_teammate_asks(store):
    s = session(store, overlap=2)
    p, _ = s.query(annotator="ada")
    s.label(p, 1, annotator="ada", seen=s.last_event_id)
    assert s.overlap_queue("ada") == [] and s.overlap_queue("bob") == [p]
    assert s.query(annotator="ada")[0] != p  # nobody holds p: only ada's label keeps it away


def test_review_overrides_the_majority_and_the_engine_follows(store):
    s = session(store, overlap=3)
    p = 4
    for who, y in [("ada", 1), ("bob", 1), ("cy", -1)]:
        s.label(p, y, annotator=who, seen=s.last_event_id)
    assert s.labels[p] == 1
    seen = s.last_event_id
    s.review(p, -1, "rev", seen=seen)
    assert s.labels[p] == -1 and s.engine.labels_ == [-1]
    with pytest.raises(StaleActionError):  # a second reviewer who saw the older state
        s.review(p, 1, "rev2", seen=seen)
    with pytest.raises(ValueError, match="not one of the classes"):
        s.review(p, 7, "rev")
    trail = audit_trail(store.events("moons"))
    assert [(d.event.annotator, d.event.label, d.holds) for d in trail] == [("rev", -1, True)]
    s.undo("rev")
    assert s.labels[p] == 1 and s.engine.labels_ == [1]
    assert not audit_trail(store.events("moons"))[0].holds
    # the same state from the log alone
    assert_same_state(s, session(store, overlap=3, snapshots=False))


def test_changing_the_overlap_refolds_the_labels(store):
    s = session(store)
    for who, y in [("ada", 1), ("bob", 1), ("cy", -1)]:
        s.label(2, y, annotator=who, seen=s.last_event_id)
    assert s.labels[2] == -1  # latest
    s.set_params(overlap=3)
    assert s.labels[2] == 1 and s.get_params()["overlap"] == 3
    assert_same_state(s, session(store, overlap=3, snapshots=False))
    with pytest.raises(ValueError, match="overlap"):
        s.set_params(overlap=0)
    assert s.get_params()["overlap"] == 3


def test_overlap_settings_are_saved_and_validated(store):
    assert project_settings(store, "moons")["overlap"] == 1
    save_project_settings(store, "moons", {"overlap": 3, "overlap_fraction": 0.25})
    saved = project_settings(store, "moons")
    assert (saved["overlap"], saved["overlap_fraction"]) == (3, 0.25)
    save_project_settings(store, "moons", {"overlap": 2})
    assert project_settings(store, "moons")["overlap_fraction"] == 0.25
    with pytest.raises(ValueError, match="overlap_fraction"):
        save_project_settings(store, "moons", {"overlap_fraction": 0})


def test_team_export_has_every_annotators_label(store):
    s = session(store, overlap=2)
    s.label(1, 1, annotator="ada", seconds=1.5)
    s.label(1, -1, annotator="bob", seconds=2.0)
    s.label(2, -1, annotator="bob", seconds=0.5)
    s.review(1, 1, "rev")
    log = LabelLog(store.events("moons"), rule="majority")
    df = pd.read_csv(io.StringIO(export_labels(s.project, log, "csv")))
    assert df["index"].tolist() == [2, 1]  # in the order the final labels were given
    row = df.set_index("index").loc[1]
    assert (row["label"], row["decided_by"], row["reviewer"], row["n_annotators"]) == (
        1, "review", "rev", 2
    )  # fmt: skip
    assert (row["label[ada]"], row["label[bob]"]) == (1, -1)
    assert (row["seconds[ada]"], row["seconds[bob]"]) == (1.5, 2.0)
    assert np.isnan(df.set_index("index").loc[2, "label[ada]"])
    table = pd.read_parquet(io.BytesIO(export_labels(s.project, log, "parquet")))
    pd.testing.assert_frame_equal(table, df, check_dtype=False)
    lines = export_labels(s.project, log, "jsonl").splitlines()
    assert [json.loads(x) for x in lines] == json.loads(export_labels(s.project, log, "json"))
    first = json.loads(lines[1])
    assert [(a["annotator"], a["label"], a["seconds"]) for a in first["annotations"]] == [
        ("ada", 1, 1.5),
        ("bob", -1, 2.0),
    ]
    assert first["annotations"][0]["strategy"] == "arls"


def test_the_export_names_a_tie_and_not_a_majority():
    """A 1–1 disagreement was exported as ``decided_by=majority``: its final label is the
    latest of the tied labels, so it says ``tie (latest)``; a 2–1 point is a majority's, a
    reviewed tie the review's, and under "latest" every point the latest's."""
    from rlscore.data.projects.project import Project

    project = Project("pets", np.arange(8.0).reshape(4, 2), ["w", "h"], list("abcd"), None,
                      ["cat", "dog"])  # fmt: skip
    given = [
        (0, "cat", "ada"), (0, "dog", "bob"),  # 1–1: a tie
        (1, "cat", "ada"), (1, "dog", "bob"), (1, "cat", "cy"),  # 2–1: cat's majority
        (2, "dog", "ada"), (2, "cat", "bob"),  # 1–1, then reviewed
        (3, "dog", "ada"),  # one annotator
    ]  # fmt: skip
    events = [Event("label", p, y, who, id=k) for k, (p, y, who) in enumerate(given, start=1)]
    events.append(Event("review", 2, "dog", "rev", id=len(events) + 1))
    decided = {}
    for rule in ("majority", "latest"):
        table = pd.read_csv(io.StringIO(export_labels(project, LabelLog(events, rule=rule))))
        rows = zip(table["label"], table["decided_by"], strict=True)
        decided[rule] = dict(zip(table["index"], rows, strict=True))
    assert decided["majority"] == {
        0: ("dog", "tie (latest)"),  # bob's, the later of the tied labels
        1: ("cat", "majority"),
        2: ("dog", "review"),
        3: ("dog", "majority"),
    }
    assert decided["latest"] == {
        0: ("dog", "latest"), 1: ("cat", "latest"), 2: ("dog", "review"), 3: ("dog", "latest")
    }  # fmt: skip


def test_a_session_without_overlap_keeps_todays_semantics(store):
    s = session(store)
    s.label(3, 1, annotator="ada")
    s.label(3, -1, annotator="bob", seen=s.last_event_id)  # a confirmed relabel
    assert s.labels[3] == -1
    assert isinstance(s, LabelingSession) and s.overlap == Overlap()


def test_query_batch_is_one_greedy_batch_of_distinct_points(store):
    s = session(store)
    batch = s.query_batch(["ada", "bob", "cy", "dee"])
    points = [q[0] for q in batch.values()]
    assert len(set(points)) == 4
    # the same points as the engine's own greedy batch (rlscore.query.protocol.batch)
    assert points == [i for i, _ in s.engine.next_queries(4)]
    # asked again (a reload), everyone keeps their point
    assert s.query_batch(["dee", "ada"]) == {"dee": batch["dee"], "ada": batch["ada"]}


def test_a_point_labeled_after_the_last_sync_is_never_handed_out(store):
    """Bob's session has not seen ada's label (no sync since): its engine still proposes the
    point, the claim is refused in the database, and bob gets the next candidate."""
    ada, bob = session(store), session(store)
    p, _ = bob.engine.next_query()
    ada.label(p, 1, annotator="ada")  # ada's claim was never taken: a click in the plot
    assert p not in bob.labels  # bob's view is behind
    q, _ = bob.query(annotator="bob")
    assert q != p and store.claims("moons")[q][0] == "bob"
    bob.sync()
    assert bob.labels == {p: 1} and bob.query(annotator="bob")[0] == q
    with pytest.raises(StaleActionError):
        store.claim("moons", p, "cy", 60.0, unchanged_since=0)
    assert store.claim("moons", p, "cy", 60.0, unchanged_since=bob.last_event_id)


def test_the_pool_plot_hides_every_label_waiting_for_the_viewers_blind_label(store):
    # overlap 2: each of ada's labeled points waits for a second, blind label; bob's plot may
    # show none of their labels (nor a confidence fitted on them), not only his current query's
    from rlscore.sessions.views.label_page import PoolPlotState

    s = session(store, overlap=2)
    ada = []
    for _ in range(4):
        p, _ = s.query(annotator="ada")
        s.label(p, 1, annotator="ada", seen=s.last_event_id)
        ada.append(p)
    first, _ = s.query(annotator="bob")
    s.label(first, -1, annotator="bob", seen=s.last_event_id)
    view = PoolPlotState.for_annotator(s, "bob")
    # the reference, from the log's words: ada labeled it and bob has not
    bob_did = {e.point for e in s.store.events("moons") if e.annotator == "bob"}
    waiting = [p for p in ada if p not in bob_did]
    assert len(waiting) == 3 and first in ada
    assert not set(waiting) & set(view.labels) and first in view.labels
    assert np.isnan(view.confidence[waiting]).all()
    others = np.setdiff1d(np.arange(view.confidence.size), waiting)
    assert not np.isnan(view.confidence[others]).any()
    # ada's own view is not blind: she sees her labels
    assert set(ada) <= set(PoolPlotState.for_annotator(s, "ada").labels)
