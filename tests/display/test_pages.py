"""The dealer display and the scoreboard in Chromium, following a simulated table live (issue 14 item 6)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from firmware_host.tables.decisions import HALTED, Decision
from tests.display.conftest import Running, Served

#: How long a page may take to show what the table did, milliseconds (a bound, not a measure).
WAIT_MS = 20_000


def seq_of(page: Any) -> int:
    return int(page.evaluate("Number(document.body.dataset.seq || 0)"))


def test_the_dealer_display_follows_the_table(run_table: Callable[..., Running], page: Any) -> None:
    table = run_table(pace=0.02)
    page.goto(table.url + "/")
    page.wait_for_function("document.querySelectorAll('#recent .badge').length >= 2", timeout=WAIT_MS)
    first = seq_of(page)
    page.wait_for_function(f"Number(document.body.dataset.seq) > {first}", timeout=WAIT_MS)
    assert page.text_content("#table-id") == "T-BAC"
    assert page.text_content("#shoe") == "1"
    assert page.get_attribute("#lamp", "data-colour") in ("green", "amber", "red")
    assert page.locator(".device[data-device='shoe'] b").text_content() == "shoe"
    assert page.text_content("#prompt").strip()


def test_the_scoreboard_draws_the_roads_of_api_roads(run_table: Callable[..., Running], page: Any) -> None:
    table = run_table(rounds=12)
    page.goto(table.url + "/scoreboard")
    table.thread.join(timeout=60)  # the service stops by itself after 12 rounds
    page.wait_for_function("document.body.dataset.rounds === '12'", timeout=WAIT_MS)
    roads = json.loads(page.request.get(table.url + "/api/roads").text())
    assert roads["rounds"] == 12
    drawn = page.evaluate("""() => [...document.querySelectorAll('#big-road .big-cell')].map(g => ({
        col: +g.dataset.col, row: +g.dataset.row, winner: g.dataset.winner, ties: +g.dataset.ties,
        player_pair: g.dataset.playerPair === 'true', banker_pair: g.dataset.bankerPair === 'true'}))""")
    expected = [
        {"col": c, "row": r, **cell} for c, column in enumerate(roads["big_road"]) for r, cell in enumerate(column)
    ]
    assert drawn == expected
    beads = page.evaluate("[...document.querySelectorAll('#bead-plate .bead')].map(g => g.dataset.letter)")
    assert beads == [letter for column in roads["bead_plate"] for letter in column]
    for name in ("big_eye_boy", "small_road", "cockroach_pig"):
        marks = page.evaluate(f"""[...document.querySelectorAll(".derived-mark[data-road='{name}']")]
            .map(g => [+g.dataset.col, +g.dataset.row, g.dataset.colour])""")
        assert marks == [[c, r, colour] for c, column in enumerate(roads[name]) for r, colour in enumerate(column)]
    for side in ("banker", "player"):
        asked = page.evaluate(f"""Object.fromEntries([...document.querySelectorAll(".ask-mark[data-side='{side}']")]
            .map(g => [g.dataset.road, g.dataset.colour]))""")
        assert asked == {name: mark or "none" for name, mark in roads["next"][side].items()}
    counts = roads["counts"]
    assert page.text_content("#count-banker") == str(counts["banker"])
    assert page.text_content("#count-tie") == str(counts["tie"])
    assert page.text_content("#limits").replace("\xa0", " ").split() == ["MIN", "$25", "MAX", "$5,000"]


def test_a_halted_table_shows_its_banner_across_the_dealer_page(serve: Callable[..., Served], page: Any) -> None:
    served = serve()
    page.goto(served.url + "/")
    page.wait_for_function("window.tablehost.messages.length === 1", timeout=WAIT_MS)
    assert page.locator("#banner").is_hidden()
    text = "TABLE STOPPED: the journal cannot be written; call a supervisor (disk full)"
    served.hub.on_decisions([Decision(HALTED, {"reason": "disk full", "text": text})])
    page.wait_for_selector("#banner:not([hidden])", timeout=WAIT_MS)
    assert page.text_content("#banner") == text
    assert page.get_attribute("#lamp", "data-colour") == "red"
