"""Two processes race for the same point of a store, interleaved the same way every time.

A race test that only starts two processes together passes when the operating system happens
to run one attempt after the other, and a check that is not atomic goes unnoticed. Here the
processes are driven through the one interleaving that breaks a check done outside the write
transaction's lock:

1. both read the newest event id (``seen``) and decide on that same state;
2. the first process (``"A"``) runs its attempt up to its check (the stale check of a label or
   review, or the look-up of the point's claim) and stops there, inside its transaction;
3. the second (``"B"``) starts its attempt; it signals when it is about to begin its own write
   transaction or, if its check runs before that, right after its check;
4. only then does ``"A"`` go on and commit.

With the check inside the lock, ``"B"`` begins its transaction (and waits for the lock) before
it checks: it sees A's commit and loses. With the check outside (or no lock), B's check has run
before A's commit and both win. Waits are for signals only; the timeout only ends a test whose
other process died. Each process patches :class:`rlscore.storage.sql.connection.SQLConnection` in
its own interpreter (spawned), so the test process's store is untouched.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import time

from rlscore.storage import Event, StaleActionError, open_store
from rlscore.storage.sql.connection import SQLConnection
from support.stores import BARRIER_SECONDS, small_project

#: the statements that check whether an attempt may win (rlscore.storage.sql.store): a label's
#: stale check, a claim's look-up of the point's current claim
CHECKS = ("AND id > ? AND (point = ?", "SELECT annotator FROM claims WHERE")


def claim_attempt(store, k: int, name: str, seen: int) -> bool:
    """Claim point ``k mod 6``; True when the claim was granted."""
    return store.claim("p", k % 6, name, ttl=60)


def label_attempt(store, k: int, name: str, seen: int) -> bool:
    """Label (every third round review) point ``k mod 6`` as decided on ``seen``; True when
    committed, False when refused as stale."""
    kind = "review" if k % 3 == 2 else "label"
    try:
        store.append_event("p", Event(kind, k % 6, 1, name), unchanged_since=seen)
    except StaleActionError:
        return False
    return True


def _is_check(sql: str) -> bool:
    return any(c in sql for c in CHECKS)


def _patch_connection(role: str, rnd: list[int], inside, entering, reached: list[int]) -> None:
    """Make this process's connections stop (A) or signal (B) at the critical point."""
    run = SQLConnection.run

    def first_run(self, sql, params=()):
        result = run(self, sql, params)
        if _is_check(sql) and rnd[0] not in reached:
            reached.append(rnd[0])
            inside[rnd[0]].set()
            assert entering[rnd[0]].wait(BARRIER_SECONDS), "B never started its attempt"
        return result

    def second_run(self, sql, params=()):
        if sql == self.dialect.begin_write:
            entering[rnd[0]].set()  # about to wait for A's lock
        result = run(self, sql, params)
        if _is_check(sql):
            entering[rnd[0]].set()  # checked before taking the lock: A may commit now
        return result

    SQLConnection.run = first_run if role == "A" else second_run


def _contender(target, rounds, attempt, role, barrier, inside, entering, out) -> None:
    """One process of :func:`race`; puts ``(role, won, reached)`` on ``out``: what each
    attempt returned, and the rounds in which A stopped at its check."""
    rnd, reached = [0], []
    _patch_connection(role, rnd, inside, entering, reached)
    store = open_store(target)
    won = []
    for k in range(rounds):
        rnd[0] = k
        barrier.wait(BARRIER_SECONDS)
        seen = store.last_event_id("p")
        barrier.wait(BARRIER_SECONDS)  # both decided on the same state
        if role == "B":
            assert inside[k].wait(BARRIER_SECONDS), "A never reached its check"
        won.append(attempt(store, k, role, seen))
        barrier.wait(BARRIER_SECONDS)  # both tried before either lets go of its claim
        store.release_claims("p", role)
    store.close()
    out.put((role, (won, reached)))


def run_processes(target, args_of: dict, timeout: float = 120) -> dict:
    """Run ``target(*args, name, *shared, out)`` in one spawned process per entry of
    ``args_of``, where ``shared`` is what ``args_of`` maps ``"shared"`` to (default: a
    barrier for all); returns what each put on ``out``, by name."""
    ctx = mp.get_context("spawn")
    args_of = dict(args_of)
    shared = args_of.pop("shared", None) or (ctx.Barrier(len(args_of)),)
    out = ctx.Queue()
    procs = [
        ctx.Process(target=target, args=(*args, name, *shared, out))
        for name, args in args_of.items()
    ]
    for p in procs:
        p.start()
    results: dict = {}
    deadline = time.monotonic() + timeout
    while len(results) < len(procs):
        try:
            name, result = out.get(timeout=0.2)
            results[name] = result
        except queue.Empty:  # fail at once when a process died, not at the deadline
            assert all(p.exitcode in (None, 0) for p in procs), [p.exitcode for p in procs]
            assert time.monotonic() < deadline, f"no result after {timeout} s"
    for p in procs:
        p.join(timeout=timeout)
        assert p.exitcode == 0
    return results


def race(target: str, attempt, rounds: int = 6) -> None:
    """Processes ``"A"`` and ``"B"`` race ``rounds`` times through the interleaving of the
    module docstring: A, first to its check, wins every round and B loses every round."""
    with open_store(target) as s:
        s.create_project(small_project())
    ctx = mp.get_context("spawn")
    shared = (
        ctx.Barrier(2),
        [ctx.Event() for _ in range(rounds)],
        [ctx.Event() for _ in range(rounds)],
    )
    results = run_processes(
        _contender,
        {"A": (target, rounds, attempt), "B": (target, rounds, attempt), "shared": shared},
    )
    (won_a, reached), (won_b, _) = results["A"], results["B"]
    assert reached == list(range(rounds)), "A did not stop at its check: update CHECKS"
    assert (won_a, won_b) == ([True] * rounds, [False] * rounds), (
        f"each round A should win and B lose; A won {won_a}, B won {won_b}"
    )
