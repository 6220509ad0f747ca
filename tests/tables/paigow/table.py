"""Drive a :class:`PaiGowTable` with event sequences, the way the service does.

``Driver`` (a :class:`~tests.support.table_driver.TableDriver`) keeps the clock, feeds events
and keeps every decision; ``roll(3, 5, 1)`` is three shakes, the lid off and the reading;
``play_round`` follows the controller's prompts like a dealer who never errs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from drivers.events import DeviceEvent
from drivers.events.dice import DiceRead, LidChanged, ShakeDetected
from drivers.events.lifecycle import DeviceIdentified
from firmware_host.rules.devices import ApprovedIdentities
from firmware_host.rules.paigow_dice.rules import PaiGowRules
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import WagerPlaced
from firmware_host.tables.paigow import PaiGowTable, PaiGowTableRules
from tests.support.table_driver import TableDriver, command

APPROVED = {"shaker": ApprovedIdentities(models=("SH-1",), firmware=("1.0",))}
SHAKER_UP = DeviceIdentified(device="shaker", model="SH-1", serial="S1", firmware="1.0")
#: A Rules Submission that offers the player bank and co-banking (§ 535.11(a), (e)).
BANK_RULES = PaiGowTableRules(PaiGowRules(player_bank_offered=True, co_banking_offered=True))


def wager(seat: int, amount: int = 1000, kind: str = "paigow") -> WagerPlaced:
    """A wager of ``amount`` cents."""
    return WagerPlaced(device="console", seat=seat, kind=kind, amount=amount)


def shakes(count: int) -> list[ShakeDetected]:
    """``count`` shakes, numbered as the shaker numbers them."""
    return [ShakeDetected(device="shaker", count=n) for n in range(1, count + 1)]


def lid(open_: bool) -> LidChanged:
    return LidChanged(device="shaker", open=open_)


def reading(*faces: Any, flat: Iterable[bool] | None = None, in_shaker: int | None = None) -> DiceRead:
    """A reading of the dice: every die flat and in the shaker unless told otherwise."""
    flats = list(flat) if flat is not None else [True] * len(faces)
    return DiceRead(
        device="shaker", dice=tuple(zip(faces, flats)), dice_in_shaker=len(faces) if in_shaker is None else in_shaker
    )


def roll(*faces: int, shaken: int = 3) -> list[DeviceEvent]:
    """Shake, lift the lid, read."""
    return [*shakes(shaken), lid(True), reading(*faces)]


def faces_for(total: int) -> tuple[int, int, int]:
    """Three faces adding up to ``total`` (3..18)."""
    first = min(6, total - 2)
    second = min(6, total - first - 1)
    return first, second, total - first - second


class Driver(TableDriver[PaiGowTable]):
    """A :class:`PaiGowTable` and everything it decided, fed one event at a time."""

    def __init__(self, rules: PaiGowTableRules | None = None) -> None:
        super().__init__(PaiGowTable("T1", APPROVED, rules or PaiGowTableRules()))

    def open(self) -> list[Decision]:
        """Identify the shaker and register a dice set: the table is open for bets."""
        return self.feed(SHAKER_UP, command("new_dice"))

    def deal_and_close(self) -> list[Decision]:
        """After an accepted roll: delivered, cover, shake once (§ 535.8(d)-(f))."""
        return self.feed(command("delivered"), lid(False), shakes(1))

    def play_round(
        self,
        faces: tuple[int, int, int] = (3, 5, 1),
        wagers: dict[int, int] | None = None,
        bank: dict[str, Any] | None = None,
        tiles: dict[str, Any] | None = None,
        before_roll: Iterable[DeviceEvent] = (),
    ) -> dict[str, Any]:
        """One round from the first wager to its result; ``bank`` is the ``bank`` command's args."""
        self.feed([wager(seat, amount) for seat, amount in (wagers or {3: 1000}).items()])
        self.feed(command("no_more_bets"))
        if self.table.state == "bank":
            self.feed(command("bank", **bank) if bank else command("no_bank"))
        assert self.table.state == "shaking", self.prompt()
        self.feed(before_roll)
        self.feed(roll(*faces))
        assert self.table.state == "delivering", self.prompt()
        self.deal_and_close()
        self.feed(command("tiles", **tiles) if tiles else command("round_complete"))
        return self.results()[-1]


#: A wager at every seat.
ALL_SEATS = {seat: 1000 for seat in range(1, 7)}


def after_first_round(rules: PaiGowTableRules = BANK_RULES, wagers: dict[int, int] | None = None) -> Driver:
    """A table whose first round (no player bank) is over, every seat having wagered."""
    driver = Driver(rules)
    driver.open()
    driver.play_round(wagers=wagers or ALL_SEATS)
    return driver


def to_bank_offer(driver: Driver, wagers: dict[int, int] | None = None) -> None:
    """Wagers of ``wagers`` (default seats 2 and 4), then no more bets: the bank is offered."""
    driver.feed([wager(seat, amount) for seat, amount in (wagers or {2: 1000, 4: 500}).items()])
    driver.feed(command("no_more_bets"))
