"""A systemd notify socket of the benchmark's own, to time ``tablehost run`` to its ``READY=1``."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def notify_socket(
    directory: Path, timeout: float, env: dict[str, str] | None = None
) -> Iterator[tuple[socket.socket, dict[str, str]]]:
    """A datagram socket bound in ``directory``, and ``env`` (default: this process's) with
    ``NOTIFY_SOCKET`` naming it and no ``WATCHDOG_USEC``; the socket is removed on exit."""
    address = directory / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(str(address))
        sock.settimeout(timeout)
        child = {**(os.environ if env is None else env), "NOTIFY_SOCKET": str(address)}
        child.pop("WATCHDOG_USEC", None)
        try:
            yield sock, child
        finally:
            address.unlink()


def wait_ready(sock: socket.socket) -> None:
    """Return once ``READY=1`` arrives (``socket.timeout`` after the socket's timeout)."""
    while b"READY=1" not in sock.recv(4096):
        pass
