"""A Baccarat profile's ``[rules]`` parsed in config/: every choice ch. 541 and § 631c.5 leave to
the casino, and ``[rules.shuffler]`` (§ 541.3); errors name the file, the key and why."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from firmware_host.config.baccarat import baccarat_rules, shuffler_rules, table_rules
from firmware_host.config.profiles import load_table
from firmware_host.errors import ProfileError
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.baccarat.variant import Variant
from firmware_host.rules.shuffler import ShufflerConfig
from tests.support.table_profiles import GOOD, write_table


def from_toml(text: str) -> RulesSubmission:
    return baccarat_rules(tomllib.loads(text)["rules"], "tables/test.toml")


def test_defaults_are_standard_minibaccarat_with_5_percent_commission() -> None:
    rules = from_toml('[rules]\nvariant = "standard"\n')
    assert rules == RulesSubmission()
    assert rules.variant is Variant.STANDARD
    assert (rules.commission_percent, rules.tie_payout, rules.commission_collection) == (5, 8, "at_payout")
    assert rules.offered_wagers == {"banker", "player", "tie"}  # § 541.8(a)
    assert rules.charges_commission


def test_541_13_every_standard_choice_reads_from_toml() -> None:
    rules = from_toml(
        """
        [rules]
        variant = "standard"
        commission_percent = 4
        round_commission_up_to_5_cents = true
        commission_collection = "deferred"
        tie_payout = 9
        offered_wagers = ["banker", "player"]
        """
    )
    assert rules.commission_percent == 4
    assert rules.round_commission_up_to_5_cents
    assert rules.commission_collection == "deferred"
    assert rules.tie_payout == 9
    assert rules.offered_wagers == {"banker", "player"}


def test_541_13_f_tie_commission_alternative_replaces_the_commission() -> None:
    rules = from_toml("[rules]\ntie_commission_alternative = true\nround_commission_up_to_5_cents = true\n")
    assert rules.tie_commission_alternative and not rules.charges_commission


def test_631c_5_commission_free_offers_the_optional_wagers() -> None:
    rules = from_toml('[rules]\nvariant = "commission-free"\nlucky_six_on_six_six_tie = "push"\n')
    assert rules.variant is Variant.COMMISSION_FREE
    assert rules.offered_wagers == {"banker", "player", "tie", "player_pair", "banker_pair", "lucky_six"}
    assert not rules.charges_commission
    assert rules.lucky_six_on_six_six_tie == "push"


@pytest.mark.parametrize(
    ("toml", "key", "why"),
    [
        ("vig = 5", "rules.vig", "unknown key"),
        ('variant = "mini"', "rules.variant", "'mini' is not one of standard, commission-free"),
        ("variant = 1", "rules.variant", "must be a string"),
        ("commission_percent = 6", "rules.commission_percent", "not 4 or 5 (§ 541.13(c))"),
        ("commission_percent = true", "rules.commission_percent", "must be a whole number"),
        ('commission_percent = "5"', "rules.commission_percent", "must be a whole number"),
        ("commission_percent = 5.0", "rules.commission_percent", "must be a whole number"),
        ('round_commission_up_to_5_cents = "yes"', "rules.round_commission_up_to_5_cents", "true or false"),
        ('commission_collection = "later"', "rules.commission_collection", "not one of at_payout, deferred"),
        ("tie_payout = 7", "rules.tie_payout", "at least 8 to 1 (§ 541.13(b))"),
        ('offered_wagers = "banker"', "rules.offered_wagers", "a list of wager kinds"),
        ("offered_wagers = []", "rules.offered_wagers", "at least one"),
        ('offered_wagers = ["banker", "banker"]', "rules.offered_wagers", "twice"),
        ('offered_wagers = ["dragon"]', "rules.offered_wagers", "'dragon' is not a wager kind"),
        ('offered_wagers = ["lucky_six"]', "rules.offered_wagers", "not a wager of standard"),
        ('lucky_six_on_six_six_tie = "push"', "rules.lucky_six_on_six_six_tie", "only to variant 'commission-free'"),
        (
            "tie_commission_alternative = true\ncommission_percent = 4",
            "rules.commission_percent",
            "§ 541.13(f)",
        ),
        (
            'tie_commission_alternative = true\ncommission_collection = "deferred"',
            "rules.commission_collection",
            "§ 541.13(f)",
        ),
        ('variant = "commission-free"\ncommission_percent = 5', "rules.commission_percent", "§ 631c.5(a)"),
        (
            'variant = "commission-free"\ntie_commission_alternative = false',
            "rules.tie_commission_alternative",
            "§ 631c.5(a)",
        ),
        ('variant = "commission-free"\ntie_payout = 9', "rules.tie_payout", "8 to 1 (§ 631c.5(j))"),
        ('variant = "commission-free"\nlucky_six_on_six_six_tie = "win"', "rules.lucky_six_on_six_six_tie", "'win'"),
    ],
)
def test_baccarat_rules_names_the_bad_key_and_why(toml: str, key: str, why: str) -> None:
    with pytest.raises(ProfileError) as caught:
        from_toml("[rules]\n" + toml + "\n")
    error = caught.value
    assert (error.path, error.key) == ("tables/test.toml", key)
    assert why in error.why


def test_baccarat_rules_refuses_a_rules_value_that_is_not_a_table() -> None:
    with pytest.raises(ProfileError, match="rules: must be a table"):
        baccarat_rules("standard", "t.toml")  # type: ignore[arg-type]


# -- Rules Submission keys (§ 541.9(c), § 541.14(d)) --------------------------------------------


def test_541_9_c_initial_deal_and_541_14_d_face_up_discards_are_rules_submission_keys() -> None:
    rules = baccarat_rules({"initial_deal": "face_down", "face_up_discards": "face_value"}, "t.toml")
    assert (rules.initial_deal, rules.face_up_discards) == ("face_down", "face_value")
    assert (RulesSubmission().initial_deal, RulesSubmission().face_up_discards) == ("face_up", "point_value")


@pytest.mark.parametrize(("key", "value", "why"), [
    ("initial_deal", "sideways", "541.9(c)"),
    ("face_up_discards", "double", "541.14(d)"),
    ("initial_deal", True, "must be a string"),
])  # fmt: skip
def test_a_wrong_initial_deal_or_face_up_reading_names_the_key(key: str, value: Any, why: str) -> None:
    with pytest.raises(ProfileError, match=f"rules.{key}.*{re.escape(why)}"):
        baccarat_rules({key: value}, "t.toml")


def test_541_3_shuffler_rules_from_the_profile() -> None:
    config = shuffler_rules({"decks_per_batch": 7, "back_colours": ["gold", "black"]}, "t.toml")
    assert config == ShufflerConfig(decks_per_batch=7, back_colours=("gold", "black"))
    for mapping, key, why in [
        ({"decks": 8}, "rules.shuffler.decks", "unknown key"),
        ({"decks_per_batch": "8"}, "rules.shuffler.decks_per_batch", "must be int"),
        ({"continuous": 1}, "rules.shuffler.continuous", "must be bool"),
        ({"back_colours": ["red"]}, "rules.shuffler.back_colours", "two colours"),
        ({"decks_per_batch": 4}, "rules.shuffler.decks_per_batch", "6 to 8 decks"),
    ]:
        with pytest.raises(ProfileError, match=why) as info:
            shuffler_rules(mapping, "t.toml")
        assert info.value.key == key


SHUFFLER_DEVICE = '[devices.shuffler]\nmodel = "tablehost-sh16-2026"\nport = "sim"\n'


@pytest.mark.parametrize(
    ("body", "key", "why"),
    [
        ('[rules]\nvariant = "standard"\n[rules.shuffler]\ndecks_per_batch = 8\n', "rules.shuffler", "no shuffler"),
        (SHUFFLER_DEVICE, "rules.shuffler", "must set its batches (§ 541.3(b))"),
        ("[rules.shuffler]\ndecks_per_batch = 7\n" + SHUFFLER_DEVICE, "rules.shuffler.decks_per_batch", "one shoe"),
    ],
)
def test_541_3_b_the_shuffler_rules_and_the_shuffler_device_come_together(
    tmp_path: Path, body: str, key: str, why: str
) -> None:
    profile = load_table(write_table(tmp_path, GOOD + body))
    with pytest.raises(ProfileError) as caught:
        table_rules(profile)
    assert caught.value.key == key and why in caught.value.why


def test_a_table_with_a_shuffler_device_and_its_rules_gets_both(tmp_path: Path) -> None:
    profile = load_table(write_table(tmp_path, GOOD + "[rules.shuffler]\ndecks_per_batch = 8\n" + SHUFFLER_DEVICE))
    rules, shuffler = table_rules(profile)
    assert rules == RulesSubmission() and shuffler == ShufflerConfig(decks_per_batch=8)
