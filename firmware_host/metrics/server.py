"""Serve a registry's ``/metrics`` through the hardened web layer (:mod:`firmware_host.web`).

One path, ``GET /metrics`` (and ``HEAD``), in Prometheus's text format (gzip when asked for);
anything else is 404 or 405. The app sits behind :class:`~firmware_host.web.guard.Guard`
(Host check, no bodies past 16 KiB, a catch-all that never answers 500) and runs in
:class:`~firmware_host.web.server.WebServer` (request and stall timeouts, a connection cap).

Who scrapes (issue 29, N2): loopback unless TLS files **and** a users file or a client CA are
given; off loopback every scrape needs HTTP Basic credentials over TLS (Prometheus's
``basic_auth`` with ``password_file``) of a user of that file (:mod:`firmware_host.web.users`:
``monitoring`` or ``surveillance``), checked through a lockout and remembered
:data:`REMEMBERED_S` seconds by the header's SHA-256, or (with a client CA: mutual TLS,
Prometheus's ``tls_config`` ``cert_file``/``key_file``) a client certificate that CA signed. The protection counts (:mod:`firmware_host.tables.protection_policy`: the
advantage-window and advantage-play alerts) are in a registry of their own, served only to a
scrape logged in as a ``surveillance`` user, on loopback too; every other scrape never sees
them, not even delayed.
"""

from __future__ import annotations

import base64
import binascii
import collections
import hashlib
import time
from collections.abc import Iterator
from pathlib import Path

from prometheus_client import CollectorRegistry, make_asgi_app
from prometheus_client.core import Metric
from prometheus_client.registry import Collector
from starlette.types import Receive, Scope, Send

from firmware_host.tables.protection_policy import sees_protection
from firmware_host.web.guard import Guard, Policy, client_of
from firmware_host.web.lockout import Busy, Locked
from firmware_host.web.server import WebError, WebServer, check_exposure, is_loopback, parse_listen
from firmware_host.web.users import USER_NAME, Users, read_users

__all__ = ["MetricsServer", "metrics_app", "PATH", "ROLES", "load_scrapers"]

#: The one path served (Prometheus's default ``metrics_path``).
PATH = "/metrics"
#: The roles of a metrics users file: a monitoring scraper, and surveillance's own.
ROLES = ("monitoring", "surveillance")
#: Seconds a right login is remembered, and how many are (a scraper every 15 s costs one check).
REMEMBERED_S, MAX_REMEMBERED = 300.0, 16


class _Both(Collector):
    """Every metric of two registries (surveillance's scrape)."""

    def __init__(self, *registries: CollectorRegistry) -> None:
        self.registries = registries

    def collect(self) -> Iterator[Metric]:
        for registry in self.registries:
            yield from registry.collect()


def load_scrapers(path: Path | None) -> Users | None:
    """The scrapers of a metrics users file (None without one); one line naming a bad one."""
    return None if path is None else Users(read_users(path, ROLES))


async def _answer(send: Send, status: int, text: str, headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode()), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


def metrics_app(
    registry: CollectorRegistry,
    policy: Policy = Policy(),
    *,
    protection: CollectorRegistry | None = None,
    scrapers: Users | None = None,
    require_login: bool = False,
) -> Guard:
    """The ASGI app: ``GET /metrics`` of ``registry`` (and, to surveillance, ``protection``), behind
    the web layer's guard; ``require_login``: every scrape needs a scraper's credentials."""
    public = make_asgi_app(registry)
    everything = public
    if protection is not None:
        both = CollectorRegistry()
        both.register(_Both(registry, protection))
        everything = make_asgi_app(both)
    remembered: collections.OrderedDict[bytes, tuple[float, str]] = collections.OrderedDict()

    async def role_of(scope: Scope) -> str | int | None:
        """The scraper's role; None without credentials; an HTTP status when refused."""
        header = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"authorization"), "")
        if header[:6].lower() != "basic " or scrapers is None:
            return None
        key = hashlib.sha256(header.encode("utf-8", "replace")).digest()
        known = remembered.get(key)
        if known is not None and known[0] >= time.monotonic():
            return known[1]
        try:
            name, _, secret = base64.b64decode(header[6:], validate=True).decode().partition(":")
        except (ValueError, binascii.Error, UnicodeDecodeError):
            return 401
        if not USER_NAME.fullmatch(name):
            return 401
        try:
            role = await scrapers.login(name, secret, client_of(scope))
        except (Locked, Busy) as exc:
            return 429 if isinstance(exc, Locked) else 503
        if role is None:
            return 401
        remembered[key] = (time.monotonic() + REMEMBERED_S, role)
        while len(remembered) > MAX_REMEMBERED:
            remembered.popitem(last=False)
        return role

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # lifespan: nothing to start or stop
        status = 404 if scope["path"] != PATH else 405 if scope["method"] not in ("GET", "HEAD") else 0
        if status:
            await _answer(send, status, "not found\n" if status == 404 else "only GET\n")
            return
        role = await role_of(scope)
        if isinstance(role, int) or (role is None and require_login):
            refused = role if isinstance(role, int) else 401
            challenge = ((b"www-authenticate", b'Basic realm="tablehost metrics"'),) if refused == 401 else ()
            retry = ((b"retry-after", b"60"),) if refused in (429, 503) else ()
            await _answer(send, refused, "a scraper's credentials are needed\n", challenge + retry)
            return
        await (everything if sees_protection(role) else public)(scope, receive, send)

    return Guard(app, policy)


class MetricsServer(WebServer):
    """``/metrics`` on ``listen`` (``HOST:PORT``), in a thread of its own.

    :param registry: what is served to every scraper.
    :param tls: ``(certificate, key)``: required with an address off loopback.
    :param hosts: the names Prometheus reaches it by, besides its address (the Host check).
    :param protection: what is served to surveillance's scraper only (the protection counts).
    :param users_file: the scrapers (``monitoring``, ``surveillance``).
    :param client_ca: the CA of the scrapers' client certificates (mutual TLS): a scrape with one is
        a ``monitoring`` scrape (the protection counts still need a ``surveillance`` user's credentials).
    :raises WebError: a bad address, or one off loopback without TLS, or without a users file or a client CA.
    """

    def __init__(
        self,
        registry: CollectorRegistry,
        listen: str,
        tls: tuple[Path, Path] | None = None,
        hosts: tuple[str, ...] = (),
        *,
        protection: CollectorRegistry | None = None,
        users_file: Path | None = None,
        client_ca: Path | None = None,
    ) -> None:
        host, port = parse_listen(listen)
        needs = (
            (
                "a users file of its scrapers ([metrics] users_file; --metrics-users) or the CA of their "
                "client certificates ([metrics] client_ca; --metrics-client-ca)",
                users_file is not None or (client_ca is not None and tls is not None),
            ),
        )
        check_exposure("metrics", host, tls, needs)
        if client_ca is not None and not client_ca.is_file():
            raise WebError(f"metrics client CA file {client_ca}: no such file")
        scrapers = load_scrapers(users_file)
        app = metrics_app(
            registry,
            Policy.serving(host, hosts),
            protection=protection,
            scrapers=scrapers,
            require_login=not is_loopback(host) and client_ca is None,  # a client certificate is a login
        )
        super().__init__(app, host, port, tls, name="metrics", client_ca=client_ca)
