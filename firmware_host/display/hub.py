"""Between the table and the browsers: a queue, and the thread that keeps the view.

The web face's :class:`~firmware_host.display.follow.FaceFollower` :meth:`~DisplayHub.feed` s
the hub each step's decisions as the face file holds them, with their journal seqs (the hub is
also an :class:`~firmware_host.host.service.Output`: ``on_decisions`` only queues, so a service
it were an output of would never wait for a browser). The hub's own thread applies them to the
:class:`~firmware_host.display.view.TableView`, renders the dealer state, the scoreboard and
the roads once per step, keeps the recent updates for clients that reconnect
(``Last-Event-ID``), and wakes the streams that wait for one.

The streams share the backlog: each holds only its place in it (:class:`Follow`), and each
update's SSE event is encoded once, whatever the number of streams. A step wakes each event loop
with streams once (not once a stream, nor once a view it changed), and only the streams waiting
for an update run: one whose
reader takes nothing sits in its socket's write until the server cuts it off, and costs nothing
per update meanwhile. A stream that falls :data:`CLIENT_QUEUE` updates behind is ended (its
browser reconnects with ``Last-Event-ID`` and catches up); none is sent an update twice, or one
older than what it was sent.

An event's id is ``<epoch>.<seq>`` (:func:`event_id`, parsed back by :func:`~firmware_host.display.app.parse_event_id`): the
epoch is the face file's build (:func:`~firmware_host.display.face_file.read_build`), so a page
whose Last-Event-ID is of another journal (a new one, or a salvaged one whose later seqs hold
other records) gets a snapshot, not the updates after a seq that means something else here.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import functools
import itertools
import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from firmware_host.display.view import TableView
from firmware_host.tables.decisions import Decision

__all__ = ["DisplayHub", "Follow", "Update", "Snapshot", "VIEWS", "event_id"]

log = logging.getLogger("tablehost.display")

#: The streams a page can follow: the dealer display's state, or the player board.
VIEWS = ("dealer", "scoreboard")
#: Updates kept per view for clients that reconnect; an older Last-Event-ID gets a snapshot.
BACKLOG = 512
#: Updates one stream may fall behind before it is ended (its browser reconnects and catches up).
CLIENT_QUEUE = 256
#: Builds of one journal whose event ids are still caught up from the backlog (the face file made
#: anew for the same journal gives it a new build; an older build's id then gets a snapshot).
EPOCHS = 8

_STOP = object()


@dataclasses.dataclass(frozen=True)
class Update:
    """One stream message: the journal seq of the last record it comes from, its JSON, its
    place among its view's updates (0: a snapshot, in no backlog) and the epoch it was made in."""

    seq: int
    data: str
    number: int = 0
    epoch: str = "0"

    @functools.cached_property
    def event(self) -> bytes:
        """The SSE event (``id`` = :func:`event_id`), encoded once for every stream."""
        return f"id: {event_id(self.epoch, self.seq)}\ndata: {self.data}\n\n".encode()


def event_id(epoch: str, seq: int) -> str:
    """The SSE id of an update: ``<epoch>.<seq>``."""
    return f"{epoch}.{seq}"


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
        #: Updates published per view so far (the last one's :attr:`Update.number`).
        self._published = dict.fromkeys(VIEWS, 0)
        self._clients: dict[str, set[Follow]] = {v: set() for v in VIEWS}
        self._stopped = False
        #: Moved on by :meth:`start_again`, twice: a stream that began before it, or during it, ends.
        self._generation = 0
        #: The epoch of the updates made now (the face file's build), and the builds of this
        #: journal whose ids are caught up from the backlog.
        self._epoch = "0"
        self._epochs: collections.deque[str] = collections.deque([self._epoch], maxlen=EPOCHS)
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
        epoch: str | None = None,
    ) -> int:
        """Apply a journal's decisions, ``(seq, at, decision)`` in order (before the thread starts,
        or in :meth:`start_again`), then its ``recent`` steps, ``(seqs, at, decisions)`` (``seqs``
        as :meth:`feed` takes them), as they were applied live: their updates are kept in the
        backlog, so a page that reconnects to a restarted display with its Last-Event-ID gets every
        update it missed, not a snapshot. ``epoch``: the journal's (the face file's build), from
        now the only one whose ids are caught up. Return how many decisions."""
        if epoch is not None:
            with self._lock:
                self._epoch = epoch
                self._epochs.clear()
                self._epochs.append(epoch)
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
            self._stopped = True
        self._wake(*VIEWS)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every step queued so far (with :attr:`catch_up`: every step committed to the
        journal so far) is applied (True), or ``timeout`` seconds (False)."""
        if self.catch_up is not None and not self.catch_up(timeout):
            return False
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    def same_journal(self, epoch: str) -> None:
        """The face file was built anew (``epoch``) for the journal the view holds (any thread):
        later updates carry ``epoch``; ids of the builds before are still caught up."""
        with self._lock:
            if epoch not in self._epochs:
                self._epochs.append(epoch)
            self._epoch = epoch

    def start_again(self, rebuild: Callable[[], object]) -> threading.Event:
        """Start again from a fresh view rebuilt by ``rebuild`` (which calls :meth:`rebuild`: the
        face file of a new journal, its seqs lower), after the steps queued so far, on the hub's
        thread (at once, when it is not running); then end every stream: its page reconnects
        with its Last-Event-ID and gets what it missed, or a snapshot (an id this view does not
        reach, of the journal before). The event returned is set once done."""
        done = threading.Event()
        if self._thread is None:
            self._start_again(rebuild)
            done.set()
        else:
            self._queue.put(_StartAgain(rebuild, done))
        return done

    def _start_again(self, rebuild: Callable[[], object]) -> None:
        """Before the rebuild, the streams of the journal before end (one woken by the rebuild's
        updates is sent none of them) and the view is blank; after it, those that began during it
        (with a part of it) end too."""
        self.view = self.view.fresh()
        blank = self._render()
        with self._lock:
            self._generation += 1
            self.snapshot = blank
            for backlog in self._backlog.values():
                backlog.clear()
        self._wake(*VIEWS)
        rebuild()
        with self._lock:
            self._generation += 1
        self._wake(*VIEWS)

    def _run(self) -> None:
        while (item := self._queue.get()) is not _STOP:
            if isinstance(item, threading.Event):
                item.set()
                continue
            if isinstance(item, _StartAgain):
                try:
                    self._start_again(item.rebuild)
                except Exception:  # the display must never stop following the table
                    log.exception("display: the view could not be rebuilt")
                item.done.set()
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
        snapshot = self._render()
        types = json.dumps([decision.type for decision in decisions], separators=(",", ":"))
        published = [("dealer", {"types": types, "state": snapshot.state})]
        if snapshot.scoreboard != self.snapshot.scoreboard:
            published.append(("scoreboard", {"scoreboard": snapshot.scoreboard}))
        self._publish(snapshot, published)

    def _render(self) -> Snapshot:
        roads = getattr(self.view, "roads_json", None)
        return Snapshot(
            self.view.seq,
            json.dumps(self.view.state(), separators=(",", ":")),
            json.dumps(self.view.scoreboard(), separators=(",", ":")),
            None if roads is None else json.dumps(roads(), separators=(",", ":")),
        )

    def _publish(self, snapshot: Snapshot, published: list[tuple[str, dict[str, str]]]) -> None:
        """Make ``snapshot`` the pages' answers and append its updates, ``(view, {field: JSON
        text})``, to their backlogs at once (a stream subscribing sees both or neither), then wake
        the views' streams."""
        with self._lock:
            self.snapshot = snapshot
            for view, fields in published:
                self._published[view] += 1
                update = Update(snapshot.seq, _message(snapshot.seq, fields), self._published[view], self._epoch)
                self._backlog[view].append(update)
        self._wake(*(view for view, _ in published))

    def _wake(self, *views: str) -> None:
        """Wake the streams of ``views``: one call into each event loop that has any."""
        with self._lock:
            loops = {client.loop for view in views for client in self._clients[view]}
        for loop in loops:
            try:
                loop.call_soon_threadsafe(self._wake_on, loop, views)
            except RuntimeError:  # the loop is closed: the server is gone
                pass

    def _wake_on(self, loop: asyncio.AbstractEventLoop, views: tuple[str, ...]) -> None:
        with self._lock:
            clients = [client for view in views for client in self._clients[view] if client.loop is loop]
        for client in clients:
            client.ready.set()  # a flag, for a stream not waiting (its reader takes nothing)

    # -- the web side -----------------------------------------------------------------------
    def subscribe(self, view: str, last_seq: int | None, epoch: str | None = None) -> Follow:
        """Follow ``view`` from the running event loop: first the updates after ``last_seq`` of
        ``epoch`` (None: the hub's own), or a snapshot, when the backlog does not reach back that
        far, there is no ``last_seq`` or it is of another journal; then every later one
        (:meth:`Follow.next`)."""
        with self._lock:
            backlog = list(self._backlog[view])
            snapshot, current = self.snapshot, self._epoch
            ours = epoch is None or epoch in self._epochs
            client = Follow(self, view, self._published[view], self._generation)
            self._clients[view].add(client)
        if last_seq is None or not ours or last_seq > snapshot.seq:  # none, or one of another journal
            client.missed = [self._snapshot_update(view, snapshot, current)]
        elif last_seq == snapshot.seq:
            client.sent = last_seq
        elif backlog and backlog[0].seq <= last_seq:  # the backlog holds everything after last_seq
            client.missed = [u for u in backlog if u.seq > last_seq]
        else:
            client.missed = [self._snapshot_update(view, snapshot, current)]
        return client

    def unsubscribe(self, view: str, client: Follow) -> None:
        """Stop following."""
        with self._lock:
            self._clients[view].discard(client)

    def _after(self, client: Follow) -> list[Update] | None:
        """The updates of ``client``'s view after its place; None when it is to end (the hub
        stopped and it has had every update, the hub started again, or it fell more than
        :data:`CLIENT_QUEUE` updates behind)."""
        with self._lock:
            backlog = self._backlog[client.view]
            newer = self._published[client.view] - client.place
            if client.generation != self._generation or newer > min(CLIENT_QUEUE, len(backlog)):
                return None
            if newer:
                return list(itertools.islice(backlog, len(backlog) - newer, None))
            return None if self._stopped else []

    def backlog(self, view: str) -> list[Update]:
        """The updates of ``view`` kept for pages that reconnect, oldest first."""
        with self._lock:
            return list(self._backlog[view])

    def clients(self) -> int:
        """Streams connected now."""
        with self._lock:
            return sum(map(len, self._clients.values()))

    @staticmethod
    def _snapshot_update(view: str, snapshot: Snapshot, epoch: str) -> Update:
        body = {"state": snapshot.state} if view == "dealer" else {"scoreboard": snapshot.scoreboard}
        return Update(snapshot.seq, _message(snapshot.seq, {"types": '["snapshot"]', **body}), epoch=epoch)


class Follow:
    """One stream's place in its view's updates (:meth:`DisplayHub.subscribe`), on its event loop.

    :attr:`missed` are sent first; :meth:`next` waits for the later ones.
    """

    def __init__(self, hub: DisplayHub, view: str, place: int, generation: int) -> None:
        self.hub, self.view, self.generation = hub, view, generation
        self.loop = asyncio.get_running_loop()
        #: Set by the hub when its view has a new update (or the hub stops).
        self.ready = asyncio.Event()
        #: The :attr:`Update.number` of the last update of the backlog taken.
        self.place = place
        #: What the stream sends before any later update.
        self.missed: list[Update] = []
        #: The seq of the last update sent (-1: none yet): none at or before it is sent again.
        self.sent = -1

    async def next(self, timeout: float) -> list[Update] | None:
        """The updates not sent yet, oldest first: :attr:`missed`, else the next ones, waiting
        for them up to ``timeout`` seconds ([]: none came); None: the stream is to end."""
        missed, self.missed = self.missed, []
        if missed:
            return self._fresh(missed)
        try:
            async with asyncio.timeout(timeout):
                while True:
                    self.ready.clear()
                    updates = self.hub._after(self)
                    if updates is None:
                        return None
                    if updates:
                        self.place = updates[-1].number
                        if fresh := self._fresh(updates):
                            return fresh
                        continue
                    await self.ready.wait()
        except TimeoutError:
            return []

    def _fresh(self, updates: list[Update]) -> list[Update]:
        """Those of ``updates`` after :attr:`sent` (a snapshot may be newer than the backlog's
        updates that follow it); :attr:`sent` moves to the last."""
        fresh = [update for update in updates if update.seq > self.sent]
        if fresh:
            self.sent = fresh[-1].seq
        return fresh


@dataclasses.dataclass(frozen=True)
class _StartAgain:
    """A queued :meth:`DisplayHub.start_again`."""

    rebuild: Callable[[], object]
    done: threading.Event


def _seqs(seqs: int | Sequence[int], count: int) -> list[int]:
    """The journal seqs of ``count`` decisions: ``seqs`` as they are, or ``count`` from the first."""
    return list(range(seqs, seqs + count)) if isinstance(seqs, int) else list(seqs)


def _message(seq: int, fields: dict[str, str]) -> str:
    """A stream message's JSON: ``seq``, then ``fields`` (each already JSON), without decoding them again."""
    return "{" + ",".join([f'"seq":{seq}', *(f"{json.dumps(key)}:{text}" for key, text in fields.items())]) + "}"
