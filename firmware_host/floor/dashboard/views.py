"""Every view of the dashboard logged, bounded: one summary per user per minute.

A user's first view after a quiet minute is written at once (``{"user", "role", "views":
{what: 1}}``); the views after it are counted and written as one summary when its minute is
over (``{"user", "role", "views": {what: n}, "seconds"}``). ``what`` is ``map``, ``table
<id>`` or ``record <id> <round>``; a user's minute counts at most :data:`MAX_KINDS` kinds (the
rest as ``other``), and at most :data:`MAX_USERS` users are gathered (the oldest written out
first). Every summary is a line of the ``tablehost.floor.views`` log and is kept, the last
:data:`KEPT` of them, for ``/api/views``.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["ViewLog", "WINDOW_S"]

log = logging.getLogger("tablehost.floor.views")

#: Seconds a user's views are gathered into one summary.
WINDOW_S = 60.0
#: Users gathered at once, kinds of view counted per user and minute, summaries kept.
MAX_USERS, MAX_KINDS, KEPT = 1024, 64, 1000


@dataclasses.dataclass
class _Minute:
    role: str
    started: float
    views: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)


class ViewLog:
    """The views of every user, summed up per minute.

    :param clock: seconds (tests step it).
    """

    def __init__(self, window_s: float = WINDOW_S, clock: Callable[[], float] = time.time) -> None:
        self.window_s, self.clock = window_s, clock
        self._open: collections.OrderedDict[str, _Minute] = collections.OrderedDict()
        self.kept: collections.deque[dict[str, Any]] = collections.deque(maxlen=KEPT)
        self._lock = threading.Lock()
        self.noted = 0  #: views noted since start

    def note(self, user: str, role: str, what: str) -> None:
        """One view."""
        now = self.clock()
        with self._lock:
            self.noted += 1
            self._flush(now)
            minute = self._open.get(user)
            if minute is None:
                self._open[user] = _Minute(role, now)
                self._write({"user": user, "role": role, "views": {what: 1}, "at": round(now, 3)})
                while len(self._open) > MAX_USERS:
                    self._write_out(*self._open.popitem(last=False))
                return
            kind = what if what in minute.views or len(minute.views) < MAX_KINDS else "other"
            minute.views[kind] += 1

    def flush(self) -> None:
        """Write out every minute that is over (called after each pass over the store)."""
        with self._lock:
            self._flush(self.clock())

    def close(self) -> None:
        """Write out every minute gathered."""
        with self._lock:
            while self._open:
                self._write_out(*self._open.popitem(last=False))

    def recent(self, limit: int = 200) -> list[dict[str, Any]]:
        """The last summaries, newest first."""
        with self._lock:
            return list(self.kept)[::-1][:limit]

    def _flush(self, now: float) -> None:
        for user in [u for u, m in self._open.items() if now - m.started >= self.window_s]:
            self._write_out(user, self._open.pop(user))

    def _write_out(self, user: str, minute: _Minute) -> None:
        if minute.views:  # the first view of the minute is written already
            self._write(
                {
                    "user": user,
                    "role": minute.role,
                    "views": dict(minute.views),
                    "seconds": round(self.clock() - minute.started, 1),
                    "at": round(self.clock(), 3),
                }
            )

    def _write(self, record: dict[str, Any]) -> None:
        self.kept.append(record)
        log.info("floor dashboard: viewed by %s (%s): %s", record["user"], record["role"], record["views"])
