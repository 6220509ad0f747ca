"""What a card-reading dealing shoe says, whatever its wire dialect.

Both shoe codecs (:mod:`drivers.codecs.shoe_framed`, :mod:`drivers.codecs.shoe_ascii`)
decode to these messages and encode from them, so the shoe driver maps each message to an
event once. Cards are written as the rest of tablehost writes them: rank ``A 2-9 T J Q K``
(ten is ``T``), suit ``C D H S``.
"""

from __future__ import annotations

import dataclasses

from drivers.errors import CodecError

__all__ = [
    "RANKS", "SUITS", "Card", "CutCard", "Unreadable", "FaceUp", "ShoeEmpty", "Fault", "Warning",
    "SetBurnMode", "ShoeMessage",
]  # fmt: skip

#: Ranks as one character each; ten is ``T``.
RANKS = "A23456789TJQK"
#: Clubs, diamonds, hearts, spades.
SUITS = "CDHS"


def _check_card(rank: str, suit: str) -> None:
    if len(rank) != 1 or rank not in RANKS:
        raise CodecError(f"card rank {rank!r} is not one of {' '.join(RANKS)}")
    if len(suit) != 1 or suit not in SUITS:
        raise CodecError(f"card suit {suit!r} is not one of {' '.join(SUITS)}")


@dataclasses.dataclass(frozen=True)
class Card:
    """The dealer drew a card and the shoe read it.

    :param burn: drawn while the shoe was in burn mode (§ 541.5(g) burn cards).
    """

    rank: str
    suit: str
    burn: bool = False

    def __post_init__(self) -> None:
        _check_card(self.rank, self.suit)

    def __str__(self) -> str:
        return self.rank + self.suit


@dataclasses.dataclass(frozen=True)
class CutCard:
    """The cover (cut) card came out of the shoe (§ 541.5(e), § 541.10(e))."""


@dataclasses.dataclass(frozen=True)
class Unreadable:
    """A card was drawn but the shoe could not read it."""

    burn: bool = False


@dataclasses.dataclass(frozen=True)
class FaceUp:
    """A card came out of the shoe face up (§ 541.14(d)); rank and suit if the shoe read them."""

    rank: str | None = None
    suit: str | None = None

    def __post_init__(self) -> None:
        if (self.rank is None) != (self.suit is None):
            raise CodecError(
                f"face-up card: rank {self.rank!r} and suit {self.suit!r} must be both known or both unknown"
            )
        if self.rank is not None and self.suit is not None:
            _check_card(self.rank, self.suit)


@dataclasses.dataclass(frozen=True)
class ShoeEmpty:
    """The shoe has no cards left."""


@dataclasses.dataclass(frozen=True)
class Fault:
    """The shoe reports a fault or alarm.

    :param code: the device's code, e.g. ``"E3"``.
    :param text: the device's text, e.g. ``"Card Not Read"``.
    """

    code: str
    text: str


@dataclasses.dataclass(frozen=True)
class Warning:
    """A warning code (``<W0x01>`` in the ASCII dialect): informative, play goes on."""

    code: int


@dataclasses.dataclass(frozen=True)
class SetBurnMode:
    """Host -> shoe: flag the next cards as burn cards (on) or game cards (off)."""

    on: bool


#: Any message a shoe sends.
ShoeMessage = Card | CutCard | Unreadable | FaceUp | ShoeEmpty | Fault | Warning
