"""Rules Submission options for the dice, delivery and player bank."""

from __future__ import annotations

import dataclasses

import pytest

from firmware_host.config.rules import paigow_dice_rules
from firmware_host.errors import ProfileError, RulesError
from firmware_host.rules.paigow_dice.delivery import STYLES
from firmware_host.rules.paigow_dice.rules import PaiGowRules


def test_defaults_follow_the_regulation_when_the_submission_is_silent():
    rules = paigow_dice_rules({}, "t.toml")
    assert rules == PaiGowRules()
    assert (rules.player_bank_offered, rules.co_banking_offered, rules.delivery_styles) == (False, False, ("standard",))
    assert rules.dice_max_hours == 24  # § 535.5(c)


def test_from_mapping_reads_every_key_and_leaves_other_keys_alone():
    rules = paigow_dice_rules(
        {
            "player_bank_offered": True,
            "co_banking_offered": True,
            "delivery_styles": ["jung-quat", "chee-yee"],
            "bank_may_choose_any_style": False,
            "bank_offer_next": "after-bank",
            "bank_offer_returns_to_dealer": False,
            "dice_max_hours": 12,
            "dice_warning_minutes": 30,
            "house_way": "tile rules read this",
        },
        "t.toml",
    )
    assert rules == PaiGowRules(
        True, True, ("standard", "jung-quat", "chee-yee"), False, "after-bank", False, 12.0, 30.0
    )
    assert "house_way" not in PaiGowRules.KEYS
    assert {f.name for f in dataclasses.fields(PaiGowRules)} == PaiGowRules.KEYS


@pytest.mark.parametrize(
    ("mapping", "key", "why"),
    [
        ({"dice_max_hours": 25}, "rules.dice_max_hours", "at most 24"),
        ({"dice_max_hours": 0}, "rules.dice_max_hours", "over 0"),
        ({"dice_max_hours": "24"}, "rules.dice_max_hours", "expected a number"),
        ({"dice_warning_minutes": -1}, "rules.dice_warning_minutes", "0 or more"),
        ({"dice_max_hours": 1, "dice_warning_minutes": 60}, "rules.dice_warning_minutes", "under 60"),
        ({"delivery_styles": ["jung-quat", "pai-gow"]}, "rules.delivery_styles", "unknown style 'pai-gow'"),
        ({"delivery_styles": "jung-quat"}, "rules.delivery_styles", "a list of strings"),
        ({"player_bank_offered": "yes"}, "rules.player_bank_offered", "true or false"),
        ({"bank_offer_next": "random"}, "rules.bank_offer_next", "not one of rotate, after-bank"),
    ],
)
def test_bad_options_are_profile_errors_naming_file_and_key(mapping, key, why):
    with pytest.raises(ProfileError) as caught:
        paigow_dice_rules(mapping, "tables/pg.toml")
    assert (caught.value.path, caught.value.key) == ("tables/pg.toml", key)
    assert why in caught.value.why


def test_constructor_rejects_bad_values_as_rules_errors():
    with pytest.raises(RulesError, match="dice_max_hours"):
        PaiGowRules(dice_max_hours=30)


def test_535_9_a_alternative_styles_only_if_listed_but_535_11_i_a_bank_may_choose_any():
    rules = PaiGowRules(delivery_styles=("jung-quat",))
    assert rules.styles_for(None) == ("standard", "jung-quat")
    assert rules.styles_for(4) == STYLES
    assert rules.check_style_for("chee-yee", 4) == "chee-yee"
    with pytest.raises(
        RulesError, match=r"not in this casino's Rules Submission \(§ 535.9\(a\)\): use standard, jung-quat"
    ):
        rules.check_style_for("chee-yee", None)
    strict = PaiGowRules(delivery_styles=("jung-quat",), bank_may_choose_any_style=False)
    assert strict.styles_for(4) == ("standard", "jung-quat")
    with pytest.raises(RulesError, match="unknown delivery style"):
        rules.check_style_for("nope", 4)


def test_535_5_c_dice_clock_with_the_casinos_limit_and_lead():
    rules = PaiGowRules(dice_max_hours=8, dice_warning_minutes=30)
    assert rules.dice_clock(0.0, 7 * 3600).state == "ok"
    assert rules.dice_clock(0.0, 7.6 * 3600).state == "warn"
    assert rules.dice_clock(0.0, 8 * 3600).state == "expired"
