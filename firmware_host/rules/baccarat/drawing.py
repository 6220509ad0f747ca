"""The drawing rules of § 541.11 enumerated once, for every count that needs every way a round ends.

:func:`endings` lists, for the two-card point counts of both hands, every way the round can end:
the § 541.6(a) value of each third card drawn (None: none) and the final point counts. The
exact odds of a shoe (:mod:`~firmware_host.rules.baccarat.odds`) and of the cards left after
those exposed (:mod:`~firmware_host.rules.baccarat.exposure`) both walk it, so the drawing rules
are stated once here, on :func:`~firmware_host.rules.baccarat.deal.player_draws` and
:func:`~firmware_host.rules.baccarat.deal.banker_draws`, and once only.
"""

from __future__ import annotations

from typing import NamedTuple

from firmware_host.rules.baccarat.deal import NATURAL_MIN, banker_draws, player_draws

__all__ = ["CARDS_PER_ROUND_MAX", "TWO_CARD_STARTS", "Ending", "Final", "endings", "falling"]

#: The most cards one round can use (two hands of three, § 541.10(d)).
CARDS_PER_ROUND_MAX = 6
#: A hand's first two cards as unordered pairs of values: (first, second, orders), where
#: ``orders`` is 2 when the values differ (either may come first) and 1 when they are equal.
TWO_CARD_STARTS: tuple[tuple[int, int, int], ...] = tuple(
    (first, second, 1 if first == second else 2) for first in range(10) for second in range(first, 10)
)


class Final(NamedTuple):
    """How a round ended, all a wager's outcome may depend on besides the first two cards' ranks."""

    player: int
    banker: int
    player_cards: int
    banker_cards: int


class Ending(NamedTuple):
    """One way a round ends: the third cards' values (None: not drawn), the final counts, and
    whether a hand was a natural (§ 541.11(a))."""

    player_third: int | None
    banker_third: int | None
    player: int
    banker: int
    natural: bool = False

    @property
    def player_cards(self) -> int:
        """The cards the player's hand ends with, 2 or 3."""
        return 2 if self.player_third is None else 3

    @property
    def banker_cards(self) -> int:
        """The cards the banker's hand ends with, 2 or 3."""
        return 2 if self.banker_third is None else 3

    @property
    def final(self) -> Final:
        """The final point counts and each hand's cards."""
        return Final(self.player, self.banker, self.player_cards, self.banker_cards)

    @property
    def thirds(self) -> tuple[int, ...]:
        """The values of the third cards drawn, the player's first (§ 541.10(c))."""
        return tuple(value for value in (self.player_third, self.banker_third) if value is not None)


def endings(player: int, banker: int) -> tuple[Ending, ...]:
    """Every way a round whose hands hold ``player`` and ``banker`` points on two cards ends,
    by the values of the third cards (§ 541.11).

    Not cached: its callers keep what they need of it (3,400 endings take 320 KB).
    """
    digits = range(10)
    if player >= NATURAL_MIN or banker >= NATURAL_MIN:  # § 541.11(a)
        return (Ending(None, None, player, banker, natural=True),)
    if not player_draws(player):  # § 541.11(b)
        if banker_draws(banker, None):  # § 541.11(c)(1)
            return tuple(Ending(None, b3, player, (banker + b3) % 10) for b3 in digits)
        return (Ending(None, None, player, banker),)
    found: list[Ending] = []
    for p3 in digits:
        final_player = (player + p3) % 10
        if banker_draws(banker, p3):  # § 541.11(c)(2)
            found += [Ending(p3, b3, final_player, (banker + b3) % 10) for b3 in digits]
        else:
            found.append(Ending(p3, None, final_player, banker))
    return tuple(found)


def falling(n: int, k: int) -> int:
    """n (n-1) ... (n-k+1): the ordered draws of k cards out of n."""
    product = 1
    for i in range(k):
        product *= n - i
    return product
