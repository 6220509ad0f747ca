"""Serial transport: opens a port by URL and moves bytes, nothing else.

The port is any URL :func:`serial.serial_for_url` understands: a device path
(``/dev/ttyUSB0``, ``/dev/serial/by-id/...``, a pseudo-terminal ``/dev/pts/7``),
``socket://127.0.0.1:7001`` (a TCP byte stream, e.g. a simulator), ``loop://`` (what is
written is read back), or ``spy://PORT`` (hexdump every byte to stderr, for the bench).

One reader thread per open port reads ``read(in_waiting or 1)`` with a timeout (so it
blocks in the kernel, never busy-polls) and hands each chunk to ``on_bytes``; when the
port fails it calls ``on_lost`` once and ends. It never interprets the bytes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

import serial

import drivers.urlhandler  # noqa: F401  (socket:// that keeps the input that arrives while it opens)
from drivers.errors import DeviceNotFound, DriverError

__all__ = ["SerialTransport"]

_log = logging.getLogger("tablehost.drivers.transport")


class SerialTransport:
    """A byte pipe to one device.

    :param name: the device's name in the table profile, prefixed to every message.
    :param url: the port (see the module docstring).
    :param on_bytes: called from the reader thread with each chunk received.
    :param on_lost: called once from the reader thread when the port fails, with the reason.
    :param baudrate: line speed (ignored by sockets and pseudo-terminals' peers).
    :param read_timeout: how long one blocking read waits, in seconds; bounds how quickly
        :meth:`close` is noticed by the reader thread.
    """

    def __init__(
        self,
        name: str,
        url: str,
        on_bytes: Callable[[bytes], None],
        on_lost: Callable[[str], None],
        *,
        baudrate: int = 115200,
        read_timeout: float = 0.2,
    ) -> None:
        self.name, self.url = name, url
        self._on_bytes, self._on_lost = on_bytes, on_lost
        self._baudrate, self._read_timeout = baudrate, read_timeout
        self._port: serial.Serial | None = None
        self._reader: threading.Thread | None = None
        self._closing = threading.Event()
        self._write_lock = threading.Lock()

    def open(self) -> None:
        """Open the port and start the reader thread.

        :raises DeviceNotFound: naming the device and the port, if it cannot be opened.
        """
        try:
            self._port = serial.serial_for_url(self.url, baudrate=self._baudrate, timeout=self._read_timeout)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise DeviceNotFound(f"{self.name}: cannot open port {self.url}: {exc}") from exc
        self._closing.clear()
        self._reader = threading.Thread(target=self._read_loop, name=f"{self.name}-reader", daemon=True)
        self._reader.start()

    def _read_loop(self) -> None:
        port = self._port
        assert port is not None
        try:
            while not self._closing.is_set():
                data = port.read(port.in_waiting or 1)
                if data:
                    self._on_bytes(bytes(data))
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            # TypeError/AttributeError: pyserial's socket handler after a concurrent close.
            if not self._closing.is_set():
                self._on_lost(f"port {self.url} failed: {exc}")

    def write(self, data: bytes) -> None:
        """Send ``data``; a failure is reported through ``on_lost`` by the reader as well.

        :raises DriverError: naming the device and the port if the port is closed or fails.
        """
        port = self._port
        if port is None:
            raise DriverError(f"{self.name}: port {self.url} is not open")
        try:
            with self._write_lock:
                port.write(data)
        except (serial.SerialException, OSError) as exc:
            raise DriverError(f"{self.name}: writing to port {self.url} failed: {exc}") from exc

    def close(self) -> None:
        """Stop the reader thread and close the port (idempotent)."""
        self._closing.set()
        port, self._port = self._port, None
        if port is not None:
            cancel = getattr(port, "cancel_read", None)
            if cancel is not None:
                try:
                    cancel()
                except (serial.SerialException, OSError):
                    pass
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=self._read_timeout + 2.0)
        self._reader = None
        if port is not None:
            try:
                port.close()
            except (serial.SerialException, OSError) as exc:
                _log.debug("%s: closing port %s: %s", self.name, self.url, exc)
