"""Exact odds of Baccarat by enumeration over the cards in the shoe (not Monte Carlo).

:func:`exact_odds` counts, for a composition (a full shoe of 1-8 decks or what is left of
one mid-shoe), how many of the ordered ways to draw the next six cards end in each final
pair of point counts. A round never needs more than six cards, so every count shares one
denominator, ``N (N-1) ... (N-5)``, and every probability is an exact fraction.

Outcomes depend only on card values, so the enumeration runs over the ten § 541.6(a)
values with their counts (10^4 initial deals at most, then the third cards), reusing the
drawing rules of :mod:`firmware_host.rules.baccarat.deal`. Pairs depend on ranks, but only on
the first two cards of a hand, so they have a closed form over rank counts.

House edges are exact expectations per unit wagered; they ignore the rounding of payouts
and vigorish to whole cents, which depends on the size of the wager.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import Protocol

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import RANK_VALUES, Card, shoe_composition
from firmware_host.rules.baccarat.deal import NATURAL_MIN, banker_draws, player_draws
from firmware_host.rules.baccarat.rules import (
    BANKER_ODDS,
    COMMISSION_FREE_BANKER_SIX_ODDS,
    LUCKY_SIX_ODDS,
    PAIR_ODDS,
    PLAYER_ODDS,
    TIE_COMMISSION_PERCENT,
    RulesSubmission,
)
from firmware_host.rules.baccarat.variant import Variant

#: The most cards one round can use (two hands of three, § 541.10(d)).
CARDS_PER_ROUND_MAX = 6
#: The point count that makes a banker win a Lucky Six (§ 631c.5(c)(3)).
LUCKY_SIX_TOTAL = 6


@dataclasses.dataclass(frozen=True)
class ShoeOdds:
    """Exact outcome counts for one composition.

    :param cards: how many cards the composition holds.
    :param sequences: ordered six-card draws, the denominator of every probability.
    :param finals: ``finals[player_total][banker_total][banker_cards - 2]``: draws ending
        with those point counts and the banker holding 2 or 3 cards.
    :param naturals: draws where either hand is a natural (§ 541.11(a)).
    :param pairs: draws where a given hand's first two cards are a pair (the same for the
        player's and the banker's hand: their cards are exchangeable).
    """

    cards: int
    sequences: int
    finals: tuple[tuple[tuple[int, int], ...], ...]
    naturals: int
    pairs: int

    def _probability(self, counted: Callable[[int, int, int], bool]) -> Fraction:
        """The share of draws whose (player total, banker total, banker cards) is ``counted``."""
        count = sum(
            draws
            for player, row in enumerate(self.finals)
            for banker, cell in enumerate(row)
            for extra, draws in enumerate(cell)
            if counted(player, banker, 2 + extra)
        )
        return Fraction(count, self.sequences)

    @functools.cached_property
    def banker(self) -> Fraction:
        """The banker's hand wins."""
        return self._probability(lambda player, banker, _: banker > player)

    @functools.cached_property
    def player(self) -> Fraction:
        """The player's hand wins."""
        return self._probability(lambda player, banker, _: player > banker)

    @functools.cached_property
    def tie(self) -> Fraction:
        """Equal point counts."""
        return self._probability(lambda player, banker, _: player == banker)

    @functools.cached_property
    def banker_six_two_cards(self) -> Fraction:
        """The banker wins with 6 on two cards (Lucky Six at 12 to 1, § 631c.5(k)(1))."""
        return self._probability(lambda player, banker, cards: banker == LUCKY_SIX_TOTAL > player and cards == 2)

    @functools.cached_property
    def banker_six_three_cards(self) -> Fraction:
        """The banker wins with 6 on three cards (Lucky Six at 20 to 1, § 631c.5(k)(2))."""
        return self._probability(lambda player, banker, cards: banker == LUCKY_SIX_TOTAL > player and cards == 3)

    @functools.cached_property
    def six_six_tie(self) -> Fraction:
        """Both hands end on 6."""
        return self._probability(lambda player, banker, _: player == banker == LUCKY_SIX_TOTAL)

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
    tail = _falling(total - 2, CARDS_PER_ROUND_MAX - 2)  # the other four cards in any order
    pairs = sum(n * (n - 1) for n in rank_counts.values()) * tail
    return ShoeOdds(total, _falling(total, CARDS_PER_ROUND_MAX), finals, naturals, pairs)


def shoe_odds(decks: int) -> ShoeOdds:
    """Exact odds of a freshly shuffled shoe of ``decks`` decks (1-8).

    :raises RulesError: if ``decks`` is not 1-8.
    """
    return exact_odds(shoe_composition(decks))


def _falling(n: int, k: int) -> int:
    """n (n-1) ... (n-k+1): ordered draws of k cards out of n."""
    product = 1
    for i in range(k):
        product *= n - i
    return product


def _enumerate(c: list[int], total: int) -> tuple[tuple[tuple[tuple[int, int], ...], ...], int]:
    """Weighted enumeration over card values; ``c`` holds the count of each value 0-9.

    Counts are removed from ``c`` as cards are drawn and put back after, so the weight of
    a path is the product of the counts left at each draw: the number of ordered card
    sequences it stands for. Paths that end before the sixth card are multiplied by the
    number of ways to draw the cards left over.

    A hand's first two cards are enumerated as unordered pairs of values: the totals, and
    the weight (a product of falling counts per value), do not depend on which of the two
    came first, so a pair of two different values stands for its two orders. That visits
    55 x 55 initial deals instead of 10^4 and makes the whole enumeration about 3x faster.
    """
    finals = [[[0, 0] for _ in range(10)] for _ in range(10)]
    naturals = 0
    after_four = (total - 4) * (total - 5)  # the two unused cards when no third card is dealt
    after_five = total - 5
    digits = range(10)
    # Banker decisions for each two-card count and player third value (None: player stood).
    banker_rule = {(b, v): banker_draws(b, v) for b in digits for v in (None, *digits)}
    # (first value, second value, orders): each hand's two cards as an unordered pair of values.
    two_cards = [(first, second, 1 if first == second else 2) for first in digits for second in digits[first:]]
    for p1, p2, player_orders in two_cards:
        w2 = c[p1] * (c[p2] - (p1 == p2)) * player_orders
        if not w2:
            continue
        c[p1] -= 1
        c[p2] -= 1
        player = (p1 + p2) % 10
        for b1, b2, banker_orders in two_cards:
            w4 = w2 * c[b1] * (c[b2] - (b1 == b2)) * banker_orders
            if not w4:
                continue
            c[b1] -= 1
            c[b2] -= 1
            banker = (b1 + b2) % 10
            if player >= NATURAL_MIN or banker >= NATURAL_MIN:  # § 541.11(a)
                finals[player][banker][0] += w4 * after_four
                naturals += w4 * after_four
            elif not player_draws(player):
                if banker_rule[banker, None]:
                    row = finals[player]
                    for b3 in digits:
                        row[(banker + b3) % 10][1] += w4 * c[b3] * after_five
                else:
                    finals[player][banker][0] += w4 * after_four
            else:
                for p3 in digits:
                    w5 = w4 * c[p3]
                    if not w5:
                        continue
                    row = finals[(player + p3) % 10]
                    if banker_rule[banker, p3]:
                        c[p3] -= 1
                        for b3 in digits:
                            row[(banker + b3) % 10][1] += w5 * c[b3]
                        c[p3] += 1
                    else:
                        row[banker][0] += w5 * after_five
            c[b1] += 1
            c[b2] += 1
        c[p1] += 1
        c[p2] += 1
    return tuple(tuple((cell[0], cell[1]) for cell in row) for row in finals), naturals


class WagerProbabilities(Protocol):
    """The outcome probabilities a wager's expected return needs (:class:`ShoeOdds` has them)."""

    @property
    def banker(self) -> Fraction: ...
    @property
    def player(self) -> Fraction: ...
    @property
    def tie(self) -> Fraction: ...
    @property
    def banker_six_two_cards(self) -> Fraction: ...
    @property
    def banker_six_three_cards(self) -> Fraction: ...
    @property
    def six_six_tie(self) -> Fraction: ...
    @property
    def pair(self) -> Fraction: ...


def expected_return(odds: WagerProbabilities, kind: str, rules: RulesSubmission) -> Fraction:
    """The player's exact expected gain per unit wagered on ``kind`` under ``rules``.

    :raises RulesError: for a kind the rules do not offer.
    """
    rules.require_offered(kind)
    if kind == "player":
        return odds.player * PLAYER_ODDS.ratio - odds.banker
    if kind == "banker":
        if rules.variant is Variant.COMMISSION_FREE:
            six = odds.banker_six_two_cards + odds.banker_six_three_cards
            won = (odds.banker - six) * BANKER_ODDS.ratio + six * COMMISSION_FREE_BANKER_SIX_ODDS.ratio
            return won - odds.player
        if rules.tie_commission_alternative:
            return odds.banker * BANKER_ODDS.ratio - odds.player - odds.tie * Fraction(TIE_COMMISSION_PERCENT, 100)
        return odds.banker * BANKER_ODDS.ratio * (1 - Fraction(rules.commission_percent, 100)) - odds.player
    if kind == "tie":
        return odds.tie * rules.tie_payout - (1 - odds.tie)
    if kind in ("player_pair", "banker_pair"):
        return odds.pair * PAIR_ODDS.ratio - (1 - odds.pair)
    two, three = odds.banker_six_two_cards, odds.banker_six_three_cards  # lucky_six
    pushed = odds.six_six_tie if rules.lucky_six_on_six_six_tie == "push" else Fraction(0)
    return two * LUCKY_SIX_ODDS[2].ratio + three * LUCKY_SIX_ODDS[3].ratio - (1 - two - three - pushed)


def house_edge(odds: WagerProbabilities, kind: str, rules: RulesSubmission) -> Fraction:
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
