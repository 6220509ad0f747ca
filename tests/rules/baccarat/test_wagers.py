"""The wager registry: every kind declared once, and a kind it does not know raises everywhere past the gate."""

from __future__ import annotations

import pytest

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.advantage_play import Watch
from firmware_host.rules.baccarat.cards import parse_cards
from firmware_host.rules.baccarat.deal import Deal, resolve
from firmware_host.rules.baccarat.exposure import expected_values, full_shoe_ranks
from firmware_host.rules.baccarat.odds import expected_return, shoe_odds
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.settlement import Wager, WagerOutcome, settle, settle_pairs
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.rules.baccarat.wagers import KINDS, OUTCOMES, PAIR_WAGERS, VARIANT_WAGERS, in_wager_order, wager_kind

UNKNOWN = "dragon_bonus"
BANKER_WINS = resolve(parse_cards("2H 9S 5C KD"))


def forged_rules(variant: Variant = Variant.COMMISSION_FREE) -> RulesSubmission:
    """Rules that offer a kind the registry does not have: past every gate that refuses one."""
    rules = RulesSubmission(variant=variant)
    object.__setattr__(rules, "offered_wagers", rules.offered_wagers | {UNKNOWN})
    return rules


def forged_wager(kind: str = UNKNOWN) -> Wager:
    wager = Wager(1, "banker", 1000)
    object.__setattr__(wager, "kind", kind)
    return wager


def test_541_8_a_and_631c_5_c_each_variant_offers_the_kinds_the_regulations_permit() -> None:
    assert VARIANT_WAGERS[Variant.STANDARD] == {"banker", "player", "tie"}  # § 541.8(a)
    assert VARIANT_WAGERS[Variant.COMMISSION_FREE] == set(KINDS)  # § 631c.5(c) adds three
    assert {"player_pair", "banker_pair"} == PAIR_WAGERS  # § 631c.5(d)


def test_every_kind_has_a_label_a_payout_sections_and_outcomes_the_odds_count() -> None:
    for name, kind in KINDS.items():
        assert kind.name == name and kind.label and kind.payout and kind.sections
        assert all(OUTCOMES[outcome.name] is outcome for outcome in kind.pays_on)
        odds = shoe_odds(8)
        assert -1 < kind.expected_return(odds, RulesSubmission(variant=Variant.COMMISSION_FREE)) < 0, name


def test_a_kind_is_refused_where_it_enters_the_profile_and_a_console_wager() -> None:
    with pytest.raises(RulesError, match=f"'{UNKNOWN}' is not a wager kind"):
        RulesSubmission(offered_wagers=frozenset({UNKNOWN}))
    with pytest.raises(RulesError, match=f"wager kind '{UNKNOWN}'"):
        Wager(1, UNKNOWN, 1000)


def test_past_the_gate_an_unknown_kind_raises_when_settled_never_settling_as_banker() -> None:
    with pytest.raises(RulesError, match=f"'{UNKNOWN}': not a Baccarat wager kind"):
        settle(BANKER_WINS, [forged_wager()], forged_rules())


def test_past_the_gate_an_unknown_kind_raises_when_settled_with_the_pairs() -> None:
    with pytest.raises(RulesError, match=f"'{UNKNOWN}': not a Baccarat wager kind"):
        settle_pairs(Deal(tuple(parse_cards("2H 5C")), tuple(parse_cards("3S KD"))), [forged_wager()], forged_rules())


def test_past_the_gate_an_unknown_kind_raises_when_priced_never_priced_as_lucky_six() -> None:
    with pytest.raises(RulesError, match=f"'{UNKNOWN}': not a Baccarat wager kind"):
        expected_return(shoe_odds(8), UNKNOWN, forged_rules())
    with pytest.raises(RulesError, match=f"'{UNKNOWN}': not a Baccarat wager kind"):
        expected_values(forged_rules(), full_shoe_ranks(8))


def test_past_the_gate_an_unknown_kind_has_no_label_and_no_order() -> None:
    with pytest.raises(RulesError, match=f"'{UNKNOWN}': not a Baccarat wager kind"):
        wager_kind(UNKNOWN).label  # noqa: B018
    with pytest.raises(RulesError, match=UNKNOWN):
        in_wager_order(["banker", UNKNOWN])
    with pytest.raises(RulesError, match=UNKNOWN):
        Watch.for_kinds(["banker", UNKNOWN])


def test_631c_5_d_only_a_kind_declared_on_the_initial_cards_settles_before_the_round_ends() -> None:
    deal = Deal(tuple(parse_cards("2H 5C")), tuple(parse_cards("3S KD")))  # player 7 stays, banker 3 draws
    rules = RulesSubmission(variant=Variant.COMMISSION_FREE)
    assert not deal.is_complete
    assert wager_kind("player_pair").settle(1000, deal, rules).outcome is WagerOutcome.LOSE
    with pytest.raises(RulesError, match="settled on the finished round"):
        wager_kind("banker").settle(1000, deal, rules)
