"""The display's ASGI app (Starlette): the pages, the JSON API, the live stream, the actions.

- ``/``: the dealer display; ``/scoreboard``: the player board (static HTML, CSS and JS);
- ``/api/state``: the dealer display's state; ``/api/scoreboard``: the board's;
- ``/api/roads``: the roads of the shoe in play (Baccarat), as ``tablehost baccarat roads --json``;
- ``/api/stream?view=dealer|scoreboard``: Server-Sent Events, ``id`` = ``<epoch>.<seq>``: the
  journal's epoch and the journal seq of the last record an update comes from; a client that
  reconnects with ``Last-Event-ID`` gets what it missed (or a snapshot, when that is older than
  the backlog or of another journal);
- ``POST /api/action``: ``{"command", "args", "pin"}``: a dealer action (see :mod:`.actions`);
- ``/api/tiles``: the Pai Gow tile kinds; ``/api/house_way?tiles=a,b,c,d``: the house way of
  four tiles (the tile picker's preview).

Every answer is rendered by the hub from the view, which holds only what the table has exposed.
Off loopback the dealer's pages and API need a login: HTTP Basic credentials (the dealer's or
the supervisor's PIN as the password) checked once, which open a session whose signed cookie
carries the page's later requests (:class:`~firmware_host.web.sessions.SessionGate`: a request
with a live session spends no login budget); ``POST /api/logout`` ends it. The scoreboard
stays open.

Every request passes the web layer's :class:`~firmware_host.web.guard.Guard` first (Host,
Origin, ``application/json``, the body's size; any failure answered 400), query parameters
are parsed (:func:`~firmware_host.web.parse.query_value`: a repeated ``view`` is refused),
streams take a :class:`~firmware_host.web.streams.StreamSlots` slot, PINs go through the
lockout (:class:`~firmware_host.web.pins.Credentials`), and refusals are journaled as
summaries (:class:`~firmware_host.web.refusals.Refusals`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from firmware_host.display import pages
from firmware_host.display.actions import ActionError, command_for, needed_role
from firmware_host.display.hub import VIEWS, DisplayHub
from firmware_host.errors import TablehostError
from firmware_host.tables.events import DealerCommand
from firmware_host.text import problem
from firmware_host.web.guard import Guard, Policy, client_of
from firmware_host.web.login import pin_check, refused_answer
from firmware_host.web.parse import BadRequest, parse_json, parse_seq, query_value
from firmware_host.web.pins import Busy, Credentials, Locked
from firmware_host.web.refusals import Refusals
from firmware_host.web.sessions import SessionGate, Sessions
from firmware_host.web.streams import SlotStream, StreamSlots

__all__ = ["build_app", "TileHelp", "STATIC", "KEEPALIVE_S"]

#: The pages' HTML, CSS and JS.
STATIC = Path(__file__).with_name("static")
#: Seconds between SSE comments on an idle stream (keeps proxies and the browser from timing out).
KEEPALIVE_S = 15.0
#: What a browser waits before reconnecting a dropped stream, milliseconds (the SSE ``retry``).
RETRY_MS = 1000
#: The epoch of a Last-Event-ID: the face file's build token, lowercase hex.
_EPOCH = re.compile(r"[0-9a-f]{1,32}")
#: Paths open without credentials off loopback: the player board and what it reads.
PUBLIC = ("/scoreboard", "/static/", "/api/scoreboard", "/api/roads")
#: The display's session cookie (the floor dashboard's is another: a browser may have both).
SESSION_COOKIE = "tablehost_display"
#: Longest action name and tile text read.
MAX_COMMAND, MAX_TILES_TEXT = 32, 32


class TileHelp(Protocol):
    """What the Pai Gow tile picker asks the table."""

    def kinds(self) -> list[dict[str, Any]]:
        """The tile kinds, highest first: ``{"text": "6-6", "name": "Teen"}``."""
        ...

    def house_way(self, text: str) -> dict[str, Any]:
        """The house way of four tiles written ``"a,b,c,d"`` (ValueError if they are not four tiles)."""
        ...


def build_app(
    hub: DisplayHub,
    game: str,
    emit: Callable[[DealerCommand], None],
    credentials: Credentials | None,
    refused: Callable[[dict[str, Any]], None],
    *,
    require_login: bool = False,
    tiles: TileHelp | None = None,
    policy: Policy = Policy().reads_guarded("/api/"),
    streams: StreamSlots | None = None,
    sessions: Sessions | None = None,
) -> Starlette:
    """The app.

    :param emit: where actions go (to the service over its control socket): raises
        :class:`~firmware_host.display.actions.ActionError` when the service refuses the
        arguments, another :class:`~firmware_host.errors.TablehostError` when it cannot take it.
    :param credentials: the PIN files; None: the display shows but takes no action.
    :param refused: journals a refused request, or a minute's summary of an address's
        (:class:`~firmware_host.web.refusals.Refusals`).
    :param require_login: the dealer's pages need HTTP Basic credentials (off loopback).
    :param tiles: the Pai Gow tile picker's help (the kinds, the house way of four tiles).
    :param policy: the Guard's limits (the host names besides the server's address).
    :param streams: the live streams' caps.
    :param sessions: the logins' sessions (a new set, cookies not ``Secure``).
    """
    refusals = Refusals(refused)
    slots = streams or StreamSlots()
    kept = sessions or Sessions(name=SESSION_COOKIE)

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
        view = stream_view(request.scope)
        if view not in VIEWS:
            return JSONResponse({"error": f"view is one of {', '.join(VIEWS)}"}, 400)
        last = parse_event_id(
            request.headers.get("last-event-id") or query_value(request.scope["query_string"], "last_event_id")
        )
        client = client_of(request.scope)
        slots.take(client)
        return SlotStream(_events(hub, view, last), lambda: slots.give_back(client))

    async def action(request: Request) -> Response:
        client = client_of(request.scope)
        body = parse_json(await request.body())
        if not isinstance(body, dict):
            return JSONResponse({"error": "the body is a JSON object"}, 400)
        command, pin = body.get("command", ""), body.get("pin", "")
        if (
            not isinstance(command, str)
            or not isinstance(pin, str)
            or problem(command, MAX_COMMAND)
            or problem(pin, 256)
        ):
            return JSONResponse({"error": "command and pin are texts"}, 400)  # within the text policy
        if credentials is None:
            return JSONResponse({"error": "no PIN files are configured: this display takes no action"}, 403)
        # Only acknowledging reads the devices (a changed identity needs the supervisor): a flood pays no parse.
        devices = json.loads(hub.snapshot.state).get("devices", {}) if command == "acknowledge" else {}
        try:
            needed = needed_role(game, command, devices)
            command_for(game, command, body.get("args"), needed)  # the arguments, before any PIN is hashed
            # a dealer at a screen with a live session is never held to the global budget
            session = kept.get(request.cookies.get(kept.name))
            role = await credentials.role(pin, client, exempt=session is not None)
        except ActionError as exc:
            refusals.note(client, "arguments refused", command)  # journaled with the other refusals, a minute's summary
            return JSONResponse({"error": str(exc)}, 400)
        except (Locked, Busy) as exc:
            return refused_answer(refusals, client, exc, command)
        if role is None or not credentials.allows(role, needed):
            why = "wrong PIN" if role is None else f"needs the {needed}'s PIN"
            refusals.note(client, why, command)
            return JSONResponse({"error": f"refused: {why}"}, 403)
        try:  # to the service, which checks it again and journals it (off the event loop: a socket's round trip)
            await asyncio.to_thread(emit, command_for(game, command, body.get("args"), role))
        except ActionError as exc:
            refusals.note(client, "arguments refused", command)
            return JSONResponse({"error": str(exc)}, 400)
        except TablehostError as exc:
            return JSONResponse({"error": f"the table cannot take it now: {exc}"}, 503)
        return JSONResponse({"accepted": command, "by": role}, 202)

    async def tile_kinds(request: Request) -> Response:
        if tiles is None:
            return JSONResponse({"error": "this table has no tiles"}, 404)
        return JSONResponse(tiles.kinds())

    async def preview(request: Request) -> Response:
        if tiles is None:
            return JSONResponse({"error": "this table has no tiles"}, 404)
        text = query_value(request.scope["query_string"], "tiles", "") or ""
        if len(text) > MAX_TILES_TEXT:
            return JSONResponse({"error": "tiles: four tiles, e.g. 6-6,4-4,1-5,3-4"}, 400)
        try:
            return JSONResponse(tiles.house_way(text))
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, 400)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        refusals.close()  # the last minute's summaries, written before the journal closes

    routes = [
        Route("/", dealer_page),
        Route("/scoreboard", scoreboard_page),
        Route("/api/state", state),
        Route("/api/scoreboard", scoreboard),
        Route("/api/roads", roads),
        Route("/api/stream", stream),
        Route("/api/action", action, methods=["POST"]),
        Route("/api/tiles", tile_kinds),
        Route("/api/house_way", preview),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(Guard, policy=policy, refused=refusals.note)]
    if require_login:
        check = pin_check(credentials, refusals) if credentials is not None else _no_login
        middleware.append(Middleware(SessionGate, sessions=kept, check=check, is_open=_is_open, needed=_login_needed))
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.refusals, app.state.streams, app.state.credentials = refusals, slots, credentials
    app.state.sessions = kept
    return app


def stream_view(scope: Any) -> str:
    """The view a stream request asks for (``dealer`` when none); a repeated ``view`` is
    :class:`~firmware_host.web.parse.BadRequest`.

    The one reading of the query both the login check and the stream use."""
    return query_value(scope.get("query_string", b""), "view", "dealer") or ""


def _json_text(text: str) -> Response:
    return Response(text, media_type="application/json", headers={"Cache-Control": "no-store"})


def parse_event_id(text: str | None) -> tuple[str, int] | None:
    """``(epoch, seq)`` of the Last-Event-ID a page sends back (:func:`~.hub.event_id`); None when
    absent, or a bare seq (a page of an earlier version: it is sent a snapshot).

    :raises BadRequest: anything else than 1 to 32 lowercase hex digits, a dot, a seq of 1 to 18 digits.
    """
    if text is None or "." not in text:
        parse_seq(text)  # refused unless a bare seq
        return None
    epoch, _, seq = text.partition(".")
    last = parse_seq(seq)
    if last is None or not _EPOCH.fullmatch(epoch):
        raise BadRequest("Last-Event-ID is <epoch>.<seq>: 1 to 32 hex digits, a dot, 1 to 18 digits")
    return epoch, last


async def _events(hub: DisplayHub, view: str, last: tuple[str, int] | None) -> AsyncIterator[bytes]:
    """The SSE body: what the client missed, then every update as it comes, each event encoded
    once by the hub for all streams (a reader that falls
    :data:`~firmware_host.display.hub.CLIENT_QUEUE` updates behind is dropped by the hub)."""
    client = hub.subscribe(view, None, None) if last is None else hub.subscribe(view, last[1], last[0])
    try:
        yield f"retry: {RETRY_MS}\n\n".encode()
        while (updates := await client.next(KEEPALIVE_S)) is not None:
            if not updates:
                yield b": keepalive\n\n"
            for update in updates:  # one at a time: each waits for the socket to take the one before
                yield update.event
    finally:
        hub.unsubscribe(view, client)


def _login_needed(scope: Any) -> Response:
    return Response(
        "the dealer display needs the dealer's or the supervisor's PIN",
        401,
        headers={"WWW-Authenticate": 'Basic realm="tablehost dealer display"'},
    )


async def _no_login(user: str, pin: str, client: str) -> None:
    """No PIN files: no login can succeed."""
    return None


def _is_open(scope: Any) -> bool:
    """Off loopback, the scoreboard (its page, its API, its stream) and the action endpoint (it
    checks its own PIN) need no login; everything else of the dealer's does."""
    path = scope.get("path", "")
    open_path = any(path == p or (p.endswith("/") and path.startswith(p)) for p in PUBLIC)
    is_board_stream = path == "/api/stream" and stream_view(scope) == "scoreboard"
    return open_path or is_board_stream or path == "/api/action"
