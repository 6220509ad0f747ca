"""Serve a registry's ``/metrics`` through the hardened web layer (:mod:`firmware_host.web`).

One path, ``GET /metrics`` (and ``HEAD``), in Prometheus's text format (gzip when asked for);
anything else is 404 or 405. The app sits behind :class:`~firmware_host.web.guard.Guard`
(Host check, no bodies past 16 KiB, a catch-all that never answers 500) and runs in
:class:`~firmware_host.web.server.WebServer` (request and stall timeouts, a connection cap).
Loopback unless TLS files are given: the table's counts of advantage windows are for the
casino's monitoring, not for whoever is on the network (``[metrics]``, docs/security.md).
"""

from __future__ import annotations

from pathlib import Path

from prometheus_client import CollectorRegistry, make_asgi_app
from starlette.types import Receive, Scope, Send

from firmware_host.web.guard import Guard, Policy
from firmware_host.web.server import WebServer, check_exposure, parse_listen

__all__ = ["MetricsServer", "metrics_app", "PATH"]

#: The one path served (Prometheus's default ``metrics_path``).
PATH = "/metrics"


def metrics_app(registry: CollectorRegistry, policy: Policy = Policy()) -> Guard:
    """The ASGI app: ``GET /metrics`` of ``registry``, behind the web layer's guard."""
    exposition = make_asgi_app(registry)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # lifespan: nothing to start or stop
        status = 404 if scope["path"] != PATH else 405 if scope["method"] not in ("GET", "HEAD") else 0
        if status:
            reason = b"not found\n" if status == 404 else b"only GET\n"
            await send(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(reason)).encode())],
                }
            )
            await send({"type": "http.response.body", "body": reason})
            return
        await exposition(scope, receive, send)

    return Guard(app, policy)


class MetricsServer(WebServer):
    """``/metrics`` on ``listen`` (``HOST:PORT``), in a thread of its own.

    :param registry: what is served.
    :param tls: ``(certificate, key)``: required with an address off loopback.
    :param hosts: the names Prometheus reaches it by, besides its address (the Host check).
    :raises WebError: a bad address, or one off loopback without TLS.
    """

    def __init__(
        self,
        registry: CollectorRegistry,
        listen: str,
        tls: tuple[Path, Path] | None = None,
        hosts: tuple[str, ...] = (),
    ) -> None:
        host, port = parse_listen(listen)
        check_exposure("metrics", host, tls)
        super().__init__(metrics_app(registry, Policy.serving(host, hosts)), host, port, tls, name="metrics")
