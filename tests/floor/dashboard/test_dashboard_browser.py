"""The floor dashboard in Chromium (Playwright): the map's tiles for the tables in the real store,
a tile updated live when new messages are stored, the drill-down, the logins, and 500 tiles
(the time to draw them and to follow one batch of 500 changes is printed, never asserted).

``TABLEHOST_SCREENSHOTS=1`` writes docs/screenshots/floor-map.png and floor-table.png."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bench.floor.tables import floor_export, run_table
from firmware_host.feed import schema
from firmware_host.feed.schema import FeedState
from firmware_host.web.lockout import Locked
from tests.floor.dashboard.support import (
    PIT_SECRET,
    SURVEILLANCE_SECRET,
    basic,
    current_round,
    feeds_of,
    messages_of,
    protection_messages,
    serving,
    store_messages,
)
from tests.support.paths import REPO

SCREENSHOTS = REPO / "docs" / "screenshots"


def tile_text(page: Any, table: str) -> str:
    return str(page.inner_text(f".tile[data-table='{table}']"))


def test_the_map_shows_a_tile_per_stored_table_and_updates_it_live(tmp_path: Path, journal: Path, login: Any) -> None:
    db = tmp_path / "floor.sqlite"
    first = messages_of(journal, "BAC-01")
    store_messages(db, first[:30] + messages_of(journal, "BAC-02") + messages_of(journal, "BAC-03"), status="online")
    with serving(db, tmp_path) as served:
        page = login()
        page.goto(served.url + "/")
        page.wait_for_selector("body[data-tiles='3']")
        assert [t.get_attribute("data-table") for t in page.query_selector_all(".tile")] == [
            "BAC-01",
            "BAC-02",
            "BAC-03",
        ]
        before = page.get_attribute(".tile[data-table='BAC-01']", "data-seq")
        frames = int(page.get_attribute("body", "data-frames"))
        store_messages(db, first[30:])  # the rest of table 1's feed arrives
        last = json.loads(floor_export(db, "BAC-01").splitlines()[-1])
        page.wait_for_function(
            f"document.querySelector(\".tile[data-table='BAC-01']\")?.dataset.seq === '{first[-1]['seq']}'"
        )
        assert before != str(first[-1]["seq"]) and f"round {current_round(first)}" in tile_text(page, "BAC-01")
        assert current_round(first) >= last["round"]
        assert int(page.get_attribute("body", "data-frames")) > frames
        assert page.inner_text("#n-tables") == "3" and page.inner_text("#n-online") == "3"
        page.fill("#filter", "02")
        assert [t.get_attribute("data-table") for t in page.query_selector_all(".tile:not([hidden])")] == ["BAC-02"]


def test_the_drill_down_shows_roads_rounds_figures_and_the_record_link(
    tmp_path: Path, journal: Path, login: Any
) -> None:
    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(journal, "BAC-01"))
    rounds = [json.loads(line) for line in floor_export(db, "BAC-01").splitlines()]
    with serving(db, tmp_path) as served:
        page = login()
        page.goto(served.url + "/")
        page.click(".tile[data-table='BAC-01']")
        page.wait_for_selector("body:not([data-loaded='0'])")
        assert page.url.endswith("/table/BAC-01")
        played = [r for r in rounds if r["status"] != "void"]
        assert len(page.query_selector_all("#bead-plate .bead")) == len(played)
        assert len(page.query_selector_all("#big-road .big-cell")) > 0
        assert len(page.query_selector_all("#rounds tbody tr")) == len(rounds)
        assert page.inner_text("#rounds tbody tr:first-child td:first-child") == str(rounds[-1]["round"])
        drop = sum(line["amount"] for r in rounds for line in r["settlement"])
        assert f"${drop // 100:,}" in page.inner_text("#figures")
        link = page.get_attribute("#rounds tbody tr:first-child a.record", "href")
        answer = page.request.get(served.url + link)
        assert answer.status == 200 and answer.json() == rounds[-1]
        if os.environ.get("TABLEHOST_SCREENSHOTS"):
            page.screenshot(path=str(SCREENSHOTS / "floor-table.png"))


def test_a_login_through_the_form_keeps_its_session_through_a_flood_until_logout(
    tmp_path: Path, journal: Path, login: Any
) -> None:
    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(journal, "BAC-01"))
    with serving(db, tmp_path) as served:
        page = login(secret=None)
        assert page.goto(served.url + "/").status == 200  # the map, by way of the login form
        assert page.url == served.url + "/login?next=/"
        page.fill("#user", "bob")
        page.fill("#secret", "not-bobs-secret")
        page.click("#enter")
        page.wait_for_selector("#error:has-text('wrong user or secret')")
        page.fill("#secret", PIT_SECRET)
        page.click("#enter")
        page.wait_for_url(served.url + "/")
        page.wait_for_selector("#who:has-text('bob · pit')")
        page.wait_for_selector("body[data-connected='true'][data-tiles='1']")
        (cookie,) = page.context.cookies()
        assert cookie["name"] == "tablehost_floor" and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        assert page.evaluate("document.cookie") == ""  # no script reads it
        assert page.goto(served.url + "/api/views").status == 403  # the view log is surveillance's

        async def flood() -> None:  # N4: bob's name tried from 30 addresses, and 30 unknown names
            for n in range(30):
                for name in ("bob", f"nobody{n}"):
                    with contextlib.suppress(Locked):
                        await served.dashboard.users.login(name, "wrong-secret", f"10.1.{n}.{len(name)}")

        flooding = threading.Thread(target=asyncio.run, args=(flood(),))  # Playwright's loop runs in this thread
        flooding.start()
        flooding.join()
        assert page.goto(served.url + "/table/BAC-01").status == 200  # never asked again
        page.wait_for_selector("#who:has-text('bob · pit')")
        page.wait_for_selector("body:not([data-loaded='0'])")
        page.click("button.logout")
        page.wait_for_url(served.url + "/login")
        page.goto(served.url + "/")
        assert page.url == served.url + "/login?next=/"


@pytest.mark.slow
def test_500_tiles_are_drawn_and_follow_a_burst_of_changes_in_few_frames(
    tmp_path: Path, journal: Path, login: Any
) -> None:
    db = tmp_path / "floor.sqlite"
    tables = [f"BAC-{n:03d}" for n in range(1, 491)]  # and 10 tables with protection alerts: 500
    # every table the same journal under its own id, cut at its own length (its own round)
    feeds = {table: feed[: 20 + n % 15] for n, (table, feed) in enumerate(feeds_of(journal, tables, 34).items())}
    # a floor as it is: some tables offline, some with a gap in their feed, some with protection alerts
    offline = frozenset(tables[6::41])
    gapped = {table: feeds[table][:5] + feeds[table][8:-8] for table in tables[10::29]}
    store_messages(db, [m for table in tables for m in gapped.get(table, feeds[table][:-8])], offline=offline)
    store_messages(db, [m for table in tables[3::53] for m in protection_messages(table + "P")])
    with serving(db, tmp_path, poll_s=0.5) as served:
        page = login()
        started = time.perf_counter()
        page.goto(served.url + "/")
        page.wait_for_selector("body[data-tiles='500']", timeout=60_000)
        drawn = time.perf_counter() - started
        frames, batches = int(page.get_attribute("body", "data-frames")), page.evaluate("window.floor.batches")
        burst = [m for table in tables for m in feeds[table][-8:]]  # 3,920 messages of 490 tables at once
        store_messages(db, burst, offline=offline)
        stored = time.perf_counter()
        last = {table: str(feeds[table][-1]["seq"]) for table in tables}
        page.wait_for_function(
            "(want) => Object.entries(want).every(([id, seq]) => "
            "document.querySelector(`.tile[data-table='${id}']`)?.dataset.seq === seq)",
            arg=last,
            timeout=60_000,
        )
        followed = time.perf_counter() - stored
        batches = page.evaluate("window.floor.batches") - batches
        frames = int(page.get_attribute("body", "data-frames")) - frames
        print(
            f"\n500 tiles: drawn {drawn:.2f} s after the page was asked for; a change to every table shown "
            f"{followed:.2f} s after it was stored ({batches} SSE messages, {frames} frames drawn; "
            f"pass over the store {served.dashboard.floor.pass_s:.2f} s)"
        )
        assert len(page.query_selector_all(".tile")) == 500
        assert page.inner_text("#n-offline") == str(len(offline))
        # never a draw per message: at most one a batch, and a batch holds many tables' changes
        assert 1 <= frames <= batches and 10 * batches <= len(burst)
        if os.environ.get("TABLEHOST_SCREENSHOTS"):
            page.screenshot(path=str(SCREENSHOTS / "floor-map.png"))


def test_a_pai_gow_table_shows_its_rolls_with_the_displays_dice(tmp_path: Path, login: Any) -> None:
    journal = tmp_path / "paigow.journal"
    run_table(REPO / "hardware-profiles" / "tables" / "sim-paigow.toml", journal, 3)
    db = tmp_path / "floor.sqlite"
    store_messages(db, messages_of(journal, "PG-01"))
    rolls = [roll for line in floor_export(db, "PG-01").splitlines() for roll in json.loads(line)["rolls"]]
    with serving(db, tmp_path) as served:
        page = login()
        page.goto(served.url + "/table/PG-01")
        page.wait_for_selector("body:not([data-loaded='0'])")
        assert page.is_hidden("#roads-panel") and page.is_visible("#rolls-panel")
        assert len(page.query_selector_all("#rolls .roll")) == len(rolls[-30:])
        assert len(page.query_selector_all("#rolls svg.die")) == sum(len(r["dice"]) for r in rolls[-30:])


def test_the_benches_probe_notes_each_tile_drawn_at_its_new_seq(tmp_path: Path, journal: Path) -> None:
    from bench.floor.dashboard_probe import DashboardProbe

    db = tmp_path / "floor.sqlite"
    first = messages_of(journal, "BAC-01")
    store_messages(db, first[:10] + messages_of(journal, "BAC-02"))
    with serving(db, tmp_path) as served:
        with DashboardProbe(served.url, "surveillance", SURVEILLANCE_SECRET) as probe:  # its own thread and Chromium
            opened = {(d.table, d.seq) for d in probe.drawn()}
            assert opened == {("BAC-01", 10), ("BAC-02", first[-1]["seq"])}
            before = time.time()
            store_messages(db, first[10:])
            drawn: list[Any] = []
            deadline = time.monotonic() + 30
            while not any(d.seq == first[-1]["seq"] for d in drawn) and time.monotonic() < deadline:
                drawn += probe.drawn()
                time.sleep(0.1)
            stats = probe.frame_stats()
        assert [(d.table, d.seq) for d in drawn] == [("BAC-01", first[-1]["seq"])]  # drained: each once
        assert before <= drawn[0].at <= time.time()  # the wall clock, as time.time() reads it
        assert stats["draws"] >= 2 and stats["batches"] >= 2 and stats["tiles"] == 2
        assert probe.errors == []


def test_a_tables_irregularities_of_any_type_never_break_its_drill_down_under_the_csp(
    tmp_path: Path, journal: Path, csp_page: Any
) -> None:
    """Issue 29: a keyed table's ``irregularities`` that was not a list broke its own drill-down
    (floor.js iterated it); and item 7: both pages work under the CSP with no violation."""
    db = tmp_path / "floor.sqlite"
    messages = messages_of(journal, "BAC-01")
    odd: list[Any] = ["not a list", {"section": "541.14"}, [None, 3, {"section": "541.14(a)"}], 7]
    results = [i for i, m in enumerate(messages) if m["type"] == "round_result"][: len(odd)]
    state = FeedState()
    resealed = []
    for i, message in enumerate(messages):  # the table's own chain, re-derived with the odd values in it
        body = {k: v for k, v in message.items() if k != "hash"}
        if i in results:
            body["data"] = {**body["data"], "irregularities": odd[results.index(i)]}
        body["prev_hash"] = state.hash
        sealed = schema.seal(body)
        state = FeedState(sealed["seq"], sealed["journal_seq"], sealed["hash"])
        resealed.append(sealed)
    store_messages(db, resealed)
    with serving(db, tmp_path) as served:
        page = csp_page(extra_http_headers=basic("ann", SURVEILLANCE_SECRET))
        answer = page.goto(served.url + "/")
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        assert answer.headers["x-frame-options"] == "DENY" and answer.headers["x-content-type-options"] == "nosniff"
        page.wait_for_selector("body[data-tiles='1']")
        page.goto(served.url + "/table/BAC-01")
        page.wait_for_selector("body:not([data-loaded='0'])")
        rows = page.query_selector_all("#rounds tbody tr")
        assert len(rows) == len([m for m in messages if m["type"] == "round_result"])
        sections = [r.inner_text() for r in page.query_selector_all("#rounds tbody tr td:nth-child(7)")]
        assert sum("§ 541.14(a)" in s for s in sections) == 1  # a list's objects are read; anything else none
        assert not any(s.endswith("§ 541.14") or "§ 541.14," in s for s in sections)
