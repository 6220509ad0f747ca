"""uvicorn in its own thread, configured for a hostile network: :class:`WebServer`.

What only the protocol sees is bounded here (:class:`GuardedProtocol`, uvicorn's h11 protocol
with three timers and a cap): a request's head and body must arrive within
:attr:`ConnectionLimits.request_s` of its first byte (or of the connection), else 408 and the
connection is closed; a reader whose socket takes nothing for :attr:`ConnectionLimits.stall_s`
while we write is cut off; past :attr:`ConnectionLimits.max_connections` open connections a new
one is closed at once (its descriptor freed), before uvicorn's and h11's state is built for it
(:class:`_PastTheCap`), except from the Pi itself. ``X-Forwarded-For`` is
believed only from :attr:`ConnectionLimits.trusted_proxies` (uvicorn's ``proxy_headers`` is off
without one); uvicorn's and the event loop's errors (an ``accept()`` out of descriptors) are
logged at a rate limit.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import socket
import ssl
import threading
import time
from pathlib import Path
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from firmware_host.web.address import WebError, is_loopback, parse_listen
from firmware_host.web.logs import RateLimit, RateLimitFilter, loop_exception_handler

__all__ = [
    "WebServer",
    "WebError",
    "ConnectionLimits",
    "GuardedProtocol",
    "parse_listen",
    "is_loopback",
    "check_exposure",
]

log = logging.getLogger("tablehost.web")

#: Connections the listening socket queues.
LISTEN_BACKLOG = 2048
#: Seconds :meth:`WebServer.start` waits for uvicorn to be serving.
START_TIMEOUT_S = 10.0
_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain\r\ncontent-length: 27\r\nconnection: close"
    b"\r\n\r\nthe request took too long.\n"
)


@dataclasses.dataclass(frozen=True)
class ConnectionLimits:
    """What one connection may cost."""

    #: Seconds from a request's first byte (or the connection's start) to its last.
    request_s: float = 10.0
    #: Seconds a reader may leave our writes unread before it is cut off.
    stall_s: float = 10.0
    #: Seconds an idle kept-alive connection stays open.
    keep_alive_s: int = 5
    #: Connections open at once (the Pi's own are not counted against it).
    max_connections: int = 256
    #: Bytes of a request's head (h11's limit): larger is 400.
    max_head: int = 16 * 1024
    #: Addresses whose X-Forwarded-For is believed (``[display] trusted_proxies``); none by default.
    trusted_proxies: tuple[str, ...] = ()
    #: The Pi's own addresses: their connections are not capped.
    reserved: frozenset[str] = frozenset({"127.0.0.1", "::1"})


def check_exposure(
    face: str, host: str, tls: tuple[Path, Path] | None, needs: tuple[tuple[str, bool], ...] = ()
) -> None:
    """Refuse an address other machines can reach unless TLS files (and whatever else ``needs``
    names, ``(what, given)``) are given; refuse a TLS file that is not there.

    :raises WebError: naming the face, what is missing and the way out (loopback).
    """
    if not is_loopback(host):
        missing = [
            what
            for what, ok in ((f"TLS certificate and key files ([{face}] tls_cert, tls_key)", tls is not None), *needs)
            if not ok
        ]
        if missing:
            raise WebError(
                f"{face} on {host}, which other machines can reach, needs "
                + " and ".join(missing)
                + "; or listen on 127.0.0.1"
            )
    for path in tls or ():
        if not path.is_file():
            raise WebError(f"{face} TLS file {path}: no such file")


class GuardedProtocol(H11Protocol):
    """uvicorn's h11 protocol with a request deadline, a write-stall cut-off and a connection cap."""

    limits = ConnectionLimits()
    _refusals = RateLimit()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._stall: asyncio.TimerHandle | None = None

    @classmethod
    def admit(cls, **options: Any) -> asyncio.Protocol:
        """uvicorn's protocol factory: this protocol, or past the cap a :class:`_PastTheCap`, which
        closes the connection before any of uvicorn's and h11's state is built for it."""
        if len(options["server_state"].connections) < cls.limits.max_connections:
            return cls(**options)
        return _PastTheCap(cls, options)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        peer = self.client[0] if self.client else ""
        if peer not in self.limits.reserved and len(self.connections) > self.limits.max_connections:
            _refuse(self, transport, peer)
            return
        self._deadline = self.loop.call_later(self.limits.request_s, self._too_slow)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def _watch(self) -> None:
        """Time the request while the peer owes us bytes of it: a new connection its first request,
        a kept-alive one the rest of a request begun, any request the rest of its body."""
        their = self.conn.their_state
        first = self.cycle is None
        owing = their is h11.SEND_BODY or (their is h11.IDLE and (first or bool(self.conn.trailing_data[0])))
        if owing and self._deadline is None:
            self._deadline = self.loop.call_later(self.limits.request_s, self._too_slow)
        elif not owing:
            self._cancel_deadline()

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(_TIMEOUT)
        self.transport.close()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stall is None:
            self._stall = self.loop.call_later(self.limits.stall_s, self.transport.abort)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        super().connection_lost(exc)


class _PastTheCap(asyncio.Protocol):
    """A connection that came past the cap: closed at once (its descriptor freed) once its peer is
    known, unless it is the Pi's own, which is handed to the guarded protocol."""

    def __init__(self, protocol: type[GuardedProtocol], options: dict[str, Any]) -> None:
        self.protocol, self.options = protocol, options

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peername = transport.get_extra_info("peername")
        peer = str(peername[0]) if peername else ""
        if peer in self.protocol.limits.reserved:
            guarded = self.protocol(**self.options)
            transport.set_protocol(guarded)
            guarded.connection_made(transport)
            return
        _refuse(self.protocol, transport, peer)


def _refuse(protocol: GuardedProtocol | type[GuardedProtocol], transport: asyncio.Transport, peer: str) -> None:
    """Close a connection past the cap, logged at a rate limit."""
    if (held := protocol._refusals.allow("connections")) is not None:
        log.warning(
            "web: %d connections open: one from %s closed at once%s",
            protocol.limits.max_connections,
            peer,
            f" (and {held} more)" if held else "",
        )
    transport.abort()


class _Server(uvicorn.Server):
    """uvicorn's server with the loop's errors logged at a rate limit."""

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().set_exception_handler(loop_exception_handler(log))
        await super().serve(sockets)


def _install_log_filter() -> None:
    """uvicorn's per-request warnings ("Invalid HTTP request received.") once a minute, counted."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, RateLimitFilter) for f in logger.filters):
        logger.addFilter(RateLimitFilter())


class WebServer:
    """uvicorn in a thread, serving an ASGI app on a socket bound at construction.

    :param app: the ASGI app (behind :class:`~firmware_host.web.guard.Guard`).
    :param host, port: where to listen (port 0: any free port; see :attr:`port`).
    :param tls: ``(certificate file, key file)``, or None for plain HTTP.
    :param limits: the protocol's limits (timeouts, the connection cap, the trusted proxies).
    :param name: the face, in errors (``display``).
    :param client_ca: with TLS, only clients whose certificate this CA signed are served (mutual TLS).
    """

    def __init__(
        self,
        app: Any,
        host: str,
        port: int,
        tls: tuple[Path, Path] | None = None,
        limits: ConnectionLimits = ConnectionLimits(),
        name: str = "web",
        client_ca: Path | None = None,
    ) -> None:
        self.app, self.host, self.name, self.tls = app, host, name, tls
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._socket = socket.socket(family, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._socket.bind((host, port))
            self._socket.listen(LISTEN_BACKLOG)  # the port is ours from now on, before uvicorn starts
        except OSError as exc:
            self._socket.close()
            raise WebError(f"{name}: cannot listen on {host}:{port}: {exc.strerror}") from exc
        self.port: int = self._socket.getsockname()[1]
        protocol: type[GuardedProtocol] = type(
            "GuardedProtocol", (GuardedProtocol,), {"limits": limits, "_refusals": RateLimit()}
        )
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="auto",
            http=protocol.admit,  # type: ignore[arg-type]  # a factory, as uvicorn calls it
            ssl_certfile=str(tls[0]) if tls else None,
            ssl_keyfile=str(tls[1]) if tls else None,
            # mutual TLS: a client without a certificate this CA signed never gets past the handshake
            ssl_ca_certs=str(client_ca) if client_ca else None,
            ssl_cert_reqs=ssl.CERT_REQUIRED if client_ca else ssl.CERT_NONE,
            timeout_graceful_shutdown=1,
            timeout_keep_alive=limits.keep_alive_s,
            h11_max_incomplete_event_size=limits.max_head,
            server_header=False,
            proxy_headers=bool(limits.trusted_proxies),
            forwarded_allow_ips=list(limits.trusted_proxies),
        )
        _install_log_filter()
        self._server = _Server(config)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL (``http://127.0.0.1:8080``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"

    def start(self) -> None:
        """Serve in a new thread; return once it is serving."""
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, name=f"{self.name}-http", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not self._server.started:
            raise WebError(f"{self.name}: uvicorn did not start on {self.url}")

    def stop(self) -> None:
        """Stop serving (open streams are closed) and wait for the thread."""
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=START_TIMEOUT_S)
            self._thread = None
        self._socket.close()
