"""Settling with a player bank or co-bank: § 535.11(h), (n)-(r) (§ 621a.9(h), (n)-(r))."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.bank_settlement import dealer_wager_against_bank, settle_with_bank, split_in_two
from firmware_host.rules.paigow_tiles.compare import Outcome
from firmware_host.rules.paigow_tiles.hands import Setting
from firmware_host.rules.paigow_tiles.rules import OddCent, PaiGowTileRules
from firmware_host.rules.paigow_tiles.settlement import BANK, HOUSE, POT, VIGORISH, Movement, Wager, commission_on

from .deals import ALSO_WINS, LOSES, NINE_OVER_SIX, TIES, WINS, expected_net, gross, rules_strategy, tables

BANK_HANDS = NINE_OVER_SIX  # the bank, on area 4, holds 9 over 6
DEALER_WINS = ALSO_WINS  # Pair of Eights; 7
DEALER_LOSES = Setting.parse("1-6,3-4/1-5,2-3")  # 7+7 = 14 -> 4; 6+5 = 11 -> 1
DEALER_TIES = Setting.parse("4-4,4-4/1-5,3-4")  # Pair of Eights; 6+7 = 13 -> 3
RULES = PaiGowTileRules()
HOUSE_TAKES_ODD_CENT = PaiGowTileRules(co_bank_odd_cent=OddCent.HOUSE)


def test_535_11_h_dealer_wagers_the_banks_last_wager_against_the_dealer():
    assert dealer_wager_against_bank(RULES, last_wager_against_dealer=2500) == 2500


def test_535_11_h_rules_submission_amount_replaces_the_last_wager():
    rules = PaiGowTileRules(dealer_wager_against_bank=1000)
    assert dealer_wager_against_bank(rules, last_wager_against_dealer=2500) == 1000


def test_535_11_h_bank_may_direct_less_or_nothing_but_not_more():
    assert dealer_wager_against_bank(RULES, last_wager_against_dealer=2500, bank_directs=500) == 500
    assert dealer_wager_against_bank(RULES, last_wager_against_dealer=2500, bank_directs=0) == 0
    with pytest.raises(RulesError, match=r"the bank may only lower the dealer's wager: 3000 cents asked, 2500"):
        dealer_wager_against_bank(RULES, last_wager_against_dealer=2500, bank_directs=3000)


def test_535_11_h_no_dealer_wager_when_co_banking():
    assert dealer_wager_against_bank(RULES, last_wager_against_dealer=2500, co_banking=True) == 0


@pytest.mark.parametrize("amount", [-1, 2.5, None])
def test_535_11_h_amounts_are_whole_cents(amount):
    with pytest.raises(RulesError, match="whole number of cents"):
        dealer_wager_against_bank(RULES, last_wager_against_dealer=amount)


def test_535_11_n_o_q_surplus_goes_to_the_bank_less_vigorish():
    settlement = settle_with_bank(
        BANK_HANDS,
        4,
        [Wager(1, 1000, WINS), Wager(2, 5000, LOSES), Wager(3, 2000, TIES)],
        dealer=DEALER_WINS,
        dealer_wager=1000,
    )
    assert settlement.dealer_result.outcome is Outcome.WIN
    assert [r.outcome for r in settlement.results] == [Outcome.WIN, Outcome.LOSE, Outcome.TIE]
    assert settlement.ledger == (
        Movement("position 2", POT, 5000, "losing wager to the centre (§ 535.11(o))"),
        Movement(POT, HOUSE, 1000, "dealer's winning wager paid to the inventory (§ 535.11(o), (p))"),
        Movement(POT, "position 1", 1000, "winning wager paid 1 to 1 (§ 535.11(o))"),
        Movement("position 1", VIGORISH, 50, "vigorish on the amount won (§ 535.11(q), § 535.10(k))"),
        Movement(POT, VIGORISH, 150, "vigorish on the bank's surplus (§ 535.11(o), § 535.10(k))"),
        Movement(POT, BANK, 2850, "the rest of the surplus to the bank (§ 535.11(o))"),
    )
    assert settlement.nets() == {"position 1": 950, "position 2": -5000, HOUSE: 1000, VIGORISH: 200, BANK: 2850, POT: 0}
    assert (settlement.payment_order, settlement.shortfall, settlement.surplus) == ((None, 1), 0, 3000)
    json.dumps(settlement.to_json())


def test_535_11_o_centre_runs_short_and_the_bank_puts_in_the_remaining_winning_wagers():
    settlement = settle_with_bank(
        BANK_HANDS, 4, [Wager(1, 5000, WINS), Wager(2, 1000, LOSES)], dealer=DEALER_WINS, dealer_wager=2000
    )
    assert settlement.ledger == (
        Movement("position 2", POT, 1000, "losing wager to the centre (§ 535.11(o))"),
        Movement(BANK, POT, 6000, "centre short: the bank covers the remaining winning wagers (§ 535.11(o))"),
        Movement(POT, HOUSE, 2000, "dealer's winning wager paid to the inventory (§ 535.11(o), (p))"),
        Movement(POT, "position 1", 5000, "winning wager paid 1 to 1 (§ 535.11(o))"),
        Movement("position 1", VIGORISH, 250, "vigorish on the amount won (§ 535.11(q), § 535.10(k))"),
    )
    assert settlement.nets() == {
        "position 1": 4750,
        "position 2": -1000,
        HOUSE: 2000,
        VIGORISH: 250,
        BANK: -6000,
        POT: 0,
    }
    assert (settlement.shortfall, settlement.surplus) == (6000, 0)


def test_535_11_n_dealer_loses_and_the_wager_goes_to_the_centre():
    settlement = settle_with_bank(BANK_HANDS, 4, [Wager(1, 1000, WINS)], dealer=DEALER_LOSES, dealer_wager=1500)
    assert settlement.dealer_result.outcome is Outcome.LOSE
    assert settlement.ledger[0] == Movement(HOUSE, POT, 1500, "dealer's losing wager moved to the centre (§ 535.11(n))")
    assert settlement.nets() == {HOUSE: -1500, "position 1": 950, VIGORISH: 75, BANK: 475, POT: 0}
    assert settlement.payment_order == (1,)


def test_535_11_n_dealer_ties_and_the_wager_returns_to_the_inventory():
    settlement = settle_with_bank(BANK_HANDS, 4, [Wager(2, 1000, LOSES)], dealer=DEALER_TIES, dealer_wager=1500)
    assert (settlement.dealer_result.outcome, settlement.dealer_result.section) == (Outcome.TIE, "535.10(h)(1)")
    assert settlement.net(HOUSE) == 0
    assert settlement.nets() == {"position 2": -1000, POT: 0, VIGORISH: 50, BANK: 950}


def test_535_11_r_co_bank_short_halves_with_the_house_odd_cent_per_rules():
    wagers = [Wager(1, 5001, WINS), Wager(2, 1000, LOSES)]
    settlement = settle_with_bank(BANK_HANDS, 4, wagers, co_banking=True)
    assert settlement.ledger[1:3] == (
        Movement(BANK, POT, 2001, "centre short: the co-bank covers half the remaining winnings (§ 535.11(r))"),
        Movement(HOUSE, POT, 2000, "centre short: the house covers half the remaining winnings (§ 535.11(r))"),
    )
    assert settlement.nets() == {
        "position 1": 4750,
        "position 2": -1000,
        BANK: -2001,
        HOUSE: -2000,
        VIGORISH: 251,
        POT: 0,
    }
    other = settle_with_bank(BANK_HANDS, 4, wagers, HOUSE_TAKES_ODD_CENT, co_banking=True)
    assert (other.net(BANK), other.net(HOUSE)) == (-2000, -2001)


def test_535_11_r_co_bank_surplus_half_to_the_house_then_vigorish_on_the_banks_half():
    wagers = [Wager(1, 1000, WINS), Wager(2, 5001, LOSES)]
    settlement = settle_with_bank(BANK_HANDS, 4, wagers, co_banking=True)
    assert settlement.ledger[-3:] == (
        Movement(POT, HOUSE, 2000, "half the surplus to the table inventory (§ 535.11(r))"),
        Movement(POT, VIGORISH, 101, "vigorish on the bank's surplus (§ 535.11(r), § 535.10(k))"),
        Movement(POT, BANK, 1900, "the rest of the surplus to the bank (§ 535.11(r))"),
    )
    assert settlement.nets() == {"position 1": 950, "position 2": -5001, HOUSE: 2000, VIGORISH: 151, BANK: 1900, POT: 0}
    other = settle_with_bank(BANK_HANDS, 4, wagers, HOUSE_TAKES_ODD_CENT, co_banking=True)
    assert (other.net(HOUSE), other.net(BANK), other.net(VIGORISH)) == (2001, 1900, 150)


def test_535_11_q_quarter_rounding_applies_to_players_and_the_surplus():
    rules = PaiGowTileRules(commission_rounding="quarter")
    settlement = settle_with_bank(BANK_HANDS, 4, [Wager(1, 1010, WINS), Wager(2, 2000, LOSES)], rules)
    # player: 50.5 -> 75; surplus 990: 49.5 -> 50
    assert settlement.nets() == {"position 1": 935, "position 2": -2000, VIGORISH: 125, BANK: 940, POT: 0}


def test_535_10_e_surrender_against_the_bank_goes_to_the_centre():
    settlement = settle_with_bank(BANK_HANDS, 4, [Wager(2, 1000, action="surrender")])
    assert settlement.ledger[0] == Movement(
        "position 2", POT, 1000, "surrendered wager to the centre (§ 535.10(e), § 535.11(o))"
    )
    assert settlement.results[0].outcome is Outcome.SURRENDER


def test_split_in_two():
    assert split_in_two(7, OddCent.BANK) == (4, 3)
    assert split_in_two(7, OddCent.HOUSE) == (3, 4)
    assert split_in_two(0, OddCent.BANK) == (0, 0)


@pytest.mark.parametrize(
    ("kwargs", "why"),
    [
        (
            {"co_banking": True, "dealer": DEALER_WINS, "dealer_wager": 100},
            r"may not wager against the bank while co-bank",
        ),
        ({"dealer_wager": 100}, "the dealer's hands are missing"),
        ({"dealer_wager": -100, "dealer": DEALER_WINS}, "whole number of cents"),
    ],
)
def test_535_11_e_h_n_dealer_wager_errors(kwargs, why):
    with pytest.raises(RulesError, match=why):
        settle_with_bank(BANK_HANDS, 4, [Wager(1, 100, WINS)], **kwargs)


def test_bank_area_cannot_also_hold_a_wager():
    with pytest.raises(RulesError, match="betting area 1 is the bank's"):
        settle_with_bank(BANK_HANDS, 1, [Wager(1, 100, WINS)])
    with pytest.raises(RulesError, match="bank position 7"):
        settle_with_bank(BANK_HANDS, 7, [Wager(1, 100, WINS)])


def test_535_11_f_bank_wagers_on_only_one_area():
    with pytest.raises(RulesError, match=r"the bank \('bo'\) may wager on only one betting area"):
        settle_with_bank(BANK_HANDS, 4, [Wager(5, 100, WINS, player="bo")], bank_player="bo")


def _split(amount: int, bank_takes_odd: bool) -> tuple[int, int]:
    half = amount // 2
    return (amount - half, half) if bank_takes_odd else (half, amount - half)


@settings(max_examples=200, deadline=None)
@given(
    table=tables(seats=5),
    rules=rules_strategy,
    co_banking=st.booleans(),
    bank_takes_odd=st.booleans(),
    dealer_wager=st.integers(0, 10**7),
    data=st.data(),
)
def test_535_11_money_is_conserved_to_the_cent(table, rules, co_banking, bank_takes_odd, dealer_wager, data):
    bank, wagers, spare = table
    free = sorted(set(range(1, 7)) - {wager.position for wager in wagers})
    assume(free)
    bank_position = data.draw(st.sampled_from(free))
    odd = OddCent.BANK if bank_takes_odd else OddCent.HOUSE
    rules = PaiGowTileRules(
        commission_percent=rules.commission_percent, commission_rounding=rules.commission_rounding, co_bank_odd_cent=odd
    )
    dealer_wager = 0 if co_banking else dealer_wager
    settlement = settle_with_bank(
        bank, bank_position, wagers, rules, dealer=spare[0], dealer_wager=dealer_wager, co_banking=co_banking
    )
    nets = settlement.nets()
    assert sum(nets.values()) == 0
    assert nets.get(POT, 0) == 0  # the centre of the table ends empty
    for result in settlement.results:
        assert nets.get(f"position {result.position}", 0) == expected_net(result, rules)

    # Closed form of § 535.11(n)-(r), computed apart from the step-by-step ledger.
    everyone = [*settlement.results, *([settlement.dealer_result] if settlement.dealer_result else [])]
    owed = sum(r.amount for r in everyone if r.outcome is Outcome.WIN)
    collected = sum(-gross(r) for r in everyone if gross(r) < 0)
    player_vigorish = sum(commission_on(r.amount, rules) for r in settlement.results if r.outcome is Outcome.WIN)
    house_half = bank_net = surplus_vigorish = 0
    if owed > collected:
        bank_part, house_part = _split(owed - collected, bank_takes_odd) if co_banking else (owed - collected, 0)
        bank_net, house_half = -bank_part, -house_part
    else:
        bank_share, house_part = _split(collected - owed, bank_takes_odd) if co_banking else (collected - owed, 0)
        surplus_vigorish = commission_on(bank_share, rules)
        bank_net, house_half = bank_share - surplus_vigorish, house_part
    dealer_gross = gross(settlement.dealer_result) if settlement.dealer_result else 0
    assert nets.get(BANK, 0) == bank_net
    assert nets.get(HOUSE, 0) == dealer_gross + house_half
    assert nets.get(VIGORISH, 0) == player_vigorish + surplus_vigorish == settlement.commission
    assert (settlement.shortfall, settlement.surplus) == (max(0, owed - collected), max(0, collected - owed))
