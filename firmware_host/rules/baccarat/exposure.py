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
that table (6,958 entries) instead of a fresh walk of the drawing rules; the sum is
factored and run in C loops (:class:`_Plan`), about 2.5 ms a composition. The table is
kept in arrays and getters: building and keeping it takes 1.5 MB at most, where dicts of
lists took 3.8 MB (tracemalloc), and it is built at the peak of ``make run``'s memory. The EVs
then come from :func:`firmware_host.rules.baccarat.odds.expected_return`, with the
table's own pay table and commission. With nothing seen they equal the full-shoe house
edges, negated.

EVs are exact :class:`fractions.Fraction` values; :func:`ev_text` and :func:`parse_ev`
are the one text form they are journaled in (``"-n/d"``), so a replay compares them bit
for bit.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import operator
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import RANK_VALUES, RANKS, SUITS, Card, _check_decks
from firmware_host.rules.baccarat.drawing import CARDS_PER_ROUND_MAX, TWO_CARD_STARTS, Final, endings, falling
from firmware_host.rules.baccarat.odds import expected_return
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.wagers import OUTCOMES, PAIR, Outcome, in_wager_order

#: How many cards of each rank are left, in :data:`~firmware_host.rules.baccarat.cards.RANKS`
#: order (A, 2 .. 9, T, J, Q, K).
RankCounts = tuple[int, ...]

#: Multiplicities of one value in a round are at most six, so base 7 packs ten of them.
_BASE = CARDS_PER_ROUND_MAX + 1
#: The outcomes the wager kinds pay on that the final counts decide (every one but the pairs):
#: the categories of :func:`_outcome_counts`, by index.
_COUNTED: tuple[Outcome, ...] = tuple(outcome for outcome in OUTCOMES.values() if outcome.holds is not None)


@dataclasses.dataclass(frozen=True)
class RoundOdds:
    """Exact probabilities of the next round's outcomes for one composition.

    It answers :meth:`probability` for every outcome a wager kind pays on, which each kind's
    expected return reads (:func:`~firmware_host.rules.baccarat.odds.expected_return`), so the
    EV of each wager is computed by the same code as the published house edges.

    :param cards: cards left in the composition.
    :param probabilities: by outcome name (:data:`~firmware_host.rules.baccarat.wagers.OUTCOMES`).
    """

    cards: int
    probabilities: Mapping[str, Fraction]

    def probability(self, outcome: Outcome) -> Fraction:
        """The share of the next round's draws in which ``outcome`` happens.

        :raises RulesError: for an outcome no wager kind pays on (it was not counted).
        """
        found = self.probabilities.get(outcome.name)
        if found is None:
            raise RulesError(f"outcome {outcome.name!r}: no wager kind pays on it, so it was not counted")
        return found


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
    sequences = falling(total, CARDS_PER_ROUND_MAX)
    probabilities = {outcome.name: Fraction(count, sequences) for outcome, count in zip(_COUNTED, counts)}
    probabilities[PAIR.name] = Fraction(sum(n * (n - 1) for n in ranks), total * (total - 1))
    return RoundOdds(cards=total, probabilities=probabilities)


def expected_values(rules: RulesSubmission, ranks: RankCounts) -> dict[str, Fraction]:
    """The player's exact expected gain per unit wagered on each kind ``rules`` offers.

    A push returns the wager, so it counts 0. Kinds come in
    :data:`~firmware_host.rules.baccarat.wagers.KINDS` order.

    :param rules: the table's Rules Submission (variant, pay table, commission, offered wagers).
    :param ranks: the rank counts left in the shoe (:func:`remaining_ranks`).
    :raises RulesError: as :func:`round_odds`, or for an offered kind no wager kind has.
    """
    odds = round_odds(tuple(ranks))
    return {kind: expected_return(odds, kind, rules) for kind in in_wager_order(rules.offered_wagers)}


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


#: One table entry: the cards of each value a value sequence uses as ((value, multiplicity),
#: ...), how many cards that is, and the (category, number of value sequences) it adds to.
_Entry = tuple[tuple[tuple[int, int], ...], int, tuple[tuple[int, int], ...]]


def _categories(final: Final) -> tuple[int, ...]:
    """The categories (:data:`_COUNTED`) a round that ended so counts in."""
    return tuple(index for index, outcome in enumerate(_COUNTED) if outcome.holds is not None and outcome.holds(final))


def _round_leaves(player: int, banker: int, keys: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Each way a round whose hands start at ``player`` and ``banker`` points ends (:func:`endings`),
    once per category it counts in: the key of the third cards drawn (:data:`_BASE` digits), and
    where the category's counts start in :func:`_value_sequences`' (which has ``keys`` per category)."""
    leaves = [
        (sum(_BASE**value for value in end.thirds), category * keys)
        for end in endings(player, banker)
        for category in _categories(end.final)
    ]
    return tuple(thirds for thirds, _ in leaves), tuple(start for _, start in leaves)


def _value_sequences() -> tuple[array[int], array[int]]:
    """Every value sequence of one round, by the key of its value multiplicities (digit ``v`` of
    base :data:`_BASE`: the cards of value ``v``): the keys of every multiset of 4 to 6 values,
    ascending, and per category then per key in that order how many sequences count in it (a
    tie other than 6-6 counts in none). Dense arrays (180 KB), not kept (:func:`_plan` is).

    A hand's first two cards are walked as unordered pairs of values (the totals do not
    depend on their order), counted twice when the two values differ; how each round then
    ends depends on the two totals only (:func:`_round_leaves`).
    """
    keys = sorted(  # a list while counting: bisect compares its ints, where an array's would be made per probe
        sum(_BASE**value for value in values)
        for cards in range(4, CARDS_PER_ROUND_MAX + 1)
        for values in itertools.combinations_with_replacement(range(10), cards)
    )
    digits = range(10)
    leaves = [[_round_leaves(player, banker, len(keys)) for banker in digits] for player in digits]
    two_cards = [(_BASE**a + _BASE**b, (a + b) % 10, orders) for a, b, orders in TWO_CARD_STARTS]
    sequences = array("L", [0]) * (len(keys) * len(_COUNTED))
    for p_key, player, p_orders in two_cards:
        for b_key, banker, b_orders in two_cards:
            thirds, starts = leaves[player][banker]
            at = map(bisect.bisect_left, itertools.repeat(keys), map((p_key + b_key).__add__, thirds))
            for slot in map(operator.add, at, starts):
                sequences[slot] += p_orders * b_orders
    return array("L", keys), sequences


def _digits(key: int, values: range) -> tuple[int, ...]:
    """The multiplicities of ``values`` in a key of :func:`_value_sequences`."""
    return tuple(key // _BASE**value % _BASE for value in values)


@functools.cache
def _value_table() -> tuple[_Entry, ...]:
    """:func:`_value_sequences` as entries: each key's (value, multiplicity) pairs, the cards it uses, its
    categories (a key that counts in none is left out)."""
    keys, sequences = _value_sequences()
    entries = []
    for index, key in enumerate(keys):
        categories = sequences[index :: len(keys)]
        if any(categories):
            multiplicities = tuple((value, m) for value, m in enumerate(_digits(key, range(10))) if m)
            used = sum(m for _, m in multiplicities)
            entries.append((multiplicities, used, tuple((c, n) for c, n in enumerate(categories) if n)))
    return tuple(entries)


#: Values 0 to 4 make one half of a key's multiplicities (its low digits), 5 to 9 the other (:class:`_Plan`).
_LOW_VALUES = 5
#: Where the draws of the cards a round leaves sit in :func:`_outcome_counts`' factors (after
#: the falling counts of the ten values).
_TAILS = 10 * _BASE

#: Picks items of a list by index (an :func:`operator.itemgetter` of two or more: a tuple).
_Getter = Callable[[list[int]], tuple[int, ...]]


@dataclasses.dataclass(frozen=True, eq=False)
class _Plan:
    """:func:`_value_sequences` arranged so that a composition's counts are a few loops run in C.

    An entry (a key that counts in some category) weighs a product of factors: per value, the
    ways to draw its multiplicity of that value, and the draws of the cards the round leaves.
    It is split into the low values' product (``low``: one per distinct low half) and the high
    values' product times the cards left's (``high``: one per distinct high half and cards
    used), each a column of factor indexes per value (a multiplicity of 0 is a factor of 1),
    so an entry's weight is one product of the two. A category's count is then, per number
    of sequences, that number times the sum of the weights of the entries with that many
    sequences in it (``groups``). About 500 KB, most of it the getters' indexes.
    """

    #: Per low value, then per low half: the index of its factor.
    low: tuple[bytes, ...]
    #: Per high value and the cards left, then per high half and cards used: the index of its factor.
    high: tuple[bytes, ...]
    #: Per entry, its low half's product, picked from the low halves' products.
    entry_low: _Getter
    #: Per entry, its high half's (and cards left's) product, picked from those products.
    entry_high: _Getter
    #: (category, sequences, the weights of the entries with that many sequences in it), from the
    #: entries' weights followed by a 0, which every getter takes too, so that each takes two or more.
    groups: tuple[tuple[int, int, _Getter], ...]


def _factor_columns(halves: Iterable[tuple[int, ...]], values: range) -> tuple[bytes, ...]:
    """Per value of ``values``, the factor index of each half (its multiplicities by value)."""
    rows = list(halves)
    return tuple(bytes(value * _BASE + half[value - values.start] for half in rows) for value in values)


@functools.cache
def _plan() -> _Plan:
    keys, sequences = _value_sequences()
    lows: dict[int, int] = {}
    highs: dict[tuple[int, int], int] = {}  # (the high values' digits, the cards the entry uses)
    entry_low, entry_high = array("H"), array("H")
    groups: dict[tuple[int, int], array[int]] = {}  # (category, sequences): the entries

    @functools.cache
    def cards(half: int) -> int:
        """The cards a half of a key uses (both halves have five digits)."""
        return sum(_digits(half, range(_LOW_VALUES)))

    by_category = [memoryview(sequences)[start : start + len(keys)] for start in range(0, len(sequences), len(keys))]
    for key, *counts in zip(keys, *by_category):
        if not any(counts):
            continue
        for category, count in enumerate(counts):
            if count:
                groups.setdefault((category, count), array("H")).append(len(entry_low))
        high, low = divmod(key, _BASE**_LOW_VALUES)
        entry_low.append(lows.setdefault(low, len(lows)))
        entry_high.append(highs.setdefault((high, cards(low) + cards(high)), len(highs)))
    names = list(range(len(entry_low) + 1))  # one int per index, shared by every getter

    def getter(indexes: Iterable[int]) -> _Getter:
        return operator.itemgetter(*map(names.__getitem__, indexes))

    return _Plan(
        low=_factor_columns((_digits(low, range(_LOW_VALUES)) for low in lows), range(_LOW_VALUES)),
        high=(
            *_factor_columns((_digits(high, range(10 - _LOW_VALUES)) for high, _ in highs), range(_LOW_VALUES, 10)),
            bytes(_TAILS + used for _, used in highs),
        ),
        entry_low=getter(entry_low),
        entry_high=getter(entry_high),
        groups=tuple(
            (category, count, getter([len(entry_low), *entries])) for (category, count), entries in groups.items()
        ),
    )


def _products(factors: list[int], columns: tuple[bytes, ...]) -> list[int]:
    """Per row of ``columns``, the product of the ``factors`` its indexes name."""
    products: Iterable[int] = map(factors.__getitem__, columns[0])
    for column in columns[1:]:
        products = map(operator.mul, products, map(factors.__getitem__, column))
    return list(products)


def _outcome_counts(values: list[int], total: int) -> list[int]:
    """Ordered six-card draws from ``values`` (the count of each value 0-9) in each category."""
    plan = _plan()
    factors = [falling(count, j) for count in values for j in range(_BASE)]
    factors += [falling(total - used, CARDS_PER_ROUND_MAX - used) for used in range(_BASE)]
    low, high = _products(factors, plan.low), _products(factors, plan.high)
    weights = [*map(operator.mul, plan.entry_low(low), plan.entry_high(high)), 0]
    counts = [0] * len(_COUNTED)
    for category, sequences, entries in plan.groups:
        counts[category] += sequences * sum(entries(weights))
    return counts
