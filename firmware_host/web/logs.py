"""Logging at a rate limit: what a hostile peer can repeat at will is logged once a minute, counted.

:class:`RateLimit` decides (one line per key per interval, the lines held back counted and
named in the next); :class:`RateLimitFilter` applies it to the records of a logger that is not
ours (uvicorn's, asyncio's accept errors); :func:`loop_exception_handler` to an event loop's
unhandled errors, without their tracebacks after the first.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["RateLimit", "RateLimitFilter", "loop_exception_handler", "INTERVAL_S", "MAX_KEYS"]

#: Seconds between two lines of one kind.
INTERVAL_S = 60.0
#: Kinds remembered (the oldest is forgotten first: the table never grows past this).
MAX_KEYS = 256


class RateLimit:
    """Whether a line of one kind may be written now, and how many were held back since the last.

    :param interval: seconds between two lines of a kind.
    :param clock: monotonic seconds (tests step it).
    """

    def __init__(self, interval: float = INTERVAL_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval, self.clock = interval, clock
        self._last: collections.OrderedDict[Hashable, list[float]] = collections.OrderedDict()
        self._lock = threading.Lock()

    def allow(self, key: Hashable) -> int | None:
        """None: hold this one back (it is counted); else the number held back before it."""
        now = self.clock()
        with self._lock:
            entry = self._last.get(key)
            if entry is not None and now - entry[0] < self.interval:
                entry[1] += 1
                return None
            held = 0 if entry is None else int(entry[1])
            self._last[key] = [now, 0]
            self._last.move_to_end(key)
            while len(self._last) > MAX_KEYS:
                self._last.popitem(last=False)
            return held


class RateLimitFilter(logging.Filter):
    """Let through one record per logger and message per interval; the next says how many were held."""

    def __init__(self, limit: RateLimit | None = None) -> None:
        super().__init__()
        self.limit = limit or RateLimit()

    def filter(self, record: logging.LogRecord) -> bool:
        held = self.limit.allow((record.name, str(record.msg)))
        if held is None:
            return False
        if held:
            record.msg = f"{record.msg} (and {held} more like it in the last {self.limit.interval:.0f} s)"
        return True


def loop_exception_handler(
    logger: logging.Logger, limit: RateLimit | None = None
) -> Callable[[asyncio.AbstractEventLoop, dict[str, Any]], None]:
    """An event loop's exception handler that logs each kind of error once per interval (an
    ``accept()`` out of file descriptors, EMFILE, is retried by asyncio every second), one line
    without a traceback."""
    limit = limit or RateLimit()

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exception = context.get("exception")
        message = str(context.get("message", "error in the event loop"))
        held = limit.allow((message, type(exception).__name__))
        if held is None:
            return
        more = f" (and {held} more like it in the last {limit.interval:.0f} s)" if held else ""
        logger.error("%s: %s%s", message, exception if exception is not None else "", more)

    return handle
