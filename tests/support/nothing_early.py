"""What the journal says a table exposed and when, to check the pages against (nothing early,
issue 14 item 5; § 541.9(c)(2)): shared by the display tests of one process and of two."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "CARD",
    "RECORD_DOM",
    "journal_facts",
    "exposed_hand",
    "check_dealer_message",
    "check_board_message",
    "both_pages",
]

#: A card as the controller writes it (``9S``, ``TD``).
CARD = re.compile(r"(?<![\w-])[2-9TJQKA][CDHS](?![\w-])")
#: Before the page's scripts: after every update (the page sets body[data-seq] once it has drawn
#: it), keep the cards on the page and its whole text. The document itself is observed from its
#: start: a first message can be drawn before DOMContentLoaded on a loaded machine, and an observer
#: started then missed it (a KeyError in test_nothing_early).
RECORD_DOM = """
window.tablehostDom = [];
new MutationObserver(() => {
  window.tablehostDom.push({ seq: Number(document.body.dataset.seq), text: document.body.innerText,
    cards: [...document.querySelectorAll("[data-card]")].map((node) => node.dataset.card) });
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-seq"] });
"""


def journal_facts(journal: Any) -> dict[str, Any]:
    """What the journal says was exposed when: point counts (the reveal), cards read from the
    shoe (a third card is dealt face up as it comes out, § 541.10(c)), completed rounds, burn cards."""
    facts: dict[str, Any] = {"points": {}, "completed": {}, "burns": [], "reveals": 0, "reads": []}
    for record in journal.records():
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


def check_board_message(facts: dict[str, Any], seq: int, shown: dict[str, Any]) -> list[str]:
    """One scoreboard message at ``seq`` shows an outcome only once it is announced, and no card
    but the last round's; the cards it may name."""
    announced = [r for r, (s, _, _) in facts["completed"].items() if s <= seq]
    assert shown["roads"]["rounds"] == len(announced)  # an outcome only once it is announced
    last = shown["last"]
    allowed = [] if last is None else last.get("player", []) + last.get("banker", [])
    if last is not None and last["status"] == "completed":
        assert last["round"] in announced
    assert set(CARD.findall(json.dumps(shown))) <= set(allowed)
    return list(allowed)


def both_pages(browser: Any, url: str, wait_ms: int = 30_000) -> tuple[Any, Any, Any]:
    """A Chromium context recording the DOM after every update (:data:`RECORD_DOM`; its CSP bypassed:
    Playwright's waits evaluate strings), with the dealer's page and the board open at ``url`` and
    each showing its first message: ``(context, dealer, board)``."""
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, bypass_csp=True)
    context.add_init_script(RECORD_DOM)
    dealer, board = context.new_page(), context.new_page()
    dealer.goto(url + "/")
    board.goto(url + "/scoreboard")
    for page in (dealer, board):
        page.wait_for_function("window.tablehost.messages.length > 0", timeout=wait_ms)
    return context, dealer, board
