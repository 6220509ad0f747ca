"""Addresses a web face listens on, as the command line and profiles give them: parsed and
bounded without importing the server (so ``tablehost run --http`` is checked before anything
starts, and a plain run loads no uvicorn).
"""

from __future__ import annotations

import ipaddress

from firmware_host.errors import TablehostError

__all__ = ["WebError", "parse_listen", "is_loopback"]


class WebError(TablehostError):
    """A web face cannot be served as configured."""


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6) as ``(host, port)``; :class:`WebError` if it is not one."""
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isascii() or not port.isdecimal() or len(port) > 5 or int(port) > 65535:
        raise WebError(f"listen address {text!r}: expected HOST:PORT, e.g. 127.0.0.1:8080")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable only from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
