"""One Pai Gow round as the controller keeps it, and its ``round_result`` record (:meth:`RoundState.result`).

Every reading of the shaker between "no more bets" and the accepted roll is kept as a
:class:`Roll` in order, valid or not, with the reason it was not a roll, so the journal
shows every no roll and its reshake (§ 535.12(a),(b)).

Reasons a reading is not a roll (``Roll.reason``):

``die_not_flat`` (§ 535.12(a)), ``die_out_of_shaker`` (§ 535.12(b)), ``invalid_reading``
    from :func:`~firmware_host.rules.paigow_dice.dice.validate_reading` (the last: data no three dice
    can give, a sensor fault);
``too_few_shakes`` (§ 535.8(a), § 535.11(i))
    the lid came off (or a reading came) before the third shake;
``lid_removed_by_bank`` (§ 535.11(i))
    the player bank lifted the lid; the dealer must have it covered and reshaken;
``not_revealed``
    a reading arrived while the lid was still on after the shakes: no reveal, no roll.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from drivers.events.dice import DiceRead
from firmware_host.rules.paigow_dice.bank import BankRound
from firmware_host.rules.paigow_dice.delivery import Cut, DeliveryPlan
from firmware_host.rules.paigow_dice.dice import DieReading
from firmware_host.rules.paigow_dice.position import SEATS, label
from firmware_host.tables.round_record import RoundTable, head

__all__ = [
    "Roll",
    "RoundState",
    "die_reading",
    "TOO_FEW_SHAKES",
    "LID_REMOVED_BY_BANK",
    "NOT_REVEALED",
    "SHAKES_REQUIRED",
]

#: § 535.8(a), § 535.11(i): the shaker is shaken at least three times before the reveal.
SHAKES_REQUIRED = 3
TOO_FEW_SHAKES = "too_few_shakes"  # § 535.8(a), § 535.11(i)
LID_REMOVED_BY_BANK = "lid_removed_by_bank"  # § 535.11(i)
NOT_REVEALED = "not_revealed"  # a reading with the lid on: no reveal (§ 535.8(b))


def die_reading(raw: object) -> object:
    """A sensor's ``(face, flat)`` pair as a :class:`DieReading`; anything else is passed on
    unchanged for :func:`~firmware_host.rules.paigow_dice.dice.validate_reading` to call invalid."""
    if isinstance(raw, (tuple, list)) and len(raw) == 2:
        return DieReading(raw[0], raw[1])
    return raw


@dataclasses.dataclass(frozen=True)
class Roll:
    """One reading of the shaker and what it meant.

    :param dice: each die's face as reported (``None`` where the sensor sent no pair).
    :param flat: whether each die lay flat (``None`` likewise).
    :param dice_in_shaker: the sensor's count of dice in the shaker.
    :param valid: whether it decided the starting position.
    :param reason: ``None`` when valid, else why not (see the module docstring).
    """

    dice: tuple[Any, ...]
    flat: tuple[Any, ...]
    dice_in_shaker: Any
    valid: bool
    reason: str | None

    @classmethod
    def of(cls, event: DiceRead, valid: bool, reason: str | None) -> Roll:
        pairs = [die if isinstance(die, (tuple, list)) and len(die) == 2 else (None, None) for die in event.dice]
        return cls(
            tuple(face for face, _ in pairs), tuple(flat for _, flat in pairs), event.dice_in_shaker, valid, reason
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "dice": list(self.dice),
            "flat": list(self.flat),
            "dice_in_shaker": self.dice_in_shaker,
            "valid": self.valid,
            "reason": self.reason,
        }


@dataclasses.dataclass
class RoundState:
    """The open round, from the first wager to the round result."""

    #: Cents wagered at each betting area (§ 535.7).
    wagers: dict[int, int] = dataclasses.field(default_factory=dict)
    #: The seats offered the bank this round, in order (§ 535.11(c)).
    offer: tuple[int, ...] = ()
    bank: BankRound | None = None
    #: What the dealer wagers against the player bank (§ 535.11(h)).
    dealer_wager: int = 0
    style: str = "standard"
    cut: Cut | None = None
    #: Shakes since the shaker was last (re)covered for this roll.
    shakes: int = 0
    #: Why the reveal under way cannot be a roll (set before its reading arrives).
    reveal_fault: str | None = None
    #: The reason of the last no roll, while its reshake is awaited.
    reshake_reason: str | None = None
    rolls: list[Roll] = dataclasses.field(default_factory=list)
    total: int | None = None
    plan: DeliveryPlan | None = None
    #: Betting areas voided by their player after an exposed tile (§ 535.12(d)).
    void_seats: set[int] = dataclasses.field(default_factory=set)

    @property
    def bank_seat(self) -> int | None:
        return None if self.bank is None else self.bank.seat

    @property
    def playing(self) -> dict[int, int]:
        """The wagers in play: the bank's own area holds the bank, not a wager (§ 535.11(f))."""
        return {seat: amount for seat, amount in sorted(self.wagers.items()) if seat != self.bank_seat}

    @property
    def shaken_by(self) -> str:
        """Who shakes the shaker: the player bank (§ 535.11(i)) or the dealer (§ 535.8(a))."""
        return "dealer" if self.bank is None else "bank"

    def to_dead_hand(self) -> list[str]:
        """Positions whose stacks the dealer collects to the Dead Hand, unexposed (§ 535.8(e),
        § 535.11(l)): betting areas without a wager (the bank's own area holds the bank), and the
        dealer when a player banks and the dealer places no wager against the bank."""
        positions = [str(seat) for seat in SEATS if seat not in self.wagers and seat != self.bank_seat]
        if self.bank is not None and self.dealer_wager == 0:
            positions.insert(0, "dealer")
        return positions

    def plan_summary(self) -> list[dict[str, Any]] | None:
        """The delivery as ``[{"position": "3", "tiles": ["1.1", ...]}, ...]`` in delivery order;
        a tile is ``stack.level``, stacks 1-8 from the dealer's right as stacked, level 1 the top."""
        if self.plan is None:
            return None
        return [
            {"position": label(hand.position), "tiles": [f"{tile.stack}.{tile.level}" for tile in hand.tiles]}
            for hand in self.plan.hands
        ]

    def result(self, table: RoundTable, status: str, settlement: dict[str, Any] | None) -> dict[str, Any]:
        """The ``round_result`` data, completed or void (its one builder; fields declared in
        :data:`firmware_host.tables.round_record.PAIGOW`): the export fields of ``journal export
        --rounds`` (PRODUCT.md), then ``cut``, ``plan`` and ``settlement``."""
        valid = next((roll for roll in reversed(self.rolls) if roll.valid), None)
        return {
            **head(table, status),
            "dice": None if valid is None else list(valid.dice),
            "total": self.total,
            "bank_seat": self.bank_seat,
            "start": None if self.plan is None else label(self.plan.start),
            "style": self.style,
            "rolls": [roll.to_json() for roll in self.rolls],
            "cut": None if self.cut is None else self.cut.to_json_dict(),
            "plan": self.plan_summary(),
            "settlement": settlement,
        }
