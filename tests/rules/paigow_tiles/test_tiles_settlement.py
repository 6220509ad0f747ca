"""Settling against the dealer in integer cents: § 535.10(e)-(k), § 535.13."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.compare import Outcome
from firmware_host.rules.paigow_tiles.hands import Setting
from firmware_host.rules.paigow_tiles.rules import CommissionRounding, PaiGowTileRules, ZeroValueRule
from firmware_host.rules.paigow_tiles.settlement import (
    HOUSE,
    VIGORISH,
    Movement,
    Wager,
    WagerAction,
    commission_on,
    settle_against_dealer,
    two_area_setting_order,
)

from .deals import ALSO_WINS, LOSES, NINE_OVER_SIX, TIES, WINS, expected_net, gross, rules_strategy, tables

QUARTER = PaiGowTileRules(commission_rounding=CommissionRounding.QUARTER)


@pytest.mark.parametrize(
    ("won", "cent", "quarter"),
    [
        (1000, 50, 50),  # 5% exactly, already a multiple of 25
        (1010, 51, 75),  # 50.5 cents: up to 51, or up to the next multiple of 25
        (100, 5, 25),  # under 25 cents rounds up to 25 cents
        (500, 25, 25),
        (510, 26, 50),  # 25.5
        (2000, 100, 100),
        (10, 1, 10),  # 0.5 cent; the quarter never exceeds the amount won
        (1, 1, 1),
    ],
)
def test_535_10_k_vigorish_is_5_percent_rounded_up(won, cent, quarter):
    assert commission_on(won) == cent
    assert commission_on(won, QUARTER) == quarter


def test_535_10_k_vigorish_at_other_percentages():
    assert commission_on(1000, PaiGowTileRules(commission_percent="4.5")) == 45
    assert commission_on(1000, PaiGowTileRules(commission_percent=0)) == 0


@pytest.mark.parametrize("won", [-1, 1.5, True, "100"])
def test_commission_needs_whole_cents(won):
    with pytest.raises(RulesError, match="amount won: expected a whole number of cents"):
        commission_on(won)


TABLE = (
    Wager(1, 1000, WINS),
    Wager(2, 2000, LOSES),
    Wager(3, 500, TIES),
    Wager(4, 700, action=WagerAction.SURRENDER),
    Wager(5, 300, action=WagerAction.VOID),
    Wager(6, 1010, ALSO_WINS),
)


def test_535_10_e_to_k_a_full_table_settled_in_order():
    settlement = settle_against_dealer(NINE_OVER_SIX, reversed(TABLE))
    assert [(r.position, r.outcome) for r in settlement.results] == [
        (1, Outcome.WIN),
        (2, Outcome.LOSE),
        (3, Outcome.TIE),
        (4, Outcome.SURRENDER),
        (5, Outcome.VOID),
        (6, Outcome.WIN),
    ]
    assert [r.section for r in settlement.results] == [
        "535.10(j)",
        "535.10(g)",
        "535.10(h)(1)",
        "535.10(e)",
        "535.12(d)",
        "535.10(j)",
    ]
    assert settlement.ledger == (
        Movement("position 4", HOUSE, 700, "surrendered wager collected (§ 535.10(e))"),
        Movement("position 2", HOUSE, 2000, "losing wager collected (§ 535.10(g))"),
        Movement(HOUSE, "position 1", 1000, "winning wager paid 1 to 1 (§ 535.10(j), (k))"),
        Movement("position 1", VIGORISH, 50, "vigorish on the amount won (§ 535.10(k))"),
        Movement(HOUSE, "position 6", 1010, "winning wager paid 1 to 1 (§ 535.10(j), (k))"),
        Movement("position 6", VIGORISH, 51, "vigorish on the amount won (§ 535.10(k))"),
    )
    assert settlement.payment_order == (1, 6)
    assert settlement.nets() == {
        "position 1": 950,
        "position 2": -2000,
        "position 4": -700,
        "position 6": 959,
        HOUSE: 690,
        VIGORISH: 101,
    }
    assert settlement.net("position 3") == settlement.net("position 5") == 0
    assert settlement.commission == 101
    assert [r.net for r in settlement.results] == [950, -2000, 0, -700, 0, 959]
    json.dumps(settlement.to_json())


def test_535_10_k_quarter_rounding_in_the_settlement():
    settlement = settle_against_dealer(NINE_OVER_SIX, [Wager(6, 1010, ALSO_WINS)], QUARTER)
    assert settlement.nets() == {"position 6": 935, HOUSE: -1010, VIGORISH: 75}


def test_535_10_i_tie_moves_no_chips():
    settlement = settle_against_dealer(NINE_OVER_SIX, [Wager(3, 500, TIES)])
    assert settlement.ledger == () and settlement.results[0].outcome is Outcome.TIE


# The issue-16 example: every hand is worth zero; the player's high hand wins on its 1-3.
ALL_ZERO_DEALER = Setting.parse("3-3,2-2/5-6,4-5")
ALL_ZERO_PLAYER = Setting.parse("1-3,1-5/1-3,3-3")


def test_535_10_h_1_i_a_zero_low_hand_with_a_winning_zero_high_hand_is_returned():
    settlement = settle_against_dealer(ALL_ZERO_DEALER, [Wager(1, 1000, ALL_ZERO_PLAYER)])
    assert (settlement.results[0].outcome, settlement.results[0].section) == (Outcome.TIE, "535.10(h)(1)")
    assert settlement.ledger == () and settlement.results[0].net == 0


def test_535_10_g_both_hands_option_collects_the_same_wager():
    rules = PaiGowTileRules(zero_value_rule=ZeroValueRule.BOTH_HANDS)
    settlement = settle_against_dealer(ALL_ZERO_DEALER, [Wager(1, 1000, ALL_ZERO_PLAYER)], rules)
    assert (settlement.results[0].outcome, settlement.results[0].section) == (Outcome.LOSE, "535.10(g)")
    assert settlement.nets() == {"position 1": -1000, HOUSE: 1000}


@pytest.mark.parametrize(
    ("kwargs", "why"),
    [
        ({"position": 0, "amount": 100}, "expected a betting area 1-6"),
        ({"position": 7, "amount": 100}, "expected a betting area 1-6"),
        ({"position": True, "amount": 100}, "expected a betting area 1-6"),
        ({"position": 1, "amount": 0}, "more than 0 cents"),
        ({"position": 1, "amount": -5}, "whole number of cents"),
        ({"position": 1, "amount": 10.0}, "whole number of cents"),
        ({"position": 1, "amount": 100}, "needs the player's set hands"),
        ({"position": 1, "amount": 100, "action": "fold"}, "action 'fold' is not one of play, surrender, void"),
    ],
)
def test_wager_refuses_bad_fields(kwargs, why):
    with pytest.raises(RulesError, match=why):
        Wager(**kwargs)


def test_two_wagers_on_one_area_are_refused():
    with pytest.raises(RulesError, match="two wagers on betting area 2"):
        settle_against_dealer(NINE_OVER_SIX, [Wager(2, 100, WINS), Wager(2, 100, LOSES)])


def test_535_10_f_more_tiles_than_a_set_are_refused():
    with pytest.raises(RulesError, match="appears"):
        settle_against_dealer(NINE_OVER_SIX, [Wager(1, 100, WINS), Wager(2, 100, WINS)])


def test_535_13_a_two_areas_need_the_rules_submission():
    wagers = [Wager(2, 100, WINS, player="ann"), Wager(3, 100, LOSES, player="ann")]
    with pytest.raises(RulesError, match=r"'ann' wagers on areas \[2, 3\]; the Rules Submission does not allow"):
        settle_against_dealer(NINE_OVER_SIX, wagers)
    settlement = settle_against_dealer(NINE_OVER_SIX, wagers, PaiGowTileRules(two_adjacent_areas=True))
    # § 535.13(b): each area is played separately
    assert [r.outcome for r in settlement.results] == [Outcome.WIN, Outcome.LOSE]


@pytest.mark.parametrize("areas", [(2, 4), (1, 6), (1, 2, 3)])
def test_535_13_a_only_two_adjacent_areas(areas):
    settings_ = [WINS, LOSES, TIES]
    wagers = [Wager(area, 100, settings_[i], player="ann") for i, area in enumerate(areas)]
    with pytest.raises(RulesError, match="only two adjacent areas"):
        settle_against_dealer(NINE_OVER_SIX, wagers, PaiGowTileRules(two_adjacent_areas=True))


def test_535_13_b_larger_wager_is_set_first_equal_wagers_counterclockwise():
    small, large = Wager(2, 100, WINS, player="ann"), Wager(3, 500, LOSES, player="ann")
    assert two_area_setting_order(small, large) == (large, small)
    assert two_area_setting_order(large, small) == (large, small)
    left, right = Wager(3, 100, WINS, player="ann"), Wager(4, 100, LOSES, player="ann")
    assert two_area_setting_order(right, left) == (left, right)


@settings(max_examples=200, deadline=None)
@given(table=tables(), rules=rules_strategy)
def test_535_10_money_is_conserved_to_the_cent(table, rules):
    dealer, wagers, _ = table
    settlement = settle_against_dealer(dealer, wagers, rules)
    nets = settlement.nets()
    assert sum(nets.values()) == 0
    assert all(movement.amount > 0 for movement in settlement.ledger)
    assert set(nets) <= {HOUSE, VIGORISH} | {wager.party for wager in wagers}
    for result in settlement.results:
        assert settlement.net(f"position {result.position}") == expected_net(result, rules) == result.net
    commissions = sum(commission_on(r.amount, rules) for r in settlement.results if r.outcome is Outcome.WIN)
    # the players' nets, the house's wagering result and the vigorish, accounted apart
    assert settlement.net(VIGORISH) == commissions == settlement.commission
    assert settlement.net(HOUSE) == -sum(gross(result) for result in settlement.results)
    assert settlement.payment_order == tuple(r.position for r in settlement.results if r.outcome is Outcome.WIN)
