"""Sessions: a login once, then a signed cookie, so a logged-in officer is never asked again
(and never locked out by failures elsewhere) while the session lasts.

:class:`Sessions` keeps the sessions in memory (bounded: :data:`MAX_SESSIONS`, the least recently
used dropped first) and gives each a cookie ``<id>.<HMAC-SHA256 of the id>``: the id is 16 random
bytes, the key 32 random bytes of this process (a restart asks everyone to log in again), the
compare constant-time. A session ends after :data:`IDLE_S` without a request, or
:data:`ABSOLUTE_S` after its login, or at logout (OWASP's session management cheat sheet: idle
and absolute timeouts, a new id at each login, a logout that ends it on the server). The cookie
is ``HttpOnly; SameSite=Strict; Path=/`` and ``Secure`` when the face serves TLS.

:class:`SessionGate` is the ASGI middleware of a face's logins: a request with a valid session
passes at once (no secret checked, no budget spent); HTTP Basic credentials are checked once
(the face's ``check``) and open a session whose cookie the answer carries; ``POST <login_path>``
with ``{"user", "secret"}`` does the same for a page's login form, and ``POST <logout_path>``
ends the session.
"""

from __future__ import annotations

import base64
import binascii
import collections
import dataclasses
import hashlib
import hmac
import json
import secrets
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from firmware_host.web.guard import client_of
from firmware_host.web.parse import BadRequest, parse_json

__all__ = ["Session", "Sessions", "SessionGate", "IDLE_S", "ABSOLUTE_S", "MAX_SESSIONS", "COOKIE", "Check"]

#: Seconds without a request before a session ends; seconds after its login, whatever happens.
IDLE_S, ABSOLUTE_S = 30 * 60.0, 12 * 3600.0
#: Sessions kept at once (the least recently used is dropped first).
MAX_SESSIONS = 1024
#: The cookie's name (a face names its own: cookies are not kept apart by port).
COOKIE = "tablehost_session"

#: Checks a login's ``(user, secret, client)``: the ``(user, role)``, None (wrong), or the answer
#: to give (429 locked out, 503 busy).
Check = Callable[[str, str, str], Awaitable["tuple[str, str] | Response | None"]]


@dataclasses.dataclass
class Session:
    """One login: who, their role, when it began and when it was last used (monotonic seconds)."""

    user: str
    role: str
    began: float
    used: float


class Sessions:
    """The sessions of one face.

    :param secure: the cookie is ``Secure`` (the face serves TLS).
    :param name: the cookie's name.
    :param clock: monotonic seconds (tests step it).
    """

    def __init__(
        self,
        secure: bool = False,
        idle_s: float = IDLE_S,
        absolute_s: float = ABSOLUTE_S,
        clock: Callable[[], float] = time.monotonic,
        name: str = COOKIE,
    ) -> None:
        self.secure, self.idle_s, self.absolute_s, self.clock = secure, idle_s, absolute_s, clock
        self.name = name
        self._key = secrets.token_bytes(32)
        self._open: collections.OrderedDict[bytes, Session] = collections.OrderedDict()
        self._lock = threading.Lock()

    def open(self, user: str, role: str, replacing: str | None = None) -> str:
        """A new session (a new id: the one ``replacing`` names ends); its cookie value."""
        now = self.clock()
        token = secrets.token_bytes(16)
        with self._lock:
            if replacing is not None and (old := self._id(replacing)) is not None:
                self._open.pop(old, None)
            self._open[token] = Session(user, role, now, now)
            while len(self._open) > MAX_SESSIONS:
                self._open.popitem(last=False)
        return f"{_b64(token)}.{_b64(self._sign(token))}"

    def get(self, cookie: str | None) -> Session | None:
        """The live session ``cookie`` names (and it is used now), or None."""
        token = self._id(cookie) if cookie else None
        if token is None:
            return None
        now = self.clock()
        with self._lock:
            session = self._open.get(token)
            if session is None:
                return None
            if now - session.used > self.idle_s or now - session.began > self.absolute_s:
                del self._open[token]
                return None
            session.used = now
            self._open.move_to_end(token)
            return session

    def close(self, cookie: str | None) -> None:
        """End the session ``cookie`` names (logout)."""
        token = self._id(cookie) if cookie else None
        with self._lock:
            if token is not None:
                self._open.pop(token, None)

    def count(self) -> int:
        """Sessions kept now."""
        with self._lock:
            return len(self._open)

    def cookie(self, value: str) -> str:
        """The ``Set-Cookie`` header of a session (empty ``value``: the cookie cleared)."""
        age = int(self.absolute_s) if value else 0
        return f"{self.name}={value}; Path=/; Max-Age={age}; HttpOnly; SameSite=Strict" + (
            "; Secure" if self.secure else ""
        )

    def _sign(self, token: bytes) -> bytes:
        return hmac.new(self._key, token, hashlib.sha256).digest()

    def _id(self, cookie: str) -> bytes | None:
        """The session id of a cookie value whose signature is right."""
        token_text, _, signature_text = cookie.partition(".")
        try:
            token, signature = _unb64(token_text), _unb64(signature_text)
        except (ValueError, binascii.Error):
            return None
        if len(token) != 16 or not hmac.compare_digest(signature, self._sign(token)):
            return None
        if _b64(token) != token_text or _b64(signature) != signature_text:
            return None  # one spelling of a cookie only: no padding, no ignored trailing bits
        return token


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    if len(text) > 64:
        raise ValueError("too long")
    return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)  # nothing ignored


def _basic(header: str) -> tuple[str, str] | None:
    try:
        name, sep, secret = base64.b64decode(header[6:], validate=True).decode().partition(":")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    return (name, secret) if sep else None


class SessionGate:
    """A face's logins (ASGI middleware): sets ``scope["tablehost.user"]``, ``["tablehost.role"]``
    and ``["tablehost.session"]`` (the cookie value) for the app, or answers itself.

    :param sessions: the face's sessions.
    :param check: checks a login's user and secret (through the face's lockout).
    :param is_open: paths served without a login (what the gate passes unchanged).
    :param needed: the answer to a request without a login (401, or a page's redirect to its login).
    """

    def __init__(
        self,
        app: Callable[..., Awaitable[None]],
        sessions: Sessions,
        check: Check,
        is_open: Callable[[dict[str, Any]], bool],
        needed: Callable[[dict[str, Any]], Response],
        login_path: str = "/api/login",
        logout_path: str = "/api/logout",
    ) -> None:
        self.app, self.sessions, self.check, self.is_open, self.needed = app, sessions, check, is_open, needed
        self.login_path, self.logout_path = login_path, logout_path
        #: HTTP Basic headers already checked, by their SHA-256: the session each opened (a client
        #: that keeps no cookie costs one check a session, not one a request).
        self._basic: collections.OrderedDict[bytes, str] = collections.OrderedDict()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        cookie = request.cookies.get(self.sessions.name)
        path, method = scope.get("path", ""), scope.get("method", "GET")
        if path == self.login_path and method == "POST":
            await (await self._form_login(request, cookie))(scope, receive, send)
            return
        if path == self.logout_path and method == "POST":
            self.sessions.close(cookie)
            await Response(status_code=204, headers={"Set-Cookie": self.sessions.cookie("")})(scope, receive, send)
            return
        session = self.sessions.get(cookie)
        if session is not None:  # a live session: nothing checked, no budget spent
            self._enter(scope, session.user, session.role, cookie or "")
            await self.app(scope, receive, send)
            return
        if self.is_open(scope):
            await self.app(scope, receive, send)
            return
        header = request.headers.get("authorization", "")
        found = _basic(header) if header[:6].lower() == "basic " else None
        if found is None:
            await self.needed(scope)(scope, receive, send)
            return
        key = hashlib.sha256(header.encode("utf-8", "replace")).digest()
        known = self.sessions.get(self._basic.get(key))
        if known is not None:
            self._enter(scope, known.user, known.role, self._basic[key])
            await self.app(scope, receive, send)
            return
        answer = await self.check(found[0], found[1], client_of(scope))
        if not isinstance(answer, tuple):
            await (answer or self.needed(scope))(scope, receive, send)
            return
        value = self.sessions.open(*answer, replacing=cookie)
        self._basic[key] = value
        while len(self._basic) > MAX_SESSIONS:
            self._basic.popitem(last=False)
        self._enter(scope, *answer, value)

        async def with_cookie(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", []).append((b"set-cookie", self.sessions.cookie(value).encode()))
            await send(message)

        await self.app(scope, receive, with_cookie)

    async def _form_login(self, request: Request, cookie: str | None) -> Response:
        """``POST {"user", "secret"}``: 204 and a new session's cookie, or why not."""
        try:
            body = parse_json(await request.body())
        except BadRequest as exc:
            return JSONResponse({"error": exc.reason}, exc.status)
        if (
            not isinstance(body, dict)
            or not isinstance(body.get("user"), str)
            or not isinstance(body.get("secret"), str)
        ):
            return JSONResponse({"error": 'the body is {"user": text, "secret": text}'}, 400)
        answer = await self.check(body["user"], body["secret"], client_of(request.scope))
        if not isinstance(answer, tuple):
            return answer or JSONResponse({"error": "wrong user or secret"}, 401)
        value = self.sessions.open(*answer, replacing=cookie)
        return Response(
            json.dumps({"user": answer[0], "role": answer[1]}),
            200,
            media_type="application/json",
            headers={"Set-Cookie": self.sessions.cookie(value), "Cache-Control": "no-store"},
        )

    @staticmethod
    def _enter(scope: dict[str, Any], user: str, role: str, cookie: str) -> None:
        scope["tablehost.user"], scope["tablehost.role"], scope["tablehost.session"] = user, role, cookie
