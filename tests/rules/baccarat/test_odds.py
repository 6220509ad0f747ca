"""Exact odds by enumeration: the published 8-deck figures, and agreement with brute force."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import RANKS, SUITS, Card, parse_cards, remove_seen, shoe_composition
from firmware_host.rules.baccarat.deal import resolve
from firmware_host.rules.baccarat.odds import exact_odds, house_edge, house_edges, shoe_odds
from firmware_host.rules.baccarat.rules import RulesSubmission

EIGHT_DECKS = shoe_odds(8)
STANDARD = RulesSubmission()
COMMISSION_FREE = RulesSubmission(variant="commission-free")


@pytest.mark.parametrize(("outcome", "published"), [("banker", 0.458597), ("player", 0.446247), ("tie", 0.095156)])
def test_eight_deck_outcome_probabilities_equal_the_published_figures(outcome: str, published: float) -> None:
    assert round(float(getattr(EIGHT_DECKS, outcome)), 6) == published


@pytest.mark.parametrize(
    ("kind", "rules", "published_percent"),
    [
        ("banker", RulesSubmission(commission_percent=5), 1.06),  # § 541.13(c)
        ("player", STANDARD, 1.24),  # § 541.13(a)
        ("tie", RulesSubmission(tie_payout=8), 14.36),  # § 541.13(b)
        ("banker", COMMISSION_FREE, 1.46),  # § 631c.5(i)
        ("player_pair", COMMISSION_FREE, 10.36),  # § 631c.5(g)
        ("banker_pair", COMMISSION_FREE, 10.36),
    ],
)
def test_eight_deck_house_edges_equal_the_published_figures(
    kind: str, rules: RulesSubmission, published_percent: float
) -> None:
    assert round(float(house_edge(EIGHT_DECKS, kind, rules)) * 100, 2) == published_percent


def test_outcomes_partition_every_draw_exactly() -> None:
    assert EIGHT_DECKS.banker + EIGHT_DECKS.player + EIGHT_DECKS.tie == 1
    assert isinstance(EIGHT_DECKS.banker, Fraction)
    assert EIGHT_DECKS.sequences == 416 * 415 * 414 * 413 * 412 * 411


def test_eight_deck_pair_probability_has_its_closed_form() -> None:
    # 13 ranks of 32 cards: the second card matches the first in 31 of 415 cases
    assert EIGHT_DECKS.pair == Fraction(31, 415)


def test_eight_deck_lucky_six_and_naturals() -> None:
    assert round(float(EIGHT_DECKS.banker_six_two_cards), 6) == 0.037247
    assert round(float(EIGHT_DECKS.banker_six_three_cards), 6) == 0.016617
    assert round(float(EIGHT_DECKS.natural), 6) == 0.343049
    lucky = house_edge(EIGHT_DECKS, "lucky_six", COMMISSION_FREE)
    six = EIGHT_DECKS.banker_six_two_cards + EIGHT_DECKS.banker_six_three_cards
    assert lucky == 1 - six - 12 * EIGHT_DECKS.banker_six_two_cards - 20 * EIGHT_DECKS.banker_six_three_cards
    pushes = RulesSubmission(variant="commission-free", lucky_six_on_six_six_tie="push")
    assert house_edge(EIGHT_DECKS, "lucky_six", pushes) == lucky - EIGHT_DECKS.six_six_tie


def test_541_13_f_tie_commission_edge_counts_25_percent_of_ties() -> None:
    edge = house_edge(EIGHT_DECKS, "banker", RulesSubmission(tie_commission_alternative=True))
    assert edge == EIGHT_DECKS.player - EIGHT_DECKS.banker + EIGHT_DECKS.tie / 4


def test_house_edges_report_covers_both_variants() -> None:
    report = house_edges(EIGHT_DECKS)
    assert set(report) == {"standard", "commission-free"}
    assert round(report["standard"]["banker_commission_5"] * 100, 2) == 1.06
    assert round(report["commission-free"]["banker"] * 100, 2) == 1.46


def test_house_edge_refuses_a_wager_the_rules_do_not_offer() -> None:
    with pytest.raises(RulesError, match="'lucky_six': not offered"):
        house_edge(EIGHT_DECKS, "lucky_six", STANDARD)


@pytest.mark.parametrize("decks", range(1, 9))
def test_every_deck_count_is_a_probability_distribution(decks: int) -> None:
    odds = shoe_odds(decks)
    assert odds.banker + odds.player + odds.tie == 1
    assert 0.45 < odds.banker < 0.47 and 0.44 < odds.player < 0.45


def test_mid_shoe_composition_changes_the_odds() -> None:
    # One deck without its eights and nines: naturals become rarer
    seen = [Card(rank, suit) for rank in "89" for suit in SUITS]
    odds = exact_odds(remove_seen(shoe_composition(1), seen))
    assert odds.cards == 44
    assert odds.natural < shoe_odds(1).natural
    assert odds.banker + odds.player + odds.tie == 1


def test_exact_odds_needs_a_full_round_of_cards() -> None:
    with pytest.raises(RulesError, match="5 cards; exact odds need at least 6"):
        exact_odds(Counter(parse_cards("AS 2S 3S 4S 5S")))


small_compositions = st.lists(
    st.builds(Card, st.sampled_from(RANKS), st.sampled_from(SUITS)), min_size=6, max_size=8
).map(Counter)


def brute_force(composition: Counter[Card]) -> tuple[Counter[tuple[int, int, int, int]], int, int]:
    """Resolve every ordered draw of six physical cards: (finals, naturals, player pairs)."""
    physical = list(composition.elements())
    finals: Counter[tuple[int, int, int, int]] = Counter()
    naturals = pairs = 0
    for draw in itertools.permutations(physical, 6):
        result = resolve(draw)
        finals[result.player_total, result.banker_total, len(result.player), len(result.banker)] += 1
        naturals += result.natural
        pairs += result.player_pair
    return finals, naturals, pairs


@settings(max_examples=12, deadline=None)
@given(small_compositions)
def test_enumeration_agrees_with_brute_force_over_every_draw(composition: Counter[Card]) -> None:
    odds = exact_odds(composition)
    finals, naturals, pairs = brute_force(composition)
    enumerated = Counter(
        {
            (player, banker, 2 + player_extra, 2 + banker_extra): count
            for player, row in enumerate(odds.finals)
            for banker, cell in enumerate(row)
            for player_extra, cards in enumerate(cell)
            for banker_extra, count in enumerate(cards)
            if count
        }
    )
    assert enumerated == finals
    assert (odds.naturals, odds.pairs) == (naturals, pairs)
