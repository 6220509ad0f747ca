"""systemd notifications (``sd_notify``): READY, STATUS, STOPPING, EXTEND_TIMEOUT_USEC and WATCHDOG pings.

A few lines over the ``$NOTIFY_SOCKET`` datagram socket, as sd_notify(3) describes, so
the service needs no extra package. Outside systemd (no ``NOTIFY_SOCKET``) every call does
nothing. The watchdog interval comes from ``$WATCHDOG_USEC``; pings go at half of it.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping

__all__ = ["Notifier"]


class Notifier:
    """Talks to systemd's notify socket.

    :param environ: the process environment (``NOTIFY_SOCKET``, ``WATCHDOG_USEC``, ``WATCHDOG_PID``).
    :param clock: monotonic time source for spacing watchdog pings.
    """

    def __init__(self, environ: Mapping[str, str] = os.environ, clock: Callable[[], float] = time.monotonic) -> None:
        address = environ.get("NOTIFY_SOCKET", "")
        # An address starting with "@" is in the abstract namespace: a leading NUL byte on the wire.
        self.address = "\0" + address[1:] if address.startswith("@") else address
        watchdog_usec = int(environ.get("WATCHDOG_USEC", "0") or 0)
        watchdog_pid = environ.get("WATCHDOG_PID")
        if watchdog_pid and int(watchdog_pid) != os.getpid():
            watchdog_usec = 0  # the watchdog is meant for another process
        #: Seconds between watchdog pings (half of WatchdogSec), or None when no watchdog is set.
        self.ping_interval = watchdog_usec / 2e6 if watchdog_usec else None
        self.clock = clock
        self._last_ping = float("-inf")

    @property
    def enabled(self) -> bool:
        """Whether a notify socket was given."""
        return bool(self.address)

    def notify(self, *assignments: str) -> None:
        """Send ``KEY=value`` lines in one datagram."""
        if not self.enabled:
            return
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(self.address)
            sock.sendall("\n".join(assignments).encode())

    def ready(self, status: str) -> None:
        """Tell systemd the service is up (Type=notify)."""
        self.notify("READY=1", f"STATUS={status}")

    def status(self, status: str) -> None:
        """Update the one-line status ``systemctl status`` shows."""
        self.notify(f"STATUS={status}")

    def extend_timeout(self, seconds: float, status: str | None = None) -> None:
        """Ask for ``seconds`` more before systemd gives up on the current state (start-up here).

        ``EXTEND_TIMEOUT_USEC`` (sd_notify(3), systemd 236 and later): the service is killed only
        once both ``TimeoutStartSec`` has passed and no message came within ``seconds`` of the
        last one, so a long start-up sends it again while it makes progress. ``status`` goes in
        the same datagram.

        :raises ValueError: when ``seconds`` is not positive.
        """
        if seconds <= 0:
            raise ValueError(f"extend_timeout: seconds must be positive, got {seconds!r}")
        self.notify(f"EXTEND_TIMEOUT_USEC={round(seconds * 1_000_000)}", *([f"STATUS={status}"] if status else []))

    def stopping(self) -> None:
        """Tell systemd the service is stopping."""
        self.notify("STOPPING=1")

    def watchdog(self) -> None:
        """Ping the watchdog if half the interval has passed since the last ping."""
        if self.ping_interval is None:
            return
        now = self.clock()
        if now - self._last_ping >= self.ping_interval:
            self._last_ping = now
            self.notify("WATCHDOG=1")
