"""The dashboard's server, as ``tablehost floor --http HOST:PORT --http-dir DIR`` starts it.

``DIR`` holds the roles' PIN files, ``surveillance.pin`` and ``pit.pin`` (written by
``tablehost display pin supervisor DIR/surveillance.pin``: the format is the display's; at least
one of them), and, to listen where other machines can reach, ``tls.crt`` and ``tls.key``. As
the table's display: loopback unless TLS files are there (:func:`check_listen`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from firmware_host.floor.dashboard.app import build_app
from firmware_host.floor.dashboard.floor import Floor
from firmware_host.floor.dashboard.tables import ROLES
from firmware_host.floor.model import Store
from firmware_host.web.guard import Policy
from firmware_host.web.pins import Credentials
from firmware_host.web.server import ConnectionLimits, WebError, WebServer, is_loopback, parse_listen

__all__ = ["Dashboard", "check_listen", "credential_files"]


def credential_files(directory: Path) -> dict[str, Path]:
    """The roles' PIN files in ``directory`` (:class:`WebError` when there is none)."""
    files = {role: directory / f"{role}.pin" for role in ROLES if (directory / f"{role}.pin").is_file()}
    if not files:
        raise WebError(
            f"floor dashboard: {directory} holds no surveillance.pin or pit.pin (write one with "
            "`tablehost display pin supervisor FILE`)"
        )
    return files


def check_listen(host: str, directory: Path) -> tuple[Path, Path] | None:
    """The TLS files to serve with; :class:`WebError` for an address other machines can reach without them."""
    tls = directory / "tls.crt", directory / "tls.key"
    if all(path.is_file() for path in tls):
        return tls
    if not is_loopback(host):
        raise WebError(
            f"floor dashboard on {host}, which other machines can reach, needs {tls[0]} and {tls[1]}; "
            "or listen on 127.0.0.1"
        )
    return None


class Dashboard:
    """The floor dashboard: the floor polled, the app, uvicorn in a thread.

    :param listen: ``HOST:PORT``.
    :param open_store: opens the floor's store to read.
    :param directory: the PIN files (and the TLS files).
    :param poll_s: seconds between passes over the store.
    :param limits: the protocol's limits.
    """

    def __init__(
        self,
        listen: str,
        open_store: Callable[[], Store],
        directory: Path,
        *,
        poll_s: float = 0.5,
        limits: ConnectionLimits = ConnectionLimits(),
    ) -> None:
        host, port = parse_listen(listen)
        tls = check_listen(host, directory)
        credentials = Credentials(credential_files(directory), roles=ROLES)  # an unusable file: one line
        self.floor = Floor(open_store, poll_s)
        self.app = build_app(self.floor, credentials, policy=Policy())
        self.server = WebServer(self.app, host, port, tls, limits, name="floor dashboard")

    @property
    def url(self) -> str:
        """The base URL."""
        return self.server.url

    def start(self) -> None:
        """Poll the store and serve."""
        self.floor.start()
        self.server.start()

    def stop(self) -> None:
        """Stop serving and polling."""
        self.floor.end_streams()
        time.sleep(0.1)  # the streams' last bytes go out before uvicorn's graceful shutdown begins
        self.server.stop()
        self.floor.stop()
