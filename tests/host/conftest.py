"""Fixtures of the service tests: a fake systemd notify socket and what reached it."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[tuple[str, socket.socket]]:
    """A bound datagram socket standing for ``$NOTIFY_SOCKET``: ``(path, socket)``.

    Linux queues only ``net.unix.max_dgram_qlen`` (often 10) unread datagrams before a sender
    blocks: a test reads them before it sends more than that.
    """
    path = str(tmp_path / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(2)
    yield path, sock
    sock.close()


@pytest.fixture
def notifications(notify_socket: tuple[str, socket.socket]) -> Callable[[], list[list[str]]]:
    """Reads every datagram waiting on the notify socket, each as its ``KEY=value`` lines, oldest first."""
    _, sock = notify_socket

    def pending() -> list[list[str]]:
        sock.setblocking(False)
        received: list[list[str]] = []
        try:
            while True:
                received.append(sock.recv(4096).decode().split("\n"))
        except BlockingIOError:
            return received

    return pending
