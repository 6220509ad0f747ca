"""The headers every response of every web face carries, for the browsers (issue 29 item 7).

- ``Content-Security-Policy``: scripts, styles, images, fonts, streams and fetches from this
  origin only; no inline script or style, no ``eval``, no plugin, no ``<base>``, no form posted
  elsewhere, and no framing by any page (``frame-ancestors 'none'``). The pages hold no inline
  script: each starts with ``<script src="/static/start.js" data-start="NAME">``.
- ``X-Frame-Options: DENY``: the same for browsers that predate ``frame-ancestors`` (clickjacking
  a dealer's button or a surveillance officer's page).
- ``X-Content-Type-Options: nosniff``: a JSON answer that quotes a peer's text is never run as a
  script or shown as HTML.
- ``Referrer-Policy: no-referrer``: a table's or a round's address never leaves in a Referer.

:func:`add_browser_headers` adds them to a response's start (a header the app set itself is
kept); :class:`~firmware_host.web.guard.Guard` calls it on every response, its own refusals too.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

__all__ = ["CONTENT_SECURITY_POLICY", "BROWSER_HEADERS", "add_browser_headers"]

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; "
    "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: ``(name, value)`` of each header, lower-case names as ASGI carries them.
BROWSER_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


def add_browser_headers(message: MutableMapping[str, Any]) -> None:
    """Add :data:`BROWSER_HEADERS` to an ``http.response.start`` message (others are left alone)."""
    if message.get("type") != "http.response.start":
        return
    headers = list(message.get("headers", ()))
    present = {bytes(name).lower() for name, _ in headers}
    headers.extend(header for header in BROWSER_HEADERS if header[0] not in present)
    message["headers"] = headers
