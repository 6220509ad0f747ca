"""The Rules Submission: every choice ch. 541 and § 631c.5 leave to the casino, checked by the
rule object itself (its parsing from a profile: tests/config/test_baccarat_rules_config.py)."""

from __future__ import annotations

import pytest

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.rules import InvalidRule, RulesSubmission
from firmware_host.rules.baccarat.wagers import COMMISSION_FREE_BANKER_SIX_ODDS, PAIR_ODDS


def test_direct_construction_is_validated_too() -> None:
    with pytest.raises(RulesError, match="rules.commission_percent"):
        RulesSubmission(commission_percent=3)
    with pytest.raises(RulesError, match="variant 'punto'"):
        RulesSubmission(variant="punto")  # type: ignore[arg-type]


def test_require_offered_names_the_kind_and_the_offer() -> None:
    rules = RulesSubmission(offered_wagers=frozenset({"banker", "player"}))
    rules.require_offered("banker")
    with pytest.raises(RulesError, match="'tie': not offered at this standard table \\(offered: banker, player\\)"):
        rules.require_offered("tie")


def test_payout_odds_round_payouts_down_to_the_cent() -> None:
    assert COMMISSION_FREE_BANKER_SIX_ODDS.payout(25) == 12  # 12.5 cents -> 12
    assert COMMISSION_FREE_BANKER_SIX_ODDS.payout(100) == 50
    assert PAIR_ODDS.payout(100) == 1100


def test_631c_5_a_from_choices_refuses_a_commission_choice_at_a_commission_free_table_naming_the_key() -> None:
    assert RulesSubmission.from_choices({"variant": "commission-free"}).variant == "commission-free"
    with pytest.raises(InvalidRule) as caught:
        RulesSubmission.from_choices({"variant": "commission-free", "commission_percent": 4})
    assert caught.value.key == "commission_percent" and "§ 631c.5(a)" in caught.value.why
