"""The label log: current labels and skips folded from a project's events.

Event semantics:

* **label** ``(i, y)`` — point ``i`` gets label ``y``; labeling a labeled point relabels it
  (the latest label event wins).
* **skip** ``i`` — point ``i`` is not proposed again (it stays unlabeled; it can still be
  labeled). A skip of a labeled point has no effect while the label stands.
* **undo** — reverts one label or skip event that is not yet undone (the store's default:
  the project's most recent one; the app's Undo: the annotator's own most recent one,
  :meth:`LabelLog.last_active`). Reverting a relabel restores the previous label. Undos are
  not undone.

The fold is a pure function of the events: no engine, no parameters.
"""

from __future__ import annotations

from collections.abc import Iterable

from rlscore.storage import Event


class LabelLog:
    """Current labels and skips folded from a project's events (no engine; pure bookkeeping).

    A point is *labeled* when it has a label event that is not undone; its label is that of
    the most recent such event. It is *skipped* when it is not labeled and has a skip event
    that is not undone.
    """

    def __init__(self, events: Iterable[Event] = ()):
        self._by_id: dict[int, Event] = {}
        self._active: dict[int, list[int]] = {}  # point -> active event ids, oldest first
        self._order: list[int] = []  # active label/skip event ids, oldest first
        self.labels: dict[int, object] = {}
        self.label_events: dict[int, Event] = {}  # point -> the event giving its label
        self.skipped: set[int] = set()
        self.last_id = 0
        for e in events:
            self.apply(e)

    def apply(self, event: Event) -> tuple[int | None, object, object]:
        """Apply one event; returns ``(point, old label, new label)`` (labels None = unlabeled)."""
        self.last_id = max(self.last_id, int(event.id or 0))
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
        labels = [e for e in events if e.kind == "label"]
        self.labels.pop(point, None)
        self.label_events.pop(point, None)
        self.skipped.discard(point)
        if labels:
            self.labels[point] = labels[-1].label
            self.label_events[point] = labels[-1]
        elif events:
            self.skipped.add(point)

    def label_order(self) -> list[int]:
        """The labeled points in the order their current labels were given."""
        return sorted(self.label_events, key=lambda i: self.label_events[i].id)

    def last_active(self, annotator: str | None = None) -> Event | None:
        """The most recent label or skip event not undone (what an undo reverts), of
        ``annotator`` only when given."""
        for eid in reversed(self._order):
            if annotator is None or self._by_id[eid].annotator == annotator:
                return self._by_id[eid]
        return None

    def labels_by(self) -> dict[str, int]:
        """Current labels per annotator (whose label each labeled point holds now)."""
        counts: dict[str, int] = {}
        for e in self.label_events.values():
            counts[e.annotator] = counts.get(e.annotator, 0) + 1
        return counts

    def recent_labels(self, annotator: str, k: int = 5) -> list[Event]:
        """The annotator's ``k`` most recent label events that still hold, newest first."""
        mine = [e for e in self.label_events.values() if e.annotator == annotator]
        return sorted(mine, key=lambda e: e.id, reverse=True)[:k]


__all__ = ["LabelLog"]
