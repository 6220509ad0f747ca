"""Hypothesis properties of the deal: §§ 541.9-541.11 hold for any sequence of cards."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from firmware_host.rules.baccarat.cards import RANKS, SUITS, Card, point_count
from firmware_host.rules.baccarat.deal import Deal, Slot, resolve

every_card = st.builds(Card, st.sampled_from(RANKS), st.sampled_from(SUITS))
#: Six cards always complete a round; extra ones must be left unused.
shoe_orders = st.lists(every_card, min_size=6, max_size=9)


def textbook_round(cards: list[Card]) -> tuple[list[Card], list[Card]]:
    """An independent statement of §§ 541.9-541.11, written as a dealer learns it."""
    player, banker = [cards[0], cards[2]], [cards[1], cards[3]]
    rest = iter(cards[4:])
    p, b = point_count(player), point_count(banker)
    if p >= 8 or b >= 8:
        return player, banker
    third = None
    if p <= 5:
        third = next(rest)
        player.append(third)
    if third is None:
        banker_draws = b <= 5
    else:
        v = third.value
        banker_draws = (
            b <= 2
            or (b == 3 and v != 8)
            or (b == 4 and 2 <= v <= 7)
            or (b == 5 and 4 <= v <= 7)
            or (b == 6 and v in (6, 7))
        )
    if banker_draws:
        banker.append(next(rest))
    return player, banker


@given(shoe_orders)
def test_541_10_d_no_hand_ever_holds_more_than_three_cards(cards: list[Card]) -> None:
    result = resolve(cards)
    assert 2 <= len(result.player) <= 3 and 2 <= len(result.banker) <= 3


@given(shoe_orders)
def test_541_11_a_a_natural_ends_the_round_after_four_cards(cards: list[Card]) -> None:
    result = resolve(cards)
    natural = point_count(cards[0:3:2]) >= 8 or point_count(cards[1:4:2]) >= 8
    assert result.natural == natural
    if natural:
        assert result.cards_used == 4


@given(shoe_orders)
def test_cards_used_equals_the_cards_consumed_in_shoe_order(cards: list[Card]) -> None:
    result = resolve(cards)
    assert result.cards_used == len(result.player) + len(result.banker)
    deal = Deal(player=result.player, banker=result.banker)
    assert list(deal.cards) == cards[: result.cards_used]


@given(shoe_orders, st.sampled_from(["standard", "commission-free"]))
def test_resolve_agrees_with_the_incremental_deal(cards: list[Card], variant: str) -> None:
    deal = Deal()
    slots: list[Slot] = []
    for card in cards:
        slot = deal.next_slot()
        if slot is None:
            break
        slots.append(slot)
        deal = deal.add(card)
    assert deal.is_complete
    assert deal.result(variant) == resolve(cards, variant=variant)
    assert slots[:4] == [Slot.PLAYER_1, Slot.BANKER_1, Slot.PLAYER_2, Slot.BANKER_2]  # § 541.9(c)


@given(shoe_orders)
def test_resolve_agrees_with_a_textbook_statement_of_the_rules(cards: list[Card]) -> None:
    player, banker = textbook_round(cards)
    result = resolve(cards)
    assert (list(result.player), list(result.banker)) == (player, banker)
    assert (result.player_total, result.banker_total) == (point_count(player), point_count(banker))
