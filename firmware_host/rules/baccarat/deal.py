"""The deal of one Baccarat round, card by card, and its outcome (§§ 541.9-541.12).

:class:`Deal` is an immutable state: the cards each hand holds so far. The controller asks
:meth:`Deal.next_slot` what the next card from the shoe is for, and :meth:`Deal.add` gives
the state with that card placed. :func:`resolve` is the batch form for a list of cards in
shoe order; it is built on :class:`Deal`, so the two cannot disagree.

The drawing rules are exposed as two plain functions, :func:`player_draws` and
:func:`banker_draws`, which :mod:`firmware_host.rules.baccarat.drawing` enumerates for the odds.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable
from typing import Any

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import Card, point_count
from firmware_host.rules.baccarat.variant import Variant

#: § 541.1: a natural is a point count of 8 or 9 on the first two cards.
NATURAL_MIN = 8
#: § 541.11(b): the player's hand draws on 0-5 and stays on 6 or 7.
PLAYER_DRAWS_MAX = 5
#: § 541.11(c)(1): with no player third card, the banker's hand draws on 0-5.
BANKER_DRAWS_MAX_WITHOUT_PLAYER_THIRD = 5
#: § 541.11(c)(2)(i): whatever the player's third card, the banker's hand draws on 0-2.
BANKER_ALWAYS_DRAWS_BELOW = 3
#: § 541.11(c)(2)(iii), Table 1 as printed: for the banker's two-card point count, a row
#: over the value of the player's third card 0..9; D = draw, S = stay (§ 541.11(f)).
#: § 541.11(c)(2)(ii): on 7 the banker stays, which is every count missing here.
TABLE_1: dict[int, str] = {
    3: "DDDDDDDDSD",
    4: "SSDDDDDDSS",
    5: "SSSSDDDDSS",
    6: "SSSSSSDDSS",
}


def player_draws(player_total: int) -> bool:
    """§ 541.11(b): whether the player's hand, at ``player_total`` on two cards, draws.

    Only meaningful when neither hand is a natural (§ 541.11(a)).
    """
    return player_total <= PLAYER_DRAWS_MAX


def banker_draws(banker_total: int, player_third_value: int | None) -> bool:
    """§ 541.11(c): whether the banker's hand, at ``banker_total`` on two cards, draws.

    :param player_third_value: the § 541.6(a) value of the player's third card, or None
        when the player's hand stayed.

    Only meaningful when neither hand is a natural (§ 541.11(a)).
    """
    if player_third_value is None:
        return banker_total <= BANKER_DRAWS_MAX_WITHOUT_PLAYER_THIRD  # (c)(1)
    if banker_total < BANKER_ALWAYS_DRAWS_BELOW:
        return True  # (c)(2)(i)
    row = TABLE_1.get(banker_total)
    return row is not None and row[player_third_value] == "D"  # (c)(2)(iii); 7 stays, (c)(2)(ii)


class Slot(enum.Enum):
    """What a card from the shoe is for: a hand and the card's place in it."""

    PLAYER_1 = ("player", 1)
    BANKER_1 = ("banker", 1)
    PLAYER_2 = ("player", 2)
    BANKER_2 = ("banker", 2)
    PLAYER_3 = ("player", 3)
    BANKER_3 = ("banker", 3)

    @property
    def hand(self) -> str:
        """``'player'`` or ``'banker'``."""
        return self.value[0]

    @property
    def position(self) -> int:
        """1, 2 or 3: the card's place in its hand."""
        return self.value[1]


#: § 541.9(c): the first and third cards to the player, the second and fourth to the banker.
INITIAL_ORDER: tuple[Slot, ...] = (Slot.PLAYER_1, Slot.BANKER_1, Slot.PLAYER_2, Slot.BANKER_2)
#: The slots of the player's hand (a tuple: the deal's hot path asks once per card, by identity).
_PLAYER_SLOTS = tuple(slot for slot in Slot if slot.hand == "player")
#: § 541.10(d): no hand ever holds more than its two cards and one more.
MAX_CARDS_PER_HAND = 3


def _is_pair(hand: tuple[Card, ...]) -> bool:
    # § 631c.5(c)(1): the first two cards are of one rank (two queens, not a queen and a king).
    return hand[0].rank == hand[1].rank


@dataclasses.dataclass(frozen=True, slots=True)
class Deal:
    """The cards of one round so far; immutable, :meth:`add` returns the next state.

    ``Deal()`` is a round with no card dealt. Building one from hands checks that they
    are a deal the rules can produce.

    :param player: the player's hand in the order dealt.
    :param banker: the banker's hand in the order dealt.
    :raises RulesError: if the hands are not a legal deal (a third card that was not due,
        or cards missing in between).
    """

    player: tuple[Card, ...] = ()
    banker: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "player", tuple(self.player))
        object.__setattr__(self, "banker", tuple(self.banker))
        replayed = Deal._unchecked((), ())
        for card in self.cards:
            if replayed.next_slot() is None:
                break
            replayed = replayed.add(card)
        if (replayed.player, replayed.banker) != (self.player, self.banker):
            raise RulesError(
                f"player {_spell(self.player)} / banker {_spell(self.banker)}: "
                "not a deal the rules of § 541.9-541.11 produce"
            )

    @classmethod
    def _unchecked(cls, player: tuple[Card, ...], banker: tuple[Card, ...]) -> Deal:
        # The path of add(): the caller guarantees the hands are legal.
        deal = object.__new__(cls)
        object.__setattr__(deal, "player", player)
        object.__setattr__(deal, "banker", banker)
        return deal

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every card in shoe order: P B P B (§ 541.9(c)), then the player's third, then
        the banker's (§ 541.10(c))."""
        initial = tuple(card for pair in zip(self.player[:2], self.banker[:2]) for card in pair)
        if len(self.player) > len(self.banker):  # the player's 1st or 2nd card has no banker card yet
            initial += self.player[len(self.banker) : 2]
        return initial + self.player[2:] + self.banker[2:]

    @property
    def cards_used(self) -> int:
        """How many cards the round has taken from the shoe."""
        return len(self.player) + len(self.banker)

    @property
    def after_initial(self) -> bool:
        """Whether the initial four cards (§ 541.9(c)) are out."""
        return len(self.player) >= 2 and len(self.banker) >= 2

    @property
    def is_complete(self) -> bool:
        """Whether each hand has every card it is entitled to (§ 541.12(a))."""
        return self.next_slot() is None

    @property
    def player_total(self) -> int:
        """The player's point count (§ 541.6(b)) on the cards so far."""
        return point_count(self.player)

    @property
    def banker_total(self) -> int:
        """The banker's point count (§ 541.6(b)) on the cards so far."""
        return point_count(self.banker)

    @property
    def natural(self) -> bool:
        """§ 541.11(a): either hand is a natural on its first two cards (False before the
        initial four cards are out)."""
        return self.after_initial and (
            point_count(self.player[:2]) >= NATURAL_MIN or point_count(self.banker[:2]) >= NATURAL_MIN
        )

    @property
    def player_pair(self) -> bool:
        """§ 631c.5(c)(1): the player's first two cards are a pair.

        :raises RulesError: before the player has two cards.
        """
        self._require_initial("a player pair")
        return _is_pair(self.player)

    @property
    def banker_pair(self) -> bool:
        """§ 631c.5(c)(2): the banker's first two cards are a pair.

        :raises RulesError: before the banker has two cards.
        """
        self._require_initial("a banker pair")
        return _is_pair(self.banker)

    def _require_initial(self, what: str) -> None:
        if not self.after_initial:
            raise RulesError(f"{what} is decided on the initial four cards; {self.cards_used} dealt so far")

    def next_slot(self) -> Slot | None:
        """What the next card from the shoe is for, or None when the round is complete."""
        dealt = len(self.player) + len(self.banker)
        if dealt < len(INITIAL_ORDER):
            return INITIAL_ORDER[dealt]  # § 541.9(c)
        if self.natural:
            return None  # § 541.11(a)
        if len(self.player) == 2 and player_draws(point_count(self.player)):
            return Slot.PLAYER_3  # § 541.11(b)(1); § 541.10(c): the player's third comes first
        if len(self.banker) == 2:
            player_third = self.player[2].value if len(self.player) == MAX_CARDS_PER_HAND else None
            if banker_draws(point_count(self.banker), player_third):
                return Slot.BANKER_3  # § 541.11(c)
        return None  # § 541.10(d): at most one more card per hand

    def add(self, card: Card) -> Deal:
        """The deal with ``card`` placed where :meth:`next_slot` says.

        :raises RulesError: if the round is complete (see
            :func:`firmware_host.rules.baccarat.irregularities.card_out_of_turn` for what the
            rules do with such a card).
        """
        slot = self.next_slot()
        if slot is None:
            raise RulesError(f"card {card}: the round is complete, no card is due (§ 541.10(d), § 541.11)")
        return self._placed(slot, card)

    def _placed(self, slot: Slot, card: Card) -> Deal:
        # The deal with ``card`` in ``slot``, which the caller has from next_slot().
        if slot in _PLAYER_SLOTS:
            return Deal._unchecked(self.player + (card,), self.banker)
        return Deal._unchecked(self.player, self.banker + (card,))

    def result(self, variant: Variant | str = Variant.STANDARD) -> RoundResult:
        """The outcome of the complete round (§ 541.12(a)).

        :param variant: in :attr:`Variant.COMMISSION_FREE` a banker win with 6 is
            announced as Lucky Six (§ 631c.5(e)); in standard Minibaccarat it is not.
        :raises RulesError: if the round is not complete.
        """
        variant = Variant.parse(variant)
        slot = self.next_slot()
        if slot is None:
            return RoundResult.from_complete_deal(self, variant)
        raise RulesError(
            f"too few cards: {self.cards_used} dealt, the round still needs the {slot.hand}'s card {slot.position}"
        )


def _spell(cards: Iterable[Card]) -> str:
    return " ".join(str(card) for card in cards) or "(none)"


@dataclasses.dataclass(frozen=True, slots=True)
class RoundResult:
    """The outcome of a complete round: exactly the fields of ``tablehost baccarat resolve``.

    :param winner: ``'player'``, ``'banker'`` or ``'tie'`` (§ 541.12(a)).
    :param natural: either hand was a natural, so no third card was dealt (§ 541.11(a)).
    :param player_pair: the player's first two cards are of one rank (§ 631c.5(c)(1)).
    :param banker_pair: the banker's first two cards are of one rank (§ 631c.5(c)(2)).
    :param lucky_six: in commission-free Baccarat, the banker's number of cards (2 or 3)
        when the banker wins with a point count of 6 (§ 631c.5(e), (k)); otherwise None.
    :param cards_used: how many cards the round took from the shoe.
    """

    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    player_total: int
    banker_total: int
    winner: str
    natural: bool
    player_pair: bool
    banker_pair: bool
    lucky_six: int | None
    cards_used: int

    @classmethod
    def from_complete_deal(cls, deal: Deal, variant: Variant) -> RoundResult:
        """The outcome of ``deal``, which the caller has checked is complete."""
        player_total, banker_total = deal.player_total, deal.banker_total
        if player_total > banker_total:
            winner = "player"
        elif banker_total > player_total:
            winner = "banker"
        else:
            winner = "tie"
        lucky = variant is Variant.COMMISSION_FREE and winner == "banker" and banker_total == 6
        return cls(
            player=deal.player,
            banker=deal.banker,
            player_total=player_total,
            banker_total=banker_total,
            winner=winner,
            natural=deal.natural,
            player_pair=_is_pair(deal.player),
            banker_pair=_is_pair(deal.banker),
            lucky_six=len(deal.banker) if lucky else None,
            cards_used=deal.cards_used,
        )

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON object ``tablehost baccarat resolve`` writes, cards as strings."""
        fields = {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}
        fields["player"] = [str(card) for card in self.player]
        fields["banker"] = [str(card) for card in self.banker]
        return fields


def resolve(cards: Iterable[Card], variant: Variant | str = Variant.STANDARD) -> RoundResult:
    """Deal a round from ``cards`` in shoe order and return its outcome.

    Cards beyond those the round needs are not used (see ``cards_used``); they are not
    even read from an iterator.

    :raises RulesError: if the cards run out before the round is complete.
    """
    variant = Variant.parse(variant)
    deal = Deal._unchecked((), ())
    slot = INITIAL_ORDER[0]
    for card in cards:
        deal = deal._placed(slot, card)
        next_slot = deal.next_slot()
        if next_slot is None:
            return RoundResult.from_complete_deal(deal, variant)
        slot = next_slot
    return deal.result(variant)  # raises: too few cards
