"""Never a card before it is exposed at the table: the feed of a § 541.9(c)(2) face-down deal."""

from __future__ import annotations

import re
from pathlib import Path

from drivers.events.lifecycle import ProtocolError
from firmware_host.feed import schema
from firmware_host.feed.schema import FeedState
from firmware_host.host.journal import Journal
from tests.support.table_driver import command
from tests.tables.baccarat.table import BURN, SHOE_UP, Driver, cards

FACE_DOWN = ("7S", "6H", "8D", "4C")


def published_text(journal: Journal, state: FeedState) -> tuple[str, FeedState]:
    """Every payload published after ``state``, and the state after them."""
    made = list(schema.derive("T1", journal.records_after(state.journal_seq, 10_000), state))
    return "".join(schema.encode(message).decode() for message, _ in made), made[-1][1] if made else state


def named(text: str) -> list[str]:
    return [card for card in FACE_DOWN if re.search(rf"(?<![0-9A-Z]){card}(?![0-9A-Z])", text)]


def test_541_9_c_2_no_face_down_card_is_published_before_the_reveal(tmp_path: Path) -> None:
    driver = Driver(initial_cards_face_down=True)
    steps = [
        SHOE_UP,
        command("shoe_loaded", decks=8),
        *cards(BURN, burn=True),
        command("no_more_bets"),
        *cards("7S 6H"),
        # a garbled frame of the third face-down card: its bytes are quoted in the driver's text
        ProtocolError(device="shoe", text="malformed frame: b'[G]<Card:8D'"),
        *cards("8D 4C"),
    ]
    with Journal.open(tmp_path / "journal.sqlite") as journal:
        state, before = FeedState(), ""
        for event in steps:
            journal.append_step(driver.clock + 1, event, driver.feed(event))
            text, state = published_text(journal, state)
            before += text
        assert driver.prompt()["action"] == "reveal"
        assert "point_counts" not in before and named(before) == []
        assert "round_result" not in before  # nothing of the round yet

        journal.append_step(driver.clock + 1, command("reveal"), driver.feed(command("reveal")))
        after, state = published_text(journal, state)
    assert named(after) == ["7S", "6H", "8D", "4C"]  # exposed at the reveal (§ 541.10(a)), then published
