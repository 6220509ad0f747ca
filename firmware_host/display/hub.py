"""Between the table and the browsers: a queue, and the thread that keeps the view.

The web face's :class:`~firmware_host.display.follow.FaceFollower` :meth:`~DisplayHub.feed` s
the hub each step's decisions as the face file holds them, with their journal seqs (the hub is
also an :class:`~firmware_host.host.service.Output`: ``on_decisions`` only queues, so a service
it were an output of would never wait for a browser). The hub's own thread applies them to the
:class:`~firmware_host.display.view.TableView`, renders the dealer state, the scoreboard and
the roads once per step, keeps the recent updates for clients that reconnect
(``Last-Event-ID``), and hands each update to every connected stream's asyncio queue.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from firmware_host.display.view import TableView
from firmware_host.tables.decisions import Decision

__all__ = ["DisplayHub", "Update", "Snapshot", "VIEWS"]

log = logging.getLogger("tablehost.display")

#: The streams a page can follow: the dealer display's state, or the player board.
VIEWS = ("dealer", "scoreboard")
#: Updates kept per view for clients that reconnect; an older Last-Event-ID gets a snapshot.
BACKLOG = 512
#: Updates queued for one slow client before it is dropped (its browser reconnects and catches up).
CLIENT_QUEUE = 256

_STOP = object()


@dataclasses.dataclass(frozen=True)
class Update:
    """One stream message: the journal seq of the last record it comes from, and its JSON."""

    seq: int
    data: str


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """The pages' current answers, replaced whole after every step (read from any thread)."""

    seq: int
    state: str
    scoreboard: str
    roads: str | None


class DisplayHub:
    """The display's Output and its view-keeping thread.

    :param view: the table's view, already rebuilt from the journal (:meth:`rebuild`).
    :param step_seq: the journal seq of the step's input record (``Service.step_seq``), read in
        ``on_decisions`` on the service thread.
    :param step_at: the step's receive time as journaled (``Service.latest_at``), read there too;
        default: the wall clock now.
    """

    def __init__(
        self,
        view: TableView,
        step_seq: Callable[[], int] = lambda: 0,
        step_at: Callable[[], float] = time.time,
        catch_up: Callable[[float], bool] | None = None,
    ) -> None:
        self.view = view
        self.step_seq = step_seq
        self.step_at = step_at
        #: What :meth:`flush` waits for first: the journal's follower reading what is committed.
        self.catch_up = catch_up
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._backlog: dict[str, collections.deque[Update]] = {v: collections.deque(maxlen=BACKLOG) for v in VIEWS}
        self._clients: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Update | None]]]] = {
            v: set() for v in VIEWS
        }
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.snapshot = self._render()
        #: Steps applied since start (the benchmarks read it).
        self.applied = 0

    # -- the service side -------------------------------------------------------------------
    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """Queue the step's decisions with their seqs (the input record's seq + 1, + 2, ...)."""
        if decisions:
            self.feed(self.step_seq() + 1, decisions, self.step_at())

    def feed(self, seqs: int | Sequence[int], decisions: Sequence[Decision], at: float) -> None:
        """Queue a step's decisions (any thread), journaled as ``seqs``: one each, or the first of
        consecutive ones."""
        self._queue.put((_seqs(seqs, len(decisions)), list(decisions), at))

    def rebuild(
        self,
        decisions: Iterable[tuple[int, float | None, Decision]],
        recent: Iterable[tuple[int | Sequence[int], float, Sequence[Decision]]] = (),
    ) -> int:
        """Apply a journal's decisions, ``(seq, at, decision)`` in order (before the thread starts),
        then its ``recent`` steps, ``(seqs, at, decisions)`` (``seqs`` as :meth:`feed` takes them), as they were applied live: their
        updates are kept in the backlog, so a page that reconnects to a restarted display with its
        Last-Event-ID gets every update it missed, not a snapshot. Return how many decisions."""
        count = 0
        for seq, at, decision in decisions:
            self.view.apply(seq, decision, at)
            count += 1
        self.snapshot = self._render()
        for seqs, at, step in recent:
            self._apply(_seqs(seqs, len(step)), list(step), at)
            count += len(step)
        return count

    # -- the hub thread ---------------------------------------------------------------------
    def start(self) -> None:
        """Start the thread that applies queued steps."""
        self._thread = threading.Thread(target=self._run, name="display-hub", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread after the steps already queued; end every stream."""
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join(timeout=5)
            self._thread = None
        with self._lock:
            clients = [client for clients in self._clients.values() for client in clients]
        for loop, client in clients:
            _offer(loop, client, None)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every step queued so far (with :attr:`catch_up`: every step committed to the
        journal so far) is applied (True), or ``timeout`` seconds (False)."""
        if self.catch_up is not None and not self.catch_up(timeout):
            return False
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    def _run(self) -> None:
        while (item := self._queue.get()) is not _STOP:
            if isinstance(item, threading.Event):
                item.set()
                continue
            try:
                self._apply(*item)
            except Exception:  # the display must never stop following the table
                log.exception("display: a step could not be applied")

    def _apply(self, seqs: list[int], decisions: list[Decision], at: float) -> None:
        changed = False
        for seq, decision in zip(seqs, decisions):
            changed |= self.view.apply(seq, decision, at)
        self.applied += 1
        if not changed:
            return
        before, self.snapshot = self.snapshot, self._render()
        types = [decision.type for decision in decisions]
        self._publish("dealer", self.snapshot.seq, {"types": types, "state": json.loads(self.snapshot.state)})
        if self.snapshot.scoreboard != before.scoreboard:
            self._publish("scoreboard", self.snapshot.seq, {"scoreboard": json.loads(self.snapshot.scoreboard)})

    def _render(self) -> Snapshot:
        roads = getattr(self.view, "roads_json", None)
        return Snapshot(
            self.view.seq,
            json.dumps(self.view.state(), separators=(",", ":")),
            json.dumps(self.view.scoreboard(), separators=(",", ":")),
            None if roads is None else json.dumps(roads(), separators=(",", ":")),
        )

    def _publish(self, view: str, seq: int, message: dict[str, Any]) -> None:
        update = Update(seq, json.dumps({"seq": seq, **message}, separators=(",", ":")))
        with self._lock:
            self._backlog[view].append(update)
            clients = list(self._clients[view])
        for loop, client in clients:
            _offer(loop, client, update)

    # -- the web side -----------------------------------------------------------------------
    def subscribe(self, view: str, last_seq: int | None) -> tuple[list[Update], asyncio.Queue[Update | None]]:
        """Follow ``view`` from the running event loop: the updates after ``last_seq`` (or a
        snapshot, when the backlog does not reach back that far or there is no ``last_seq``),
        and the queue later updates arrive on (None: the stream ends)."""
        client: asyncio.Queue[Update | None] = asyncio.Queue(CLIENT_QUEUE)
        with self._lock:
            backlog = list(self._backlog[view])
            self._clients[view].add((asyncio.get_running_loop(), client))
            snapshot = self.snapshot
        if last_seq is None:
            return [self._snapshot_update(view, snapshot)], client
        if last_seq >= snapshot.seq:
            return [], client
        if backlog and backlog[0].seq <= last_seq:  # the backlog holds everything after last_seq
            return [u for u in backlog if u.seq > last_seq], client
        return [self._snapshot_update(view, snapshot)], client

    def unsubscribe(self, view: str, client: asyncio.Queue[Update | None]) -> None:
        """Stop sending updates to ``client``."""
        with self._lock:
            self._clients[view] = {(loop, c) for loop, c in self._clients[view] if c is not client}

    def backlog(self, view: str) -> list[Update]:
        """The updates of ``view`` kept for pages that reconnect, oldest first."""
        with self._lock:
            return list(self._backlog[view])

    def clients(self) -> int:
        """Streams connected now."""
        with self._lock:
            return sum(map(len, self._clients.values()))

    @staticmethod
    def _snapshot_update(view: str, snapshot: Snapshot) -> Update:
        body = (
            {"state": json.loads(snapshot.state)}
            if view == "dealer"
            else {"scoreboard": json.loads(snapshot.scoreboard)}
        )
        return Update(
            snapshot.seq, json.dumps({"seq": snapshot.seq, "types": ["snapshot"], **body}, separators=(",", ":"))
        )


def _seqs(seqs: int | Sequence[int], count: int) -> list[int]:
    """The journal seqs of ``count`` decisions: ``seqs`` as they are, or ``count`` from the first."""
    return list(range(seqs, seqs + count)) if isinstance(seqs, int) else list(seqs)


def _offer(loop: asyncio.AbstractEventLoop, client: asyncio.Queue[Update | None], update: Update | None) -> None:
    """Hand ``update`` to a stream's queue on its loop; a full queue ends that stream (its
    browser reconnects with Last-Event-ID and catches up)."""

    def put() -> None:
        try:
            client.put_nowait(update)
        except asyncio.QueueFull:
            while not client.empty():
                client.get_nowait()
            client.put_nowait(None)

    try:
        loop.call_soon_threadsafe(put)
    except RuntimeError:  # the loop is closed: the server is gone
        pass
