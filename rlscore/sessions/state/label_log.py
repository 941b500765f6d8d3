"""The label log: current labels and skips folded from a project's events.

Event semantics:

* **label** ``(i, y)`` by annotator ``a`` — ``a``'s label of point ``i`` is ``y``; labeling a
  point again replaces ``a``'s own earlier label. Every annotator's label is kept.
* **review** ``(i, y)`` — a reviewer decides point ``i``'s final label is ``y``, whatever the
  annotators said (the latest review not undone holds).
* **skip** ``i`` — point ``i`` is not proposed again (it stays unlabeled; it can still be
  labeled). A skip of a labeled point has no effect on its label.
* **undo** — reverts one label, review or skip event that is not yet undone (the store's
  default: the project's most recent one; the app's Undo: the annotator's own most recent
  one, :meth:`LabelLog.last_active`). Reverting a relabel restores the previous label. Undos
  are not undone.

The **final label** of a point — what the learner trains on — is the review decision if there
is one, else given by the *rule* of the fold (:data:`FINAL_RULES`):

* ``"latest"`` (one annotator per point, the default): the most recent label, whoever gave it
  (a teammate's confirmed relabel is a correction);
* ``"majority"`` (several annotators per point, :mod:`rlscore.sessions.team.overlap`): the class
  most annotators gave (each annotator's own latest label counts once); a tie goes to the
  tied class labeled most recently (:meth:`LabelLog.tied` says which points were so decided).

The fold is a pure function of the events and the rule: no engine, no parameters.

**Annotators are keys.** The fold groups by ``event.annotator`` as the store reads it: the user's
key (:func:`~rlscore.core.conventions.user_names.user_key`, an e-mail address in lower case),
so two spellings of one address are one annotator — one vote, one count, one own last action.
A name the methods are asked about is looked up by its key as well.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable

from rlscore.core.conventions.user_names import user_key
from rlscore.storage import Event

#: how a point's final label follows from its annotators' labels (a review overrides both)
FINAL_RULES = ("latest", "majority")


def check_final_rule(rule: str) -> str:
    """``rule`` if it is one of :data:`FINAL_RULES`, else ``ValueError``."""
    if rule not in FINAL_RULES:
        raise ValueError(f"the final-label rule must be one of {FINAL_RULES}, got {rule!r}")
    return rule


def fold_history(history: str, event: Event) -> str:
    """The digest of a history ``history`` followed by ``event`` (a hash chain over every
    field that says what happened: id, kind, point, label, annotator, time, undo target)."""
    what = (event.id, event.kind, event.point, event.label, event.annotator, event.timestamp)
    digest = hashlib.sha256(history.encode())
    digest.update(repr((*what, event.target)).encode())
    return digest.hexdigest()


def history_digest(events: Iterable[Event]) -> str:
    """The digest :attr:`LabelLog.history` has after ``events`` (in commit order)."""
    history = ""
    for event in events:
        history = fold_history(history, event)
    return history


class LabelLog:
    """Current labels and skips folded from a project's events (no engine; pure bookkeeping).

    A point is *labeled* when it has a label or review event that is not undone; its final
    label follows the module's rules. It is *skipped* when it is not labeled and has a skip
    event that is not undone.

    Parameters
    ----------
    events
        The project's events in commit order.
    rule
        ``"latest"`` or ``"majority"`` (:data:`FINAL_RULES`).

    Attributes
    ----------
    labels : dict
        point -> final label.
    label_events : dict
        point -> the event giving the final label (the review, or the most recent label of
        the final class).
    annotations : dict
        point -> {annotator: their current label event} (reviews excluded).
    reviews : dict
        point -> the review event that holds.
    checks : set
        Points with a label, not undone, given as a random check (``params["audit"]``:
        drawn uniformly at random from the unlabeled pool), labeled or not now.
    skipped : set
        Unlabeled points with a skip that holds.
    skipped_by : dict
        point -> annotators whose skip of it holds (labeled points included).
    last_id : int
        Id of the newest event applied.
    """

    def __init__(self, events: Iterable[Event] = (), rule: str = "latest"):
        self.rule = check_final_rule(rule)
        self._by_id: dict[int, Event] = {}
        self._active: dict[int, list[int]] = {}  # point -> active event ids, oldest first
        self._order: list[int] = []  # active label/review/skip event ids, oldest first
        self.labels: dict[int, object] = {}
        self.label_events: dict[int, Event] = {}
        self.annotations: dict[int, dict[str, Event]] = {}
        self.reviews: dict[int, Event] = {}
        self.skipped: set[int] = set()
        self.checks: set[int] = set()
        self.skipped_by: dict[int, set[str]] = {}
        self.last_id = 0
        # what was applied, not only what it folded to: a snapshot of this log is valid for
        # a database only if its events are the same (a restored backup reuses lost ids)
        self.history = ""
        for e in events:
            self.apply(e)

    def apply(self, event: Event) -> tuple[int | None, object, object]:
        """Apply one event; returns ``(point, old final label, new final label)`` (None =
        unlabeled)."""
        self.last_id = max(self.last_id, int(event.id or 0))
        self.history = fold_history(self.history, event)
        if event.kind == "undo":
            target = self._by_id.pop(int(event.target))
            self._order.remove(target.id)
            self._active[target.point].remove(target.id)
            point = target.point
        else:
            self._by_id[event.id] = event
            self._order.append(event.id)
            self._active.setdefault(event.point, []).append(event.id)
            point = event.point
        old = self.labels.get(point)
        self._refold(point)
        return point, old, self.labels.get(point)

    def _refold(self, point: int) -> None:
        events = [self._by_id[i] for i in self._active.get(point, [])]
        current: dict[str, Event] = {}
        skippers: set[str] = set()
        review = None
        for e in events:  # oldest first: later events of an annotator replace earlier ones
            if e.kind == "label":
                current[e.annotator] = e
            elif e.kind == "review":
                review = e
            else:
                skippers.add(e.annotator)
        for table in (self.labels, self.label_events, self.annotations, self.reviews):
            table.pop(point, None)
        self.skipped_by.pop(point, None)
        self.skipped.discard(point)
        # a random check stays one when relabeled or reviewed: how it was drawn is what counts
        if any(e.kind == "label" and e.params.get("audit") for e in events):
            self.checks.add(point)
        else:
            self.checks.discard(point)
        if skippers:
            self.skipped_by[point] = skippers
        if current:
            self.annotations[point] = current
        final = review if review is not None else self._final(list(current.values()))
        if final is not None:
            self.labels[point] = final.label
            self.label_events[point] = final
            if review is not None:
                self.reviews[point] = review
        elif skippers:
            self.skipped.add(point)

    def _final(self, current: list[Event]) -> Event | None:
        """The label event that decides a point without a review, under :attr:`rule`."""
        if not current:
            return None
        newest = sorted(current, key=lambda e: e.id)
        if self.rule == "latest":
            return newest[-1]
        top = _most_given(current)
        return next(e for e in reversed(newest) if e.label in top)

    def tied(self, point: int) -> bool:
        """Whether ``point``'s final label breaks a tie: under the ``"majority"`` rule, no
        review decided it and two or more labels have the most votes (a 1–1 disagreement of
        two annotators), so its final label is only the tied label given most recently.

        Such a final label says nothing about which annotator was right: the agreement
        report leaves these points out of each annotator's agreement with the final label
        (:mod:`rlscore.sessions.team.agreement_report`) and the export names them
        (:mod:`rlscore.sessions.views.export`).
        """
        current = self.annotations.get(point)
        if self.rule != "majority" or point in self.reviews or not current:
            return False
        return len(_most_given(current.values())) > 1

    def label_order(self) -> list[int]:
        """The labeled points in the order their current labels were given."""
        return sorted(self.label_events, key=lambda i: self.label_events[i].id)

    def last_active(self, annotator: str | None = None) -> Event | None:
        """The most recent label, review or skip not undone (what an undo reverts), of
        ``annotator`` only when given — under any spelling of the same user (an e-mail
        address in any case: :func:`~rlscore.core.conventions.user_names.user_key`)."""
        who = None if annotator is None else user_key(annotator)
        for eid in reversed(self._order):
            if who is None or user_key(self._by_id[eid].annotator) == who:
                return self._by_id[eid]
        return None

    def labels_by(self) -> dict[str, int]:
        """Points each annotator has a current label on (their own, whatever the final)."""
        counts: Counter[str] = Counter()
        for current in self.annotations.values():
            counts.update(current.keys())
        return dict(counts)

    def recent_labels(self, annotator: str, k: int = 5) -> list[Event]:
        """The annotator's ``k`` most recent label events that still hold, newest first."""
        who = user_key(annotator)
        mine = [c[who] for c in self.annotations.values() if who in c]
        return sorted(mine, key=lambda e: e.id, reverse=True)[:k]

    def ratings(self) -> dict[int, dict[str, object]]:
        """point -> {annotator: their current label} (reviews excluded): the input of the
        agreement measures (:mod:`rlscore.sessions.team.agreement_report`)."""
        return {p: {a: e.label for a, e in c.items()} for p, c in self.annotations.items()}

    def label_seconds(self) -> dict[str, list[float]]:
        """Seconds spent per current label, per annotator (labels that recorded them)."""
        out: dict[str, list[float]] = {}
        for current in self.annotations.values():
            for a, e in current.items():
                if e.seconds is not None:
                    out.setdefault(a, []).append(float(e.seconds))
        return out

    def disagreements(self) -> list[int]:
        """Points whose annotators' current labels differ and no review decided, oldest
        first."""
        return sorted(
            (p for p, c in self.annotations.items()
             if p not in self.reviews and len({e.label for e in c.values()}) > 1),
            key=lambda p: min(e.id for e in self.annotations[p].values()),
        )  # fmt: skip


def _most_given(current: Iterable[Event]) -> set:
    """The labels given by the most annotators among ``current`` (their current label
    events): one label, or several when they tie."""
    votes = Counter(e.label for e in current)
    top = max(votes.values())
    return {label for label, n in votes.items() if n == top}


__all__ = ["FINAL_RULES", "LabelLog", "check_final_rule", "fold_history", "history_digest"]
