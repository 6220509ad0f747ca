"""The display keeps its dealer's and supervisor's PINs but gets the floor's session design
(issue 29 item 4): a login opens a signed session whose cookie a flood of wrong PINs from
elsewhere never locks out, on the real uvicorn."""

from __future__ import annotations

import base64
from collections.abc import Callable

import httpx2

from firmware_host.display.app import SESSION_COOKIE as COOKIE
from firmware_host.web.lockout import LockoutPolicy
from tests.display.conftest import DEALER_PIN, Served


def test_a_display_login_opens_a_session_that_a_flood_from_elsewhere_never_locks_out(
    serve: Callable[..., Served],
) -> None:
    served = serve(require_login=True, lockout=LockoutPolicy(budget=6))
    auth = {"Authorization": "Basic " + base64.b64encode(f"dealer:{DEALER_PIN}".encode()).decode()}
    transport = httpx2.HTTPTransport(local_address="127.0.0.2")
    with httpx2.Client(transport=transport, timeout=10) as screen:
        first = screen.get(served.url + "/api/state", headers=auth)
        assert first.status_code == 200
        assert "HttpOnly" in first.headers["set-cookie"] and "SameSite=Strict" in first.headers["set-cookie"]
        session = {"Cookie": f"{COOKIE}={first.cookies[COOKIE]}"}
        for index in range(3, 15):  # wrong PINs from 12 addresses: the global budget is spent
            with httpx2.Client(transport=httpx2.HTTPTransport(local_address=f"127.0.0.{index}"), timeout=10) as other:
                other.get(
                    served.url + "/api/state",
                    headers={"Authorization": "Basic " + base64.b64encode(b"x:0000").decode()},
                )
        assert screen.get(served.url + "/api/state", headers=session).status_code == 200  # no PIN asked
        # an action's PIN sent with the session is held to its address's count only, not the spent budget
        answer = screen.post(served.url + "/api/action", json={"command": "reveal", "pin": DEALER_PIN}, headers=session)
        assert answer.status_code == 202
        without = httpx2.Client(transport=httpx2.HTTPTransport(local_address="127.0.0.40"), timeout=10)
        with without:
            other = {"Authorization": "Basic " + base64.b64encode(f"relief:{DEALER_PIN}".encode()).decode()}
            assert without.get(served.url + "/api/state", headers=other).status_code == 429  # a new login: budget spent
        assert screen.post(served.url + "/api/logout", json={}, headers=session).status_code == 204
        assert screen.get(served.url + "/api/state", headers=session).status_code == 401
