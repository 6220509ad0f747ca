"""How the dashboard follows the floor's store with no collector in its process
(``tablehost floor dashboard``, issue 30 item 3).

Before each pass, :class:`Follower` finds the tables the collectors changed since the last one, and
reads of each only what lies above what the floor holds, all in one query by the primary key's
index (:meth:`~firmware_host.floor.store_reads.StoreReads.newer_of`), handing it to the pass as a
collector of the same process would (:meth:`~firmware_host.floor.dashboard.floor.Floor.hand`). Which tables changed:

- **PostgreSQL**: each collector's write ``NOTIFY``\\ s the tables it wrote, inside its transaction
  (so on its commit only); the follower ``LISTEN``\\ s on a connection of its own, in a thread
  (:meth:`~firmware_host.floor.store_postgres.PostgresStore.listen`). A notification can be missed
  (the listening connection lost, then made again): every :data:`FALLBACK_S` the follower also
  compares every table's mark of change, so the map never freezes for longer.
- **SQLite**: one reader beside the writer (WAL); each pass compares every table's mark of change
  (:meth:`~firmware_host.floor.store_reads.StoreReads.changes`: its ``last_seen`` and its highest
  seq, one index seek per table), the store opened read-only.

A table whose mark changed with no new message (a status, a refusal, a duplicate), or whose new
messages do not follow on from what the floor holds (a gap opened or filled), is also marked for its
status to be refreshed at the pass.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import TYPE_CHECKING, Any

from firmware_host.floor.model import Store, Unreadable

if TYPE_CHECKING:
    from firmware_host.floor.dashboard.floor import Floor

__all__ = ["Follower", "FALLBACK_S", "MAX_HEARD"]

log = logging.getLogger("tablehost.floor.dashboard")

#: Seconds between two comparisons of every table's mark where commits are notified (PostgreSQL).
FALLBACK_S = 3.0
#: Tables heard of between two passes, at most: beyond, every table's mark is compared instead.
MAX_HEARD = 10_000


class Follower:
    """The tables the store changed since the last pass, and what each holds beyond the floor.

    :param fallback_s: where the store notifies its commits, seconds between two comparisons of every
        table's mark all the same (a notification missed).
    """

    def __init__(self, fallback_s: float = FALLBACK_S) -> None:
        self.fallback_s = fallback_s
        self._lock = threading.Lock()
        self._heard: set[str] = set()
        self._everything = True  # compare every table's mark at the next pass
        self._marks: dict[str, tuple[Any, Any]] = {}
        self._compared = -math.inf
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.notified = 0  #: notifications heard (tests, the bench)
        self.compared = 0  #: comparisons of every table's mark

    def start(self, store: Store) -> None:
        """Listen for the store's commits in a thread, where it notifies them."""
        if store.notifies:
            self._thread = threading.Thread(
                target=store.listen, args=(self._heard_of, self._stop), name="floor-listen", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        """Stop listening."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)

    def _heard_of(self, tables: list[str] | None) -> None:
        """A commit's tables (the listening thread); None: every table."""
        with self._lock:
            self.notified += 1
            if tables is None or len(self._heard) + len(tables) > MAX_HEARD:
                self._everything = True
                self._heard.clear()
            else:
                self._heard.update(tables)

    def changed(self, store: Store) -> set[str]:
        """The tables changed since the last call: those heard of, and those whose mark changed when
        marks are compared (every call on a store that does not notify)."""
        with self._lock:
            heard, self._heard = self._heard, set()
            everything, self._everything = self._everything, False
        now = time.monotonic()
        if store.notifies and not everything and now - self._compared < self.fallback_s:
            return heard
        self._compared = now
        self.compared += 1
        marks = store.changes()
        changed = {table for table, mark in marks.items() if self._marks.get(table) != mark}
        self._marks = marks
        return changed | heard

    def follow(self, store: Store, floor: Floor) -> None:
        """Hand ``floor`` what the changed tables hold beyond it (the pass's thread). A failure
        forgets the marks, so the next pass looks at every table again and misses none."""
        try:
            highs = {table: floor.high(table) for table in self.changed(store)}
            afters = {table: high for table, high in highs.items() if high is not None}  # else read whole by the pass
            found = store.newer_of(afters, floor.max_handed + 1)  # one query; more than kept: read again
            for table, after in sorted(afters.items()):
                new = found.get(table, [])
                readable = [m for m in new if not isinstance(m, Unreadable)]
                follows_on = [int(m["seq"]) for m in readable] == list(range(after + 1, after + 1 + len(readable)))
                floor.hand(table, readable, stale=not new or len(readable) < len(new) or not follows_on)
        except BaseException:
            with self._lock:
                self._everything = True
            self._marks = {}
            raise
