"""The floor as the dashboard sees it: the store polled in a thread, the changed tiles batched.

:class:`Floor` reads the store (its read methods only: ``tables``, ``status``, ``messages``)
every :data:`POLL_S` seconds, or less often when a pass takes longer (a pass never takes more
than a third of the time), folds each table's new messages into its
:class:`~firmware_host.floor.dashboard.tables.TableWatch`, and hands the tiles that changed
to the live streams as **one batch per pass**, encoded once per role: with 500 tables the
browser gets at most one message every :data:`POLL_S` seconds, carrying only the changed
tiles. A stream whose reader falls :data:`QUEUE` batches behind is dropped (its browser
reconnects and starts from a snapshot).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from firmware_host.floor.dashboard.tables import ROLES, TableWatch
from firmware_host.floor.model import FloorError, Store, Unreadable
from firmware_host.host import figures

__all__ = ["Floor", "Subscriber", "POLL_S", "QUEUE"]

log = logging.getLogger("tablehost.floor.dashboard")

#: Seconds between two passes over the store, at least (and between two live messages).
POLL_S = 0.5
#: Batches a stream may fall behind before it is dropped.
QUEUE = 16


@dataclasses.dataclass(eq=False)
class Subscriber:
    """One live stream: its role, its loop and its queue of encoded batches (None: dropped)."""

    role: str
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[str | None] = dataclasses.field(default_factory=lambda: asyncio.Queue(QUEUE + 1))


class Floor:
    """Every table's watch, kept up to date from the store.

    :param open_store: opens the store to read (called once, in the polling thread).
    :param poll_s: seconds between passes, at least.
    """

    def __init__(self, open_store: Callable[[], Store], poll_s: float = POLL_S) -> None:
        self.open_store, self.poll_s = open_store, poll_s
        self.watches: dict[str, TableWatch] = {}
        self._tiles: dict[str, dict[str, dict[str, Any]]] = {role: {} for role in ROLES}
        self._subscribers: set[Subscriber] = set()
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._store: Store | None = None
        self.batches = 0  #: batches sent since start (tests, the bench)
        self.pass_s = 0.0  #: how long the last pass took
        #: Called after every pass (the view log's minute, for one).
        self.after_pass: list[Callable[[], None]] = []
        self.ready = threading.Event()  #: set after the first pass

    # ------------------------------------------------------------------ the polling thread

    def start(self) -> None:
        """Open the store and poll it in a thread of its own."""
        self._store = self.open_store()
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

    def poll(self) -> list[str]:
        """One pass: fold what is new, send the tiles that changed; the tables whose tile changed."""
        store = self._store
        assert store is not None, "start() opens the store"
        changed: list[str] = []
        for table in store.tables():
            status = store.status(table)
            with self._lock:
                watch = self.watches.get(table)
                if watch is None:
                    watch = self.watches[table] = TableWatch(table)
            if status.max_seq > watch.seq:
                new = [
                    m
                    for m in store.read(table, after=watch.seq)  # only what is new, outside the lock
                    if not isinstance(m, Unreadable)
                ]
                with self._lock:
                    watch.fold_all(new)
            with self._lock:
                watch.status = status
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
        number); None if the floor holds none. Read from the store, on the caller's own connection."""
        store = self.open_store()
        try:
            if table not in store.tables():
                return None
            found = None
            for line in figures.rounds_of(figures.feed_records(store.messages(table))):  # with odds and theo
                if line.get("round") == round_number:
                    found = line
            return found
        finally:
            store.close()
