"""The positions of a Pai Gow table and the starting position (§ 535.8(c), § 535.11(j)).

The table has the dealer on one side, six numbered betting positions opposite, and the
Dead Hand to the dealer's left (§ 535.2(a),(b)). Counting counterclockwise from the dealer
the positions come in the order dealer, 1, 2, 3, 4, 5, 6, Dead Hand, and then the dealer
again (§ 535.8(c)): position 1 is the one farthest to the dealer's right.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from firmware_host.errors import RulesError

#: A place that receives four tiles: ``"dealer"``, a betting position 1..6, or ``"dead"``.
Position: TypeAlias = Literal["dealer", "dead"] | int

#: The eight positions in counterclockwise order starting with the dealer (§ 535.8(c)).
TABLE_ORDER: tuple[Position, ...] = ("dealer", 1, 2, 3, 4, 5, 6, "dead")

#: Betting positions a player (and so a player bank) can occupy (§ 535.2(b)(1)).
SEATS: tuple[int, ...] = (1, 2, 3, 4, 5, 6)

#: Smallest and largest total of three dice.
MIN_TOTAL, MAX_TOTAL = 3, 18


def check_seat(seat: object, what: str = "bank seat") -> int:
    """Return ``seat`` if it is a betting position 1..6, else raise :class:`RulesError`."""
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in SEATS:
        raise RulesError(f"{what} {seat!r} is not a betting position: use 1 to 6")
    return seat


def label(position: Position) -> str:
    """The text form used by the CLI and JSON: ``"dealer"``, ``"1"``..``"6"`` or ``"dead"``."""
    return str(position)


def parse_position(text: str) -> Position:
    """Inverse of :func:`label`; raises :class:`RulesError` on anything else."""
    for position in TABLE_ORDER:
        if label(position) == text:
            return position
    raise RulesError(f"position {text!r} is not one of dealer, 1..6, dead")


def check_position(position: object) -> Position:
    """Return ``position`` if it is one of ``TABLE_ORDER``, else raise :class:`RulesError`."""
    if not any(type(position) is type(known) and position == known for known in TABLE_ORDER):
        raise RulesError(f"position {position!r} is not one of dealer, 1..6, dead")
    return position  # type: ignore[return-value]


def following(position: Position, steps: int = 1) -> Position:
    """The position ``steps`` places counterclockwise from ``position``."""
    return TABLE_ORDER[(TABLE_ORDER.index(check_position(position)) + steps) % len(TABLE_ORDER)]


def starting_position(total: int, bank_seat: int | None = None) -> Position:
    """The position that receives the first four tiles.

    Count counterclockwise, the dealer being one, through each betting position whether
    or not it has a wager, and the Dead Hand, until the count reaches ``total``
    (§ 535.8(c): 9 is the dealer, 15 is position 6). With a player bank the bank's
    position is one and the count goes on around the table through the dealer and the
    Dead Hand in the same order (§ 535.11(j), § 621a.9(j)).

    :param total: the total of the three dice, 3..18.
    :param bank_seat: the betting position of the player bank, or ``None``.
    :raises RulesError: on a total outside 3..18 or a bank seat outside 1..6.
    """
    if isinstance(total, bool) or not isinstance(total, int) or not MIN_TOTAL <= total <= MAX_TOTAL:
        raise RulesError(f"dice total {total!r} is impossible with three dice: it must be 3 to 18")
    counted_as_one: Position = "dealer" if bank_seat is None else check_seat(bank_seat)
    return following(counted_as_one, total - 1)
