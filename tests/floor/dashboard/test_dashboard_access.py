"""Issue 29 items 3 to 5 on the floor dashboard, against the real uvicorn and the real stores:
protection data for surveillance alone on every route and stream, named users and sessions that
failures elsewhere never lock out, views kept in the store, cross-site reads refused,
expensive requests capped per user, and a table's state bounded."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bench.floor.tables import FloorDb, floor_export
from firmware_host.floor.dashboard.serve import Dashboard
from firmware_host.floor.dashboard.tables import LIMITS, TableWatch
from firmware_host.floor.store import FloorStore
from firmware_host.web.lockout import Locked
from firmware_host.web.users import read_users
from tests.floor.dashboard.support import (
    PIT_SECRET,
    SURVEILLANCE_SECRET,
    basic,
    get,
    messages_of,
    protection_messages,
    serving,
    store_messages,
    users_dir,
)
from tests.support import loops
from tests.support.paths import REPO

#: What the pit must never read, in any answer (541.x game protection is surveillance's: docs/protection.md).
PROTECTION_WORDS = ('"odds"', '"ev"', "advantage-window", "advantage-play")


def _call(
    url: str, path: str, method: str = "GET", headers: dict[str, str] | None = None, body: Any = None
) -> tuple[int, dict[str, str], str]:
    """One request, without following redirects: (status, headers lower-cased, body text)."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    sent = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    try:
        connection.request(method, path, body=data, headers=sent)
        answer = connection.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read().decode()
    finally:
        connection.close()


def _first_stream_message(url: str, headers: dict[str, str]) -> str:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        connection.request("GET", "/api/stream", headers=headers)
        answer = connection.getresponse()
        assert answer.status == 200
        while not (line := answer.readline().decode()).startswith("data: "):
            pass
        return line
    finally:
        connection.close()


def test_protection_data_reaches_surveillance_alone_on_every_route_and_stream(tmp_path: Path, journal: Path) -> None:
    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(journal, "BAC-01") + protection_messages("BAC-07"))
    exported = [json.loads(line) for line in floor_export(db, "BAC-01").splitlines()]
    assert exported[6]["odds"]["ev"]  # the table's odds are in the store
    with serving(db, tmp_path) as served:
        routes = ("/api/tiles", "/api/tables/BAC-01", "/api/tables/BAC-07", "/api/tables/BAC-01/rounds/7")
        for user, secret, sees in (("bob", PIT_SECRET, False), ("ann", SURVEILLANCE_SECRET, True)):
            answers = {path: _call(served.url, path, headers=basic(user, secret)) for path in routes}
            answers["/api/stream"] = (200, {}, _first_stream_message(served.url, basic(user, secret)))
            answers["/api/views"] = _call(served.url, "/api/views", headers=basic(user, secret))
            for path, (status, _, text) in answers.items():
                if path == "/api/views":
                    assert status == (200 if sees else 403), (user, path)
                    continue
                assert status == 200, (user, path)
                shown = [word for word in PROTECTION_WORDS if word in text]
                assert bool(shown) == (sees and path != "/api/tables/BAC-01"), (user, path, shown)
            record = json.loads(answers["/api/tables/BAC-01/rounds/7"][2])
            detail = json.loads(answers["/api/tables/BAC-01"][2])
            theos = [line["theo"] for line in record["settlement"]]
            if sees:  # N3: the record is floor export's, odds and all
                assert record == exported[6] and all(t is not None for t in theos)
                assert detail["figures"]["shoe"]["theo"] is not None
            else:  # the pit: no odds, no theo computed from them (a theo gives the EV back)
                assert "odds" not in record and theos and all(t is None for t in theos)
                assert {k: v for k, v in record.items() if k != "settlement"} == {
                    k: v for k, v in exported[6].items() if k not in ("odds", "settlement")
                }
                assert detail["figures"]["shoe"]["theo"] is None and detail["figures"]["day"]["theo"] is None
                assert all(r["theo"] is None for r in detail["rounds"])
                assert detail["figures"]["shoe"]["drop"] > 0  # the pit's own figures stay


def test_a_login_opens_a_signed_httponly_strict_session_that_logout_ends(tmp_path: Path) -> None:
    db = tmp_path / "floor.sqlite"
    with serving(db, tmp_path) as served:
        status, _, _ = _call(served.url, "/api/login", "POST", body={"user": "ann", "secret": "wrong-secret"})
        assert status == 401
        status, headers, text = _call(
            served.url, "/api/login", "POST", body={"user": "ann", "secret": SURVEILLANCE_SECRET}
        )
        assert status == 200 and json.loads(text) == {"user": "ann", "role": "surveillance"}
        cookie = headers["set-cookie"]
        for attribute in ("HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"):
            assert attribute in cookie
        assert "Secure" not in cookie  # no TLS here; with TLS it is (tests/web/test_web_sessions.py)
        session = {"Cookie": cookie.split(";")[0]}
        assert _call(served.url, "/api/me", headers=session)[0] == 200
        value = session["Cookie"].split("=", 1)[1]
        forged = {"Cookie": f"tablehost_floor={value[:-2]}{'AA' if value[-2:] != 'AA' else 'BB'}"}
        assert _call(served.url, "/api/me", headers=forged)[0] == 401
        # rotated at login: a new login with the old cookie ends the old session
        _, headers, _ = _call(
            served.url, "/api/login", "POST", headers=session, body={"user": "ann", "secret": SURVEILLANCE_SECRET}
        )
        assert _call(served.url, "/api/me", headers=session)[0] == 401
        session = {"Cookie": headers["set-cookie"].split(";")[0]}
        status, headers, _ = _call(served.url, "/api/logout", "POST", headers=session, body={})
        assert status == 204 and "Max-Age=0" in headers["set-cookie"]
        assert _call(served.url, "/api/me", headers=session)[0] == 401
        status, headers, _ = _call(served.url, "/", headers={})
        assert status == 303 and headers["location"] == "/login?next=/"


def test_failures_elsewhere_never_lock_out_a_session_and_spend_no_one_elses_login(tmp_path: Path) -> None:
    db = tmp_path / "floor.sqlite"
    with serving(db, tmp_path) as served:
        url = served.dashboard.url
        _, headers, _ = _call(url, "/api/login", "POST", body={"user": "ann", "secret": SURVEILLANCE_SECRET})
        session = {"Cookie": headers["set-cookie"].split(";")[0]}
        users = served.dashboard.users

        async def flood() -> Counter[str]:
            """N4: 30 wrong secrets naming ann and 30 naming nobody, each from an address of its own."""
            outcomes: Counter[str] = Counter()
            for n in range(30):
                for name in ("ann", f"nobody{n}"):
                    try:
                        outcomes[f"{name[:3]} {await users.login(name, 'wrong-secret', f'10.0.{n}.{len(name)}')}"] += 1
                    except Locked:
                        outcomes[f"{name[:3]} locked"] += 1
            return outcomes

        outcomes = loops.run(flood())
        # a known and an unknown name spend the global budget alike (20), then are refused alike
        assert outcomes == {"ann None": 10, "ann locked": 20, "nob None": 10, "nob locked": 20}
        # the session: never asked again, never locked out, its stream opens
        assert _call(url, "/api/me", headers=session)[0] == 200
        assert _call(url, "/api/tiles", headers=session)[0] == 200
        assert _first_stream_message(url, session).startswith("data: ")
        # no name is locked: ann and bob log in again (the Pi's own address here, never held back)
        assert _call(url, "/api/me", headers=basic("ann", SURVEILLANCE_SECRET))[0] == 200
        assert _call(url, "/api/me", headers=basic("bob", PIT_SECRET))[0] == 200
        # a new address is held back for the minute, known name or unknown alike
        for name in ("bob", "nobody-else"):
            with pytest.raises(Locked):
                loops.run(users.login(name, "wrong-secret", "10.9.9.9"))


def test_cross_site_reads_are_refused_and_navigation_is_not(tmp_path: Path) -> None:
    db = tmp_path / "floor.sqlite"
    with serving(db, tmp_path) as served:
        auth = basic("ann", SURVEILLANCE_SECRET)
        assert _call(served.url, "/api/tiles", headers=auth)[0] == 200
        for refused in (
            {"Sec-Fetch-Site": "cross-site"},
            {"Sec-Fetch-Site": "same-site"},
            {"Origin": "http://evil.example"},
            {"Origin": "null"},
        ):
            status, _, text = _call(served.url, "/api/tiles", headers={**auth, **refused})
            assert status == 403 and ("cross-site" in text or "Origin" in text), refused
        assert _call(served.url, "/api/tiles", headers={**auth, "Sec-Fetch-Site": "same-origin"})[0] == 200
        assert _call(served.url, "/", headers={**auth, "Sec-Fetch-Site": "cross-site"})[0] == 200  # a link to the map


def test_records_in_flight_are_capped_per_user(tmp_path: Path, journal: Path) -> None:
    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(journal, "BAC-01"))
    with serving(db, tmp_path) as served:
        release = threading.Event()
        reading = served.dashboard.floor.record

        def slow(table: str, number: int) -> Any:
            release.wait(10)
            return reading(table, number)

        served.dashboard.floor.record = slow  # type: ignore[method-assign]
        statuses: list[int] = []
        threads = [
            threading.Thread(
                target=lambda: statuses.append(
                    _call(served.url, "/api/tables/BAC-01/rounds/3", headers=basic("ann", SURVEILLANCE_SECRET))[0]
                )
            )
            for _ in range(3)
        ]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 10
        while 429 not in statuses and time.monotonic() < deadline:
            time.sleep(0.05)
        other = _call(served.url, "/api/tables/BAC-01", headers=basic("bob", PIT_SECRET))[0]  # another user: served
        release.set()
        for thread in threads:
            thread.join()
        assert sorted(statuses) == [200, 200, 429] and other == 200


def test_views_are_kept_in_the_store_per_user_and_read_by_floor_views(floor_db: FloorDb) -> None:
    store = floor_db.open()
    store.close()
    dashboard = Dashboard(
        "127.0.0.1:0",
        lambda: floor_db.open(read_only=True),
        users_dir(floor_db.directory),
        open_writer=floor_db.open,
        poll_s=0.2,
    )
    dashboard.start()
    try:
        dashboard.floor.ready.wait(30)
        for _ in range(50):
            assert get(dashboard.url + "/api/tiles", user="bob", secret=PIT_SECRET)[0] == 200
        get(dashboard.url + "/api/tables/NOPE")
        status, rows = get(dashboard.url + "/api/views")  # surveillance's, read from the store
        assert status == 200
    finally:
        dashboard.stop()
    assert {(r["user"], r["what"], r["count"]) for r in rows} >= {("bob", "map", 50), ("ann", "table NOPE", 1)}
    store = floor_db.open(read_only=True)
    try:
        kept = store.views()
    finally:
        store.close()
    assert sum(r["count"] for r in kept if r["user"] == "bob") == 50
    assert len([r for r in kept if r["user"] == "bob"]) <= 2  # one row per minute (the run may cross one)
    done = subprocess.run(
        [sys.executable, "-m", "firmware_host", "floor", "views", *floor_db.args(), "--user", "bob", "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert sum(json.loads(line)["count"] for line in done.stdout.splitlines()) == 50


def test_the_users_file_is_written_by_floor_user_and_holds_no_secret(tmp_path: Path) -> None:
    def floor_user(*argv: str, secret: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "firmware_host", "floor", "user", *argv, "--http-dir", str(tmp_path)],
            input=secret + "\n",
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=60,
        )

    assert floor_user("add", "dana", "--role", "surveillance", secret="dana-secret-1").returncode == 0
    assert floor_user("add", "eli", "--role", "pit", secret="eli-secret-22").returncode == 0
    users = tmp_path / "users"
    assert os.stat(users).st_mode & 0o777 == 0o600 and not (tmp_path / "users.new").exists()
    text = users.read_text()
    assert "dana-secret-1" not in text and text.count("scrypt$") == 2
    found = read_users(users, ("pit", "surveillance"))
    assert {u.name: u.role for u in found.values()} == {"dana": "surveillance", "eli": "pit"}
    assert found["dana"].stored.split("$")[4] != found["eli"].stored.split("$")[4]  # a salt per user
    assert floor_user("list").stdout.splitlines() == ["dana surveillance", "eli pit"]
    for bad in (("add", "bad name", "--role", "pit"), ("add", "fay", "--role", "pit")):
        done = floor_user(*bad, secret="short")
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    done = floor_user("add", "fay", "--role", "dealer", secret="long-enough-1")
    assert done.returncode == 2
    assert floor_user("remove", "eli").returncode == 0 and floor_user("remove", "eli").returncode == 1
    assert floor_user("list").stdout.splitlines() == ["dana surveillance"]
    users.write_text(users.read_text() + "mallory surveillance plaintext\n")
    with pytest.raises(Exception, match="line 3: not a hashed secret"):
        read_users(users, ("pit", "surveillance"))


def test_a_table_keeps_its_state_bounded_whatever_it_sends() -> None:
    # N5: 30,000 device names and 20,000 outcomes in a shoe, 5,000 lines in one settlement
    watch = TableWatch("BAC-99")
    seq = 0

    def fold(kind: str, data: dict[str, Any], round_: int | None = None) -> None:
        nonlocal seq
        seq += 1
        watch.fold({"seq": seq, "type": kind, "data": data, "round": round_, "at": 1_700_000_000.0})

    for n in range(30_000):
        fold("device", {"device": f"dev{n}", "online": False})
    for n in range(1, 20_001):
        fold("round_result", {"round": n, "shoe": 1, "game": "baccarat", "winner": "banker", "status": "completed"}, n)
    lines = [{"seat": 1, "kind": "banker", "amount": 100, "outcome": "lose"}] * 5000
    fold("round_result", {"round": 20_001, "shoe": 1, "game": "baccarat", "settlement": lines, "status": "completed"})
    tile, detail = watch.tile("pit"), watch.detail("surveillance")
    assert len(watch.devices) == LIMITS["devices"] and len(tile["devices_offline"]) == LIMITS["devices"]
    assert len(watch.outcomes) == LIMITS["outcomes"]
    assert len(detail["rounds"][0]["settlement"]) == LIMITS["settlement lines"]
    assert detail["dropped"] == {
        "devices": 30_000 - LIMITS["devices"],
        "outcomes": 20_001 - LIMITS["outcomes"],
        "settlement lines": 5000 - LIMITS["settlement lines"],
    }
    assert len(json.dumps(tile)) < 4096 and len(json.dumps(detail)) < 200_000


def test_a_protection_alert_moves_nothing_the_pit_sees_even_past_the_bound() -> None:
    # Found in review: protection alerts shared the alerts' bound, so past 100 alerts each
    # advantage-play alert pushed an ordinary one out of the pit's view and into its `dropped`.
    watch = TableWatch("BAC-99")
    for seq in range(1, LIMITS["alerts"] + 1):
        watch.fold({"seq": seq, "type": "alert", "data": {"code": "device-offline", "text": "shoe"}, "at": 1.0})
    pit_before = (watch.detail("pit")["alerts"], watch.detail("pit")["dropped"])
    for seq in range(LIMITS["alerts"] + 1, LIMITS["alerts"] + 130):
        watch.fold({"seq": seq, "type": "alert", "data": {"code": "advantage-play", "text": "x"}, "at": 1.0})
    assert (watch.detail("pit")["alerts"], watch.detail("pit")["dropped"]) == pit_before
    assert pit_before[1] == {} and len(pit_before[0]) == LIMITS["alerts"]
    seen = watch.detail("surveillance")
    assert sum(a["code"] == "advantage-play" for a in seen["alerts"]) == LIMITS["protection alerts"]
    assert seen["dropped"] == {"protection alerts": 129 - LIMITS["protection alerts"]}
    assert [a["seq"] for a in seen["alerts"]] == sorted((a["seq"] for a in seen["alerts"]), reverse=True)


def test_a_round_record_reads_only_its_round_through_the_index(tmp_path: Path, journal: Path) -> None:
    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(journal, "BAC-01"))
    store = FloorStore(db, read_only=True)
    try:
        found = store.round_messages("BAC-01", 7)
        plan = store._conn.execute(
            "EXPLAIN QUERY PLAN SELECT seq FROM messages WHERE table_id = ? AND round = ?", ("BAC-01", 7)
        ).fetchall()
    finally:
        store.close()
    assert found and {m["round"] for m in found} == {7}
    assert {m["type"] for m in found} >= {"odds", "round_result"}
    assert any("messages_round" in str(row) for row in plan)


def test_floor_export_gives_the_pit_its_view_of_rounds_and_shoes(
    tmp_path: Path, journal: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from firmware_host.cli import main

    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(journal, "BAC-01"))
    printed: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for what in ("--rounds", "--shoes"):
        for role in ("surveillance", "pit"):
            assert main(["floor", "export", "--db", str(db), "--table", "BAC-01", what, "--role", role]) == 0
            printed[(what, role)] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    whole, pit = printed[("--rounds", "surveillance")], printed[("--rounds", "pit")]
    assert len(whole) == len(pit) == 30 and all("odds" in r for r in whole)
    assert all("odds" not in r and all(line["theo"] is None for line in r["settlement"]) for r in pit)
    assert [r["round"] for r in pit] == [r["round"] for r in whole]
    for shoe in printed[("--shoes", "pit")]:
        assert "advantage_windows" not in shoe and "advantage_play_alerts" not in shoe
