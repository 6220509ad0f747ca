"""A login's secret checked through the lockout, the way every face answers it.

:func:`pin_check` (the display: a role's PIN, any user name) and :func:`user_check` (the floor
dashboard: a named user's own secret) make the ``check`` of a face's
:class:`~firmware_host.web.sessions.SessionGate`: the secret checked, a refusal noted
(:class:`~firmware_host.web.refusals.Refusals`), and a locked-out or busy check answered 429 or
503 with ``Retry-After``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.responses import JSONResponse, Response

from firmware_host.web.pins import Busy, Credentials, Locked
from firmware_host.web.refusals import Refusals
from firmware_host.web.sessions import Check
from firmware_host.web.users import USER_NAME, Users

__all__ = ["pin_check", "user_check", "refused_answer"]


def refused_answer(refusals: Refusals, client: str, exc: Locked | Busy, what: str = "login") -> Response:
    """429 (locked out) or 503 (busy) with ``Retry-After``, noted."""
    refusals.note(client, "locked out" if isinstance(exc, Locked) else "busy", what)
    return JSONResponse(
        {"error": str(exc)}, 429 if isinstance(exc, Locked) else 503, headers={"Retry-After": f"{exc.seconds:.0f}"}
    )


async def _checked(
    refusals: Refusals, client: str, role: Callable[[], Awaitable[str | None]], why: str
) -> str | Response | None:
    try:
        found = await role()
    except (Locked, Busy) as exc:
        return refused_answer(refusals, client, exc)
    if found is None:
        refusals.note(client, why, "login")
    return found


def pin_check(credentials: Credentials, refusals: Refusals) -> Check:
    """A role's PIN as the secret (the user name is not checked): ``(role, role)``."""

    async def check(user: str, pin: str, client: str) -> tuple[str, str] | Response | None:
        role = await _checked(refusals, client, lambda: credentials.role(pin, client), "wrong PIN")
        return (role, role) if isinstance(role, str) else role

    return check


def user_check(users: Users, refusals: Refusals) -> Check:
    """A named user's own secret: ``(user, role)``."""

    async def check(user: str, secret: str, client: str) -> tuple[str, str] | Response | None:
        if not USER_NAME.fullmatch(user):
            refusals.note(client, "bad user name", "login")
            return None
        role = await _checked(refusals, client, lambda: users.login(user, secret, client), "wrong secret")
        return (user, role) if isinstance(role, str) else role

    return check
