"""Driver tests' timings and waiting: a driver's events on a queue, and conditions met by its threads."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from typing import Any

from drivers.device import Timing
from drivers.events import DeviceEvent

__all__ = ["FAST", "WAIT", "Events", "eventually"]

#: Short timings so that every test runs in well under a second or two.
FAST = Timing(ack=0.05, retries=3, heartbeat=0.1, handshake=0.15, reconnect_initial=0.05, reconnect_max=0.2)
#: How long a test waits for an event before it fails (generous: the machine is shared).
WAIT = 10.0


class Events:
    """The driver's event queue, with waiting helpers."""

    def __init__(self) -> None:
        self.queue: queue.Queue[DeviceEvent] = queue.Queue()
        self.seen: list[DeviceEvent] = []

    def until(self, done: Callable[[DeviceEvent], bool], timeout: float = WAIT) -> list[DeviceEvent]:
        """Events up to and including the first for which ``done`` is true."""
        got: list[DeviceEvent] = []
        while True:
            try:
                ev = self.queue.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no matching event within {timeout}s; got {got}") from None
            got.append(ev)
            self.seen.append(ev)
            if done(ev):
                return got

    def next(self, cls: type, timeout: float = WAIT) -> Any:
        """The first event of class ``cls`` (the events before it are seen and passed over)."""
        return self.until(lambda ev: isinstance(ev, cls), timeout)[-1]


def eventually(condition: Callable[[], bool], timeout: float = WAIT) -> None:
    """Wait (up to ``timeout`` seconds, :data:`WAIT` by default) for a condition set by another thread."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)
