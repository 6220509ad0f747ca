"""Nothing early (issue 14 item 5): a face-down shoe (§ 541.9(c)(2)) is played while Chromium
follows both pages; every stream message and a DOM snapshot after each one are checked against
the journal: no card before the table exposes it, no outcome on the board before it is announced."""

from __future__ import annotations

import collections
import json
import re
from collections.abc import Callable
from typing import Any

from tests.display.conftest import Running

#: A card as the controller writes it (``9S``, ``TD``).
CARD = re.compile(r"(?<![\w-])[2-9TJQKA][CDHS](?![\w-])")
ROUNDS = 10
#: Before the page's scripts: after every update (the page sets body[data-seq] once it has drawn
#: it), keep the cards on the page and its whole text.
RECORD_DOM = """
window.tablehostDom = [];
const observer = new MutationObserver(() => {
  window.tablehostDom.push({ seq: Number(document.body.dataset.seq), text: document.body.innerText,
    cards: [...document.querySelectorAll("[data-card]")].map((node) => node.dataset.card) });
});
document.addEventListener("DOMContentLoaded", () => observer.observe(document.body, { attributes: true, attributeFilter: ["data-seq"] }));
"""
WAIT_MS = 30_000


def journal_facts(running: Running) -> dict[str, Any]:
    """What the journal says was exposed when: point counts (the reveal), cards read from the
    shoe (a third card is dealt face up as it comes out, § 541.10(c)), completed rounds, burn cards."""
    facts: dict[str, Any] = {"points": {}, "completed": {}, "burns": [], "reveals": 0, "reads": []}
    for record in running.table.journal.records():
        data = record.data
        if record.kind == "input" and record.type == "CardRead":
            facts["reads"].append(record.seq)
        elif record.kind == "decision" and record.type == "announce" and data["announce"] == "point_counts":
            facts["points"][record.round] = (record.seq, data["player"], data["banker"])
        elif record.kind == "decision" and record.type == "announce" and data["announce"] == "burn_card":
            facts["burns"].append((record.seq, data["card"]))
        elif record.kind == "decision" and record.type == "round_result":
            if data["status"] == "completed":
                facts["completed"][data["round"]] = (record.seq, data["player"], data["banker"])
        elif record.kind == "input" and record.type == "DealerCommand" and data["command"] == "reveal":
            facts["reveals"] += 1
    return facts


def exposed_hand(facts: dict[str, Any], round_: int, seq: int) -> tuple[list[str], list[str]] | None:
    """The round's hands as the table shows them at ``seq``: None while face down; from the
    reveal on, the initial cards and each third card read by then (the player's first)."""
    done = facts["completed"].get(round_)
    if done is not None and done[0] <= seq:
        return done[1], done[2]
    points = facts["points"].get(round_)
    if points is None or points[0] > seq:
        return None
    player, banker = list(points[1]), list(points[2])
    thirds = [("player", card) for card in done[1][2:]] + [("banker", card) for card in done[2][2:]] if done else []
    read = sum(points[0] < s <= seq for s in facts["reads"])
    for side, card in thirds[:read]:
        (player if side == "player" else banker).append(card)
    return player, banker


def check_dealer_message(facts: dict[str, Any], seq: int, state: dict[str, Any]) -> list[str]:
    """Every card in one dealer-view message is exposed by ``seq``; the cards it may name."""
    hand = state["hand"]
    allowed: list[str] = []
    if hand["player"] or hand["banker"]:
        assert exposed_hand(facts, hand["round"], seq) == (hand["player"], hand["banker"]), (seq, hand)
        allowed += hand["player"] + hand["banker"]
    for result in state["results"]:
        if result["status"] == "completed":
            done = facts["completed"][result["round"]]
            assert done[0] <= seq and (result["player"], result["banker"]) == (done[1], done[2])
            allowed += result["player"] + result["banker"]
        else:
            assert "player" not in result  # a void round shows no card: some may still be face down
    if state["burn_card"] is not None:
        assert any(s <= seq and card == state["burn_card"] for s, card in facts["burns"])
        allowed.append(state["burn_card"])
    named = CARD.findall(json.dumps(state))
    assert set(named) <= set(allowed), f"message {seq} names {set(named) - set(allowed)}"
    return allowed


def test_a_face_down_shoe_shows_no_card_before_the_reveal(run_table: Callable[..., Running], browser: Any) -> None:
    table = run_table(face_down=True, rounds=ROUNDS, hold_at={"load_shoe"})
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, bypass_csp=True)  # Playwright waits eval
    context.add_init_script(RECORD_DOM)
    dealer, board = context.new_page(), context.new_page()
    dealer.goto(table.url + "/")
    board.goto(table.url + "/scoreboard")
    for page in (dealer, board):
        page.wait_for_function("window.tablehost.messages.length > 0", timeout=WAIT_MS)
    table.gate.release()
    table.thread.join(timeout=60)
    assert table.table.display.hub.flush()
    final = table.table.display.hub.snapshot.seq
    dealer.wait_for_function(f"window.tablehost.seq === {final}", timeout=WAIT_MS)
    board.wait_for_function(f"document.body.dataset.rounds === '{ROUNDS}'", timeout=WAIT_MS)
    facts = journal_facts(table)
    assert facts["reveals"] == ROUNDS  # every round was dealt face down and turned up by the dealer

    messages = dealer.evaluate("window.tablehost.messages")
    snapshots = {s["seq"]: s for s in dealer.evaluate("window.tablehostDom")}
    face_down_seen = third_cards_seen = 0
    for message in messages:
        seq, state = message["id"], message["data"]["state"]
        allowed = check_dealer_message(facts, seq, state)
        shown = [card for card in snapshots[seq]["cards"] if card != "hidden"]
        assert not collections.Counter(shown) - collections.Counter(allowed), (seq, shown)
        assert set(CARD.findall(snapshots[seq]["text"])) <= set(allowed)
        if state["prompt"]["action"] == "reveal":
            face_down_seen += 1
            assert not state["hand"]["player"] and not state["hand"]["banker"]
        if state["prompt"]["action"] == "deal" and state["prompt"]["card"] == 3 and state["prompt"]["to"] == "banker":
            third_cards_seen += len(state["hand"]["player"]) == 3  # the player's third card shows as it is dealt
    assert face_down_seen == ROUNDS
    banker_draws_after_player = sum(len(p) == 3 and len(b) == 3 for _, p, b in facts["completed"].values())
    assert third_cards_seen == banker_draws_after_player > 0  # seed 1 deals such rounds

    board_messages = board.evaluate("window.tablehost.messages")
    board_snapshots = {s["seq"]: s for s in board.evaluate("window.tablehostDom")}
    for message in board_messages:
        seq, shown = message["id"], message["data"]["scoreboard"]
        announced = [r for r, (s, _, _) in facts["completed"].items() if s <= seq]
        assert shown["roads"]["rounds"] == len(announced)  # an outcome only once it is announced
        last = shown["last"]
        allowed = [] if last is None else last.get("player", []) + last.get("banker", [])
        if last is not None and last["status"] == "completed":
            assert last["round"] in announced
        assert set(CARD.findall(json.dumps(shown))) <= set(allowed)
        assert set(CARD.findall(board_snapshots[seq]["text"])) <= set(allowed)
    context.close()
