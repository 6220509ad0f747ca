"""Drive a :class:`BaccaratTable` with event sequences, the way the service does.

``Driver`` keeps the clock, feeds events and keeps every decision; ``cards("9S 2H")``
builds ``CardRead`` events from card text; ``play_round`` follows the controller's
prompts like a dealer who never errs.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from drivers.events import DeviceEvent
from drivers.events.shoe import CardRead
from drivers.events.table import DealerCommand, DeviceIdentified, WagerPlaced
from firmware_host.baccarat.cards import parse_card
from firmware_host.baccarat.rules import RulesSubmission
from firmware_host.baccarat_table import BaccaratTable
from firmware_host.decisions import Decision
from firmware_host.profiles import ApprovedIdentities

APPROVED = {"shoe": ApprovedIdentities(models=("SHOE-1",), firmware=("1.0",))}
SHOE_UP = DeviceIdentified(device="shoe", model="SHOE-1", serial="S1", firmware="1.0")
#: A first burn card worth one (§ 541.5(g)): the burn takes it and one more.
BURN = "AH 2C"


def cards(text: str, burn: bool = False) -> list[CardRead]:
    """``CardRead`` events for blank-separated cards, e.g. ``cards("9S 2H KD 5C")``."""
    return [CardRead(device="shoe", rank=card.rank, suit=card.suit, burn=burn) for card in map(parse_card, text.split())]


def command(name: str, **args: Any) -> DealerCommand:
    """A dealer command with its arguments."""
    return DealerCommand(device="buttons", command=name, args=args or None)


def wager(seat: int, kind: str, amount: int) -> WagerPlaced:
    """A wager of ``amount`` cents."""
    return WagerPlaced(device="console", seat=seat, kind=kind, amount=amount)


class Driver:
    """A controller and everything it decided, fed one event at a time."""

    def __init__(self, rules: RulesSubmission | None = None, decks: int = 8, **options: Any) -> None:
        self.table = BaccaratTable("T1", APPROVED, rules or RulesSubmission(), decks, **options)
        self.decisions: list[Decision] = []
        self.events: list[DeviceEvent] = []
        self.clock = 0.0

    def feed(self, *events: DeviceEvent | Iterable[DeviceEvent]) -> list[Decision]:
        """Feed events (or lists of events); return the decisions of these steps."""
        out: list[Decision] = []
        for item in events:
            for event in [item] if isinstance(item, DeviceEvent) else item:
                self.clock += 1.0
                self.events.append(event)
                out += self.table.handle(event, self.clock)
        self.decisions += out
        return out

    def start(self, decks: int | None = None, burn: str = BURN) -> list[Decision]:
        """Identify the shoe, load a shoe and burn: the table is open for bets."""
        return self.feed(SHOE_UP, command("shoe_loaded", decks=decks or self.table.decks), cards(burn, burn=True))

    def of(self, type_: str, decisions: Iterable[Decision] | None = None) -> list[dict[str, Any]]:
        """The data of every decision of one type (of all decisions by default)."""
        return [d.data for d in (self.decisions if decisions is None else decisions) if d.type == type_]

    def prompt(self) -> dict[str, Any]:
        """The latest prompt decision."""
        return self.of("prompt")[-1]

    def results(self) -> list[dict[str, Any]]:
        """Every round_result so far."""
        return self.of("round_result")

    def alerts(self, decisions: Iterable[Decision] | None = None) -> list[str]:
        """The codes of the alerts decided."""
        return [a["code"] for a in self.of("alert", decisions)]


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
