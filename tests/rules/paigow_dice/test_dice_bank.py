"""Player bank rotation and eligibility: § 535.11(b)-(g), § 621a.9(b)-(g)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.bank import (
    BankRound,
    BankState,
    after_round,
    bank_offer_order,
    bank_refusal,
    check_bank_areas,
    check_cut,
    new_game,
    take_bank,
)
from firmware_host.rules.paigow_dice.delivery import Cut
from firmware_host.rules.paigow_dice.rules import PaiGowRules

RULES = PaiGowRules(player_bank_offered=True)
ALL = frozenset(range(1, 7))


def play(state: BankState, bank: BankRound | None = None, wagered=ALL, rules=RULES) -> BankState:
    return after_round(state, bank, wagered, rules)


def test_535_11_b_no_player_bank_in_the_first_round_of_the_game():
    state = new_game()
    assert bank_offer_order(state, ALL, RULES) == ()
    with pytest.raises(RulesError, match=r"first round of the game \(§ 535.11\(b\)\)"):
        take_bank(state, 1, RULES, covers_wagers=True)


def test_535_11_c_second_round_offer_starts_farthest_to_the_dealers_right():
    assert bank_offer_order(play(new_game()), ALL, RULES) == (1, 2, 3, 4, 5, 6)


def test_535_11_c_first_offer_rotates_counterclockwise_and_returns_to_the_dealer():
    state, starts = play(new_game()), []
    for _ in range(9):  # nobody accepts
        offers = bank_offer_order(state, ALL, RULES)
        starts.append(offers[0] if offers else "dealer")
        state = play(state)
    assert starts == [1, 2, 3, 4, 5, 6, "dealer", 1, 2]
    assert bank_offer_order(dataclasses.replace(state, offer_start=4), ALL, RULES) == (4, 5, 6, 1, 2, 3)


def test_535_11_c_without_the_dealers_turn_the_offer_wraps_from_6_to_1():
    rules = dataclasses.replace(RULES, bank_offer_returns_to_dealer=False)
    state = BankState(rounds_played=5, offer_start=6, wagered_against_dealer=ALL)
    assert play(state, rules=rules).offer_start == 1
    assert play(state).offer_start == "dealer"


@pytest.mark.parametrize("offer_next", ["rotate", "after-bank"])
def test_535_11_c_first_player_offered_accepts_so_the_player_to_the_right_is_first_next(offer_next):
    rules = dataclasses.replace(RULES, bank_offer_next=offer_next)
    state = play(new_game(), rules=rules)
    bank = take_bank(state, 1, rules, covers_wagers=True)
    assert bank_offer_order(play(state, bank, rules=rules), ALL, rules)[0] == 2


def test_535_11_c_later_player_accepts_rotate_vs_after_bank():
    state = play(new_game())
    bank = take_bank(state, 3, RULES, covers_wagers=True)  # seats 1 and 2 passed
    assert play(state, bank).offer_start == 2
    after_bank = dataclasses.replace(RULES, bank_offer_next="after-bank")
    assert play(state, bank, rules=after_bank).offer_start == 4
    bank6 = take_bank(state, 6, after_bank, covers_wagers=True)
    assert play(state, bank6, rules=after_bank).offer_start == "dealer"


def test_535_11_c_no_player_banks_two_consecutive_rounds():
    state = play(new_game())
    state = play(state, take_bank(state, 2, RULES, covers_wagers=True))  # start moves to 2
    assert bank_offer_order(state, ALL, RULES) == (3, 4, 5, 6, 1)
    assert "two consecutive rounds" in bank_refusal(state, 2, RULES, covers_wagers=True)
    with pytest.raises(RulesError, match="seat 2 may not bank: seat 2 banked the last round"):
        take_bank(state, 2, RULES, covers_wagers=True)
    state = play(state)  # a round without a player bank: seat 2 may bank again
    assert bank_refusal(state, 2, RULES, covers_wagers=True) is None


def test_535_11_d_1_must_have_wagered_in_the_last_round_without_a_player_bank():
    state = play(new_game(), wagered={1, 4})
    assert bank_offer_order(state, ALL, RULES) == (1, 4)
    assert "no wager against the dealer" in bank_refusal(state, 2, RULES, covers_wagers=True)
    # A player-bank round does not change who wagered in the last round without one.
    state = play(state, take_bank(state, 4, RULES, covers_wagers=True), wagered={2, 3})
    assert state.wagered_against_dealer == {1, 4}
    assert bank_offer_order(state, ALL, RULES) == (1,)
    state = play(state, None, wagered={2, 3})  # the dealer banks: now 2 and 3 qualify
    assert state.offer_start == 3  # the fourth round: the first offer has moved on to seat 3
    assert bank_offer_order(state, ALL, RULES) == (3, 2)


def test_535_11_d_2_must_cover_the_other_wagers():
    state = play(new_game())
    assert "lacks the chips" in bank_refusal(state, 3, RULES, covers_wagers=False)
    with pytest.raises(RulesError, match=r"§ 535.11\(d\)\(2\)"):
        take_bank(state, 3, RULES, covers_wagers=False)


def test_535_11_c_offer_skips_empty_seats():
    state = dataclasses.replace(play(new_game()), offer_start=4)
    assert bank_offer_order(state, {1, 3, 5}, RULES) == (5, 1, 3)
    assert bank_offer_order(state, set(), RULES) == ()


def test_535_11_a_no_player_bank_unless_the_rules_submission_offers_it():
    rules = dataclasses.replace(RULES, player_bank_offered=False)
    state = play(play(new_game(), rules=rules), rules=rules)
    assert bank_offer_order(state, ALL, rules) == ()
    with pytest.raises(RulesError, match=r"§ 535.11\(a\)"):
        take_bank(state, 1, rules, covers_wagers=True)


def test_535_11_e_co_banking_only_if_offered():
    state = play(new_game())
    with pytest.raises(RulesError, match=r"no co-banking \(§ 535.11\(e\)\)"):
        take_bank(state, 1, RULES, covers_wagers=True, co_bank=True)
    rules = dataclasses.replace(RULES, co_banking_offered=True)
    assert take_bank(state, 1, rules, covers_wagers=True, co_bank=True) == BankRound(1, co_bank=True)


def test_535_11_f_a_bank_wagers_on_one_area_only():
    check_bank_areas(BankRound(3), [3])
    for areas in ([3, 4], [4], []):
        with pytest.raises(RulesError, match=r"§ 535.11\(f\)"):
            check_bank_areas(BankRound(3), areas)


def test_535_11_g_only_a_player_bank_cuts():
    check_cut(BankRound(2), Cut.rotation(3))
    check_cut(None, None)
    with pytest.raises(RulesError, match=r"only a player bank may cut"):
        check_cut(None, Cut.rotation(3))


@pytest.mark.parametrize("seat", [0, 7, None])
def test_bank_seat_outside_1_to_6_is_a_rules_error(seat):
    with pytest.raises(RulesError, match="bank seat"):
        bank_refusal(play(new_game()), seat, RULES, covers_wagers=True)


@given(
    st.lists(st.tuples(st.frozensets(st.integers(1, 6)), st.integers(0, 6), st.booleans()), max_size=40),
    st.sampled_from(["rotate", "after-bank"]),
    st.booleans(),
)
def test_any_sequence_of_rounds_keeps_the_bank_rules(rounds, offer_next, dealer_turn):
    rules = dataclasses.replace(RULES, bank_offer_next=offer_next, bank_offer_returns_to_dealer=dealer_turn)
    state, previous_bank, last_dealer_round_wagers = new_game(), None, frozenset()
    for number, (seated, accept_index, covers) in enumerate(rounds):
        offers = bank_offer_order(state, seated, rules)
        assert set(offers) <= seated and len(set(offers)) == len(offers)
        bank = None
        if offers and accept_index < len(offers) and covers:
            bank = take_bank(state, offers[accept_index], rules, covers_wagers=True)
            assert number > 0  # § 535.11(b)
            assert bank.seat != previous_bank  # § 535.11(c)
            assert bank.seat in last_dealer_round_wagers  # § 535.11(d)(1)
        state = after_round(state, bank, seated, rules)
        previous_bank = None if bank is None else bank.seat
        if bank is None:
            last_dealer_round_wagers = seated
        assert state.offer_start in (1, 2, 3, 4, 5, 6, "dealer")
