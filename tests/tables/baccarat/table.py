"""Drive a :class:`BaccaratTable` with event sequences, the way the service does.

``Driver`` (a :class:`~tests.support.table_driver.TableDriver`) keeps the clock, feeds events
and keeps every decision; ``cards("9S 2H")`` builds ``CardRead`` events from card text;
``follow_prompts`` follows the controller's prompts like a dealer who never errs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from drivers.events.lifecycle import DeviceIdentified
from drivers.events.shoe import CardRead
from firmware_host.rules.baccarat.cards import parse_card
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.devices import ApprovedIdentities
from firmware_host.tables.baccarat.controller import BaccaratTable
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import WagerPlaced
from tests.support.table_driver import TableDriver, command

APPROVED = {"shoe": ApprovedIdentities(models=("SHOE-1",), firmware=("1.0",))}
SHOE_UP = DeviceIdentified(device="shoe", model="SHOE-1", serial="S1", firmware="1.0")
#: A first burn card worth one (§ 541.5(g)): the burn takes it and one more.
BURN = "AH 2C"


def cards(text: str, burn: bool = False) -> list[CardRead]:
    """``CardRead`` events for blank-separated cards, e.g. ``cards("9S 2H KD 5C")``."""
    return [
        CardRead(device="shoe", rank=card.rank, suit=card.suit, burn=burn) for card in map(parse_card, text.split())
    ]


def wager(seat: int, kind: str, amount: int) -> WagerPlaced:
    """A wager of ``amount`` cents."""
    return WagerPlaced(device="console", seat=seat, kind=kind, amount=amount)


class Driver(TableDriver[BaccaratTable]):
    """A :class:`BaccaratTable` and everything it decided, fed one event at a time."""

    def __init__(self, rules: RulesSubmission | None = None, decks: int = 8, **options: Any) -> None:
        super().__init__(BaccaratTable("T1", APPROVED, rules or RulesSubmission(), decks, **options))

    def start(self, decks: int | None = None, burn: str = BURN) -> list[Decision]:
        """Identify the shoe, load a shoe and burn: the table is open for bets."""
        return self.feed(SHOE_UP, command("shoe_loaded", decks=decks or self.table.decks), cards(burn, burn=True))


def follow_prompts(driver: Driver, shoe: Iterator[str]) -> dict[str, Any] | None:
    """Play one round as prompted: no more bets, then a card per prompt until the round ends.

    :returns: the round_result, or None when the shoe ran out of cards first.
    """
    before = len(driver.results())
    driver.feed(command("no_more_bets"))
    while len(driver.results()) == before:
        prompt = driver.prompt()
        if prompt["action"] == "reveal":
            driver.feed(command("reveal"))
        elif prompt["action"] == "settle_pairs":
            driver.feed(command("pairs_settled"))
        else:
            assert prompt["action"] == "deal", prompt
            text = next(shoe, None)
            if text is None:
                return None
            driver.feed(cards(text))
    return driver.results()[-1]
