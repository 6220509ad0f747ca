"""Playing cards for Baccarat: parsing, point values (§ 541.6) and shoe compositions.

A :class:`Card` is a value: frozen, hashable, and printed in the canonical two-letter form
(``'TD'``, ``'AS'``). :func:`parse_card` reads every spelling the shoes on the market emit.
A *composition* is a :class:`collections.Counter` of cards: what a shoe holds, or what is
left of it mid-shoe; :mod:`firmware_host.rules.baccarat.odds` enumerates over one and the
controller uses :func:`remove_seen` to notice a card the shoe cannot contain.
"""

from __future__ import annotations

import dataclasses
import operator
from collections import Counter
from collections.abc import Callable, Iterable

from firmware_host.errors import RulesError

#: Ranks in order, ten written ``T`` so every card is two characters.
RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
#: Suits: clubs, diamonds, hearts, spades.
SUITS: tuple[str, ...] = ("C", "D", "H", "S")
#: § 541.6(a): 2-9 count their face value (1), tens and faces count zero (2), an ace one (3).
RANK_VALUES: dict[str, int] = {
    "A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
    "T": 0, "J": 0, "Q": 0, "K": 0,
}  # fmt: skip
#: Cards in one standard deck (§ 541.3(a)).
CARDS_PER_DECK = len(RANKS) * len(SUITS)
#: § 541.3(a) plays six to eight decks, § 541.3(b) a batch of six to eight; we accept 1-8
#: so smaller shoes can be simulated and analysed too.
MIN_DECKS, MAX_DECKS = 1, 8

_RANK_SPELLINGS: dict[str, str] = {rank: rank for rank in RANKS} | {"10": "T"}


@dataclasses.dataclass(frozen=True, slots=True)
class Card:
    """One playing card.

    :param rank: ``'A'``, ``'2'`` .. ``'9'``, ``'T'``, ``'J'``, ``'Q'`` or ``'K'``.
    :param suit: ``'C'``, ``'D'``, ``'H'`` or ``'S'``.
    :raises RulesError: for any other rank or suit.
    """

    rank: str
    suit: str
    #: Point value 0-9 under § 541.6(a), derived from the rank.
    value: int = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.rank not in RANK_VALUES:
            raise RulesError(f"card rank {self.rank!r} is not one of {', '.join(RANKS)}")
        if self.suit not in SUITS:
            raise RulesError(f"card suit {self.suit!r} is not one of {', '.join(SUITS)}")
        object.__setattr__(self, "value", RANK_VALUES[self.rank])

    def __str__(self) -> str:
        return self.rank + self.suit


#: Every distinct card, so parsing returns shared instances instead of building new ones.
_CARDS: dict[tuple[str, str], Card] = {(r, s): Card(r, s) for r in RANKS for s in SUITS}


def parse_card(text: str) -> Card:
    """Read a card written rank first (``'AS'``, ``'TD'``, ``'10D'``) or suit first (``'H3'``).

    Case and surrounding blanks do not matter.

    :raises RulesError: naming the text and what is wrong with it.
    """
    spelled = text.strip().upper()
    if len(spelled) < 2:
        raise RulesError(f"card {text!r}: too short, expected a rank and a suit such as 'AS' or '10D'")
    if spelled[-1] in SUITS:
        rank_text, suit = spelled[:-1], spelled[-1]
    elif spelled[0] in SUITS:  # suit first, as one shoe on the market emits during burns
        rank_text, suit = spelled[1:], spelled[0]
    else:
        raise RulesError(f"card {text!r}: no suit, expected one of {', '.join(SUITS)} before or after the rank")
    rank = _RANK_SPELLINGS.get(rank_text)
    if rank is None:
        raise RulesError(f"card {text!r}: rank {rank_text!r} is not one of {', '.join(RANKS)} (or 10)")
    return _CARDS[rank, suit]


def parse_cards(text: str) -> list[Card]:
    """Read blank-separated cards, e.g. ``'9S 2H KD 5C 3D'``.

    :raises RulesError: naming the first card that cannot be read.
    """
    return [parse_card(word) for word in text.split()]


_VALUE: Callable[[Card], int] = operator.attrgetter("value")


def point_count(cards: Iterable[Card]) -> int:
    """§ 541.6(b): the total of the card values with the tens digit discarded (0-9)."""
    return sum(map(_VALUE, cards)) % 10


def _check_decks(decks: int) -> None:
    if isinstance(decks, bool) or not isinstance(decks, int) or not MIN_DECKS <= decks <= MAX_DECKS:
        raise RulesError(f"decks {decks!r}: must be a whole number from {MIN_DECKS} to {MAX_DECKS}")


def full_shoe(decks: int) -> list[Card]:
    """The cards of ``decks`` standard decks, deck by deck in rank and suit order (unshuffled).

    :raises RulesError: if ``decks`` is not 1-8.
    """
    _check_decks(decks)
    return [card for _ in range(decks) for card in _CARDS.values()]


def shoe_composition(decks: int) -> Counter[Card]:
    """How many of each card ``decks`` decks hold.

    :raises RulesError: if ``decks`` is not 1-8.
    """
    _check_decks(decks)
    return Counter({card: decks for card in _CARDS.values()})


def remove_seen(composition: Counter[Card], seen: Iterable[Card]) -> Counter[Card]:
    """What is left of ``composition`` once the ``seen`` cards are out (a new counter).

    :raises RulesError: for a seen card the composition cannot hold (an impossible card:
        a foreign deck or a misread), naming the card and how many the shoe had.
    """
    remaining = Counter(composition)
    for card in seen:
        if remaining[card] <= 0:
            raise RulesError(
                f"card {card}: not in the remaining cards (the shoe held {composition[card]} and all are already out)"
            )
        remaining[card] -= 1
    return +remaining
