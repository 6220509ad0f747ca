"""Exact EVs from the exposed cards (game protection, docs/protection.md).

An independent brute-force enumerator (below) deals every round a small composition can
deal, card by card through :class:`~firmware_host.rules.baccarat.deal.Deal` (not the drawing
code of :mod:`~firmware_host.rules.baccarat.exposure`), and pays each wager by hand from the
pay tables of § 541.13 and § 631c.5; the EVs must equal it exactly.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import RANKS, SUITS, Card, full_shoe, remove_seen, shoe_composition
from firmware_host.rules.baccarat.deal import Deal
from firmware_host.rules.baccarat.exposure import (
    ev_text,
    expected_values,
    full_shoe_ranks,
    parse_ev,
    remaining_ranks,
    round_odds,
)
from firmware_host.rules.baccarat.odds import exact_odds
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.wagers import OUTCOMES

STANDARD = RulesSubmission()
COMMISSION_FREE = RulesSubmission(variant="commission-free")
#: Every pay table the rules allow, both variants.
PAY_TABLES = (
    STANDARD,
    RulesSubmission(commission_percent=4),
    RulesSubmission(tie_commission_alternative=True),
    RulesSubmission(tie_payout=9),
    COMMISSION_FREE,
    RulesSubmission(variant="commission-free", lucky_six_on_six_six_tie="push"),
)


# -- the independent enumerator ------------------------------------------------------------
def _pay(kind: str, deal: Deal, rules: RulesSubmission) -> Fraction:
    """What one unit on ``kind`` wins (+) or loses (-) on a complete deal, by the pay tables."""
    result = deal.result(rules.variant)
    winner, banker_total = result.winner, result.banker_total
    if kind in ("player_pair", "banker_pair"):  # § 631c.5(c)(1), (2), (g): 11 to 1
        return Fraction(11) if getattr(result, kind) else Fraction(-1)
    if kind == "tie":  # § 541.13(b)
        return Fraction(rules.tie_payout) if winner == "tie" else Fraction(-1)
    if kind == "player":  # § 541.13(a); a tie pushes
        return {"player": Fraction(1), "banker": Fraction(-1), "tie": Fraction(0)}[winner]
    if kind == "lucky_six":  # § 631c.5(k)
        if winner == "banker" and banker_total == 6:
            return Fraction(12 if len(deal.banker) == 2 else 20)
        if winner == "tie" and banker_total == 6 and rules.lucky_six_on_six_six_tie == "push":
            return Fraction(0)
        return Fraction(-1)
    # banker
    if winner == "player":
        return Fraction(-1)
    if winner == "tie":
        return Fraction(-1, 4) if rules.tie_commission_alternative else Fraction(0)  # § 541.13(f)
    if rules.variant == "commission-free":
        return Fraction(1, 2) if banker_total == 6 else Fraction(1)  # § 631c.5(i)
    if rules.tie_commission_alternative:
        return Fraction(1)
    return 1 - Fraction(rules.commission_percent, 100)  # § 541.13(c)


def brute_force_evs(ranks: dict[str, int], rules: RulesSubmission) -> dict[str, Fraction]:
    """Every card sequence a round can take from ``ranks``, one card at a time, with its probability."""
    kinds = [
        kind
        for kind in ("banker", "player", "tie", "player_pair", "banker_pair", "lucky_six")
        if kind in rules.offered_wagers
    ]
    totals = dict.fromkeys(kinds, Fraction(0))
    left = dict(ranks)

    def walk(deal: Deal, probability: Fraction) -> None:
        if deal.is_complete:
            for kind in kinds:
                totals[kind] += probability * _pay(kind, deal, rules)
            return
        remaining = sum(left.values())
        for rank, count in list(left.items()):
            if count:
                left[rank] -= 1
                walk(deal.add(Card(rank, "S")), probability * Fraction(count, remaining))
                left[rank] += 1

    walk(Deal(), Fraction(1))
    return totals


def ranks_of(counts: dict[str, int]) -> tuple[int, ...]:
    return tuple(counts.get(rank, 0) for rank in RANKS)


# -- mid-shoe states against the brute force -------------------------------------------------
#: Small compositions, as a shoe near its end can be (few ranks left, some of them many times).
MID_SHOE = (
    {"A": 2, "5": 1, "6": 2, "K": 3, "9": 1},
    {"2": 3, "3": 2, "7": 2, "Q": 2},
    {"6": 4, "T": 2, "J": 1, "4": 1},
    {"8": 2, "9": 2, "A": 1, "3": 1, "6": 2},
)


@pytest.mark.parametrize("counts", MID_SHOE, ids=lambda c: "".join(f"{r}{n}" for r, n in c.items()))
@pytest.mark.parametrize(
    "rules",
    [
        STANDARD,
        RulesSubmission(tie_commission_alternative=True),
        COMMISSION_FREE,
        RulesSubmission(variant="commission-free", lucky_six_on_six_six_tie="push"),
    ],
    ids=["standard", "tie-commission", "commission-free", "lucky-six-push"],
)
def test_evs_at_mid_shoe_states_equal_an_independent_enumeration(
    counts: dict[str, int], rules: RulesSubmission
) -> None:
    assert expected_values(rules, ranks_of(counts)) == brute_force_evs(counts, rules)


def test_pairs_are_by_rank_not_by_point_value() -> None:
    # Ten, jack, queen and king all count 0 (§ 541.6(a)) but pair only with their own rank.
    faces = {"T": 2, "J": 2, "Q": 2, "K": 2}
    pair = expected_values(COMMISSION_FREE, ranks_of(faces))["player_pair"]
    assert pair == 12 * Fraction(1, 7) - 1 == brute_force_evs(faces, COMMISSION_FREE)["player_pair"]
    # The closed form: a pair when the second card matches the first one's rank.
    tens = {"T": 8}
    assert expected_values(COMMISSION_FREE, ranks_of(tens))["player_pair"] == 11


# -- the published full-shoe edges -------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "rules", "published_percent"),
    [
        ("banker", STANDARD, "-1.0579"),  # § 541.13(c), 5% commission
        ("player", STANDARD, "-1.2351"),  # § 541.13(a)
        ("tie", STANDARD, "-14.3596"),  # § 541.13(b), 8 to 1
        ("banker", COMMISSION_FREE, "-1.4581"),  # § 631c.5(i)
        ("player_pair", COMMISSION_FREE, "-10.3614"),  # § 631c.5(g), 11 to 1
        ("banker_pair", COMMISSION_FREE, "-10.3614"),
        ("lucky_six", COMMISSION_FREE, "-16.6836"),  # § 631c.5(k), Wizard of Odds "Macau" 12/20 table
    ],
)
def test_with_nothing_seen_the_evs_are_the_published_eight_deck_edges(
    kind: str, rules: RulesSubmission, published_percent: str
) -> None:
    ev = expected_values(rules, full_shoe_ranks(8))[kind]
    assert round(ev * 100, 4) == Fraction(published_percent)


def test_lucky_six_counts_are_the_published_combinations() -> None:
    # Wizard of Odds, Lucky 6: 186,173,936,904,192 and 83,058,367,551,488 of 4,998,398,275,503,360.
    odds = round_odds(full_shoe_ranks(8))
    assert odds.probability(OUTCOMES["banker_six_two_cards"]) == Fraction(186_173_936_904_192, 4_998_398_275_503_360)
    assert odds.probability(OUTCOMES["banker_six_three_cards"]) == Fraction(83_058_367_551_488, 4_998_398_275_503_360)


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_with_nothing_seen_every_probability_equals_the_full_enumeration(decks: int) -> None:
    fast, full = round_odds(full_shoe_ranks(decks)), exact_odds(shoe_composition(decks))
    for name in ("banker", "player", "tie", "banker_six_two_cards", "banker_six_three_cards", "six_six_tie", "pair"):
        assert fast.probability(OUTCOMES[name]) == full.probability(OUTCOMES[name]) == getattr(full, name), name


def test_mid_shoe_probabilities_equal_the_full_enumeration_of_odds_py() -> None:
    shoe = full_shoe(8)
    random.Random(21).shuffle(shoe)
    seen = shoe[:350]
    fast, full = round_odds(remaining_ranks(8, seen)), exact_odds(remove_seen(shoe_composition(8), seen))
    for name in ("banker", "player", "tie", "banker_six_two_cards", "banker_six_three_cards", "six_six_tie", "pair"):
        assert fast.probability(OUTCOMES[name]) == full.probability(OUTCOMES[name]) == getattr(full, name), name


def test_only_the_offered_kinds_in_wager_order() -> None:
    assert list(expected_values(STANDARD, full_shoe_ranks(8))) == ["banker", "player", "tie"]
    only = RulesSubmission(variant="commission-free", offered_wagers=frozenset({"lucky_six", "banker"}))
    assert list(expected_values(only, full_shoe_ranks(8))) == ["banker", "lucky_six"]


# -- properties ----------------------------------------------------------------------------
cards = st.sampled_from([Card(rank, suit) for rank in RANKS for suit in SUITS])


@settings(max_examples=25, deadline=None)
@given(seen=st.lists(cards, max_size=60), suits=st.permutations(SUITS), rules=st.sampled_from(PAY_TABLES))
def test_suits_never_matter(seen: list[Card], suits: list[str], rules: RulesSubmission) -> None:
    seen = [card for card, n in Counter(seen).items() for _ in range(min(n, 2))]
    recoloured = [Card(card.rank, suits[SUITS.index(card.suit)]) for card in seen]
    assert expected_values(rules, remaining_ranks(2, seen)) == expected_values(rules, remaining_ranks(2, recoloured))


@settings(max_examples=25, deadline=None)
@given(
    counts=st.lists(st.integers(0, 8), min_size=13, max_size=13).filter(lambda c: sum(c) >= 6),
    order=st.permutations(range(13)),
)
def test_the_pair_ev_depends_only_on_the_rank_counts(counts: list[int], order: list[int]) -> None:
    """The pair EV is a function of the multiset of rank counts: which ranks hold them, and
    what the ranks count (§ 541.6(a)), do not matter; it is 12 sum n(n-1) / N(N-1) - 1."""
    n = sum(counts)
    closed = 12 * Fraction(sum(c * (c - 1) for c in counts), n * (n - 1)) - 1
    shuffled = tuple(counts[i] for i in order)
    evs, moved = expected_values(COMMISSION_FREE, tuple(counts)), expected_values(COMMISSION_FREE, shuffled)
    assert evs["player_pair"] == evs["banker_pair"] == moved["player_pair"] == closed


@settings(max_examples=50, deadline=None)
@given(st.fractions())
def test_the_ev_text_reads_back_exactly(ev: Fraction) -> None:
    assert parse_ev(ev_text(ev)) == ev


@pytest.mark.parametrize("text", ["1/2/3", "2/4", "1/0", "-1/-2", "0.5", "", None, 3, "1/" + "9" * 90, "+1/2"])
def test_parse_ev_refuses_anything_but_lowest_terms(text: object) -> None:
    with pytest.raises(RulesError):
        parse_ev(text)


def test_an_impossible_exposure_and_a_short_shoe_are_refused() -> None:
    with pytest.raises(RulesError, match="exposed 2 times"):
        remaining_ranks(1, [Card("A", "S"), Card("A", "S")])
    with pytest.raises(RulesError, match="at least 6"):
        round_odds(ranks_of({"A": 5}))
    with pytest.raises(RulesError, match="13 whole numbers"):
        round_odds((1, 2, 3))


#: Builds the table of :func:`round_odds` (the first round's odds) in a fresh interpreter and
#: prints tracemalloc's peak.
TABLE_MEMORY = """
import tracemalloc
from firmware_host.rules.baccarat.exposure import full_shoe_ranks, round_odds
tracemalloc.start()
round_odds(full_shoe_ranks(8))
print(tracemalloc.get_traced_memory()[1])
"""


def test_the_odds_table_is_built_and_kept_in_under_two_mib() -> None:
    # Issue 30 item 4: built at the first round, the table made the peak of make run's memory;
    # dicts of lists took 3.8 MB at tracemalloc's peak, its arrays and getters take 1.5 MB.
    done = subprocess.run([sys.executable, "-c", TABLE_MEMORY], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 2 * 1024 * 1024
