"""The one enumeration of the drawing rules (§ 541.11) agrees with the deal card by card."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from firmware_host.rules.baccarat.cards import RANKS, SUITS, Card, point_count
from firmware_host.rules.baccarat.deal import resolve
from firmware_host.rules.baccarat.drawing import Ending, endings, falling

every_card = st.builds(Card, st.sampled_from(RANKS), st.sampled_from(SUITS))
#: A rank of each § 541.6(a) value: "K" is 0, "A" 1 ... "9" 9.
RANK_OF_VALUE = ("K", "A", "2", "3", "4", "5", "6", "7", "8", "9")


def ending_of(cards: list[Card]) -> Ending:
    """How :func:`~firmware_host.rules.baccarat.deal.resolve` ends the round ``cards`` start."""
    result = resolve(cards)
    player_third = result.player[2].value if len(result.player) == 3 else None
    banker_third = result.banker[2].value if len(result.banker) == 3 else None
    return Ending(player_third, banker_third, result.player_total, result.banker_total, result.natural)


@given(st.lists(every_card, min_size=6, max_size=6))
def test_541_11_every_round_the_deal_plays_is_one_of_the_enumerated_endings(cards: list[Card]) -> None:
    player, banker = point_count(cards[0:3:2]), point_count(cards[1:4:2])
    assert ending_of(cards) in endings(player, banker)


def test_541_11_for_every_two_card_start_the_endings_are_exactly_those_the_deal_reaches() -> None:
    for player, banker in itertools.product(range(10), repeat=2):
        start = [Card(RANK_OF_VALUE[player], "S"), Card(RANK_OF_VALUE[banker], "S"), Card("K", "H"), Card("K", "D")]
        reached = {
            ending_of(start + [Card(RANK_OF_VALUE[fifth], "C"), Card(RANK_OF_VALUE[sixth], "C")])
            for fifth, sixth in itertools.product(range(10), repeat=2)
        }
        assert reached == set(endings(player, banker)), (player, banker)
        assert len(endings(player, banker)) == len(reached), "each ending listed once"


def test_falling_counts_ordered_draws_and_none_past_the_cards_there_are() -> None:
    assert falling(416, 6) == 416 * 415 * 414 * 413 * 412 * 411
    assert (falling(5, 0), falling(3, 4)) == (1, 0)
