"""The floor dashboard's HTTP face against the real uvicorn: logins and roles, the tiles and the
drill-down of tables whose verified messages are in the real store, the round's full record,
the view log, and the web layer in front of it all."""

from __future__ import annotations

import base64
import http.client
import json
import subprocess
import sys
import urllib.request
from fractions import Fraction
from pathlib import Path

import pytest

from bench.floor.tables import floor_export, run_table
from firmware_host.floor.dashboard.figures import Figures, played, shown
from firmware_host.floor.dashboard.serve import Dashboard
from firmware_host.floor.dashboard.views import ViewLog
from firmware_host.floor.store import FloorStore
from firmware_host.rules.edges import PAIGOW_HOUSE_WAY_EDGE
from firmware_host.web.server import WebError
from tests.floor.dashboard.support import (
    PIT_SECRET,
    SURVEILLANCE_SECRET,
    current_round,
    get,
    messages_of,
    protection_messages,
    serving,
    store_messages,
    users_dir,
)
from tests.support.paths import REPO


def test_every_page_and_api_needs_a_login(tmp_path: Path, journal: Path) -> None:
    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(journal, "BAC-01"))
    with serving(db, tmp_path) as served:
        for path in ("/api/tiles", "/api/stream", "/api/tables/BAC-01", "/api/tables/BAC-01/rounds/1", "/api/me"):
            status, _ = get(served.url + path, user=None)
            assert status == 401, path
        for path in ("/", "/table/BAC-01"):  # a page goes to the login form
            status, page = get(served.url + path, user=None)
            assert status == 200 and 'id="login"' in page, path
        assert get(served.url + "/api/tiles", secret="0000")[0] == 401  # a wrong secret
        assert get(served.url + "/api/tiles", user="bob", secret=SURVEILLANCE_SECRET)[0] == 401  # ann's, not bob's
        assert get(served.url + "/api/tiles", user="bad name", secret=PIT_SECRET)[0] == 401
        assert get(served.url + "/api/me", user="bob", secret=PIT_SECRET) == (200, {"user": "bob", "role": "pit"})
        assert get(served.url + "/api/me")[1]["role"] == "surveillance"


def test_the_view_log_is_the_surveillance_rooms_and_pit_gets_403(tmp_path: Path, journal: Path) -> None:
    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(journal, "BAC-01"))
    with serving(db, tmp_path) as served:
        assert get(served.url + "/api/tables/BAC-01", user="bob", secret=PIT_SECRET)[0] == 200
        status, body = get(served.url + "/api/views", user="bob", secret=PIT_SECRET)
        assert status == 403 and "surveillance" in body["error"]
        status, views = get(served.url + "/api/views")
        assert status == 200
        assert {"user": "bob", "role": "pit", "what": "table BAC-01", "count": 1} in [
            {k: v for k, v in row.items() if k != "minute"} for row in views
        ]


def test_the_protection_alerts_are_shown_to_surveillance_not_to_the_pit(tmp_path: Path) -> None:
    db = tmp_path / "floor.sqlite"
    store_messages(db, protection_messages("BAC-07"))
    with serving(db, tmp_path) as served:
        _, seen = get(served.url + "/api/tiles")
        (tile,) = seen["tiles"]
        assert [a["code"] for a in tile["alerts"]] == [
            "device-lost",
            "advantage-window",
            "protocol-error",
        ]  # by severity
        assert tile["severity"] == "fault"
        _, pit = get(served.url + "/api/tiles", user="bob", secret=PIT_SECRET)
        assert "advantage-window" not in [a["code"] for a in pit["tiles"][0]["alerts"]]
        _, detail = get(served.url + "/api/tables/BAC-07", user="bob", secret=PIT_SECRET)
        assert "advantage-window" not in [a["code"] for a in detail["alerts"]]
        _, detail = get(served.url + "/api/tables/BAC-07")
        lost = next(a for a in detail["alerts"] if a["code"] == "device-lost")
        assert lost["section"] == "541.5(b)" and lost["round"] == 2


def test_a_tile_shows_game_shoe_round_last_result_lag_and_continuity(tmp_path: Path, journal: Path) -> None:
    db = tmp_path / "floor.sqlite"
    sent = messages_of(journal, "BAC-01")
    stored = sent[:40] + sent[45:]
    store_messages(db, stored)  # a gap of five messages
    with serving(db, tmp_path) as served:
        _, seen = get(served.url + "/api/tiles")
        (tile,) = seen["tiles"]
        rounds = [json.loads(line) for line in floor_export(db, "BAC-01").splitlines()]
        assert tile["online"] is True and tile["game"] == "baccarat" and tile["shoe"] == 1
        assert tile["round"] == current_round(stored) >= rounds[-1]["round"]
        assert tile["gaps"] == 1 and tile["lag_s"] is not None
        assert tile["last"].lower().startswith(rounds[-1]["winner"])
        _, detail = get(served.url + "/api/tables/BAC-01")
        assert detail["continuity"]["gaps"] == [[41, 45]]


def test_the_drill_down_has_the_roads_rounds_and_figures_of_the_stored_rounds(tmp_path: Path, journal: Path) -> None:
    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(journal, "BAC-01"))
    rounds = [json.loads(line) for line in floor_export(db, "BAC-01").splitlines()]
    with serving(db, tmp_path) as served:
        _, detail = get(served.url + "/api/tables/BAC-01")
    played = [r for r in rounds if r["status"] != "void"]
    assert detail["roads"]["rounds"] == len(played)
    assert sum(len(column) for column in detail["roads"]["bead_plate"]) == len(played)
    assert [r["round"] for r in detail["rounds"]] == [r["round"] for r in reversed(rounds)]
    drop = sum(line["amount"] for r in rounds for line in r["settlement"])
    assert detail["figures"]["shoe"]["drop"] == drop == detail["figures"]["day"]["drop"]
    assert detail["figures"]["shoe"]["rounds"] == len(rounds)
    theo = sum(line["theo"] for r in rounds for line in r["settlement"])  # each round's odds, as floor export
    assert detail["figures"]["shoe"]["theo"] == round(theo)  # whole cents on the dashboard


def test_the_round_record_is_what_floor_export_prints(tmp_path: Path, journal: Path) -> None:
    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(journal, "BAC-01"))
    exported = floor_export(db, "BAC-01").splitlines()
    with serving(db, tmp_path) as served:
        with urllib.request.urlopen(
            urllib.request.Request(
                served.url + "/api/tables/BAC-01/rounds/7",
                headers={"Authorization": "Basic " + base64.b64encode(f"ann:{SURVEILLANCE_SECRET}".encode()).decode()},
            )
        ) as answer:
            assert answer.read().decode() == exported[6] + "\n"
        assert get(served.url + "/api/tables/BAC-01/rounds/999")[0] == 404
        assert get(served.url + "/api/tables/BAC-01/rounds/x7")[0] == 400
        assert get(served.url + "/api/tables/NOPE")[0] == 404


def test_figures_drop_win_theo_hold_from_settlements() -> None:
    """As ``journal report`` counts them (host/figures.py, the one definition); a Pai Gow round's
    theo is its amount times the house way's edge (not protection data)."""
    figures = Figures()
    baccarat = [
        {"seat": 1, "kind": "player", "amount": 10000, "outcome": "lose", "payout": 0, "commission": 0},
        {"seat": 2, "kind": "banker", "amount": 10000, "outcome": "win", "payout": 10000, "commission": 500},
        {"seat": 3, "kind": "tie", "amount": 1000, "outcome": "push", "payout": 0, "commission": 0},
    ]
    ev = {"player": "-1/80", "banker": "-1/100", "tie": "0/1"}
    paigow = {"results": [{"position": 1, "amount": 2000, "net": 1900}]}  # the wagerer's net; no nets given
    for data, settlement, odds in (({"game": "baccarat"}, baccarat, ev), ({"game": "paigow"}, paigow, None)):
        round_figures = played({**data, "status": "completed"}, settlement, odds, 30.0)
        assert round_figures is not None
        figures.add(round_figures)
    assert shown(figures) == {
        "rounds": 2,
        "drop": 23000,
        "win": 10000 - 9500 - 1900,
        "theo": round(Fraction(10000, 80) + Fraction(10000, 100) + 2000 * PAIGOW_HOUSE_WAY_EDGE),
        "hold": round(100 * (10000 - 9500 - 1900) / 23000, 2),
        "rounds_per_hour": 2 * 3600 / 60.0,
    }


def test_figures_count_completed_rounds_only_and_a_player_banked_round_wins_the_house_its_vigorish() -> None:
    """As journal report counts them (host/figures.py): a void round returns its wagers, and with a
    player banking the other wagers' nets are the banker's; the house keeps the vigorish, and its
    theo is 0 (the house is not the wagers' counterparty)."""
    figures = Figures()
    void = [{"seat": 1, "kind": "player", "amount": 10000, "outcome": "push", "payout": 0, "commission": 0}]
    banked = {
        "bank_position": 3,
        "results": [{"position": 1, "amount": 2000, "net": -2000}],
        "nets": {"house": 0, "vigorish": 95},
    }
    for data, settlement, odds in (
        ({"game": "baccarat", "status": "void"}, void, {"player": "-1/80"}),
        ({"game": "paigow", "status": "completed"}, banked, None),
    ):
        round_figures = played(data, settlement, odds, 0.0)
        assert round_figures is not None
        figures.add(round_figures)
    assert shown(figures) == {"rounds": 2, "drop": 2000, "win": 95, "theo": 0, "hold": 4.75, "rounds_per_hour": None}
    assert played({"game": "baccarat", "status": "completed"}, [7], None, 0.0) is None  # a keyed table's junk


def test_views_are_one_row_per_user_view_and_minute() -> None:
    now = [1000.0]
    rows: list[tuple[int, str, str, str, int]] = []
    views = ViewLog(rows.extend, clock=lambda: now[0], flush_s=0)
    for second in range(180):  # 3 minutes, a view a second, two users
        now[0] = 1020.0 + second
        views.note("ann", "surveillance", "map")
        views.note("bob", "pit", "table BAC-01" if second % 2 else "map")
        if second % 7 == 0:
            views.flush()
    views.close()
    assert views.noted == 360
    summed: dict[tuple[int, str, str], int] = {}
    for minute, user, _, what, count in rows:
        summed[(minute, user, what)] = summed.get((minute, user, what), 0) + count
    assert len(summed) == 9  # 3 minutes: ann's map, bob's map and table
    assert sum(summed.values()) == 360


def test_the_web_layer_stands_in_front(tmp_path: Path, journal: Path) -> None:
    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(journal, "BAC-01"))
    with serving(db, tmp_path) as served:
        assert get(served.url + "/api/tiles", headers={"Host": "evil.example"})[0] == 400  # DNS rebinding
        host, port = served.url.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.request(
            "GET",
            "/api/tables/BAC-01?x=" + "a" * 5000,
            headers={"Authorization": "Basic " + base64.b64encode(f"ann:{SURVEILLANCE_SECRET}".encode()).decode()},
        )
        assert connection.getresponse().status in (200, 400)  # never a 500
        for _ in range(6):
            get(served.url + "/api/tiles", user="eve", secret="9999")
        # the lockout: this address, even with a right secret (a login without a session)
        assert get(served.url + "/api/tiles", user="bob", secret=PIT_SECRET)[0] == 429
        assert served.dashboard.app.state.refusals.noted >= 6


def test_off_loopback_needs_tls_and_a_bad_listen_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "floor.sqlite"
    FloorStore(db).close()
    with pytest.raises(WebError, match="needs .*tls.crt"):
        Dashboard("0.0.0.0:0", lambda: FloorStore(db, read_only=True), users_dir(tmp_path))
    with pytest.raises(WebError, match="holds no user"):
        Dashboard("127.0.0.1:0", lambda: FloorStore(db, read_only=True), tmp_path / "empty")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "firmware_host",
            "floor",
            "--broker",
            "mqtt://127.0.0.1:1",
            "--db",
            str(db),
            "--unsigned",
            "--http",
            "0.0.0.0:0",
            "--http-dir",
            str(users_dir(tmp_path)),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "tls.crt" in done.stderr


def test_a_pai_gow_table_shows_its_rolls_and_results(tmp_path: Path) -> None:
    journal = tmp_path / "paigow.journal"
    run_table(REPO / "hardware-profiles" / "tables" / "sim-paigow.toml", journal, 4)
    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(journal, "PG-01"))
    rounds = [json.loads(line) for line in floor_export(db, "PG-01").splitlines()]
    with serving(db, tmp_path) as served:
        _, detail = get(served.url + "/api/tables/PG-01")
    assert detail["tile"]["game"] == "paigow" and detail["roads"] is None
    assert detail["tile"]["last"].startswith("dice") and str(rounds[-1]["total"]) in detail["tile"]["last"]
    rolled = [roll["dice"] for r in rounds for roll in r["rolls"]]
    assert [roll["dice"] for roll in reversed(detail["rolls"])] == rolled[-30:]
    assert all(roll["total"] == sum(roll["dice"]) for roll in detail["rolls"])
