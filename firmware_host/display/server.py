"""The display's web server: :class:`~firmware_host.web.server.WebServer` (uvicorn in its own
thread, its limits), and what the display needs of its address.

Loopback unless told otherwise (:func:`check_listen`): an address other machines can reach
needs TLS (certificate and key files) and the PIN files, which then also guard the dealer's pages.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from firmware_host.web.server import ConnectionLimits, WebError, WebServer, check_exposure, is_loopback, parse_listen

__all__ = ["DisplayServer", "parse_listen", "is_loopback", "check_listen", "DisplayError"]

#: The display cannot be served as configured (the web layer's error).
DisplayError = WebError


def check_listen(host: str, tls: tuple[Path, Path] | None, has_pins: bool) -> None:
    """Refuse a non-loopback address without TLS files and PIN files (issue 14 item 5)."""
    check_exposure("display", host, tls, (("PIN files ([display] dealer_pin_file, supervisor_pin_file)", has_pins),))


class DisplayServer(WebServer):
    """The display's uvicorn, in a thread (see :class:`~firmware_host.web.server.WebServer`)."""

    def __init__(
        self,
        app: Any,
        host: str,
        port: int,
        tls: tuple[Path, Path] | None = None,
        limits: ConnectionLimits = ConnectionLimits(),
    ) -> None:
        super().__init__(app, host, port, tls, limits, name="display")
