"""Win, lose or tie: § 535.10(f)-(j), with the zero-value rule of § 535.10(g), (h)(1)."""

from __future__ import annotations

import pytest

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.compare import Outcome, Reason, Side, compare_settings
from firmware_host.rules.paigow_tiles.hands import Setting
from firmware_host.rules.paigow_tiles.rules import PaiGowTileRules, ZeroValueRule

# Dealer 9 over 6: 5-6+2-6 = 19 -> 9 (highest tile 5-6), 5-5+1-5 = 16 -> 6 (highest tile 5-5).
DEALER = Setting.parse("5-6,2-6/5-5,1-5")
WONG = "6-6,4-5"  # beats the dealer's 9
FOUR_OVER_ONE_SIX = "1-6,2-5"  # 14 -> 4, highest tile 1-6: below the dealer's 6


def compare(player: str, dealer: Setting = DEALER, rules: PaiGowTileRules = PaiGowTileRules()):
    return compare_settings(Setting.parse(player), dealer, rules)


def test_535_10_j_win_when_both_hands_outrank_the_dealers():
    result = compare(f"{WONG}/1-3,2-2")  # low 4+4 = 8 over 6
    assert (result.outcome, result.section) == (Outcome.WIN, "535.10(j)")
    assert (result.high.reason, result.low.reason) == (Reason.PAIR, Reason.VALUE)


def test_535_10_g_lose_when_both_hands_rank_lower():
    result = compare("1-6,2-5/3-3,1-4")  # 4 under 9, 6+5 = 11 -> 1 under 6
    assert (result.outcome, result.section) == (Outcome.LOSE, "535.10(g)")
    assert result.high.winner is result.low.winner is Side.BANKER


def test_535_10_g_lose_when_both_hands_are_copies():
    dealer = Setting.parse("6-6,3-6/1-6,3-4")  # Wong, 7+7 = 14 -> 4 with 1-6
    result = compare(f"{WONG}/{FOUR_OVER_ONE_SIX}", dealer)
    assert result.outcome is Outcome.LOSE
    assert result.high.reason is result.low.reason is Reason.COPY


def test_535_10_g_lose_when_high_is_lower_and_low_has_a_value_of_zero():
    # Player low 1-3+3-3 = 10 -> 0 would outrank the dealer's 5-5+4-6 = 0 on its highest tile
    # (1-3 fourth over 5-5 fifth), but a zero cannot win.
    dealer = Setting.parse(f"{WONG}/5-5,4-6")
    result = compare("5-6,2-5/1-3,3-3", dealer)  # high 11+7 = 18 -> 8 under the Wong
    assert (result.outcome, result.section) == (Outcome.LOSE, "535.10(g)")
    assert (result.low.winner, result.low.reason, result.low.section) == (Side.BANKER, Reason.ZERO_VALUE, "535.10(g)")


def test_535_10_h_1_tie_when_high_wins_and_low_is_lower():
    result = compare(f"{WONG}/{FOUR_OVER_ONE_SIX}")
    assert (result.outcome, result.section) == (Outcome.TIE, "535.10(h)(1)")


def test_535_10_h_1_tie_when_high_wins_and_low_is_identical():
    dealer = Setting.parse("5-6,2-6/1-6,3-4")  # 9, and 4 with 1-6: a copy of the player's low
    result = compare(f"{WONG}/{FOUR_OVER_ONE_SIX}", dealer)
    assert (result.outcome, result.section, result.low.reason) == (Outcome.TIE, "535.10(h)(1)", Reason.COPY)


def test_535_10_h_1_tie_when_high_wins_and_low_has_a_value_of_zero():
    dealer = Setting.parse("5-6,2-6/5-5,4-6")  # 9, and 0 with 5-5
    result = compare(f"{WONG}/1-3,3-3", dealer)  # low 0 with 1-3, a higher tile than 5-5
    assert (result.outcome, result.section, result.low.reason) == (Outcome.TIE, "535.10(h)(1)", Reason.ZERO_VALUE)


def test_535_10_h_2_tie_when_high_is_identical_and_low_wins():
    dealer = Setting.parse("6-6,3-6/5-5,1-4")  # Wong, 10+5 = 15 -> 5
    result = compare(f"{WONG}/1-3,2-2", dealer)
    assert (result.outcome, result.section, result.high.reason) == (Outcome.TIE, "535.10(h)(2)", Reason.COPY)


def test_535_10_h_2_tie_when_high_is_lower_and_low_wins():
    dealer = Setting.parse(f"{WONG}/5-5,1-4")
    result = compare("5-6,2-6/1-3,2-2", dealer)  # 9 under the Wong; 8 over 5
    assert (result.outcome, result.section) == (Outcome.TIE, "535.10(h)(2)")


# Both high hands are zero: the player's 1-3+3-3 (highest 1-3, fourth) outranks the dealer's
# 2-2+1-5 = 10 -> 0 (highest 2-2, seventh) on its tile; the lows are zero too.
ZERO_HIGH_PLAYER = "1-3,3-3/5-5,4-6"
ZERO_HIGH_DEALER = Setting.parse("2-2,1-5/5-6,3-6")
BOTH_HANDS = PaiGowTileRules(zero_value_rule=ZeroValueRule.BOTH_HANDS)


def test_535_10_g_h_1_zero_value_clause_is_on_the_low_hand_by_default():
    # § 535.10(g), (h)(1): "or has a value of zero" qualifies the low hand only.
    assert PaiGowTileRules().zero_value_rule is ZeroValueRule.LOW_HAND


def test_535_10_h_1_a_zero_high_hand_wins_on_its_tile_by_default():
    result = compare(ZERO_HIGH_PLAYER, ZERO_HIGH_DEALER)
    assert (result.outcome, result.section) == (Outcome.TIE, "535.10(h)(1)")
    assert (result.high.winner, result.high.reason) == (Side.PLAYER, Reason.HIGHEST_TILE)
    assert result.low.reason is Reason.ZERO_VALUE


def test_535_10_h_1_issue_example_all_four_hands_zero_is_a_tie():
    # Player 1-3+1-5 = 10 -> 0 and 1-3+3-3 = 10 -> 0, dealer 3-3+2-2 = 10 -> 0 and
    # 5-6+4-5 = 20 -> 0. The player's high hand wins on its 1-3 (fourth) over the dealer's
    # 3-3 (sixth); his low hand's 1-3 would outrank 5-6 too, but a zero low hand cannot win.
    result = compare("1-3,1-5/1-3,3-3", Setting.parse("3-3,2-2/5-6,4-5"))
    assert (result.outcome, result.section) == (Outcome.TIE, "535.10(h)(1)")
    assert (result.high.winner, result.high.reason, result.high.section) == (
        Side.PLAYER,
        Reason.HIGHEST_TILE,
        "535.4(e)",
    )
    assert (result.low.winner, result.low.reason, result.low.section) == (Side.BANKER, Reason.ZERO_VALUE, "535.10(g)")


def test_535_10_g_both_hands_option_makes_the_issue_example_lose():
    result = compare("1-3,1-5/1-3,3-3", Setting.parse("3-3,2-2/5-6,4-5"), BOTH_HANDS)
    assert (result.outcome, result.section) == (Outcome.LOSE, "535.10(g)")
    assert result.high.reason is result.low.reason is Reason.ZERO_VALUE


def test_535_10_g_zero_value_high_hand_cannot_win_under_both_hands_option():
    result = compare(ZERO_HIGH_PLAYER, ZERO_HIGH_DEALER, BOTH_HANDS)
    assert result.outcome is Outcome.LOSE
    assert result.high.reason is result.low.reason is Reason.ZERO_VALUE


def test_535_10_g_zero_value_of_the_dealer_does_not_protect_him():
    dealer = Setting.parse("5-6,2-6/5-5,4-6")  # low 0
    result = compare(f"{WONG}/1-6,1-4", dealer)  # low 7+5 = 12 -> 2 beats a zero
    assert result.outcome is Outcome.WIN


def test_535_10_g_a_pair_of_tens_is_a_pair_not_a_zero():
    dealer = Setting.parse(f"{WONG}/4-6,1-4")  # Wong; low 10+5 = 15 -> 5
    result = compare("5-5,5-5/1-3,2-2", dealer)  # 5-5,5-5 sums to 20 but is a pair (sixth)
    assert (result.outcome, result.high.winner, result.high.reason) == (Outcome.WIN, Side.PLAYER, Reason.PAIR_RANK)


def test_535_10_f_eight_tiles_must_come_from_one_set():
    with pytest.raises(RulesError, match="tile 4-5 appears 2 times"):
        compare(f"{WONG}/1-3,2-2", Setting.parse("4-5,6-6/1-1,1-3"))


def test_comparison_explains_itself():
    result = compare(f"{WONG}/1-3,2-2")
    assert result.why() == (
        "win (§ 535.10(j)): high hand: player Wong (Twelve and Nine) beats dealer value 9 (§ 535.4(a));"
        " low hand: player value 8 beats dealer value 6 (§ 535.4(c))"
    )
    data = result.to_json()
    assert (data["result"], data["high"]["winner"], data["low"]["dealer"]["value"]) == ("win", "player", 6)
    bank_view = result.to_json(banker_name="bank")
    assert "bank" in bank_view["high"] and bank_view["low"]["winner"] == "player"
