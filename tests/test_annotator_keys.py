"""One person under two spellings of an address is one annotator (an exploratory test's finding:
``Ann@X.org`` was accepted as the member ``ann@x.org`` yet counted, queued and paired as a
second annotator). Every place a name is grouped — counts, the overlap queue, undo, agreement,
the export — is checked against a reference folded from the stored events by hand, on SQLite
and PostgreSQL, for new writes and for a database that already holds both spellings.
"""

from __future__ import annotations

import pytest
from support.sessions import session

from rlscore.core.conventions.user_names import user_key
from rlscore.sessions.team.agreement_report import project_agreement
from rlscore.sessions.views.export import export_rows
from rlscore.storage import Event
from rlscore.storage.sql.access import member_id
from rlscore.ui.shell.params import clean_annotator

#: the spellings of one person, and a teammate
ANN, ANN_TYPED, ANN_LOUD, BOB = "ann@x.org", "Ann@X.org", "ANN@X.ORG", "bob@x.org"


def _person(name: str) -> str:
    """Who a stored name is, written out here: an address in any case is one person."""
    name = " ".join(name.split())
    return name.lower() if "@" in name else name


def _reference(events: list[Event]) -> dict[int, dict[str, object]]:
    """point -> person -> their current label, from the raw events: the undone ones dropped,
    each person's latest label of a point kept (reviews are not annotators' labels)."""
    undone = {e.target for e in events if e.kind == "undo"}
    out: dict[int, dict[str, object]] = {}
    for e in events:
        if e.kind == "label" and e.id not in undone:
            out.setdefault(e.point, {})[_person(e.annotator)] = e.label
    return out


def _counts(reference: dict[int, dict[str, object]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for by in reference.values():
        for person in by:
            counts[person] = counts.get(person, 0) + 1
    return counts


def _check_against_reference(store) -> dict[int, dict[str, object]]:
    """Counts, agreement and export of ``moons`` agree with :func:`_reference`: one
    annotator per person, no pair of a person with themselves."""
    reference = _reference(store.events("moons"))
    s = session(store, overlap=2, checked=False)
    assert s.progress() == _counts(reference)
    report = project_agreement(store, "moons")
    assert [r.annotator for r in report.per_annotator] == sorted(_counts(reference))
    assert all(p.annotator_a != p.annotator_b for p in report.pairwise)
    assert {(p.annotator_a, p.annotator_b) for p in report.pairwise} <= {(ANN, BOB)}
    rows = {r["index"]: r for r in export_rows(s.project, s._state.log, include_features=False)}
    assert {i: r["n_annotators"] for i, r in rows.items()} == {
        i: len(by) for i, by in reference.items()
    }
    for i, r in rows.items():
        assert sorted(a["annotator"] for a in r["annotations"]) == sorted(reference[i])
    return reference


@pytest.mark.parametrize(
    ("typed", "key"),
    [
        (ANN_TYPED, ANN),
        (f"  {ANN_LOUD}\t", ANN),
        ("Ann", "Ann"),  # a plain name keeps its case: two people may be Ann and ann
        ("ann\x00@X.org", ANN),
        ("", ""),
        (None, ""),
    ],
)
def test_a_user_has_one_key_whatever_the_entry_point(typed, key):
    assert user_key(typed) == key
    assert clean_annotator(typed) == (key or None)  # the app's tab (sidebar, ?annotator=)
    if key:
        assert member_id(typed) == key  # members are stored under it


def test_two_spellings_are_one_annotator_in_counts_queue_undo_and_agreement(store):
    first = session(store, overlap=2, annotator=ANN)
    p, _ = first.query()
    first.label(p, -1, seen=first.last_event_id)
    # the same person in a second session, another spelling: p is not theirs to label blind
    again = session(store, overlap=2, annotator=ANN_TYPED)
    assert again.annotator == ANN
    assert again.overlap_queue(ANN_TYPED) == again.overlap_queue(ANN) == []
    q, _ = again.query()
    assert q != p
    again.label(q, 1, seen=again.last_event_id)
    # the teammate is the one p and q wait for
    teammate = session(store, overlap=2, annotator=BOB)
    assert teammate.overlap_queue(BOB) == [p, q]
    assert teammate.query()[0] == p
    teammate.label(p, 1, seen=teammate.last_event_id)
    assert {e.annotator for e in store.events("moons")} == {ANN, BOB}
    reference = _check_against_reference(store)
    assert reference == {p: {ANN: -1, BOB: 1}, q: {ANN: 1}}
    # both of ann's labels are hers under any spelling, and her Undo reverts her own last one
    loud = session(store, overlap=2, annotator=ANN_LOUD)
    assert loud.progress()[ANN] == 2
    assert [e.point for e in loud.recent_labels(ANN_LOUD)] == [q, p]
    assert loud.last_action(ANN_LOUD).point == q
    assert loud.undo(ANN_LOUD).point == q
    assert loud.undo(ANN_TYPED).point == p  # not bob's label, the project's newest
    assert loud.labels == {p: 1}
    assert _check_against_reference(store) == {p: {BOB: 1}}


def test_a_database_holding_two_spellings_reads_as_one_annotator(store):
    # written before names were keyed: the rows hold the spellings as typed
    rows = [(3, 1, ANN), (3, -1, ANN_TYPED), (3, -1, BOB), (5, 1, ANN_LOUD), (7, -1, ANN_TYPED)]
    ids = [store.append_event("moons", Event("label", p, y, BOB)) for p, y, _ in rows]
    with store._db.write():
        for eid, (_, _, who) in zip(ids, rows, strict=True):
            store._db.run("UPDATE events SET annotator = ? WHERE id = ?", (who, eid))
    reference = _check_against_reference(store)
    # ann relabeled point 3 under another spelling: her latest label is her one vote
    assert reference == {3: {ANN: -1, BOB: -1}, 5: {ANN: 1}, 7: {ANN: -1}}
    s = session(store, overlap=2, annotator=ANN_TYPED)
    assert s.overlap_queue(ANN_TYPED) == []  # every point ann labeled is hers, whatever spelling
    assert session(store, overlap=2, annotator="cy").overlap_queue("cy") == [5, 7]
    assert s.undo(ANN).point == 7
