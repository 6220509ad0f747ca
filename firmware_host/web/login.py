"""A login's PIN checked through the lockout, the way every face answers it (HTTP Basic).

:func:`login_role` is the part the display's and the floor dashboard's logins share: the PIN
checked (:meth:`~firmware_host.web.pins.Credentials.role`), a refusal noted
(:class:`~firmware_host.web.refusals.Refusals`), and a locked-out or busy check answered 429 or
503 with ``Retry-After``.
"""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from firmware_host.web.pins import Busy, Credentials, Locked
from firmware_host.web.refusals import Refusals

__all__ = ["login_role"]


async def login_role(credentials: Credentials, refusals: Refusals, pin: str, client: str) -> str | Response | None:
    """The role ``pin`` is the PIN of; None for a wrong PIN (noted); the answer when the check is refused."""
    try:
        role = await credentials.role(pin, client)
    except (Locked, Busy) as exc:
        refusals.note(client, "locked out" if isinstance(exc, Locked) else "busy", "login")
        return JSONResponse(
            {"error": str(exc)}, 429 if isinstance(exc, Locked) else 503, headers={"Retry-After": f"{exc.seconds:.0f}"}
        )
    if role is None:
        refusals.note(client, "wrong PIN", "login")
    return role
