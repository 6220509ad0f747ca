"""Sessions and named-user lockouts of the web layer (issue 29 item 4, N4): the session's cookie
(signed, expiring, rotated, bounded), the lockout per address and, from an address that never
logged in as the name, the global budget, the same for known and unknown names (the display's sessions: tests/display/test_display_sessions.py)."""

from __future__ import annotations

import base64
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.web.lockout import Locked, Lockout, LockoutPolicy
from firmware_host.web.pins import MAX_FAILURES, PinError
from firmware_host.web.sessions import MAX_SESSIONS, Sessions
from firmware_host.web.users import Users, add_user, read_users
from tests.support.loops import run

ROLES = ("pit", "surveillance")


def test_a_session_ends_when_idle_and_at_its_absolute_limit_whatever_its_use() -> None:
    now = [0.0]
    sessions = Sessions(idle_s=60, absolute_s=600, clock=lambda: now[0])
    cookie = sessions.open("ann", "surveillance")
    for minute in range(1, 10):  # used every 50 s: alive until the absolute limit
        now[0] = minute * 50.0
        assert sessions.get(cookie) is not None
    idle = sessions.open("bob", "pit")
    now[0] += 61
    assert sessions.get(idle) is None  # idle past 60 s
    now[0] = 601
    assert sessions.get(cookie) is None  # 600 s after its login, though used 51 s ago


def test_a_forged_cookie_is_nobody_and_logout_and_rotation_end_a_session() -> None:
    sessions, other = Sessions(), Sessions()
    cookie = sessions.open("ann", "surveillance")
    token, signature = cookie.split(".")
    assert sessions.get(f"{token}.{signature[::-1]}") is None
    assert sessions.get(other.open("ann", "surveillance")) is None  # another process's key
    assert sessions.get("x" * 500) is None and sessions.get("") is None and sessions.get(None) is None
    assert sessions.get(cookie + "=") is None  # hypothesis found it: base64 padding was ignored
    alphabet = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"
    other = alphabet[alphabet.index(cookie[-1]) ^ 1]  # the same bytes, but for the bits base64 ignores
    assert sessions.get(cookie[:-1] + other) is None
    rotated = sessions.open("ann", "surveillance", replacing=cookie)
    assert sessions.get(cookie) is None and sessions.get(rotated) is not None
    sessions.close(rotated)
    assert sessions.get(rotated) is None
    assert "Secure" in Sessions(secure=True).cookie("v") and "Secure" not in sessions.cookie("v")


def test_the_sessions_kept_are_bounded() -> None:
    sessions = Sessions()
    first = sessions.open("ann", "surveillance")
    for n in range(MAX_SESSIONS + 10):
        sessions.open(f"u{n}", "pit")
    assert sessions.count() == MAX_SESSIONS and sessions.get(first) is None


@pytest.fixture
def users(tmp_path: Path) -> Users:
    add_user(tmp_path / "users", "ann", "surveillance", "ann-secret-1", ROLES, n=2**10)
    add_user(tmp_path / "users", "bob", "pit", "bob-secret-2", ROLES, n=2**10)
    return Users(read_users(tmp_path / "users", ROLES), Lockout(LockoutPolicy(budget=20)))


def test_no_stranger_locks_an_officer_out_and_an_unknown_name_is_answered_as_a_known_one(users: Users) -> None:
    async def attempt(name: str, secret: str, client: str) -> str | None:
        try:
            return await users.login(name, secret, client)
        except Locked as exc:
            return exc.why

    async def flood() -> None:
        assert await attempt("ann", "ann-secret-1", "10.0.9.9") == "surveillance"  # her own desk, trusted
        # the reproduction: 6 wrong secrets for ann from 6 addresses, then for nobody: the same answers
        for name, net in (("ann", 0), ("nobody", 1)):
            answers = [await attempt(name, "wrong-secret", f"10.0.{net}.{n}") for n in range(6)]
            assert answers == [None] * 6  # no name is locked, whoever tries it
        assert await attempt("ann", "ann-secret-1", "10.0.2.1") == "surveillance"  # a new address
        # the global budget (20): 8 more, of either name, spend it; then both are refused alike
        answers = [await attempt(("ann", "nobody")[n % 2], "wrong-secret", f"10.0.4.{n}") for n in range(9)]
        assert answers == [None] * 8 + ["too many wrong PINs at this table"]
        assert await attempt("bob", "bob-secret-2", "10.0.5.1") == "too many wrong PINs at this table"
        assert await attempt("nobody", "bob-secret-2", "10.0.5.2") == "too many wrong PINs at this table"
        # ann at her own desk: in, through the flood (and a wrong secret there only counts there)
        assert await attempt("ann", "wrong-secret", "10.0.9.9") is None
        assert await attempt("ann", "ann-secret-1", "10.0.9.9") == "surveillance"

    run(flood())


@pytest.mark.parametrize("name", ["ann", "nobody"])
def test_an_address_is_locked_after_its_failures_whatever_the_name_known_or_not(users: Users, name: str) -> None:
    async def attempt(client: str) -> str | None:
        try:
            return await users.login(name, "wrong-secret", client)
        except Locked as exc:
            return exc.why

    async def flood() -> None:
        answers = [await attempt("10.0.0.1") for _ in range(MAX_FAILURES + 1)]
        assert answers == [None] * MAX_FAILURES + ["too many wrong PINs"]
        assert await attempt("10.0.0.2") is None  # the name is not locked: another address is checked

    run(flood())
    assert users.lockout.checked == MAX_FAILURES + 1


def test_the_trusted_addresses_are_bounded_the_least_recently_used_forgotten(users: Users) -> None:
    users.lockout = Lockout(LockoutPolicy(budget=1, max_addresses=2))

    async def flood() -> None:
        for client in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):  # the first pair is forgotten
            assert await users.login("ann", "ann-secret-1", client) == "surveillance"
        assert await users.login("nobody", "wrong-secret", "10.0.1.1") is None  # the budget, spent
        for client in ("10.0.0.2", "10.0.0.3"):
            assert await users.login("ann", "ann-secret-1", client) == "surveillance"
        with pytest.raises(Locked, match="at this table"):
            await users.login("ann", "ann-secret-1", "10.0.0.1")

    run(flood())


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200).map(lambda b: b.decode("latin-1"))))
def test_any_cookie_is_nobody_unless_this_process_signed_it(cookie: str) -> None:
    sessions = Sessions()
    assert sessions.get(cookie) is None
    live = sessions.open("ann", "surveillance")
    assert sessions.get(live + cookie) is None or cookie == ""


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=600))
def test_any_users_file_is_users_or_one_named_refusal(tmp_path_factory: pytest.TempPathFactory, raw: bytes) -> None:
    path = tmp_path_factory.mktemp("users") / "users"
    path.write_bytes(raw)
    try:
        found = read_users(path, ROLES)
    except PinError as exc:
        assert str(exc).startswith(f"users file {path}") and "\n" not in str(exc)
    else:
        assert all(user.role in ROLES for user in found.values())


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_basic_header_is_a_pair_or_nothing(text: str) -> None:
    from firmware_host.web.sessions import _basic

    header = "Basic " + base64.b64encode(text.encode("utf-8", "surrogatepass")).decode()
    found = _basic(header)
    assert found is None or ":".join(found) == text
    _basic("Basic " + text)  # any text after the scheme: a pair or None, never an exception
