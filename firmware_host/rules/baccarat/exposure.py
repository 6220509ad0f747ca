"""Exact expected values of every offered wager from the cards a player could have seen.

Game protection (docs/protection.md): before each round the controller asks what each
wager the table offers is worth to a player who counted every card *exposed* so far in
this shoe. :func:`expected_values` answers from the 13 rank counts left (a
:data:`RankCounts`); suits never matter, and the pairs of § 631c.5(c)(1) depend on ranks
only, so every composition with the same rank counts has the same answer.

The wagers other than the pairs are settled by the final point counts, so their
probabilities are counted exactly, as in :mod:`firmware_host.rules.baccarat.odds`, over
every ordered draw of the next six cards. :func:`round_odds` gets those counts fast: every
sequence of card *values* a round can deal (the drawing rules of § 541.11) is enumerated
once per process into a table keyed by how many cards of each value it uses; the number
of card sequences behind one value sequence with multiplicities ``m`` is
``prod_v c_v (c_v - 1) ... (c_v - m_v + 1)``, so a composition's counts are a sum over
that table (about 7,700 entries) instead of a fresh walk of the drawing rules. The EVs
then come from :func:`firmware_host.rules.baccarat.odds.expected_return`, with the
table's own pay table and commission. With nothing seen they equal the full-shoe house
edges, negated.

EVs are exact :class:`fractions.Fraction` values; :func:`ev_text` and :func:`parse_ev`
are the one text form they are journaled in (``"-n/d"``), so a replay compares them bit
for bit.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Iterable, Mapping
from fractions import Fraction

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import RANK_VALUES, RANKS, SUITS, Card, _check_decks
from firmware_host.rules.baccarat.deal import NATURAL_MIN, banker_draws, player_draws
from firmware_host.rules.baccarat.odds import CARDS_PER_ROUND_MAX, LUCKY_SIX_TOTAL, expected_return
from firmware_host.rules.baccarat.rules import WAGER_KINDS, RulesSubmission

#: How many cards of each rank are left, in :data:`~firmware_host.rules.baccarat.cards.RANKS`
#: order (A, 2 .. 9, T, J, Q, K).
RankCounts = tuple[int, ...]

#: Multiplicities of one value in a round are at most six, so base 7 packs ten of them.
_BASE = CARDS_PER_ROUND_MAX + 1
#: The outcome categories the EVs need, as indexes into the counts of :func:`_outcome_counts`.
_BANKER, _PLAYER, _SIX_TWO, _SIX_THREE, _SIX_SIX = range(5)


@dataclasses.dataclass(frozen=True)
class RoundOdds:
    """Exact probabilities of the next round's outcomes for one composition.

    It has the attributes :func:`~firmware_host.rules.baccarat.odds.expected_return` reads,
    so the EV of each wager is computed by the same code as the published house edges.

    :param cards: cards left in the composition.
    :param banker: the banker's hand wins.
    :param player: the player's hand wins.
    :param tie: equal point counts.
    :param banker_six_two_cards: the banker wins with 6 on two cards (§ 631c.5(k)(1)).
    :param banker_six_three_cards: the banker wins with 6 on three cards (§ 631c.5(k)(2)).
    :param six_six_tie: both hands end on 6.
    :param pair: a given hand's first two cards are of one rank (§ 631c.5(c)(1)).
    """

    cards: int
    banker: Fraction
    player: Fraction
    tie: Fraction
    banker_six_two_cards: Fraction
    banker_six_three_cards: Fraction
    six_six_tie: Fraction
    pair: Fraction


def full_shoe_ranks(decks: int) -> RankCounts:
    """The rank counts of a freshly shuffled shoe of ``decks`` decks (1-8).

    :raises RulesError: if ``decks`` is not 1-8.
    """
    _check_decks(decks)
    return (decks * len(SUITS),) * len(RANKS)


def remaining_ranks(decks: int, exposed: Iterable[Card]) -> RankCounts:
    """The rank counts of ``decks`` decks less the ``exposed`` cards.

    :raises RulesError: for an exposed card the shoe cannot hold: one card more than the
        shoe had of it (a foreign deck or a misread), naming the card.
    """
    _check_decks(decks)
    seen = Counter(exposed)
    for card, count in seen.items():
        if count > decks:
            raise RulesError(f"card {card}: exposed {count} times; a shoe of {decks} decks holds {decks}")
    by_rank = Counter[str]()
    for card, count in seen.items():
        by_rank[card.rank] += count
    return tuple(decks * len(SUITS) - by_rank[rank] for rank in RANKS)


def _check_ranks(ranks: RankCounts) -> int:
    if len(ranks) != len(RANKS) or any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in ranks):
        raise RulesError(f"rank counts {ranks!r}: need {len(RANKS)} whole numbers of at least 0")
    total = sum(ranks)
    if total < CARDS_PER_ROUND_MAX:
        raise RulesError(f"composition: {total} cards; exact odds need at least {CARDS_PER_ROUND_MAX} (a full round)")
    return total


@functools.lru_cache(maxsize=256)
def round_odds(ranks: RankCounts) -> RoundOdds:
    """The exact outcome probabilities of a round dealt from the cards of ``ranks``.

    Cached by composition: a replay, and every table asking about the same counts, pays
    once.

    :raises RulesError: for fewer than six cards (a round could run out, § 541.14(e)) or
        counts that are not 13 whole numbers of at least 0.
    """
    total = _check_ranks(ranks)
    values = [0] * 10
    for rank, count in zip(RANKS, ranks):
        values[RANK_VALUES[rank]] += count
    counts = _outcome_counts(values, total)
    sequences = _falling(total, CARDS_PER_ROUND_MAX)
    banker, player = Fraction(counts[_BANKER], sequences), Fraction(counts[_PLAYER], sequences)
    return RoundOdds(
        cards=total,
        banker=banker,
        player=player,
        tie=1 - banker - player,
        banker_six_two_cards=Fraction(counts[_SIX_TWO], sequences),
        banker_six_three_cards=Fraction(counts[_SIX_THREE], sequences),
        six_six_tie=Fraction(counts[_SIX_SIX], sequences),
        pair=Fraction(sum(n * (n - 1) for n in ranks), total * (total - 1)),
    )


def expected_values(rules: RulesSubmission, ranks: RankCounts) -> dict[str, Fraction]:
    """The player's exact expected gain per unit wagered on each kind ``rules`` offers.

    A push returns the wager, so it counts 0. Kinds come in
    :data:`~firmware_host.rules.baccarat.rules.WAGER_KINDS` order.

    :param rules: the table's Rules Submission (variant, pay table, commission, offered wagers).
    :param ranks: the rank counts left in the shoe (:func:`remaining_ranks`).
    :raises RulesError: as :func:`round_odds`.
    """
    odds = round_odds(tuple(ranks))
    return {kind: expected_return(odds, kind, rules) for kind in WAGER_KINDS if kind in rules.offered_wagers}


def ev_text(ev: Fraction) -> str:
    """The journal's exact text of an EV: ``"n/d"`` in lowest terms (``"0/1"`` for zero)."""
    return f"{ev.numerator}/{ev.denominator}"


def parse_ev(text: object) -> Fraction:
    """Read an EV written by :func:`ev_text`.

    :raises RulesError: for anything but ``"n/d"`` with whole numbers, d > 0, in lowest terms.
    """
    if not isinstance(text, str) or len(text) > 80 or text.count("/") != 1:
        raise RulesError(f"EV {text!r}: expected an exact fraction 'n/d'")
    numerator, denominator = text.split("/")
    if not denominator.isdigit() or not numerator.lstrip("-").isdigit():
        raise RulesError(f"EV {text!r}: expected an exact fraction 'n/d'")
    ev = Fraction(int(numerator), int(denominator)) if int(denominator) else None
    if ev is None or ev_text(ev) != text:
        raise RulesError(f"EV {text!r}: not a fraction in lowest terms with a positive denominator")
    return ev


def evs_text(evs: Mapping[str, Fraction]) -> dict[str, str]:
    """Every EV of ``evs`` in its journal text (:func:`ev_text`)."""
    return {kind: ev_text(ev) for kind, ev in evs.items()}


def _falling(n: int, k: int) -> int:
    """n (n-1) ... (n-k+1)."""
    product = 1
    for i in range(k):
        product *= n - i
    return product


#: One table entry: the cards of each value a value sequence uses as ((value, multiplicity),
#: ...), how many cards that is, and the (category, number of value sequences) it adds to.
_Entry = tuple[tuple[tuple[int, int], ...], int, tuple[tuple[int, int], ...]]


@functools.cache
def _value_table() -> tuple[_Entry, ...]:
    """Every value sequence of one round, grouped by its value multiplicities (once per process).

    A hand's first two cards are walked as unordered pairs of values (the totals do not
    depend on their order), counted twice when the two values differ.
    """
    table: dict[int, list[int]] = {}

    def add(key: int, category: int, sequences: int) -> None:
        table.setdefault(key, [0] * 5)[category] += sequences

    def settle(key: int, player: int, banker: int, banker_cards: int, sequences: int) -> None:
        if banker > player:
            add(key, _BANKER, sequences)
            if banker == LUCKY_SIX_TOTAL:
                add(key, _SIX_TWO if banker_cards == 2 else _SIX_THREE, sequences)
        elif player > banker:
            add(key, _PLAYER, sequences)
        elif player == LUCKY_SIX_TOTAL:
            add(key, _SIX_SIX, sequences)

    digits = range(10)
    two_cards = [(a, b, 1 if a == b else 2) for a in digits for b in digits[a:]]
    for p1, p2, p_orders in two_cards:
        for b1, b2, b_orders in two_cards:
            key = _BASE**p1 + _BASE**p2 + _BASE**b1 + _BASE**b2
            orders = p_orders * b_orders
            player, banker = (p1 + p2) % 10, (b1 + b2) % 10
            if player >= NATURAL_MIN or banker >= NATURAL_MIN:  # § 541.11(a)
                settle(key, player, banker, 2, orders)
            elif not player_draws(player):  # § 541.11(b)
                if banker_draws(banker, None):  # § 541.11(c)(1)
                    for b3 in digits:
                        settle(key + _BASE**b3, player, (banker + b3) % 10, 3, orders)
                else:
                    settle(key, player, banker, 2, orders)
            else:
                for p3 in digits:
                    final_player = (player + p3) % 10
                    if banker_draws(banker, p3):  # § 541.11(c)(2)
                        for b3 in digits:
                            settle(key + _BASE**p3 + _BASE**b3, final_player, (banker + b3) % 10, 3, orders)
                    else:
                        settle(key + _BASE**p3, final_player, banker, 2, orders)
    entries = []
    for key, categories in table.items():  # a tie other than 6-6 counts in no category
        multiplicities = tuple((value, key // _BASE**value % _BASE) for value in digits if key // _BASE**value % _BASE)
        used = sum(m for _, m in multiplicities)
        entries.append((multiplicities, used, tuple((c, n) for c, n in enumerate(categories) if n)))
    return tuple(entries)


def _outcome_counts(values: list[int], total: int) -> list[int]:
    """Ordered six-card draws from ``values`` (the count of each value 0-9) in each category."""
    falling = [[_falling(count, j) for j in range(_BASE)] for count in values]
    tails = [_falling(total - used, CARDS_PER_ROUND_MAX - used) for used in range(_BASE)]
    counts = [0] * 5
    for multiplicities, used, categories in _value_table():
        weight = tails[used]
        for value, multiplicity in multiplicities:
            weight *= falling[value][multiplicity]
        if weight:
            for category, sequences in categories:
                counts[category] += sequences * weight
    return counts
