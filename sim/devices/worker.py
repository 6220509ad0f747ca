"""The thread a simulated device (or a replay) runs on, and the pipe that wakes it from ``select``."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

__all__ = ["Worker"]

#: How long :meth:`Worker.stop` waits for the thread to finish its loop.
JOIN_TIMEOUT_S = 5.0


class Worker:
    """One daemon thread with a stop flag and a wake-up pipe its loop selects on alongside its ports.

    Another thread calls :meth:`wake` to have the loop look at new work at once (a queued message,
    an outage to begin, a stop).
    """

    def __init__(self) -> None:
        self.fd, self._write_fd = os.pipe()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def stopping(self) -> bool:
        """Whether :meth:`stop` has been called: the loop should end."""
        return self._stop.is_set()

    def start(self, target: Callable[[], None], name: str) -> None:
        """Run ``target`` on a new daemon thread called ``name``."""
        self._thread = threading.Thread(target=target, name=name, daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Wake the loop from its ``select`` (thread-safe; a no-op once closed)."""
        try:
            os.write(self._write_fd, b"\0")
        except OSError:
            pass

    def drain(self) -> None:
        """Read the wake-ups :attr:`fd` holds (the loop calls this when it is readable)."""
        os.read(self.fd, 4096)

    def stop(self) -> None:
        """Ask the loop to end, wake it, and wait for the thread."""
        self._stop.set()
        self.wake()
        if self._thread is not None:
            self._thread.join(JOIN_TIMEOUT_S)
            self._thread = None

    def close(self) -> None:
        """Close the wake-up pipe (after :meth:`stop`)."""
        for fd in (self.fd, self._write_fd):
            try:
                os.close(fd)
            except OSError:
                pass
