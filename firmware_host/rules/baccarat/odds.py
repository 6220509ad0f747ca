"""Exact odds of Baccarat by enumeration over the cards in the shoe (not Monte Carlo).

:func:`exact_odds` counts, for a composition (a full shoe of 1-8 decks or what is left of
one mid-shoe), how many of the ordered ways to draw the next six cards end in each final
pair of point counts. A round never needs more than six cards, so every count shares one
denominator, ``N (N-1) ... (N-5)``, and every probability is an exact fraction.

Outcomes depend only on card values, so the enumeration runs over the ten § 541.6(a)
values with their counts (10^4 initial deals at most, then the third cards), walking the
drawing rules as :mod:`firmware_host.rules.baccarat.drawing` enumerates them. Pairs depend on
ranks, but only on the first two cards of a hand, so they have a closed form over rank counts.
The probability of any :class:`~firmware_host.rules.baccarat.wagers.Outcome` a wager kind pays
on is read from the final counts (:meth:`ShoeOdds.probability`), and each kind's expected
return is its own (:mod:`firmware_host.rules.baccarat.wagers`).

House edges are exact expectations per unit wagered; they ignore the rounding of payouts
and vigorish to whole cents, which depends on the size of the wager.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from fractions import Fraction

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import RANK_VALUES, Card, shoe_composition
from firmware_host.rules.baccarat.drawing import CARDS_PER_ROUND_MAX, TWO_CARD_STARTS, Final, endings, falling
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.rules.baccarat.wagers import (
    BANKER_SIX_THREE_CARDS,
    BANKER_SIX_TWO_CARDS,
    BANKER_WINS,
    PLAYER_WINS,
    SIX_SIX_TIE,
    TIE,
    Outcome,
    Probabilities,
    wager_kind,
)

#: Final counts: ``[player_total][banker_total][player_cards - 2][banker_cards - 2]`` -> draws.
Finals = tuple[tuple[tuple[tuple[int, ...], ...], ...], ...]


@dataclasses.dataclass(frozen=True)
class ShoeOdds:
    """Exact outcome counts for one composition.

    :param cards: how many cards the composition holds.
    :param sequences: ordered six-card draws, the denominator of every probability.
    :param finals: ``finals[player_total][banker_total][player_cards - 2][banker_cards - 2]``:
        draws ending with those point counts and the hands holding 2 or 3 cards each.
    :param naturals: draws where either hand is a natural (§ 541.11(a)).
    :param pairs: draws where a given hand's first two cards are a pair (the same for the
        player's and the banker's hand: their cards are exchangeable).
    """

    cards: int
    sequences: int
    finals: Finals
    naturals: int
    pairs: int

    def probability(self, outcome: Outcome) -> Fraction:
        """The share of draws in which ``outcome`` happens (a pair: of a given hand)."""
        if outcome.holds is None:
            return self.pair
        holds = outcome.holds
        count = sum(
            draws
            for player, row in enumerate(self.finals)
            for banker, cell in enumerate(row)
            for player_extra, cards in enumerate(cell)
            for banker_extra, draws in enumerate(cards)
            if holds(Final(player, banker, 2 + player_extra, 2 + banker_extra))
        )
        return Fraction(count, self.sequences)

    @functools.cached_property
    def banker(self) -> Fraction:
        """The banker's hand wins."""
        return self.probability(BANKER_WINS)

    @functools.cached_property
    def player(self) -> Fraction:
        """The player's hand wins."""
        return self.probability(PLAYER_WINS)

    @functools.cached_property
    def tie(self) -> Fraction:
        """Equal point counts."""
        return self.probability(TIE)

    @functools.cached_property
    def banker_six_two_cards(self) -> Fraction:
        """The banker wins with 6 on two cards (Lucky Six at 12 to 1, § 631c.5(k)(1))."""
        return self.probability(BANKER_SIX_TWO_CARDS)

    @functools.cached_property
    def banker_six_three_cards(self) -> Fraction:
        """The banker wins with 6 on three cards (Lucky Six at 20 to 1, § 631c.5(k)(2))."""
        return self.probability(BANKER_SIX_THREE_CARDS)

    @functools.cached_property
    def six_six_tie(self) -> Fraction:
        """Both hands end on 6."""
        return self.probability(SIX_SIX_TIE)

    @property
    def natural(self) -> Fraction:
        """Either hand is a natural."""
        return Fraction(self.naturals, self.sequences)

    @property
    def pair(self) -> Fraction:
        """A given hand's first two cards are a pair (player's and banker's alike)."""
        return Fraction(self.pairs, self.sequences)

    def probabilities(self) -> dict[str, float]:
        """The probabilities ``tablehost baccarat odds --json`` reports."""
        return {
            "banker": float(self.banker),
            "player": float(self.player),
            "tie": float(self.tie),
            "banker_wins_six_two_cards": float(self.banker_six_two_cards),
            "banker_wins_six_three_cards": float(self.banker_six_three_cards),
            "natural": float(self.natural),
            "player_pair": float(self.pair),
            "banker_pair": float(self.pair),
        }


def exact_odds(composition: Counter[Card]) -> ShoeOdds:
    """Enumerate every round the cards of ``composition`` can deal next.

    :raises RulesError: if it holds fewer than six cards (a round could run out of cards,
        § 541.14(e)) or a negative count.
    """
    if any(count < 0 for count in composition.values()):
        raise RulesError("composition: a card count is negative")
    total = sum(composition.values())
    if total < CARDS_PER_ROUND_MAX:
        raise RulesError(f"composition: {total} cards; exact odds need at least {CARDS_PER_ROUND_MAX} (a full round)")
    rank_counts: Counter[str] = Counter()
    for card, count in composition.items():
        rank_counts[card.rank] += count
    values = [0] * 10
    for rank, count in rank_counts.items():
        values[RANK_VALUES[rank]] += count
    finals, naturals = _enumerate(values, total)
    tail = falling(total - 2, CARDS_PER_ROUND_MAX - 2)  # the other four cards in any order
    pairs = sum(n * (n - 1) for n in rank_counts.values()) * tail
    return ShoeOdds(total, falling(total, CARDS_PER_ROUND_MAX), finals, naturals, pairs)


def shoe_odds(decks: int) -> ShoeOdds:
    """Exact odds of a freshly shuffled shoe of ``decks`` decks (1-8).

    :raises RulesError: if ``decks`` is not 1-8.
    """
    return exact_odds(shoe_composition(decks))


def _enumerate(c: list[int], total: int) -> tuple[Finals, int]:
    """Weighted enumeration over card values; ``c`` holds the count of each value 0-9.

    Counts are removed from ``c`` as cards are drawn and put back after, so the weight of
    a path is the product of the counts left at each draw: the number of ordered card
    sequences it stands for. Paths that end before the sixth card are multiplied by the
    number of ways to draw the cards left over.

    A hand's first two cards are enumerated as unordered pairs of values: the totals, and
    the weight (a product of falling counts per value), do not depend on which of the two
    came first, so a pair of two different values stands for its two orders. That visits
    55 x 55 initial deals instead of 10^4; how each then ends is :func:`endings`'.
    """
    finals = [[[[0, 0], [0, 0]] for _ in range(10)] for _ in range(10)]
    naturals = 0
    # Draws of the cards a round leaves unused, by the third cards it dealt (0, 1 or 2).
    tails = [falling(total - used, CARDS_PER_ROUND_MAX - used) for used in (4, 5, 6)]
    for p1, p2, player_orders in TWO_CARD_STARTS:
        w2 = c[p1] * (c[p2] - (p1 == p2)) * player_orders
        if not w2:
            continue
        c[p1] -= 1
        c[p2] -= 1
        for b1, b2, banker_orders in TWO_CARD_STARTS:
            w4 = w2 * c[b1] * (c[b2] - (b1 == b2)) * banker_orders
            if not w4:
                continue
            c[b1] -= 1
            c[b2] -= 1
            for natural, thirds, (player, banker, player_extra, banker_extra) in _paths((p1 + p2) % 10, (b1 + b2) % 10):
                if not thirds:
                    weight = w4 * tails[0]
                    naturals += weight if natural else 0
                elif len(thirds) == 1:
                    weight = w4 * c[thirds[0]] * tails[1]
                else:
                    weight = w4 * c[thirds[0]] * (c[thirds[1]] - (thirds[0] == thirds[1]))
                finals[player][banker][player_extra][banker_extra] += weight
            c[b1] += 1
            c[b2] += 1
        c[p1] += 1
        c[p2] += 1
    return tuple(tuple(tuple(tuple(cards) for cards in cell) for cell in row) for row in finals), naturals


@functools.cache
def _paths(player: int, banker: int) -> tuple[tuple[bool, tuple[int, ...], tuple[int, int, int, int]], ...]:
    """Each of :func:`endings`: whether a hand was a natural, the third cards' values in draw
    order, and where it counts in the finals."""
    return tuple(
        (end.natural, end.thirds, (end.player, end.banker, end.player_cards - 2, end.banker_cards - 2))
        for end in endings(player, banker)
    )


def expected_return(odds: Probabilities, kind: str, rules: RulesSubmission) -> Fraction:
    """The player's exact expected gain per unit wagered on ``kind`` under ``rules``: the kind's
    own (:attr:`~firmware_host.rules.baccarat.wagers.WagerKind.expected_return`).

    :raises RulesError: for a kind the rules do not offer, or one no kind has.
    """
    rules.require_offered(kind)
    return wager_kind(kind).expected_return(odds, rules)


def house_edge(odds: Probabilities, kind: str, rules: RulesSubmission) -> Fraction:
    """The house's exact advantage per unit wagered on ``kind`` under ``rules``."""
    return -expected_return(odds, kind, rules)


#: The wagers ``tablehost baccarat odds`` reports: (variant, key, description, kind, rules).
EDGE_REPORT: tuple[tuple[str, str, str, str, RulesSubmission], ...] = (
    ("standard", "banker_commission_5", "banker, 5% commission", "banker", RulesSubmission(commission_percent=5)),
    ("standard", "banker_commission_4", "banker, 4% commission", "banker", RulesSubmission(commission_percent=4)),
    (
        "standard",
        "banker_tie_commission_25",
        "banker, 25% on a tie instead",
        "banker",
        RulesSubmission(tie_commission_alternative=True),
    ),
    ("standard", "player", "player", "player", RulesSubmission()),
    ("standard", "tie_8_to_1", "tie at 8 to 1", "tie", RulesSubmission(tie_payout=8)),
    ("standard", "tie_9_to_1", "tie at 9 to 1", "tie", RulesSubmission(tie_payout=9)),
    ("commission-free", "banker", "banker, 6 pays 1 to 2", "banker", RulesSubmission(variant=Variant.COMMISSION_FREE)),
    ("commission-free", "player", "player", "player", RulesSubmission(variant=Variant.COMMISSION_FREE)),
    ("commission-free", "tie_8_to_1", "tie at 8 to 1", "tie", RulesSubmission(variant=Variant.COMMISSION_FREE)),
    (
        "commission-free",
        "player_pair",
        "player pair at 11 to 1",
        "player_pair",
        RulesSubmission(variant=Variant.COMMISSION_FREE),
    ),
    (
        "commission-free",
        "banker_pair",
        "banker pair at 11 to 1",
        "banker_pair",
        RulesSubmission(variant=Variant.COMMISSION_FREE),
    ),
    (
        "commission-free",
        "lucky_six",
        "lucky six 12/20 to 1",
        "lucky_six",
        RulesSubmission(variant=Variant.COMMISSION_FREE),
    ),
    (
        "commission-free",
        "lucky_six_push_on_six_six_tie",
        "lucky six, 6-6 tie pushes",
        "lucky_six",
        RulesSubmission(variant=Variant.COMMISSION_FREE, lucky_six_on_six_six_tie="push"),
    ),
)


def house_edges(odds: ShoeOdds) -> dict[str, dict[str, float]]:
    """The house edge of every wager in :data:`EDGE_REPORT`, by variant and key."""
    report: dict[str, dict[str, float]] = {}
    for variant, key, _, kind, rules in EDGE_REPORT:
        report.setdefault(variant, {})[key] = float(house_edge(odds, kind, rules))
    return report
