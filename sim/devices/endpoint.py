"""OS endpoints a simulated device listens on: a pseudo-terminal or a loopback TCP socket.

The host side opens :attr:`Endpoint.url` exactly as it would a real device's port:
``/dev/pts/N`` for :class:`PtyEndpoint`, ``socket://127.0.0.1:PORT`` for
:class:`SocketEndpoint`. Endpoints are driven by the sim's thread through ``select``.
"""

from __future__ import annotations

import abc
import errno
import os
import socket
import tty

from sim.errors import SimError

__all__ = ["Endpoint", "PtyEndpoint", "SocketEndpoint", "open_endpoint"]


class Endpoint(abc.ABC):
    """The device side of a byte stream."""

    #: What the host opens (a path or a pyserial URL).
    url: str
    #: Host connections accepted so far (a socket counts them; a pseudo-terminal cannot tell).
    connections: int = 0

    @abc.abstractmethod
    def fds(self) -> list[int]:
        """File descriptors to watch for reading."""

    @abc.abstractmethod
    def read(self, fd: int) -> bytes:
        """Bytes from the host after ``fd`` was readable (``b""``: none, e.g. a new connection)."""

    @abc.abstractmethod
    def write(self, data: bytes) -> bool:
        """Send ``data`` to the host; ``False`` if there is nobody to send it to."""

    @abc.abstractmethod
    def suspend(self) -> None:
        """Begin an outage (see :class:`~sim.devices.faults.LinkFaults.disconnect`)."""

    @abc.abstractmethod
    def resume(self) -> None:
        """End an outage."""

    @abc.abstractmethod
    def close(self) -> None:
        """Release the endpoint for good."""


class PtyEndpoint(Endpoint):
    """A pseudo-terminal in raw mode; the host opens its slave path (``/dev/pts/N``).

    The sim keeps the slave open itself, so the host may close and reopen the path at will.
    A pseudo-terminal cannot disappear and come back at the same path, so an outage is
    silence: the sim discards what it reads and sends nothing until :meth:`resume`.
    """

    def __init__(self) -> None:
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self.url = os.ttyname(self._slave)
        self._silent = False

    def fds(self) -> list[int]:
        return [self._master]

    def read(self, fd: int) -> bytes:
        try:
            data = os.read(self._master, 4096)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError as exc:
            if exc.errno == errno.EIO:  # nobody has the slave open: nothing to read
                return b""
            raise
        return b"" if self._silent else data

    def write(self, data: bytes) -> bool:
        if self._silent:
            return False
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._master, view) :]
            except BlockingIOError:
                return False  # the host is not reading and the tty buffer is full: drop
        return True

    def suspend(self) -> None:
        self._silent = True

    def resume(self) -> None:
        self._silent = False

    def close(self) -> None:
        for fd in (self._master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass


class SocketEndpoint(Endpoint):
    """A TCP server on 127.0.0.1 serving one host connection at a time.

    :param port: the port to listen on (0: any free port; :attr:`url` tells which).

    An outage closes the connection and the listening socket, so the host's reconnects
    are refused until :meth:`resume` listens again on the same port.
    """

    def __init__(self, port: int = 0) -> None:
        self._listener: socket.socket | None = None
        self._client: socket.socket | None = None
        self.port = port
        self._listen()
        self.url = f"socket://127.0.0.1:{self.port}"

    def _listen(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind(("127.0.0.1", self.port))
        except OSError as exc:
            listener.close()
            raise SimError(f"cannot listen on 127.0.0.1:{self.port}: {exc.strerror}") from exc
        listener.listen(1)
        self.port = listener.getsockname()[1]
        self._listener = listener

    def fds(self) -> list[int]:
        return [s.fileno() for s in (self._listener, self._client) if s is not None]

    def read(self, fd: int) -> bytes:
        if self._listener is not None and fd == self._listener.fileno():
            client, _ = self._listener.accept()
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._drop_client()  # a new connection replaces a stale one
            self._client = client
            self.connections += 1
            return b""
        if self._client is None:
            return b""
        try:
            data = self._client.recv(4096)
        except OSError:
            data = b""
        if not data:
            self._drop_client()
        return data

    def write(self, data: bytes) -> bool:
        if self._client is None:
            return False
        try:
            self._client.sendall(data)
        except OSError:
            self._drop_client()
            return False
        return True

    @property
    def connected(self) -> bool:
        """Whether a host is connected."""
        return self._client is not None

    def _drop_client(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def suspend(self) -> None:
        self._drop_client()
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def resume(self) -> None:
        if self._listener is None:
            self._listen()

    def close(self) -> None:
        self.suspend()


def open_endpoint(kind: str, port: int = 0) -> Endpoint:
    """``"pty"`` -> :class:`PtyEndpoint`; ``"socket"`` -> :class:`SocketEndpoint` on ``port``."""
    if kind == "pty":
        return PtyEndpoint()
    if kind == "socket":
        return SocketEndpoint(port)
    raise SimError(f"unknown endpoint {kind!r} (known: pty, socket)")
