"""The three dice: a shaker reading, no roll or valid, the total, the 24-hour clock.

A reading is what the shaker's dice sensor reports once the lid is off: each die's face
and whether it lies flat, and how many dice are in the shaker. :func:`validate_reading`
turns it into a :class:`RollVerdict`, which is either a valid roll with its total, a
**no roll** that the regulation orders reshaken (§ 535.12(a),(b)), or an **invalid
reading**: data no three real dice can produce (a face of 7, four dice), which is a
sensor fault and never yields a starting position.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Literal

from firmware_host.errors import RulesError
from firmware_host.rules.clock import NS, Instant, as_instant, hours_ns, left_ns, reached, seconds_ns, span

#: Dice played with (§ 535.5(a)).
DICE_PER_ROLL = 3

#: Faces of a die.
FACES = range(1, 7)

#: Longest time dice may stay on the table, in hours (§ 535.5(c)).
DICE_MAX_HOURS = 24

#: Reasons a reading is not a valid roll, with the rule that applies.
NO_ROLL_DIE_OUT = "die_out_of_shaker"  # § 535.12(b)
NO_ROLL_NOT_FLAT = "die_not_flat"  # § 535.12(a)
INVALID_READING = "invalid_reading"  # no regulation: the sensor reported the impossible

_SECTIONS = {NO_ROLL_DIE_OUT: "535.12(b)", NO_ROLL_NOT_FLAT: "535.12(a)", INVALID_READING: None}


@dataclasses.dataclass(frozen=True)
class DieReading:
    """One die as the sensor sees it.

    :param face: the face up, 1..6 (meaningless when the die is not flat).
    :param flat: whether the die lies flat on the bottom of the shaker.
    """

    face: int
    flat: bool


@dataclasses.dataclass(frozen=True)
class RollVerdict:
    """What a reading means for the round.

    :param valid: a roll that decides the starting position.
    :param reason: ``None`` when valid, else ``"die_out_of_shaker"``, ``"die_not_flat"``
        or ``"invalid_reading"``.
    :param text: one line for the dealer and the journal.
    :param total: the dice total when valid, else ``None``.
    """

    valid: bool
    reason: str | None
    text: str
    total: int | None = None

    @property
    def no_roll(self) -> bool:
        """The regulation calls a no roll and a reshake (§ 535.12(a),(b))."""
        return self.reason in (NO_ROLL_DIE_OUT, NO_ROLL_NOT_FLAT)

    @property
    def section(self) -> str | None:
        """The regulation section behind the verdict, e.g. ``"535.12(a)"``."""
        return _SECTIONS.get(self.reason) if self.reason else None

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready form for the journal's ``rolls``."""
        return {
            "valid": self.valid,
            "reason": self.reason,
            "section": self.section,
            "text": self.text,
            "total": self.total,
        }


def _is_face(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value in FACES


def _invalid_reading(dice: Sequence[DieReading], dice_in_shaker: object) -> str | None:
    """Why the reading cannot come from three real dice, or ``None`` if it can."""
    if isinstance(dice_in_shaker, bool) or not isinstance(dice_in_shaker, int) or dice_in_shaker < 0:
        return f"dice in shaker {dice_in_shaker!r} is not a count"
    if dice_in_shaker > DICE_PER_ROLL or len(dice) > DICE_PER_ROLL:
        return f"{max(dice_in_shaker, len(dice))} dice reported: the game uses {DICE_PER_ROLL} (§ 535.5(a))"
    if len(dice) != dice_in_shaker:
        return f"{len(dice)} dice read but {dice_in_shaker} reported in the shaker"
    for number, die in enumerate(dice, start=1):
        if not isinstance(die, DieReading) or not isinstance(die.flat, bool):
            return f"die {number} is not a die reading: {die!r}"
        # A die that is not flat has no face up: only a flat die's face is checked.
        if die.flat and not _is_face(die.face):
            return f"die {number} shows face {die.face!r}: faces are 1 to 6"
    return None


def validate_reading(dice: Sequence[DieReading], dice_in_shaker: int) -> RollVerdict:
    """Judge one reading of the shaker.

    Order of the checks: an impossible reading first (it says nothing reliable about the
    dice), then a die out of the shaker (§ 535.12(b)), then a die not flat (§ 535.12(a)).

    :param dice: the dice the sensor sees in the shaker.
    :param dice_in_shaker: how many dice the sensor counts in the shaker.
    """
    why = _invalid_reading(dice, dice_in_shaker)
    if why is not None:
        return RollVerdict(False, INVALID_READING, f"invalid reading, not a roll: {why}")
    if dice_in_shaker < DICE_PER_ROLL:
        missing = DICE_PER_ROLL - dice_in_shaker
        return RollVerdict(
            False,
            NO_ROLL_DIE_OUT,
            f"no roll: {missing} {'die' if missing == 1 else 'dice'} out of the shaker (§ 535.12(b))",
        )
    cocked = [number for number, die in enumerate(dice, start=1) if not die.flat]
    if cocked:
        which = ", ".join(map(str, cocked))
        return RollVerdict(False, NO_ROLL_NOT_FLAT, f"no roll: die {which} not flat (§ 535.12(a))")
    value = sum(die.face for die in dice)
    faces = "+".join(str(die.face) for die in dice)
    return RollVerdict(True, None, f"{faces} = {value}", value)


def total(dice: Sequence[DieReading]) -> int:
    """The total of a valid roll of three flat dice.

    :raises RulesError: if the dice are not three flat dice showing 1..6.
    """
    verdict = validate_reading(dice, len(dice))
    if verdict.total is None:
        raise RulesError(f"dice have no total: {verdict.text}")
    return verdict.total


def parse_dice(text: str) -> tuple[DieReading, ...]:
    """Parse ``"A,B,C"`` (three faces 1..6, all flat) as typed by a person.

    :raises RulesError: naming the input and why it is not three dice.
    """
    parts = [part.strip() for part in text.split(",")]
    if len(parts) != DICE_PER_ROLL:
        raise RulesError(f"dice {text!r}: give exactly {DICE_PER_ROLL} faces, e.g. 3,5,1")
    dice = []
    for part in parts:
        if not part.isdecimal() or int(part) not in FACES:
            raise RulesError(f"dice {text!r}: {part!r} is not a face 1 to 6")
        dice.append(DieReading(int(part), True))
    return tuple(dice)


DiceClockState = Literal["unregistered", "ok", "warn", "expired"]


@dataclasses.dataclass(frozen=True)
class DiceClock:
    """Where the dice stand against the 24-hour limit (§ 535.5(c)).

    :param state: ``"unregistered"`` (no dice set registered), ``"ok"``, ``"warn"``
        (inside the warning lead) or ``"expired"`` (a round may not start).
    :param seconds_left: seconds until the limit (0 once expired; ``None`` if unregistered).
    :param reason: why the time since the dice were registered cannot be known, if it cannot
        (the limit is then taken as reached, :func:`firmware_host.rules.clock.span`).
    """

    state: DiceClockState
    seconds_left: float | None
    reason: str | None = None

    @property
    def may_start_round(self) -> bool:
        """Whether a new round may start with these dice."""
        return self.state in ("ok", "warn")


def dice_clock(
    registered: Instant | float | None,
    now: Instant | float,
    *,
    max_hours: float = DICE_MAX_HOURS,
    warning_minutes: float = 0,
) -> DiceClock:
    """Check the dice set registered at ``registered`` at ``now``.

    The span is measured on the monotonic clock within a boot (:func:`~firmware_host.rules.clock.span`),
    so a step of the wall clock neither expires the dice nor keeps them on the table. The limit
    counts as reached at exactly ``max_hours`` (any round started then would end with the dice
    on the table for more than the limit), and when the span cannot be known (§ 535.5(c)).
    """
    if registered is None:
        return DiceClock("unregistered", None)
    measured = span(as_instant(registered), as_instant(now))
    limit = hours_ns(max_hours)
    if reached(measured, limit):
        return DiceClock("expired", 0.0, measured.reason)
    left = left_ns(measured, limit)
    return DiceClock("warn" if left <= seconds_ns(warning_minutes * 60) else "ok", left / NS)
