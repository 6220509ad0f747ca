"""Which four tiles go to which position: the bank's cut and the delivery styles.

The dealer forms eight stacks of four tiles side by side (§ 535.6(d)). Here the stacks are
numbered 1 to 8 **from the dealer's right** as they are formed, and a tile is named by its
stack and its **level**, 1 the top tile to 4 the bottom one. A player bank may cut the
stacks once (§ 535.11(g)); a cut moves stacks but they keep their numbers, and ``place``
says where a stack stands after the cut (1 the dealer's right end).

The styles (``STYLES``): the standard delivery of § 535.8(d) and the nine of § 535.9(a).
Each one lists eight hands of four tiles in delivery order; the first goes to the
starting position and the next ones counterclockwise around the table (§ 535.8(d),
§ 535.11(k)). Every "from the left" style is the mirror image of its "from the right"
twin, place ``p`` becoming place ``9 - p``. See docs/paigow-delivery.md for worked examples.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.position import Position, check_position, following, label

#: Stacks of tiles and tiles per stack (§ 535.6(d): eight stacks of four tiles).
STACKS, LEVELS = 8, 4
PLACES: tuple[int, ...] = tuple(range(1, STACKS + 1))

#: A tile's spot before it is dealt: (place counted from the dealer's right, level from the top).
Spot = tuple[int, int]
Hands = list[list[Spot]]


def _whole_stacks(places: Sequence[int]) -> Hands:
    """Each stack in turn to the next position: § 535.8(d) and § 535.9(a)(1)."""
    return [[(place, level) for level in range(1, LEVELS + 1)] for place in places]


def _pairs_split(pick: Callable[[list[int]], tuple[int, int]]) -> Hands:
    """Push two stacks forward, top two tiles of each to one position, the bottom two of
    each to the next (§ 535.9(a)(2)-(5)); ``pick`` chooses the two among those remaining."""
    remaining, hands = list(PLACES), []
    while remaining:
        pair = pick(remaining)
        for place in pair:
            remaining.remove(place)
        hands.append([(place, level) for place in pair for level in (1, 2)])
        hands.append([(place, level) for place in pair for level in (3, 4)])
    return hands


def _slices() -> Hands:
    """Pin Say from the right (§ 535.9(a)(6)): the top tile of the four stacks on the right,
    then of the four on the left, level after level."""
    right, left = PLACES[:4], PLACES[4:]
    return [[(place, level) for place in group] for level in range(1, LEVELS + 1) for group in (right, left)]


def _dragon_and_phoenix() -> Hands:
    """Dragon Head and Phoenix Tail from the right (§ 535.9(a)(8)).

    Stacks 1 and 2 are set directly on stacks 3 and 4 (1 on 3, 2 on 4), making two stacks of
    eight; each dragon turn takes the top two tiles of both, each phoenix turn the top tile
    of each of the four stacks on the left.
    """
    tall = [
        [(upper, level) for level in range(1, 5)] + [(lower, level) for level in range(1, 5)]
        for upper, lower in ((1, 3), (2, 4))
    ]
    hands: Hands = []
    for turn in range(LEVELS):
        hands.append([spot for stack in tall for spot in stack[2 * turn : 2 * turn + 2]])
        hands.append([(place, turn + 1) for place in PLACES[4:]])
    return hands


def _mirror(hands: Hands) -> Hands:
    """The same style worked from the dealer's left."""
    return [[(STACKS + 1 - place, level) for place, level in hand] for hand in hands]


_FROM_THE_RIGHT_CUP_SAY = _pairs_split(lambda rest: (rest[0], rest[1]))
_PIN_SAY = _slices()
_DRAGON = _dragon_and_phoenix()

#: Style name -> eight hands of four spots, in delivery order (§ 535.8(d), § 535.9(a)).
_STYLE_SPOTS: dict[str, Hands] = {
    "standard": _whole_stacks(PLACES),  # § 535.8(d)
    "house-way-from-the-left": _mirror(_whole_stacks(PLACES)),  # § 535.9(a)(1)
    "cup-say-from-the-right": _FROM_THE_RIGHT_CUP_SAY,  # § 535.9(a)(2)
    "cup-say-from-the-left": _mirror(_FROM_THE_RIGHT_CUP_SAY),  # § 535.9(a)(3)
    # § 535.9(a)(4): the two centre stacks of those remaining, pushed together each time.
    "jung-quat": _pairs_split(lambda rest: (rest[len(rest) // 2 - 1], rest[len(rest) // 2])),
    # § 535.9(a)(5): the first stack remaining on the right and the first on the left.
    "chee-yee": _pairs_split(lambda rest: (rest[0], rest[-1])),
    "pin-say-from-the-right": _PIN_SAY,  # § 535.9(a)(6)
    "pin-say-from-the-left": _mirror(_PIN_SAY),  # § 535.9(a)(7)
    "dragon-head-phoenix-tail-from-the-right": _DRAGON,  # § 535.9(a)(8)
    "dragon-head-phoenix-tail-from-the-left": _mirror(_DRAGON),  # § 535.9(a)(9)
}

#: Every delivery style's name, the standard one first, then § 535.9(a)(1)-(9) in order.
STYLES: tuple[str, ...] = tuple(_STYLE_SPOTS)

#: The nine alternative styles of § 535.9(a).
ALTERNATIVE_STYLES: tuple[str, ...] = STYLES[1:]


def check_style(style: object) -> str:
    """Return ``style`` if it names a delivery style, else raise :class:`RulesError` listing them."""
    if style not in _STYLE_SPOTS:
        raise RulesError(f"unknown delivery style {style!r}: use one of {', '.join(STYLES)}")
    return str(style)


def _stack_number(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in PLACES:
        raise RulesError(f"{what}: {value!r} is not a stack 1 to {STACKS}")
    return value


@dataclasses.dataclass(frozen=True)
class Cut:
    """The bank's one cut (§ 535.11(g)): which stacks the dealer moves to which end.

    (1) one or more adjacent stacks to the right or to the left end; (2) two or more adjacent
    stacks, some to one end and the others to the opposite end. Moved stacks keep their
    order. Stacks are numbered from the dealer's right as formed.

    :param to_right_end: stacks moved to the dealer's right end.
    :param to_left_end: stacks moved to the dealer's left end.
    :raises RulesError: if no stack moves, a stack is named twice or is not 1..8, the
        stacks moved are not adjacent, or the cut leaves every stack where it was.
    """

    to_right_end: tuple[int, ...] = ()
    to_left_end: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        moved = [_stack_number(s, "cut") for s in (*self.to_right_end, *self.to_left_end)]
        if not moved:
            raise RulesError("cut: name at least one stack to move")
        if len(set(moved)) != len(moved):
            raise RulesError(f"cut: a stack is named twice in {self.describe()}")
        if max(moved) - min(moved) + 1 != len(moved):
            raise RulesError(f"cut: the stacks moved must be adjacent (§ 535.11(g)), not {sorted(moved)}")
        if self.arrangement() == PLACES:
            raise RulesError(f"cut: {self.describe()} leaves every stack where it was")

    @classmethod
    def rotation(cls, stacks: int) -> Cut:
        """Cut after the ``stacks``-th stack from the dealer's right: those stacks go to the
        left end, as in cutting a deck (§ 535.11(g)(1)). ``rotation(2)`` gives 3..8 1 2."""
        if isinstance(stacks, bool) or not isinstance(stacks, int) or not 1 <= stacks < STACKS:
            raise RulesError(f"cut {stacks!r}: move 1 to {STACKS - 1} stacks")
        return cls(to_left_end=tuple(range(1, stacks + 1)))

    @classmethod
    def parse(cls, text: str) -> Cut:
        """Parse a cut as typed: ``"2"`` (a :meth:`rotation`), ``"right=4-5"``, ``"left=3"``,
        or both ends ``"right=4,left=5+6"`` (``+`` joins stacks, ``A-B`` is a run).

        :raises RulesError: naming the text and why.
        """
        text = text.strip()
        if text.isdecimal():
            return cls.rotation(int(text))
        usage = f"cut {text!r}: write N, right=A-B, left=A-B or right=A-B,left=C-D"
        ends: dict[str, list[int]] = {}
        for part in text.split(","):
            end, _, items = part.strip().partition("=")
            if end not in ("right", "left") or end in ends:
                raise RulesError(usage)
            ends[end] = []
            for item in items.split("+"):
                first, _, last = item.strip().partition("-")
                if not first.isdecimal() or not (last or first).isdecimal() or int(first) > int(last or first):
                    raise RulesError(usage)
                ends[end].extend(range(int(first), int(last or first) + 1))
        return cls(tuple(ends.get("right", ())), tuple(ends.get("left", ())))

    def arrangement(self) -> tuple[int, ...]:
        """Stack numbers standing at places 1..8 from the dealer's right after the cut."""
        moved = set(self.to_right_end) | set(self.to_left_end)
        staying = [s for s in PLACES if s not in moved]
        return (*sorted(self.to_right_end), *staying, *sorted(self.to_left_end))

    def describe(self) -> str:
        """Text form accepted back by :meth:`parse` (stacks listed one by one)."""
        ends = [
            f"{end}={'+'.join(map(str, stacks))}"
            for end, stacks in (("right", self.to_right_end), ("left", self.to_left_end))
            if stacks
        ]
        return ",".join(ends)

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"to_right_end": list(self.to_right_end), "to_left_end": list(self.to_left_end)}


@dataclasses.dataclass(frozen=True)
class StackTile:
    """One tile named by where it lies.

    :param stack: the stack it was stacked in, 1..8 from the dealer's right (§ 535.6(d)).
    :param level: 1 the top tile of the stack .. 4 the bottom one.
    :param place: where that stack stands after the cut, 1..8 from the dealer's right.
    """

    stack: int
    level: int
    place: int

    def to_json_dict(self) -> dict[str, int]:
        return {"stack": self.stack, "level": self.level, "place": self.place}


@dataclasses.dataclass(frozen=True)
class HandDelivery:
    """Four tiles delivered to one position."""

    position: Position
    tiles: tuple[StackTile, ...]

    def to_json_dict(self) -> dict[str, Any]:
        return {"position": label(self.position), "tiles": [t.to_json_dict() for t in self.tiles]}


@dataclasses.dataclass(frozen=True)
class DeliveryPlan:
    """The whole delivery of one round.

    :param style: the style name (one of ``STYLES``).
    :param start: the starting position.
    :param cut: the bank's cut, or ``None``.
    :param arrangement: stack numbers at places 1..8 from the dealer's right after the cut.
    :param hands: eight deliveries, in delivery order: ``hands[0]`` goes to ``start``.
    """

    style: str
    start: Position
    cut: Cut | None
    arrangement: tuple[int, ...]
    hands: tuple[HandDelivery, ...]

    def tiles_for(self, position: Position) -> tuple[StackTile, ...]:
        """The four tiles ``position`` receives."""
        for hand in self.hands:
            if hand.position == position:
                return hand.tiles
        raise RulesError(f"position {position!r} is not at the table")

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready form: style, start, cut, arrangement and the hands in delivery order."""
        return {
            "style": self.style,
            "start": label(self.start),
            "cut": None if self.cut is None else self.cut.to_json_dict(),
            "arrangement": list(self.arrangement),
            "plan": [h.to_json_dict() for h in self.hands],
        }


def delivery_plan(start: Position, style: str = "standard", cut: Cut | int | None = None) -> DeliveryPlan:
    """Plan the delivery of all 32 tiles.

    :param start: the starting position (from :func:`~firmware_host.rules.paigow_dice.position.starting_position`).
    :param style: one of ``STYLES``; ``"standard"`` is § 535.8(d).
    :param cut: the bank's cut (§ 535.11(g)): a :class:`Cut`, an int ``n`` for
        :meth:`Cut.rotation`, or ``None`` for no cut.
    :raises RulesError: on an unknown style, a bad cut, or a start that is not a position.
    """
    spots = _STYLE_SPOTS[check_style(style)]
    check_position(start)
    if isinstance(cut, int):
        cut = Cut.rotation(cut)
    arrangement = cut.arrangement() if cut is not None else PLACES
    hands = tuple(
        HandDelivery(
            following(start, order), tuple(StackTile(arrangement[place - 1], level, place) for place, level in hand)
        )
        for order, hand in enumerate(spots)
    )
    return DeliveryPlan(style, start, cut, arrangement, hands)
