"""The floor dashboard's ASGI app (Starlette), on the hardened web layer (:mod:`firmware_host.web`).

- ``/``: the floor map; ``/table/<id>``: one table (static HTML, CSS and JS; the roads are
  drawn by the table display's own ``roads.js``, served as ``/shared/roads.js``);
- ``/api/tiles``: every tile; ``/api/stream``: Server-Sent Events, a snapshot of every tile
  first, then one batch of the changed tiles per pass over the store (:mod:`.floor`);
- ``/api/tables/<id>``: a table's drill-down; ``/api/tables/<id>/rounds/<n>``: a round's full
  record, as ``tablehost floor export --rounds`` prints it;
- ``/api/views`` (surveillance only): the view log's last summaries; ``/api/me``: who you are.

Every request passes the web layer's :class:`~firmware_host.web.guard.Guard` (Host, Origin,
body, any failure answered 400), then the login: HTTP Basic, any user name (1 to 32 of
letters, digits, ``. _ @ -``, recorded in the view log) and a role's PIN as the password,
checked through the web layer's lockout (:class:`~firmware_host.web.pins.Credentials`); a right
login is remembered :data:`LOGIN_TTL_S` seconds. Streams take a
:class:`~firmware_host.web.streams.StreamSlots` slot; refusals are summed up per address a
minute (:class:`~firmware_host.web.refusals.Refusals`); views per user a minute (:mod:`.views`).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import collections
import contextlib
import hashlib
import json
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from firmware_host.feed.schema import TABLE_ID
from firmware_host.floor.dashboard.floor import Floor, Subscriber
from firmware_host.floor.dashboard.tables import SURVEILLANCE
from firmware_host.floor.dashboard.views import ViewLog
from firmware_host.web.guard import Guard, Policy, client_of
from firmware_host.web.login import login_role
from firmware_host.web.parse import BadRequest
from firmware_host.web.pins import Credentials
from firmware_host.web.refusals import Refusals
from firmware_host.web.streams import SlotStream, StreamSlots

__all__ = ["build_app", "STATIC", "SHARED", "LOGIN_TTL_S"]

#: The dashboard's pages.
STATIC = Path(__file__).with_name("static")
#: The table display's scripts the dashboard reuses (its roads, the pages' start): served as ``/shared/<name>``.
SHARED = {
    name: Path(__file__).resolve().parents[2] / "display" / "static" / name
    for name in ("display.js", "roads.js", "start.js")
}
#: Seconds a right login is remembered (no scrypt per request), and how many are.
LOGIN_TTL_S, MAX_LOGINS = 300.0, 64
#: Seconds between SSE comments on an idle stream; the browser's reconnect delay, milliseconds.
KEEPALIVE_S, RETRY_MS = 15.0, 1000
_USER = re.compile(r"[A-Za-z0-9._@-]{1,32}")
_ROUND = re.compile(r"[0-9]{1,16}")


def build_app(
    floor: Floor,
    credentials: Credentials,
    *,
    policy: Policy = Policy(),
    streams: StreamSlots | None = None,
    views: ViewLog | None = None,
) -> Starlette:
    """The app.

    :param floor: the tables (polled by its own thread).
    :param credentials: the roles' PIN files (``pit``, ``surveillance``).
    :param policy: the Guard's limits (the host names besides the server's address).
    :param streams: the live streams' caps.
    :param views: the view log (a new one).
    """
    refused: collections.deque[dict[str, Any]] = collections.deque(maxlen=256)
    refusals = Refusals(refused.append)  # each summary is a log line of its own, too
    slots = streams or StreamSlots()
    viewlog = views or ViewLog()
    floor.after_pass.append(viewlog.flush)

    def user(request: Request) -> tuple[str, str]:
        return request.scope["floor.user"], request.scope["floor.role"]

    def viewed(request: Request, what: str) -> str:
        name, role = user(request)
        viewlog.note(name, role, what)
        return role

    async def map_page(request: Request) -> Response:
        return FileResponse(STATIC / "floor.html", headers={"Cache-Control": "no-store"})

    async def table_page(request: Request) -> Response:
        return FileResponse(STATIC / "table.html", headers={"Cache-Control": "no-store"})

    async def shared(request: Request) -> Response:
        path = SHARED.get(request.path_params["name"])
        return JSONResponse({"error": "no such file"}, 404) if path is None else FileResponse(path)

    async def me(request: Request) -> Response:
        name, role = user(request)
        return JSONResponse({"user": name, "role": role})

    async def tiles(request: Request) -> Response:
        return Response(
            floor.snapshot(viewed(request, "map")), media_type="application/json", headers={"Cache-Control": "no-store"}
        )

    async def stream(request: Request) -> Response:
        role = viewed(request, "map")
        client = client_of(request.scope)
        slots.take(client)
        snapshot, subscriber = floor.subscribe(role)
        return SlotStream(_events(floor, snapshot, subscriber), lambda: slots.give_back(client))

    async def table(request: Request) -> Response:
        table_id = _table_id(request)
        detail = floor.detail(table_id, viewed(request, f"table {table_id}"))
        if detail is None:
            return JSONResponse({"error": f"the floor has no table {table_id}"}, 404)
        return JSONResponse(detail, headers={"Cache-Control": "no-store"})

    async def record(request: Request) -> Response:
        table_id, text = _table_id(request), request.path_params["round"]
        if not _ROUND.fullmatch(text):
            return JSONResponse({"error": "a round is 1 to 16 digits"}, 400)
        viewed(request, f"record {table_id} {int(text)}")
        found = await asyncio.to_thread(floor.record, table_id, int(text))
        if found is None:
            return JSONResponse({"error": f"the floor holds no round {int(text)} of table {table_id}"}, 404)
        return Response(
            json.dumps(found, sort_keys=True, ensure_ascii=False) + "\n",
            media_type="application/json",
            headers={"Cache-Control": "no-store"},
        )

    async def view_log(request: Request) -> Response:
        if viewed(request, "views") != SURVEILLANCE:
            return JSONResponse({"error": "the view log is the surveillance room's"}, 403)
        return JSONResponse(viewlog.recent())

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        viewlog.close()
        refusals.close()

    routes = [
        Route("/", map_page),
        Route("/table/{table}", table_page),
        Route("/shared/{name}", shared),
        Route("/api/me", me),
        Route("/api/tiles", tiles),
        Route("/api/stream", stream),
        Route("/api/tables/{table}", table),
        Route("/api/tables/{table}/rounds/{round}", record),
        Route("/api/views", view_log),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [
        Middleware(Guard, policy=policy, refused=refusals.note),
        Middleware(_Login, credentials=credentials, refusals=refusals),
    ]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.refusals, app.state.refused, app.state.streams, app.state.views = refusals, refused, slots, viewlog
    return app


def _table_id(request: Request) -> str:
    table_id = request.path_params["table"]
    if not TABLE_ID.match(table_id):
        raise BadRequest("a table id is 1 to 64 of letters, digits, . _ -")
    return str(table_id)


async def _events(floor: Floor, snapshot: str, subscriber: Subscriber) -> AsyncIterator[str]:
    """The SSE body: every tile, then each batch of changed tiles as it comes."""
    try:
        yield f"retry: {RETRY_MS}\n\ndata: {snapshot}\n\n"
        while True:
            try:
                batch = await asyncio.wait_for(subscriber.queue.get(), KEEPALIVE_S)
            except TimeoutError:
                yield ": keepalive\n\n"
                continue
            if batch is None:
                return
            yield f"data: {batch}\n\n"
    finally:
        floor.unsubscribe(subscriber)


def _login_needed() -> Response:
    return Response(
        "the floor dashboard needs a surveillance or pit login",
        401,
        headers={"WWW-Authenticate": 'Basic realm="tablehost floor"'},
    )


class _Login:
    """Every path needs a login: the role decides what is shown (``scope["floor.role"]``)."""

    def __init__(self, app: Callable[..., Awaitable[None]], credentials: Credentials, refusals: Refusals) -> None:
        self.app, self.credentials, self.refusals = app, credentials, refusals
        self.logins: collections.OrderedDict[bytes, tuple[float, str, str]] = collections.OrderedDict()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        answer = await self._login(scope) if scope["type"] == "http" else None
        await (answer or self.app)(scope, receive, send)

    async def _login(self, scope: dict[str, Any]) -> Response | None:
        """None when the request carries a role's PIN (and sets the user and role); else the answer."""
        header = Request(scope).headers.get("authorization", "")
        if header[:6].lower() != "basic ":
            return _login_needed()
        key = hashlib.sha256(header.encode("utf-8", "replace")).digest()
        known = self.logins.get(key)
        if known is not None and known[0] >= time.monotonic():
            scope["floor.user"], scope["floor.role"] = known[1], known[2]
            return None
        try:
            name, _, pin = base64.b64decode(header[6:], validate=True).decode().partition(":")
        except (ValueError, binascii.Error, UnicodeDecodeError):
            return _login_needed()
        if not _USER.fullmatch(name):
            return _login_needed()
        role = await login_role(self.credentials, self.refusals, pin, client_of(scope))
        if not isinstance(role, str):
            return role or _login_needed()
        self.logins[key] = (time.monotonic() + LOGIN_TTL_S, name, role)
        while len(self.logins) > MAX_LOGINS:
            self.logins.popitem(last=False)
        scope["floor.user"], scope["floor.role"] = name, role
        return None
