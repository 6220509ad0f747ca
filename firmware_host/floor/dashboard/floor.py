"""The floor as the dashboard sees it: the store read in a thread, the changed tiles batched.

:class:`Floor` keeps every table's :class:`~firmware_host.floor.dashboard.tables.TableWatch`
and makes **one batch per pass** of the tiles that changed, encoded once per role: with 500
tables the browser gets at most one message every :data:`POLL_S` seconds, carrying only the
changed tiles. A pass never draws per message. A stream whose reader falls :data:`QUEUE`
batches behind is dropped (its browser reconnects and starts from a snapshot).

Where a pass gets what is new:

- **From a follower of the store** (:mod:`.follow`; the dashboard in its own process, ``tablehost
  floor dashboard``): before each pass it finds the tables the collectors changed (PostgreSQL's
  ``NOTIFY``, SQLite's marks polled) and reads of each only what is above what the floor holds
  (:meth:`Floor.hand`), by the primary key's index.
- **From a collector of the same process**, where one embeds both: it hands over each committed
  write (:meth:`Floor.stored`, one of :attr:`~firmware_host.floor.collector.Collector.readers`),
  and the pass folds those messages without reading them back.

  Either way no table's whole history is read per change: a store's ``status`` and ``read`` scan
  it (gaps, unreadable rows), so reading every busy table back each pass costs more as the floor
  grows: 500 tables of 1,000 messages took 7 s a pass (bench/bench_floor_dashboard.py).
- **From the store**, for what no collector of this process handed over (another collector's
  writes, a table's status, lag and gaps): each pass refreshes the statuses of as many tables
  as fit in :data:`BUDGET` of its poll interval (one at least), the tables whose status a write
  changed first (a status message, a refusal, a conflict, a gap opened or filled), then all of
  them in turn; a refreshed table the store holds more of than its watch is read from the
  store. A floor nothing hands anything to (a store alone, no follower) refreshes every table every pass.

The first pass reads every table from the store, as does a table new to the floor.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import json
import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from firmware_host.floor.admission import Admitted, Refusal
from firmware_host.floor.dashboard.follow import Follower
from firmware_host.floor.dashboard.tables import ROLES, TableWatch
from firmware_host.floor.model import DEFAULT_SKEW_BOUND_S, FloorError, Outcome, Store, Unreadable
from firmware_host.host import figures

__all__ = ["Floor", "Subscriber", "POLL_S", "QUEUE", "BUDGET", "MAX_HANDED"]

log = logging.getLogger("tablehost.floor.dashboard")

#: Seconds between two passes over the store, at least (and between two live messages).
POLL_S = 0.5
#: Batches a stream may fall behind before it is dropped.
QUEUE = 16
#: The share of the poll interval a pass spends refreshing statuses from the store.
BUDGET = 0.2
#: Messages handed over per table between two passes, at most: beyond, they are dropped and
#: the table is read from the store (memory stays bounded if the passes stall).
MAX_HANDED = 256


@dataclasses.dataclass(eq=False)
class Subscriber:
    """One live stream: its role, its loop and its queue of encoded batches (None: dropped)."""

    role: str
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[str | None] = dataclasses.field(default_factory=lambda: asyncio.Queue(QUEUE + 1))


class Floor:
    """Every table's watch, kept up to date from the collector and the store.

    :param open_store: opens the store to read (called once, in the polling thread).
    :param poll_s: seconds between passes, at least.
    :param follower: finds what the store holds beyond the floor (no collector in this process).
    """

    max_handed = MAX_HANDED  #: messages kept per table between two passes

    def __init__(
        self,
        open_store: Callable[[], Store],
        poll_s: float = POLL_S,
        skew_bound_s: float = DEFAULT_SKEW_BOUND_S,
        follower: Follower | None = None,
    ) -> None:
        self.open_store, self.poll_s, self.skew_bound_s, self.follower = open_store, poll_s, skew_bound_s, follower
        self.watches: dict[str, TableWatch] = {}
        self._tiles: dict[str, dict[str, dict[str, Any]]] = {role: {} for role in ROLES}
        self._subscribers: set[Subscriber] = set()
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._store: Store | None = None
        #: What the collector handed over since the last pass, by table (``None``: too much, read
        #: the table from the store), and the tables whose status it changed, oldest first.
        self._handed: dict[str, list[dict[str, Any]] | None] = {}
        self._stale: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._handed_high: dict[str, int] = {}  # the highest seq handed over, per table
        self._seen: dict[str, tuple[float, float | None]] = {}  # when the last was handed over, its lag
        self._turn: collections.deque[str] = collections.deque()  # the tables left in this round of refreshes
        self.batches = 0  #: batches sent since start (tests, the bench)
        self.pass_s = 0.0  #: how long the last pass took
        self.refreshed = 0  #: statuses read from the store since start
        self.handed = 0  #: messages the collector handed over since start
        self.fed = False  #: a collector hands over what it stores (else every pass reads every table)
        #: Called after every pass (the view log's minute, for one).
        self.after_pass: list[Callable[[], None]] = []
        self.ready = threading.Event()  #: set after the first pass

    # ------------------------------------------------------------------ the polling thread

    def open(self) -> None:
        """Open the store (:meth:`start` does; a test that calls :meth:`poll` itself, too)."""
        if self._store is None:
            self._store = self.open_store()

    def start(self) -> None:
        """Open the store and poll it in a thread of its own."""
        self.open()
        if self.follower is not None and self._store is not None:
            self.follower.start(self._store)
        self._thread = threading.Thread(target=self._run, name="floor-dashboard", daemon=True)
        self._thread.start()

    def end_streams(self) -> None:
        """End every live stream (before the server stops: it need not wait for them)."""
        with self._lock:
            for subscriber in list(self._subscribers):
                subscriber.loop.call_soon_threadsafe(self._deliver, subscriber, None)

    def stop(self) -> None:
        """Stop polling and close the store."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
        if self.follower is not None:
            self.follower.stop()
        if self._store is not None:
            self._store.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self.poll()
            except FloorError as exc:  # the database busy or gone a moment: the next pass tries again
                log.warning("floor dashboard: cannot read the store: %s", exc)
            except Exception:  # never kill the dashboard's thread: logged, and the next pass runs
                log.exception("floor dashboard: a pass over the store failed")
            for hook in self.after_pass:
                hook()
            self.ready.set()
            self.pass_s = time.monotonic() - started
            self._stop.wait(max(self.poll_s, 2 * self.pass_s))

    # ------------------------------------------------------------------ what the collector hands over

    def stored(self, admitted: Sequence[Admitted | Refusal], outcomes: list[Outcome]) -> None:
        """A committed write of the collector (its thread): the messages stored, or already stored
        (a duplicate is the same message), for the next pass; the tables whose status changed.
        Only tables the floor has read are kept, so what is kept is bounded by the store's tables."""
        now = time.time()  # the store's received_at, as near as this thread can tell
        self.fed = True
        with self._lock:
            for item, outcome in zip(admitted, outcomes):  # ingest's outcomes are the batch's, in order
                table = outcome.table
                if table not in self.watches:  # a table new to the floor is read whole at the next pass;
                    continue  # so nothing is kept for table ids a hostile peer makes up, however many
                message = None
                if isinstance(item, Admitted) and item.leaf == "events" and outcome.kind in ("stored", "duplicate"):
                    message = item.message
                high = self._handed_high.get(table, 0)
                if message is None or outcome.gap is not None or (outcome.seq or 0) <= high:
                    self._stale.setdefault(table)  # a status, a refusal, a break, a gap opened or filled
                if message is not None:
                    self._keep(table, message, now)

    def hand(self, table: str, messages: Sequence[dict[str, Any]], stale: bool) -> None:
        """What a follower of the store (:mod:`.follow`) read of ``table`` above :meth:`high`, for the
        next pass, as :meth:`stored` keeps a collector's; ``stale``: its status changed too."""
        now = time.time()
        self.fed = True
        with self._lock:
            if table not in self.watches:
                return
            if stale:
                self._stale.setdefault(table)
            for message in messages:
                self._keep(table, message, now)

    def high(self, table: str) -> int | None:
        """The highest seq of ``table`` folded or kept for the next pass; None: not on the floor yet."""
        with self._lock:
            watch = self.watches.get(table)
            return None if watch is None else max(watch.seq, self._handed_high.get(table, 0))

    def _keep(self, table: str, message: dict[str, Any], now: float) -> None:
        """Keep a stored message of a table on the floor for the next pass (under the lock)."""
        if int(message["seq"]) > self._handed_high.get(table, 0):
            self._handed_high[table] = int(message["seq"])
            at = message.get("at")
            self._seen[table] = now, now - at if isinstance(at, (int, float)) else None
        self.handed += 1
        kept = self._handed.setdefault(table, [])
        if kept is not None:
            kept.append(message)
            if len(kept) > MAX_HANDED:
                self._handed[table] = None
                self._stale.setdefault(table)

    # ------------------------------------------------------------------ one pass

    def poll(self) -> list[str]:
        """One pass: fold what is new, send the tiles that changed; the tables whose tile changed."""
        store = self._store
        assert store is not None, "start() opens the store"
        started = time.monotonic()
        if self.follower is not None:
            self.follower.follow(store, self)
        with self._lock:
            handed, self._handed = self._handed, {}
            seen, self._seen = self._seen, {}
            if not self._turn:  # a new round of refreshes: every table once, over as many passes as it takes
                self._turn.extend(sorted(self.watches))
        looked: set[str] = set()  # tables folded or read this pass: their tiles are compared and sent
        resync = []
        for table, messages in handed.items():  # first what needs no store, so a store's failure loses none
            if messages is None:
                resync.append(table)
                continue
            watch = self.watches[table]
            with self._lock:
                watch.fold_all(sorted(messages, key=lambda m: int(m["seq"])))
                if table in seen:
                    watch.seen = seen[table]
            looked.add(table)
        try:
            for table in store.tables():
                if table not in self.watches:  # new to the floor (every table at the first pass): from the store
                    with self._lock:
                        self.watches[table] = TableWatch(table, self.skew_bound_s)
                    self._refresh(store, table)
                    looked.add(table)
            for table in resync:  # more handed over than kept
                self._refresh(store, table)
                looked.add(table)
            deadline = started + BUDGET * self.poll_s if self.fed else math.inf  # alone: every table, every pass
            refreshed: set[str] = set()
            while (stale := self._next_stale(refreshed)) is not None:  # one table at least, however slow
                self._refresh(store, stale)
                refreshed.add(stale)
                if time.monotonic() >= deadline:
                    break
            looked |= refreshed
        finally:
            changed = self._changed(looked)
        return changed

    def _next_stale(self, refreshed: set[str]) -> str | None:
        """The next table to refresh: one whose status a write changed, else the next in turn
        (not one refreshed this pass already); None: none left this pass."""
        with self._lock:
            while self._stale:
                table, _ = self._stale.popitem(last=False)
                if table in self.watches:
                    return table
            while self._turn:
                table = self._turn.popleft()
                if table not in refreshed and table in self.watches:
                    return table
            return None

    def _refresh(self, store: Store, table: str) -> None:
        """A table's status from the store, and what the store holds beyond its watch."""
        status = store.status(table)
        self.refreshed += 1
        watch = self.watches[table]
        if status.max_seq > watch.seq:
            new = [m for m in store.read(table, after=watch.seq) if not isinstance(m, Unreadable)]  # outside the lock
            with self._lock:
                watch.fold_all(new)
        with self._lock:
            watch.status = status

    def _changed(self, tables: set[str]) -> list[str]:
        """Send the tiles of ``tables`` that changed; those tables, in order."""
        changed: list[str] = []
        with self._lock:
            for table in sorted(tables):
                watch = self.watches[table]
                tiles = {role: watch.tile(role) for role in ROLES}
                if any(self._tiles[role].get(table) != tile for role, tile in tiles.items()):
                    for role, tile in tiles.items():
                        self._tiles[role][table] = tile
                    changed.append(table)
        if changed:
            self._broadcast(changed)
        return changed

    def _broadcast(self, changed: list[str]) -> None:
        with self._lock:
            self.batches += 1
            encoded = {
                role: json.dumps(
                    {"batch": self.batches, "tiles": [self._tiles[role][t] for t in changed]},
                    separators=(",", ":"),
                    allow_nan=False,
                )
                for role in ROLES
            }
            for subscriber in list(self._subscribers):
                subscriber.loop.call_soon_threadsafe(self._deliver, subscriber, encoded[subscriber.role])

    def _deliver(self, subscriber: Subscriber, batch: str | None) -> None:
        """On the stream's loop: queue a batch, or drop a stream that fell behind."""
        queue = subscriber.queue
        if batch is not None and queue.qsize() < QUEUE:
            queue.put_nowait(batch)
            return
        while not queue.empty():
            queue.get_nowait()
        queue.put_nowait(None)
        self.unsubscribe(subscriber)

    # ------------------------------------------------------------------ what the app reads

    def snapshot(self, role: str) -> str:
        """Every tile ``role`` sees, encoded: the first message of a stream."""
        with self._lock:
            tiles = [self._tiles[role][t] for t in sorted(self._tiles[role])]
            return json.dumps(
                {"batch": self.batches, "snapshot": True, "tiles": tiles}, separators=(",", ":"), allow_nan=False
            )

    def subscribe(self, role: str) -> tuple[str, Subscriber]:
        """A new stream's snapshot and its subscriber (on the running loop)."""
        subscriber = Subscriber(role, asyncio.get_running_loop())
        with self._lock:
            self._subscribers.add(subscriber)
            return self.snapshot(role), subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        """End a stream."""
        with self._lock:
            self._subscribers.discard(subscriber)

    def detail(self, table: str, role: str) -> dict[str, Any] | None:
        """A table's drill-down, or None for a table the floor has not seen."""
        with self._lock:
            watch = self.watches.get(table)
            return None if watch is None else watch.detail(role)

    def record(self, table: str, round_number: int) -> dict[str, Any] | None:
        """The full record of a round, as ``floor export --rounds`` prints it (the last of that
        number); None if the floor holds none. Read from the store, on the caller's own connection,
        only that round's messages (its odds and its result carry its number): the same cost
        whatever the table's history."""
        store = self.open_store()
        try:
            found = None
            for line in figures.rounds_of(figures.feed_records(store.round_messages(table, round_number))):
                if line.get("round") == round_number:
                    found = line
            return found
        finally:
            store.close()
