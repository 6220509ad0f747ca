"""The display's web server: uvicorn serving the app in its own thread, on its own event loop.

Loopback unless told otherwise (:func:`check_listen`): an address other machines can reach
needs TLS (certificate and key files) and the PIN files, which then also guard the dealer's pages.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from firmware_host.errors import TablehostError

__all__ = ["DisplayServer", "parse_listen", "is_loopback", "check_listen", "DisplayError"]

#: Connections the listening socket queues (a kiosk and a few browsers; uvicorn's default).
LISTEN_BACKLOG = 2048
#: Seconds :meth:`DisplayServer.start` waits for uvicorn to be serving.
START_TIMEOUT_S = 10.0


class DisplayError(TablehostError):
    """The display cannot be served as configured."""


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6) as ``(host, port)``; :class:`DisplayError` if it is not one."""
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdecimal() or not 0 <= int(port) <= 65535:
        raise DisplayError(f"listen address {text!r}: expected HOST:PORT, e.g. 127.0.0.1:8080")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable only from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_listen(host: str, tls: tuple[Path, Path] | None, has_pins: bool) -> None:
    """Refuse a non-loopback address without TLS files and PIN files (issue 14 item 5)."""
    if is_loopback(host):
        return
    missing = [what for what, ok in (("TLS certificate and key files ([display] tls_cert, tls_key)", tls is not None),
                                     ("PIN files ([display] dealer_pin_file, supervisor_pin_file)", has_pins)) if not ok]
    if missing:
        raise DisplayError(f"display on {host}, which other machines can reach, needs " + " and ".join(missing)
                           + "; or listen on 127.0.0.1")
    for path in tls or ():
        if not path.is_file():
            raise DisplayError(f"display TLS file {path}: no such file")


class DisplayServer:
    """uvicorn in a thread.

    :param app: the ASGI app.
    :param host, port: where to listen (port 0: any free port; see :attr:`port`).
    :param tls: ``(certificate file, key file)``, or None for plain HTTP.
    """

    def __init__(self, app: Any, host: str, port: int, tls: tuple[Path, Path] | None = None) -> None:
        self.host = host
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._socket.bind((host, port))
            self._socket.listen(LISTEN_BACKLOG)  # the port is ours from now on, before uvicorn starts
        except OSError as exc:
            self._socket.close()
            raise DisplayError(f"display: cannot listen on {host}:{port}: {exc.strerror}") from exc
        self.port: int = self._socket.getsockname()[1]
        self.tls = tls
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                                ssl_certfile=str(tls[0]) if tls else None, ssl_keyfile=str(tls[1]) if tls else None,
                                timeout_graceful_shutdown=1)
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL (``http://127.0.0.1:8080``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"

    def start(self) -> None:
        """Serve in a new thread; return once it is serving."""
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]},
                                        name="display-http", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not self._server.started:
            raise DisplayError(f"display: uvicorn did not start on {self.url}")

    def stop(self) -> None:
        """Stop serving (open streams are closed) and wait for the thread."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=START_TIMEOUT_S)
            self._thread = None
        self._socket.close()
