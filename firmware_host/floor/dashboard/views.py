"""Every view of the dashboard kept in the floor's store, per named user, bounded.

:meth:`ViewLog.note` (the event loop) only counts, in memory, by ``(minute, user, what)``;
:meth:`ViewLog.flush` (the floor's polling thread, after each pass: never the event loop)
writes what was counted to the store as one transaction of upserts
(:meth:`~firmware_host.floor.store_views.ViewRows.add_views`), at most every :data:`FLUSH_S`
seconds, so the store holds one row per user, view and minute however many requests come.
``what`` is ``map``, ``table <id>``, ``record <id> <round>`` or ``views``; a user's minute
counts at most :data:`MAX_KINDS` kinds (the rest as ``other``), and at most :data:`MAX_USERS`
users' minutes are gathered between two writes (past that, the oldest are written at the next
flush). A write that fails keeps its rows for the next (at most :data:`MAX_PENDING`; beyond,
counted in :attr:`ViewLog.lost` and logged at a rate limit). Nothing here depends on a log level.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable, Iterable

__all__ = ["ViewLog", "FLUSH_S", "MAX_USERS", "MAX_KINDS"]

log = logging.getLogger("tablehost.floor.views")

#: Seconds between two writes of the views to the store, at least.
FLUSH_S = 5.0
#: Users' minutes gathered at once, kinds of view counted per user and minute, rows kept while
#: the store cannot be written.
MAX_USERS, MAX_KINDS, MAX_PENDING = 1024, 64, 100_000

Row = tuple[int, str, str, str, int]
Sink = Callable[[Iterable[Row]], None]


class ViewLog:
    """The views of every user, counted per minute and written to the store in batches.

    :param sink: writes ``(minute, user, role, what, count)`` rows (the store's ``add_views``;
        called from :meth:`flush`'s thread only).
    :param clock: seconds (tests step it).
    """

    def __init__(self, sink: Sink, clock: Callable[[], float] = time.time, flush_s: float = FLUSH_S) -> None:
        self.sink, self.clock, self.flush_s = sink, clock, flush_s
        self._open: collections.OrderedDict[tuple[int, str], tuple[str, collections.Counter[str]]] = (
            collections.OrderedDict()
        )
        self._pending: list[Row] = []
        self._lock = threading.Lock()
        self._written_at = 0.0
        self.noted = 0  #: views noted since start
        self.written = 0  #: rows written since start
        self.lost = 0  #: rows dropped because the store could not be written for too long

    def note(self, user: str, role: str, what: str) -> None:
        """One view (cheap: a count in memory)."""
        minute = int(self.clock() // 60)
        with self._lock:
            self.noted += 1
            found = self._open.get((minute, user))
            if found is None:
                found = self._open[(minute, user)] = (role, collections.Counter())
                while len(self._open) > MAX_USERS:  # written at the next flush
                    self._pending.extend(_rows(*self._open.popitem(last=False)))
            views = found[1]
            views[what if what in views or len(views) < MAX_KINDS else "other"] += 1

    def flush(self, force: bool = False) -> None:
        """Write what was counted (every :data:`FLUSH_S` seconds, or now with ``force``)."""
        now = time.monotonic()
        with self._lock:
            if not force and now - self._written_at < self.flush_s:
                return
            self._written_at = now
            rows = self._pending
            for key, value in self._open.items():
                rows.extend(_rows(key, value))
            self._open.clear()
            self._pending = []
        if not rows:
            return
        try:
            self.sink(rows)
            self.written += len(rows)
        except Exception as exc:  # kept for the next flush; the dashboard serves on
            with self._lock:
                self._pending = rows + self._pending
                if len(self._pending) > MAX_PENDING:
                    self.lost += len(self._pending) - MAX_PENDING
                    del self._pending[: len(self._pending) - MAX_PENDING]
            log.warning("floor dashboard: the views could not be kept yet (%d rows waiting): %s", len(rows), exc)

    def close(self) -> None:
        """Write every view counted."""
        self.flush(force=True)


def _rows(key: tuple[int, str], value: tuple[str, collections.Counter[str]]) -> list[Row]:
    (minute, user), (role, views) = key, value
    return [(minute, user, role, what, count) for what, count in views.items()]
