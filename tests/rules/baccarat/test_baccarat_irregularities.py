"""A card dealt in error (§ 541.14(a)-(c)): explicit outcomes for the controller."""

from __future__ import annotations

import pytest

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import parse_card, parse_cards
from firmware_host.rules.baccarat.deal import Deal, Slot
from firmware_host.rules.baccarat.irregularities import IrregularityAction, card_out_of_turn


def dealt(text: str) -> Deal:
    deal = Deal()
    for card in parse_cards(text):
        deal = deal.add(card)
    return deal


COMPLETE = dealt("9S 2H KD 5C")  # player natural 9
PLAYER_STAYS_BANKER_DRAWS = dealt("6S 2H KD 3C")  # player 6 stays, banker 5 must draw
PLAYER_STAYS_BANKER_STAYS = dealt("7S 3H KD 3C")  # player 7 stays, banker 6 stays
EXTRA = parse_card("4D")


def test_541_14_a_card_drawn_in_error_is_the_next_hand_first_card() -> None:
    outcome = card_out_of_turn(COMPLETE, EXTRA, to_player_third_in_error=False)
    assert outcome.action is IrregularityAction.NEXT_HAND_FIRST_CARD
    assert (outcome.card, outcome.deal, outcome.extra_discards, outcome.section) == (EXTRA, COMPLETE, 0, "541.14(a)")


def test_541_14_b_player_third_in_error_becomes_banker_third_when_banker_must_draw() -> None:
    outcome = card_out_of_turn(PLAYER_STAYS_BANKER_DRAWS, EXTRA, to_player_third_in_error=True)
    assert outcome.action is IrregularityAction.BANKER_THIRD_CARD
    assert outcome.section == "541.14(b)"
    assert outcome.deal.banker[-1] == EXTRA and len(outcome.deal.player) == 2
    assert outcome.deal.is_complete
    assert outcome.deal.result().banker_total == (5 + 4) % 10


def test_541_14_b_player_third_in_error_is_next_hand_first_card_when_banker_stays() -> None:
    outcome = card_out_of_turn(PLAYER_STAYS_BANKER_STAYS, EXTRA, to_player_third_in_error=True)
    assert outcome.action is IrregularityAction.NEXT_HAND_FIRST_CARD
    assert outcome.section == "541.14(b)"
    assert outcome.deal == PLAYER_STAYS_BANKER_STAYS


def test_541_14_b_player_third_in_error_after_a_natural_goes_to_the_next_hand() -> None:
    outcome = card_out_of_turn(COMPLETE, EXTRA, to_player_third_in_error=True)
    assert outcome.action is IrregularityAction.NEXT_HAND_FIRST_CARD


@pytest.mark.parametrize(
    ("deal", "to_player_third"),
    [(COMPLETE, False), (COMPLETE, True), (PLAYER_STAYS_BANKER_DRAWS, True), (PLAYER_STAYS_BANKER_STAYS, True)],
)
def test_541_14_c_a_disclosed_card_is_discarded_with_one_more(deal: Deal, to_player_third: bool) -> None:
    outcome = card_out_of_turn(deal, EXTRA, to_player_third_in_error=to_player_third, disclosed=True)
    assert outcome.action is IrregularityAction.DISCARD_WITH_ONE_MORE
    assert outcome.extra_discards == 1
    assert outcome.section == "541.14(c)"
    assert outcome.deal == deal  # the round goes on as if the card had never come out


def test_541_14_c_after_a_disclosed_card_the_banker_still_draws_its_third() -> None:
    outcome = card_out_of_turn(PLAYER_STAYS_BANKER_DRAWS, EXTRA, to_player_third_in_error=True, disclosed=True)
    assert outcome.deal.next_slot() is Slot.BANKER_3


def test_a_card_that_is_due_is_not_out_of_turn() -> None:
    with pytest.raises(RulesError, match="due as the banker's card 3"):
        card_out_of_turn(PLAYER_STAYS_BANKER_DRAWS, EXTRA, to_player_third_in_error=False)
    with pytest.raises(RulesError, match="due as the player's card 2"):
        card_out_of_turn(dealt("2S 3H"), EXTRA, to_player_third_in_error=False)


def test_an_authorised_player_third_is_not_in_error() -> None:
    with pytest.raises(RulesError, match="authorised"):
        card_out_of_turn(dealt("2S 3H 2D 3C"), EXTRA, to_player_third_in_error=True)


def test_no_third_card_in_error_before_the_initial_four() -> None:
    with pytest.raises(RulesError, match="before the initial four"):
        card_out_of_turn(dealt("2S 3H"), EXTRA, to_player_third_in_error=True)
