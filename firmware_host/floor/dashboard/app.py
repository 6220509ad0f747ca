"""The floor dashboard's ASGI app (Starlette), on the hardened web layer (:mod:`firmware_host.web`).

- ``/``: the floor map; ``/table/<id>``: one table; ``/login``: the login form (static HTML,
  CSS and JS; the roads are drawn by the table display's own ``roads.js``, served as
  ``/shared/roads.js``);
- ``/api/tiles``: every tile; ``/api/stream``: Server-Sent Events, a snapshot of every tile
  first, then one batch of the changed tiles per pass over the store (:mod:`.floor`);
- ``/api/tables/<id>``: a table's drill-down; ``/api/tables/<id>/rounds/<n>``: a round's full
  record, as ``tablehost floor export --rounds`` prints it (without its protection data for
  the pit: :func:`~firmware_host.tables.protection_policy.round_record`);
- ``/api/views`` (surveillance only): the view log, from the floor's store; ``/api/me``: who you
  are; ``POST /api/login``, ``POST /api/logout``: a session begun and ended.

Every request passes the web layer's :class:`~firmware_host.web.guard.Guard` (Host, Origin on
every ``/api/`` request, body, any failure answered 400), then the login
(:class:`~firmware_host.web.sessions.SessionGate`): a named user's own secret (the users file,
:class:`~firmware_host.web.users.Users`, checked through the lockout per address and in all)
opens a session whose cookie carries every later request. Streams take a
:class:`~firmware_host.web.streams.StreamSlots` slot; a user has at most
:data:`MAX_EXPENSIVE` records being read at once (429 beyond); refusals are summed up per
address a minute (:class:`~firmware_host.web.refusals.Refusals`); every view is counted per
user and minute into the floor's store (:mod:`.views`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import re
import threading
import urllib.parse
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from firmware_host.feed.schema import TABLE_ID
from firmware_host.floor.dashboard.floor import Floor, Subscriber
from firmware_host.floor.dashboard.views import ViewLog
from firmware_host.tables.protection_policy import round_record, sees_protection
from firmware_host.web.guard import Guard, Policy, client_of
from firmware_host.web.login import user_check
from firmware_host.web.parse import BadRequest
from firmware_host.web.refusals import Refusals
from firmware_host.web.sessions import SessionGate, Sessions
from firmware_host.web.streams import SlotStream, StreamSlots
from firmware_host.web.users import Users

__all__ = ["build_app", "STATIC", "SHARED", "MAX_EXPENSIVE", "ViewReader", "SESSION_COOKIE"]

#: The dashboard's pages.
STATIC = Path(__file__).with_name("static")
#: The table display's scripts the dashboard reuses (its roads, the pages' start): served as ``/shared/<name>``.
SHARED = {
    name: Path(__file__).resolve().parents[2] / "display" / "static" / name
    for name in ("display.js", "roads.js", "start.js")
}
#: Seconds between SSE comments on an idle stream; the browser's reconnect delay, milliseconds.
KEEPALIVE_S, RETRY_MS = 15.0, 1000
#: The dashboard's session cookie.
SESSION_COOKIE = "tablehost_floor"
#: Expensive requests (a round's record, read from the store) one user may have in flight.
MAX_EXPENSIVE = 2
#: Reads the view log's rows (the store's ``views``), newest first.
ViewReader = Callable[[], list[dict[str, Any]]]
_ROUND = re.compile(r"[0-9]{1,16}")
#: The pages a browser opens: without a session they go to the login form.
_PAGES = re.compile(r"/(table/[^/]*)?")


def build_app(
    floor: Floor,
    users: Users,
    views: ViewLog,
    read_views: ViewReader,
    *,
    policy: Policy = Policy(same_origin_reads=("/api/",)),
    streams: StreamSlots | None = None,
    sessions: Sessions | None = None,
) -> Starlette:
    """The app.

    :param floor: the tables (polled by its own thread).
    :param users: the named users (``pit``, ``surveillance``).
    :param views: where each view is counted (written to the store by the floor's thread).
    :param read_views: the view log's rows (``/api/views``; run in a thread).
    :param policy: the Guard's limits (the host names besides the server's address).
    :param streams: the live streams' caps.
    :param sessions: the logins' sessions (a new set, cookies not ``Secure``).
    """
    refused: collections.deque[dict[str, Any]] = collections.deque(maxlen=256)
    refusals = Refusals(refused.append)  # each summary is a log line of its own, too
    slots = streams or StreamSlots()
    kept = sessions or Sessions(name=SESSION_COOKIE)
    expensive = _InFlight(MAX_EXPENSIVE)
    floor.after_pass.append(views.flush)

    def user(request: Request) -> tuple[str, str]:
        return request.scope["tablehost.user"], request.scope["tablehost.role"]

    def viewed(request: Request, what: str) -> str:
        name, role = user(request)
        views.note(name, role, what)
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

    async def login_page(request: Request) -> Response:
        return FileResponse(STATIC / "login.html", headers={"Cache-Control": "no-store"})

    async def stream(request: Request) -> Response:
        role = viewed(request, "map")
        client = client_of(request.scope)
        cookie = request.scope["tablehost.session"]
        slots.take(client)
        snapshot, subscriber = floor.subscribe(role)
        # a stream open is a session in use: its idle timeout does not run out under a watching officer
        return SlotStream(
            _events(floor, snapshot, subscriber, lambda: kept.get(cookie)), lambda: slots.give_back(client)
        )

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
        role = viewed(request, f"record {table_id} {int(text)}")
        with expensive.slot(user(request)[0]):
            found = await asyncio.to_thread(floor.record, table_id, int(text))
        if found is None:
            return JSONResponse({"error": f"the floor holds no round {int(text)} of table {table_id}"}, 404)
        return Response(
            json.dumps(round_record(found, role), sort_keys=True, ensure_ascii=False) + "\n",
            media_type="application/json",
            headers={"Cache-Control": "no-store"},
        )

    async def view_log(request: Request) -> Response:
        if not sees_protection(viewed(request, "views")):
            return JSONResponse({"error": "the view log is the surveillance room's"}, 403)
        return JSONResponse(await asyncio.to_thread(_flushed, views, read_views), headers={"Cache-Control": "no-store"})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        refusals.close()

    routes = [
        Route("/", map_page),
        Route("/login", login_page),
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
        Middleware(
            SessionGate, sessions=kept, check=user_check(users, refusals), is_open=_is_open, needed=_login_needed
        ),
    ]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.refusals, app.state.refused, app.state.streams, app.state.views = refusals, refused, slots, views
    app.state.sessions = kept
    return app


def _flushed(views: ViewLog, read_views: ViewReader) -> list[dict[str, Any]]:
    """The view log with the views up to now in it (this one among them): in a thread, off the loop."""
    views.flush(force=True)
    return read_views()


class _InFlight:
    """At most ``limit`` expensive requests in flight per user: 429 beyond (issue 29, N9)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def slot(self, user: str) -> Iterator[None]:
        with self._lock:
            if self._open[user] >= self.limit:
                raise BadRequest(f"{self.limit} records are being read for you already: try again", 429)
            self._open[user] += 1
        try:
            yield
        finally:
            with self._lock:
                self._open[user] -= 1
                if self._open[user] <= 0:
                    del self._open[user]


def _is_open(scope: dict[str, Any]) -> bool:
    """The login form and the static files need no login."""
    path = str(scope.get("path", ""))
    return path == "/login" or path.startswith("/static/")


def _table_id(request: Request) -> str:
    table_id = request.path_params["table"]
    if not TABLE_ID.match(table_id):
        raise BadRequest("a table id is 1 to 64 of letters, digits, . _ -")
    return str(table_id)


async def _events(
    floor: Floor, snapshot: str, subscriber: Subscriber, touch: Callable[[], object]
) -> AsyncIterator[str]:
    """The SSE body: every tile, then each batch of changed tiles as it comes; while the reader
    reads, its session is in use (``touch``); once it has ended, the stream ends too."""
    try:
        yield f"retry: {RETRY_MS}\n\ndata: {snapshot}\n\n"
        while True:
            try:
                batch = await asyncio.wait_for(subscriber.queue.get(), KEEPALIVE_S)
            except TimeoutError:
                batch = ": keepalive"
            if batch is None or touch() is None:
                return
            yield f"{batch}\n\n" if batch.startswith(":") else f"data: {batch}\n\n"
    finally:
        floor.unsubscribe(subscriber)


def _login_needed(scope: dict[str, Any]) -> Response:
    """A page without a session goes to the login form; anything else is 401."""
    path = scope.get("path", "")
    if _PAGES.fullmatch(path):
        return RedirectResponse(f"/login?next={urllib.parse.quote(path)}", 303)
    return JSONResponse({"error": "the floor dashboard needs a surveillance or pit login"}, 401)
