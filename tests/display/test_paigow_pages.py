"""The Pai Gow dealer display and board in Chromium: the bank offer, tile entry with the house way
shown, and the last rolls with their totals and starting positions (issue 14 items 3 and 4)."""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

import httpx2

from firmware_host.rules.paigow_tiles.rules import DEFAULT_RULES
from firmware_host.rules.paigow_tiles.tiles import TILE_SET
from firmware_host.wiring.display import _Tiles
from tests.display.conftest import DEALER_PIN, Running, enter_pin, inputs

WAIT_MS = 30_000


def test_bank_offer_and_tile_entry_at_the_dealer_display(run_table: Callable[..., Running], page: Any) -> None:
    table = run_table("paigow", bank=0.0, hold_at={"offer_bank"})
    page.goto(table.url + "/")
    page.wait_for_selector("#prompt[data-action='offer_bank']", timeout=WAIT_MS)
    order = httpx2.get(table.url + "/api/state").json()["prompt"]["order"]
    assert [
        int(s) for s in page.eval_on_selector_all("#work [data-seat]", "els => els.map(e => e.dataset.seat)")
    ] == order
    page.click(f"#work [data-seat='{order[0]}']")
    assert page.text_content("#pin-title") == f"Seat {order[0]} banks"
    enter_pin(page, DEALER_PIN)
    page.wait_for_function(f"document.querySelector('#bank').textContent === 'seat {order[0]}'", timeout=WAIT_MS)
    assert inputs(table, "bank") == [
        {
            "device": "display:dealer",
            "command": "bank",
            "args": {"seat": order[0], "co_bank": False, "chips_confirmed": True},
        }
    ]

    table.gate.release({"set_hands"})
    page.wait_for_selector("#prompt[data-action='set_hands']", timeout=WAIT_MS)
    page.click("button[data-command='tiles']")
    hands = page.eval_on_selector_all("#hand-tabs button", "els => els.map(e => e.dataset.hand)")
    assert hands
    tiles = iter(tile.text for tile in TILE_SET)  # one 32-tile set (§ 535.3(c)): four for each hand
    chosen: dict[str, list[str]] = {}
    for hand in hands:
        page.click(f"#hand-tabs button[data-hand='{hand}']")
        chosen[hand] = [next(tiles) for _ in range(4)]
        for text in chosen[hand]:
            page.click(f"#picker button[data-tile='{text}']")
        way = _Tiles(DEFAULT_RULES).house_way(",".join(chosen[hand]))
        expected = f"House way: high {' '.join(way['high']['tiles'])}  ·  low {' '.join(way['low']['tiles'])}  (§ {way['section']})"
        page.wait_for_function(f"document.querySelector('#house-way').textContent === {expected!r}", timeout=WAIT_MS)
        assert [t for t in page.eval_on_selector_all("#chosen .tile", "els => els.map(e => e.dataset.tile)")] == chosen[
            hand
        ]
    page.click("#tiles-ok")
    enter_pin(page, DEALER_PIN)
    page.wait_for_function("document.querySelector('#work h2')?.textContent === 'Result'", timeout=WAIT_MS)
    entered = [e for e in inputs(table, "tiles") if e["device"].startswith("display")]  # round 1: the sim dealer's
    assert [e["device"] for e in entered] == ["display:dealer"]
    assert entered[0]["args"]["hands"] == {h: ",".join(t) for h, t in chosen.items() if h != "dealer"}
    results = [r.data for r in table.table.journal.records() if r.type == "round_result"]
    assert results[-1]["status"] == "completed" and results[-1]["settlement"] is not None


def test_the_board_shows_the_last_rolls(run_table: Callable[..., Running], page: Any) -> None:
    table = run_table("paigow", rounds=5)
    page.goto(table.url + "/scoreboard")
    table.thread.join(timeout=60)
    assert table.flush()
    rolls = [r.data for r in table.table.journal.records() if r.type == "round_result"]
    page.wait_for_function(f"document.body.dataset.rolls === '{len(rolls)}'", timeout=WAIT_MS)
    rows = page.eval_on_selector_all(
        "#rolls .roll",
        """els => els.map(e => ({round: +e.dataset.round,
        dice: [...e.querySelectorAll('.die')].map(d => +d.dataset.die), total: e.querySelector('.total')?.textContent}))""",
    )
    expected = [
        {"round": r["round"], "dice": r["dice"] or [], "total": str(r["total"]) if r["total"] else None}
        for r in reversed(rolls)
    ]
    assert rows == expected
    latest = rolls[-1]
    assert page.text_content("#latest-total") == str(latest["total"])
    starts = collections.Counter(r["start"] for r in rolls if r["status"] == "completed")
    shown = page.eval_on_selector_all(
        ".start-row", "els => Object.fromEntries(els.map(e => [e.dataset.start, +e.querySelector('b').textContent]))"
    )
    assert {k: v for k, v in shown.items() if v} == dict(starts)
