"""The display's ASGI app (Starlette): the pages, the JSON API, the live stream, the actions.

- ``/``: the dealer display; ``/scoreboard``: the player board (static HTML, CSS and JS);
- ``/api/state``: the dealer display's state; ``/api/scoreboard``: the board's;
- ``/api/roads``: the roads of the shoe in play (Baccarat), as ``tablehost baccarat roads --json``;
- ``/api/stream?view=dealer|scoreboard``: Server-Sent Events, ``id`` = the journal seq of the
  last record an update comes from; a client that reconnects with ``Last-Event-ID`` gets what
  it missed (or a snapshot, when that is older than the backlog);
- ``POST /api/action``: ``{"command", "args", "pin"}``: a dealer action (see :mod:`.actions`);
- ``/api/tiles``: the Pai Gow tile kinds; ``/api/house_way?tiles=a,b,c,d``: the house way of
  four tiles (the tile picker's preview).

Every answer is rendered by the hub from the view, which holds only what the table has exposed.
Off loopback the dealer's pages and API need HTTP Basic credentials (the dealer's or the
supervisor's PIN as the password); the scoreboard stays open.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable, Protocol

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from drivers.events import DeviceEvent
from firmware_host.display.actions import ActionError, command_for, needed_role
from firmware_host.display.hub import VIEWS, DisplayHub
from firmware_host.display import pages
from firmware_host.display.pins import Credentials, Locked

__all__ = ["build_app", "TileHelp", "STATIC", "KEEPALIVE_S"]

log = logging.getLogger("tablehost.display")

#: The pages' HTML, CSS and JS.
STATIC = Path(__file__).with_name("static")
#: Seconds between SSE comments on an idle stream (keeps proxies and the browser from timing out).
KEEPALIVE_S = 15.0
#: What a browser waits before reconnecting a dropped stream, milliseconds (the SSE ``retry``).
RETRY_MS = 1000
#: Paths open without credentials off loopback: the player board and what it reads.
PUBLIC = ("/scoreboard", "/static/", "/api/scoreboard", "/api/roads")


class TileHelp(Protocol):
    """What the Pai Gow tile picker asks the table."""

    def kinds(self) -> list[dict[str, Any]]:
        """The tile kinds, highest first: ``{"text": "6-6", "name": "Teen"}``."""
        ...

    def house_way(self, text: str) -> dict[str, Any]:
        """The house way of four tiles written ``"a,b,c,d"`` (ValueError if they are not four tiles)."""
        ...


def build_app(hub: DisplayHub, game: str, emit: Callable[[DeviceEvent], None], credentials: Credentials | None,
              refused: Callable[[dict[str, Any]], None], *, require_login: bool = False,
              tiles: TileHelp | None = None) -> Starlette:
    """The app.

    :param emit: where actions go (``Service.emit``).
    :param credentials: the PIN files; None: the display shows but takes no action.
    :param refused: journals a refused PIN (``{"command", "client", "why"}``).
    :param require_login: the dealer's pages need HTTP Basic credentials (off loopback).
    :param tiles: the Pai Gow tile picker's help (the kinds, the house way of four tiles).
    """

    async def dealer_page(request: Request) -> Response:
        return HTMLResponse(pages.dealer_page(game))

    async def scoreboard_page(request: Request) -> Response:
        return FileResponse(STATIC / f"{game}-scoreboard.html")

    async def state(request: Request) -> Response:
        return _json_text(hub.snapshot.state)

    async def scoreboard(request: Request) -> Response:
        return _json_text(hub.snapshot.scoreboard)

    async def roads(request: Request) -> Response:
        text = hub.snapshot.roads
        return JSONResponse({"error": "this table has no roads"}, 404) if text is None else _json_text(text)

    async def stream(request: Request) -> Response:
        view = request.query_params.get("view", "dealer")
        if view not in VIEWS:
            return JSONResponse({"error": f"view is one of {', '.join(VIEWS)}"}, 400)
        last = request.headers.get("last-event-id") or request.query_params.get("last_event_id")
        last_seq = int(last) if last and last.isdecimal() else None
        return StreamingResponse(_events(hub, view, last_seq), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def action(request: Request) -> Response:
        client = request.client.host if request.client else "unknown"
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return JSONResponse({"error": "the body is a JSON object"}, 400)
        if not isinstance(body, dict):
            return JSONResponse({"error": "the body is a JSON object"}, 400)
        command, pin = str(body.get("command", "")), str(body.get("pin", ""))
        if credentials is None:
            return JSONResponse({"error": "no PIN files are configured: this display takes no action"}, 403)
        devices = json.loads(hub.snapshot.state).get("devices", {})
        try:
            needed = needed_role(game, command, devices)
            role = await run_in_threadpool(credentials.role, pin, client)
        except ActionError as exc:
            return JSONResponse({"error": str(exc)}, 400)
        except Locked as exc:
            refused({"command": command, "client": client, "why": "locked out"})
            return JSONResponse({"error": str(exc)}, 429, headers={"Retry-After": f"{exc.seconds:.0f}"})
        if role is None or not credentials.allows(role, needed):
            why = "wrong PIN" if role is None else f"needs the {needed}'s PIN"
            log.warning("display: %s refused from %s: %s", command, client, why)
            refused({"command": command, "client": client, "why": why})
            return JSONResponse({"error": f"refused: {why}"}, 403)
        try:
            event = command_for(game, command, body.get("args"), role)
        except ActionError as exc:
            return JSONResponse({"error": str(exc)}, 400)
        emit(event)
        return JSONResponse({"accepted": command, "by": role}, 202)

    async def tile_kinds(request: Request) -> Response:
        if tiles is None:
            return JSONResponse({"error": "this table has no tiles"}, 404)
        return JSONResponse(tiles.kinds())

    async def preview(request: Request) -> Response:
        if tiles is None:
            return JSONResponse({"error": "this table has no tiles"}, 404)
        try:
            return JSONResponse(tiles.house_way(request.query_params.get("tiles", "")))
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, 400)

    routes = [
        Route("/", dealer_page), Route("/scoreboard", scoreboard_page),
        Route("/api/state", state), Route("/api/scoreboard", scoreboard), Route("/api/roads", roads),
        Route("/api/stream", stream), Route("/api/action", action, methods=["POST"]),
        Route("/api/tiles", tile_kinds), Route("/api/house_way", preview),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    if require_login:
        app.add_middleware(_LoginMiddleware, credentials=credentials)  # type: ignore[arg-type]
    return app


def _json_text(text: str) -> Response:
    return Response(text, media_type="application/json", headers={"Cache-Control": "no-store"})


async def _events(hub: DisplayHub, view: str, last_seq: int | None) -> AsyncIterator[str]:
    """The SSE body: what the client missed, then every update as it comes."""
    missed, client = hub.subscribe(view, last_seq)
    try:
        yield f"retry: {RETRY_MS}\n\n"
        for update in missed:
            yield f"id: {update.seq}\ndata: {update.data}\n\n"
        while True:
            try:
                update = await asyncio.wait_for(client.get(), KEEPALIVE_S)
            except asyncio.TimeoutError:
                yield ": keepalive\n\n"
                continue
            if update is None:
                return
            yield f"id: {update.seq}\ndata: {update.data}\n\n"
    finally:
        hub.unsubscribe(view, client)


def _login_needed() -> Response:
    return Response("the dealer display needs the dealer's or the supervisor's PIN", 401,
                    headers={"WWW-Authenticate": 'Basic realm="tablehost dealer display"'})


async def _logged_in(request: Request, credentials: Credentials | None) -> bool:
    """HTTP Basic with a role's PIN as the password (the user name is not checked)."""
    header = request.headers.get("authorization", "")
    if credentials is None or not header.lower().startswith("basic "):
        return False
    try:
        _, _, pin = base64.b64decode(header[6:]).decode().partition(":")
    except (ValueError, UnicodeDecodeError):
        return False
    client = request.client.host if request.client else "unknown"
    try:
        return await run_in_threadpool(credentials.role, pin, client) is not None
    except Locked:
        return False


class _LoginMiddleware:
    """Off loopback: the dealer's pages and API need credentials; the scoreboard does not."""

    def __init__(self, app: Callable[..., Awaitable[None]], credentials: Credentials | None) -> None:
        self.app, self.credentials = app, credentials

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        open_path = any(path == p or (p.endswith("/") and path.startswith(p)) for p in PUBLIC)
        is_board_stream = path == "/api/stream" and b"view=scoreboard" in scope.get("query_string", b"")
        if scope["type"] != "http" or open_path or is_board_stream or path == "/api/action":
            await self.app(scope, receive, send)
            return
        if not await _logged_in(Request(scope, receive), self.credentials):
            await _login_needed()(scope, receive, send)
            return
        await self.app(scope, receive, send)
