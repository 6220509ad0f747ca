"""Dealer actions at the display: a click becomes the DealerCommand the buttons send, journaled
with who did it; a wrong PIN is refused, logged, journaled and rate-limited (issue 14 item 3)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from firmware_host.host.journal_codec import MONO_KEY
from firmware_host.tables.events import DealerCommand
from firmware_host.web.pins import MAX_FAILURES
from firmware_host.wiring.display import REFUSED_META
from tests.display.conftest import DEALER_PIN, SUPERVISOR_PIN, Running, enter_pin, inputs

WAIT_MS = 20_000


def at_place_bets(run_table: Callable[..., Running], page: Any) -> Running:
    """A Baccarat table whose simulated dealer waits at the first "place your bets", its display open."""
    table = run_table(hold_at={"place_bets"})
    page.goto(table.url + "/")
    page.wait_for_selector("#prompt[data-action='place_bets']", timeout=WAIT_MS)
    return table


def test_a_click_reaches_the_controller_and_the_journal(run_table: Callable[..., Running], page: Any) -> None:
    table = at_place_bets(run_table, page)
    page.click("button[data-command='no_more_bets']")
    assert page.text_content("#pin-who") == "Dealer PIN"
    enter_pin(page, DEALER_PIN)
    page.wait_for_selector("#prompt[data-action='deal']", timeout=WAIT_MS)  # the controller moved on
    assert page.text_content("#prompt") == "deal the player's first card"
    assert inputs(table, "no_more_bets") == [{"device": "display:dealer", "command": "no_more_bets", "args": None}]
    assert page.text_content("#toast") == "no more bets: sent (dealer)"


def test_a_wrong_pin_is_refused_logged_and_journaled(
    run_table: Callable[..., Running], page: Any, caplog: pytest.LogCaptureFixture
) -> None:
    table = at_place_bets(run_table, page)
    page.click("button[data-command='no_more_bets']")
    with caplog.at_level(logging.WARNING, logger="tablehost.web"):
        enter_pin(page, "0000")
        page.wait_for_function("document.querySelector('#pin-error').textContent !== ''", timeout=WAIT_MS)
    assert page.text_content("#pin-error") == "refused: wrong PIN"
    assert page.get_attribute("#prompt", "data-action") == "place_bets"
    assert inputs(table, "no_more_bets") == []
    table.refusals_written()  # journaled by the refusals' own thread, through the service
    (refused,) = table.table.journal.meta(REFUSED_META)
    assert isinstance(refused.pop(MONO_KEY), int)  # stamped by the service's clocks (issue 28 item 7)
    assert refused == {"command": "no_more_bets", "client": "127.0.0.1", "why": "wrong PIN"}
    assert "web: refused 127.0.0.1: {'why': 'wrong PIN', 'command': 'no_more_bets'}" in caplog.text


def test_voiding_a_round_needs_the_supervisor(run_table: Callable[..., Running], page: Any) -> None:
    table = at_place_bets(run_table, page)
    page.click("button[data-command='void_round']")
    assert page.text_content("#pin-who") == "Supervisor PIN"
    enter_pin(page, DEALER_PIN)
    page.wait_for_function("document.querySelector('#pin-error').textContent !== ''", timeout=WAIT_MS)
    assert page.text_content("#pin-error") == "refused: needs the supervisor's PIN"
    enter_pin(page, SUPERVISOR_PIN)
    page.wait_for_selector("#outcome[data-winner='void']", timeout=WAIT_MS)
    assert inputs(table, "void_round") == [
        {"device": "display:supervisor", "command": "void_round", "args": {"reason": "voided at the dealer display"}}
    ]
    results = [r.data for r in table.table.journal.records() if r.type == "round_result"]
    assert results[-1]["status"] == "void"


def test_wrong_pins_lock_the_client_out(run_table: Callable[..., Running]) -> None:
    table = run_table(hold_at={"place_bets"})
    with httpx2.Client(base_url=table.url) as client:
        for _ in range(MAX_FAILURES):
            assert client.post("/api/action", json={"command": "acknowledge", "pin": "1111"}).status_code == 403
        locked = client.post("/api/action", json={"command": "acknowledge", "pin": DEALER_PIN})
        assert locked.status_code == 429
        assert locked.json()["error"].startswith("too many wrong PINs: try again in")
        assert int(locked.headers["Retry-After"]) > 0
    table.refusals_written()
    refused = table.table.journal.meta(REFUSED_META)
    assert [r["why"] for r in refused] == ["wrong PIN"]  # the rest: one summary when the minute is over
    # (tests/display/test_http_hostile.py::test_refusals_are_one_record_per_address_per_minute)
    assert inputs(table, "acknowledge") == []


def test_bad_actions_are_named(run_table: Callable[..., Running]) -> None:
    table = run_table(hold_at={"place_bets"})
    with httpx2.Client(base_url=table.url) as client:
        unknown = client.post("/api/action", json={"command": "shoe_loaded", "pin": DEALER_PIN})
        assert (unknown.status_code, unknown.json()) == (
            400,
            {"error": "'shoe_loaded' is not an action of the baccarat display"},
        )
        bad = client.post("/api/action", json={"command": "card_entered", "args": {"card": 9}, "pin": DEALER_PIN})
        assert bad.json() == {"error": "card_entered: card has the wrong type"}
        assert (
            client.post("/api/action", content=b"[1]", headers={"Content-Type": "application/json"}).status_code == 400
        )


def test_a_restarted_table_replays_display_actions_and_shows_the_journal(
    run_table: Callable[..., Running], tmp_path: Any
) -> None:
    table = run_table(hold_at={"place_bets"})
    with httpx2.Client(base_url=table.url) as client:
        assert client.post("/api/action", json={"command": "no_more_bets", "pin": DEALER_PIN}).status_code == 202
        table.gate.release()  # the dealer plays on
        for _ in range(400):
            before = client.get("/api/state").json()
            if before["results"]:
                break
            table.thread.join(0.05)
    table.stop()
    finished = table.service.rounds_finished
    again = run_table(journal=tmp_path / "journal.sqlite", hold_at={"place_bets"})  # replays: no divergence
    assert again.service.rounds_finished == finished >= 1
    state = httpx2.get(again.url + "/api/state").json()
    assert state["results"][: len(before["results"])] == before["results"]
    assert state["results"][0]["round"] == 1 and state["shoe"] == 1
    assert inputs(again, "no_more_bets")[0]["device"] == "display:dealer"


def _raw_action(client: httpx2.Client, command: str, args: dict[str, Any], pin: str) -> httpx2.Response:
    """POST an action as JSON text: a lone surrogate goes as the escape ``\\ud800`` a peer writes."""
    body = json.dumps({"command": command, "args": args, "pin": pin}).encode()
    return client.post("/api/action", content=body, headers={"Content-Type": "application/json"})


@pytest.mark.parametrize(
    ("game", "hold", "command", "args", "pin"),
    [
        ("baccarat", "place_bets", "void_round", {"reason": "\ud800"}, SUPERVISOR_PIN),
        ("baccarat", "place_bets", "card_entered", {"card": "9\ud800"}, DEALER_PIN),
        ("baccarat", "place_bets", "void_round", {"reason": "\x1b]0;owned\x07"}, SUPERVISOR_PIN),
        ("paigow", "offer_bank", "tiles", {"dealer": ["6-6", "\ud800"], "hands": {"3": "surrender"}}, DEALER_PIN),
        ("paigow", "offer_bank", "tiles", {"dealer": "6-6", "hands": {"\ud800": "x"}}, DEALER_PIN),
        ("paigow", "offer_bank", "void_round", {"reason": "\u202etset"}, SUPERVISOR_PIN),
    ],
)
def test_a_lone_surrogate_or_a_control_in_an_action_is_400_and_the_table_deals_on(
    run_table: Callable[..., Running], game: str, hold: str, command: str, args: dict[str, Any], pin: str
) -> None:
    """Issue 29 N1: a reason holding "\\ud800" was answered 202, then the service exited 2 for good.
    Over HTTP against the real service: refused with 400; and the same text sent past the display
    (the console's path) is refused by the service itself; the table plays its next round."""
    table = run_table(game, bank=0.0, hold_at={hold})
    with httpx2.Client(base_url=table.url) as client:
        for _ in range(400):
            if client.get("/api/state").json()["prompt"]:
                break
            table.thread.join(0.05)
        answer = _raw_action(client, command, args, pin)
        assert answer.status_code == 400, answer.text
        assert [i for i in inputs(table, command) if i["device"].startswith("display")] == []
        table.service.emit(DealerCommand(device="console", command=command, args=args))
        finished = table.service.rounds_finished
        table.gate.release()  # the dealer deals on
        for _ in range(400):
            if table.service.rounds_finished > finished:
                break
            table.thread.join(0.05)
    assert table.thread.is_alive() and table.service.rounds_finished > finished
    assert table.service.refused_inputs == (1 if "\ud800" in json.dumps(args, ensure_ascii=False) else 0)


@pytest.mark.parametrize("game", ["baccarat", "paigow"])
def test_the_pages_work_under_the_content_security_policy(
    run_table: Callable[..., Running], csp_page: Any, game: str
) -> None:
    """Issue 29 item 7: every page is served with a CSP without inline script (they start from
    /static/start.js), and works under it in Chromium with no violation reported (``csp_page``)."""
    table = run_table(game, bank=0.0, hold_at={"place_bets", "offer_bank"})
    page = csp_page()
    answer = page.goto(table.url + "/")
    assert "script-src 'self'" in answer.headers["content-security-policy"]
    page.wait_for_selector("#prompt:not([data-action='wait'])", timeout=WAIT_MS)  # display.js drew the stream
    page.click("button[data-command='void_round']")
    page.wait_for_selector("#pin-who:text('Supervisor PIN')", timeout=WAIT_MS)  # the page's handlers run
    board = csp_page()
    board.goto(table.url + "/scoreboard")
    board.wait_for_selector("body[data-connected='true']", timeout=WAIT_MS)
