"""The ASGI middleware every web face of the table stands behind (:class:`Guard`).

Before the app sees a request: its Host names this server (DNS rebinding), a state-changing
request comes from this server's own pages (Origin, Sec-Fetch-Site: no cross-site posts), a body
is ``application/json`` (415), and no longer than :attr:`Policy.max_body` bytes (413: refused on
Content-Length before a byte is read, and counted while the body streams in, never after). After:
any exception is answered 400 when nothing has been sent yet, and logged at a rate limit, never
as a traceback per request. Every response, the guard's own refusals too, carries the
browsers' security headers (:mod:`.headers`: CSP, X-Frame-Options, nosniff, Referrer-Policy).
Time limits are the protocol's (:mod:`.server`), which sees the bytes.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.requests import ClientDisconnect

from firmware_host.text import escaped
from firmware_host.web.headers import add_browser_headers
from firmware_host.web.logs import RateLimit
from firmware_host.web.parse import BadRequest, header_value, host_name, media_type

__all__ = ["Policy", "Guard", "client_of", "SAFE_METHODS"]

log = logging.getLogger("tablehost.web")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
#: Called with (client address, why) for every request the guard refuses.
Refused = Callable[[str, str], None]

#: Methods that change nothing: no Origin check, no body expected.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclasses.dataclass(frozen=True)
class Policy:
    """What a web face accepts.

    :param hosts: the names this server is reached by, besides the address a connection arrives
        on (and ``localhost`` on loopback): ``[display] allowed_hosts``.
    :param max_body: bytes of body accepted (16 KiB; an action is under 300).
    :param same_origin_reads: path prefixes (``/api/``) whose reads are checked as posts are.
    """

    hosts: frozenset[str] = frozenset()
    max_body: int = 16 * 1024
    #: Path prefixes whose reads (GET, HEAD) must come from this server's own pages as a
    #: state-changing request must (no cross-site Sec-Fetch-Site, no foreign Origin: 403), so a
    #: page open in an officer's browser cannot drive them (issue 29, N9).
    same_origin_reads: tuple[str, ...] = ()

    @classmethod
    def serving(cls, host: str, names: tuple[str, ...] = ()) -> Policy:
        """The policy of a server listening on ``host`` and reached by ``names`` as well (a
        wildcard address names nothing)."""
        return cls(hosts=frozenset({host.lower(), *names} - {"0.0.0.0", "::"}))

    def reads_guarded(self, *prefixes: str) -> Policy:
        """This policy, with the reads under ``prefixes`` checked as posts are."""
        return dataclasses.replace(self, same_origin_reads=prefixes)


def client_of(scope: Scope) -> str:
    """The client's address (the TCP peer, or what a trusted proxy said it forwarded for)."""
    client = scope.get("client")
    return str(client[0])[:64] if client else "unknown"  # a proxy's X-Forwarded-For may say anything


def _header(scope: Scope, name: bytes) -> str | None:
    values = [value for key, value in scope.get("headers", ()) if key == name]
    if len(values) > 1:
        raise BadRequest(f"{name.decode()} is given {len(values)} times")
    return header_value(values[0], name.decode()) if values else None


def _is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


class Guard:
    """Refuse what the app should never see; answer the app's failures 400, logged at a rate limit.

    :param app: the ASGI app behind it.
    :param policy: the limits.
    :param refused: told of every refusal (client, why), e.g. to journal a summary.
    """

    def __init__(self, app: ASGIApp, policy: Policy = Policy(), refused: Refused | None = None) -> None:
        self.app, self.policy, self.refused = app, policy, refused
        self._errors = RateLimit()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked_send(message: Message) -> None:
            nonlocal started
            started = True
            add_browser_headers(message)
            await send(message)

        try:
            length = self._check(scope)
            await self.app(scope, self._limited(receive, length), tracked_send)
        except BadRequest as exc:
            self._refuse(scope, exc.reason)
            if not started:
                await _answer(send, exc.status, exc.reason)
        except ClientDisconnect:
            return
        except Exception as exc:  # the catch-all: a request never yields a 500 or a traceback per request
            held = self._errors.allow(type(exc).__name__)  # by kind only: a path is the peer's to vary
            if held is not None:
                log.error(
                    "web: %s %s failed: %s: %s%s",
                    escaped(str(scope.get("method")))[:16],
                    escaped(str(scope.get("path")))[:200],  # percent-decoded: a peer's bytes, escaped
                    type(exc).__name__,
                    escaped(str(exc))[:200],
                    f" (and {held} more like it)" if held else "",
                    exc_info=held == 0,
                )
            if not started:
                await _answer(send, 400, "the request could not be served")

    def _check(self, scope: Scope) -> int | None:
        """The body's declared length; :class:`BadRequest` for what is refused before the app."""
        host = host_name(_header(scope, b"host"))
        if host is None or not self._ours(host[0], scope):
            raise BadRequest("the Host header does not name this server", 400)
        method = scope.get("method", "GET")
        path = scope.get("path", "")
        if method not in SAFE_METHODS or any(path.startswith(p) for p in self.policy.same_origin_reads):
            self._check_origin(scope, host)
        if method not in SAFE_METHODS:
            kind, parameters = media_type(_header(scope, b"content-type"))
            if kind != "application/json" or parameters.get("charset", "utf-8") != "utf-8":
                raise BadRequest("the body is application/json", 415)
        declared = _header(scope, b"content-length")
        if declared is None:
            return None
        if not declared.isascii() or not declared.isdigit() or len(declared) > 12:
            raise BadRequest("Content-Length is a number of bytes")
        if int(declared) > self.policy.max_body:
            raise BadRequest(f"the body is longer than {self.policy.max_body} bytes", 413)
        return int(declared)

    def _ours(self, host: str, scope: Scope) -> bool:
        server = scope.get("server")
        arrived_on = str(server[0]).lower().removeprefix("::ffff:") if server else ""  # IPv4 on a dual-stack socket
        return host in self.policy.hosts or host == arrived_on or (host in _LOOPBACK_NAMES and _is_loopback(arrived_on))

    def _check_origin(self, scope: Scope, host: tuple[str, int | None]) -> None:
        """A state-changing request (or a guarded read) comes from a page of the origin the browser
        asked (the Host)."""
        if (_header(scope, b"sec-fetch-site") or "same-origin") not in ("same-origin", "none"):
            changes = scope.get("method", "GET") not in SAFE_METHODS
            raise BadRequest(f"a cross-site request cannot {'change anything' if changes else 'read this'}", 403)
        origin = _header(scope, b"origin")
        if origin is None:
            return  # not a browser's cross-site request (a browser sends Origin with every POST)
        scheme, sep, authority = origin.partition("://")
        parsed = host_name(authority) if sep else None
        scheme_now = scope.get("scheme", "http")
        default = 443 if scheme_now == "https" else 80
        if (
            parsed is None
            or scheme.lower() != scheme_now
            or parsed[0] != host[0]
            or (parsed[1] or default) != (host[1] or default)
        ):
            raise BadRequest("the Origin is not this server", 403)

    def _limited(self, receive: Receive, declared: int | None) -> Receive:
        """``receive``, counting the body's bytes as they come (a chunked body has no Content-Length)."""
        limit = self.policy.max_body
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit or (declared is not None and seen > declared):
                    raise BadRequest(f"the body is longer than {limit} bytes", 413)
            return message

        return counted

    def _refuse(self, scope: Scope, why: str) -> None:
        if self.refused is not None:
            self.refused(client_of(scope), why)


async def _answer(send: Send, status: int, reason: str) -> None:
    body = json.dumps({"error": reason}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
    ]
    if status in (400, 413, 415):
        headers.append((b"connection", b"close"))  # what is left of the request is not read
    start: Message = {"type": "http.response.start", "status": status, "headers": headers}
    add_browser_headers(start)
    await send(start)
    await send({"type": "http.response.body", "body": body})
