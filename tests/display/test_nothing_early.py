"""Nothing early (issue 14 item 5): a face-down shoe (§ 541.9(c)(2)) is played while Chromium
follows both pages; every stream message and a DOM snapshot after each one are checked against
the journal: no card before the table exposes it, no outcome on the board before it is announced."""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

from tests.display.conftest import Running
from tests.support.nothing_early import CARD, both_pages, check_board_message, check_dealer_message, journal_facts

ROUNDS = 10
WAIT_MS = 30_000


def test_a_face_down_shoe_shows_no_card_before_the_reveal(run_table: Callable[..., Running], browser: Any) -> None:
    table = run_table(face_down=True, rounds=ROUNDS, hold_at={"load_shoe"})
    context, dealer, board = both_pages(browser, table.url)
    table.gate.release()
    table.thread.join(timeout=60)
    assert table.flush()
    final = table.seq()
    dealer.wait_for_function(f"window.tablehost.seq === {final}", timeout=WAIT_MS)
    board.wait_for_function(f"document.body.dataset.rounds === '{ROUNDS}'", timeout=WAIT_MS)
    facts = journal_facts(table.table.journal)
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
        allowed = check_board_message(facts, message["id"], message["data"]["scoreboard"])
        assert set(CARD.findall(board_snapshots[message["id"]]["text"])) <= set(allowed)
    context.close()
