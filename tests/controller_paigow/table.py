"""Drive a :class:`PaiGowTable` with event sequences, the way the service does.

``Driver`` keeps the clock, feeds events and keeps every decision; ``roll(3, 5, 1)`` is three
shakes, the lid off and the reading; ``play_round`` follows the controller's prompts like a
dealer who never errs.
"""

from __future__ import annotations

from typing import Any, Iterable

from drivers.events import DeviceEvent
from drivers.events.dice import DiceRead, LidChanged, ShakeDetected
from drivers.events.table import DealerCommand, DeviceIdentified, WagerPlaced
from firmware_host.decisions import Decision
from firmware_host.paigow.rules import PaiGowRules
from firmware_host.paigow_table import PaiGowTable, PaiGowTableRules
from firmware_host.profiles import ApprovedIdentities

APPROVED = {"shaker": ApprovedIdentities(models=("SH-1",), firmware=("1.0",))}
SHAKER_UP = DeviceIdentified(device="shaker", model="SH-1", serial="S1", firmware="1.0")
#: A Rules Submission that offers the player bank and co-banking (§ 535.11(a), (e)).
BANK_RULES = PaiGowTableRules(PaiGowRules(player_bank_offered=True, co_banking_offered=True))


def command(command_name: str, /, **args: Any) -> DealerCommand:
    """A dealer command with its arguments."""
    return DealerCommand(device="buttons", command=command_name, args=args or None)


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
    return DiceRead(device="shaker", dice=tuple(zip(faces, flats)),
                    dice_in_shaker=len(faces) if in_shaker is None else in_shaker)


def roll(*faces: int, shaken: int = 3) -> list[DeviceEvent]:
    """Shake, lift the lid, read."""
    return [*shakes(shaken), lid(True), reading(*faces)]


def faces_for(total: int) -> tuple[int, int, int]:
    """Three faces adding up to ``total`` (3..18)."""
    first = min(6, total - 2)
    second = min(6, total - first - 1)
    return first, second, total - first - second


class Driver:
    """A controller and everything it decided, fed one event at a time."""

    def __init__(self, rules: PaiGowTableRules | None = None) -> None:
        self.table = PaiGowTable("T1", APPROVED, rules or PaiGowTableRules())
        self.decisions: list[Decision] = []
        self.steps: list[tuple[float, DeviceEvent]] = []
        self.clock = 0.0

    def feed(self, *events: DeviceEvent | Iterable[DeviceEvent], gap: float = 1.0) -> list[Decision]:
        """Feed events (or lists of events) ``gap`` seconds apart; return their decisions."""
        out: list[Decision] = []
        for item in events:
            for event in [item] if isinstance(item, DeviceEvent) else item:
                self.clock += gap
                self.steps.append((self.clock, event))
                out += self.table.handle(event, self.clock)
        self.decisions += out
        return out

    def open(self) -> list[Decision]:
        """Identify the shaker and register a dice set: the table is open for bets."""
        return self.feed(SHAKER_UP, command("new_dice"))

    def of(self, type_: str, decisions: Iterable[Decision] | None = None) -> list[dict[str, Any]]:
        """The data of every decision of one type (of all decisions by default)."""
        return [d.data for d in (self.decisions if decisions is None else decisions) if d.type == type_]

    def prompt(self) -> dict[str, Any]:
        """The latest prompt decision."""
        return self.of("prompt")[-1]

    def results(self) -> list[dict[str, Any]]:
        return self.of("round_result")

    def alerts(self, decisions: Iterable[Decision] | None = None) -> list[str]:
        """The codes of the alerts decided."""
        return [a["code"] for a in self.of("alert", decisions)]

    def announced(self, what: str, decisions: Iterable[Decision] | None = None) -> list[dict[str, Any]]:
        return [a for a in self.of("announce", decisions) if a["announce"] == what]

    def deal_and_close(self) -> list[Decision]:
        """After an accepted roll: delivered, cover, shake once (§ 535.8(d)-(f))."""
        return self.feed(command("delivered"), lid(False), shakes(1))

    def play_round(self, faces: tuple[int, int, int] = (3, 5, 1), wagers: dict[int, int] | None = None,
                   bank: dict[str, Any] | None = None, tiles: dict[str, Any] | None = None,
                   before_roll: Iterable[DeviceEvent] = ()) -> dict[str, Any]:
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
