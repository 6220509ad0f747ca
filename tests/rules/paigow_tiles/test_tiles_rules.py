"""The Rules Submission options of the tiles game, read from the table profile."""

from __future__ import annotations

import tomllib
from decimal import Decimal

import pytest

from firmware_host.config.rules import paigow_dice_rules, paigow_tile_rules
from firmware_host.errors import ProfileError, RulesError
from firmware_host.rules.paigow_dice.rules import PaiGowRules
from firmware_host.rules.paigow_tiles.hands import Setting
from firmware_host.rules.paigow_tiles.rules import (
    DEFAULT_RULES,
    CommissionRounding,
    HouseWayTieBreak,
    OddCent,
    PaiGowTileRules,
)

PROFILE = """
[rules]
player_bank_offered = true
co_banking_offered = true
commission_percent = 5
commission_rounding = "quarter"
house_way_tie_break = "strongest_high"
two_adjacent_areas = true
dealer_wager_against_bank = 2500
co_bank_odd_cent = "house"

[rules.house_way_table]
"6-6,6-6,4-5,3-6" = "6-6,4-5/6-6,3-6"
"""


def test_defaults_are_the_regulation_as_printed():
    assert DEFAULT_RULES.commission_percent == Decimal(5)
    assert DEFAULT_RULES.commission_basis_points == 500
    assert DEFAULT_RULES.commission_rounding is CommissionRounding.CENT
    assert dict(DEFAULT_RULES.house_way_table) == {}
    assert DEFAULT_RULES.two_adjacent_areas is False


def test_profile_rules_table_is_read_leaving_the_dice_and_bank_keys_to_paigow_rules():
    rules = paigow_tile_rules(tomllib.loads(PROFILE)["rules"], "tables/pg-01.toml")
    assert rules.commission_rounding is CommissionRounding.QUARTER
    assert rules.house_way_tie_break is HouseWayTieBreak.STRONGEST_HIGH
    assert rules.two_adjacent_areas is True
    assert rules.dealer_wager_against_bank == 2500
    assert rules.co_bank_odd_cent is OddCent.HOUSE
    assert rules.house_way_table[("6-6", "6-6", "3-6", "4-5")] == Setting.parse("6-6,4-5/6-6,3-6")
    # the same table also feeds the dice/bank rules without complaint
    assert paigow_dice_rules(tomllib.loads(PROFILE)["rules"], "tables/pg-01.toml").co_banking_offered


def test_keys_of_the_two_rules_modules_do_not_overlap():
    assert not PaiGowTileRules.KEYS & PaiGowRules.KEYS


def test_to_mapping_round_trips():
    rules = paigow_tile_rules(tomllib.loads(PROFILE)["rules"], "p.toml")
    assert paigow_tile_rules(rules.to_mapping(), "journal") == rules
    assert paigow_tile_rules(DEFAULT_RULES.to_mapping(), "journal") == DEFAULT_RULES


@pytest.mark.parametrize(
    ("mapping", "key", "why"),
    [
        ({"comission_percent": 5}, "rules.comission_percent", "unknown option"),
        ({"commission_percent": True}, "rules.commission_percent", "expected a percentage"),
        ({"commission_percent": "five"}, "rules.commission_percent", "expected a percentage"),
        ({"commission_percent": 100}, "rules.commission_percent", "from 0 up to"),
        ({"commission_percent": -1}, "rules.commission_percent", "from 0 up to"),
        ({"commission_percent": "nan"}, "rules.commission_percent", "from 0 up to"),
        ({"commission_percent": 4.125}, "rules.commission_percent", "two decimal places"),
        ({"commission_rounding": "dime"}, "rules.commission_rounding", "expected one of 'cent', 'quarter'"),
        ({"house_way_tie_break": 1}, "rules.house_way_tie_break", "expected one of"),
        ({"zero_value_rule": "never"}, "rules.zero_value_rule", "expected one of"),
        ({"two_adjacent_areas": "yes"}, "rules.two_adjacent_areas", "expected true or false"),
        ({"dealer_wager_against_bank": 10.5}, "rules.dealer_wager_against_bank", "whole number of cents"),
        ({"dealer_wager_against_bank": -100}, "rules.dealer_wager_against_bank", "whole number of cents"),
        ({"co_bank_odd_cent": "player"}, "rules.co_bank_odd_cent", "expected one of"),
        ({"bank_tile_exposed": "ignore"}, "rules.bank_tile_exposed", "expected one of"),
        ({"house_way_table": ["6-6"]}, "rules.house_way_table", "expected a table"),
        ({"house_way_table": {"6-6,6-6,4-5,3-6": 3}}, "rules.house_way_table", 'expected "TILES"'),
        ({"house_way_table": {"6-6,6-6,4-5": "6-6,4-5/6-6,3-6"}}, "rules.house_way_table", "expected 4 tiles"),
        (
            {"house_way_table": {"6-6,6-6,4-5,3-6": "6-6,6-6/3-6,4-5", "3-6,4-5,6-6,6-6": "6-6,4-5/6-6,3-6"}},
            "rules.house_way_table",
            "already have an entry",
        ),
        ({"house_way_table": {"6-6,6-6,1-3,2-2": "1-3,2-2/6-6,6-6"}}, "rules.house_way_table", "ranks below"),
    ],
)
def test_bad_option_is_a_profile_error_naming_file_key_and_why(mapping, key, why):
    with pytest.raises(ProfileError) as caught:
        paigow_tile_rules(mapping, "tables/pg-01.toml")
    assert (caught.value.path, caught.value.key) == ("tables/pg-01.toml", key)
    assert why in caught.value.why


def test_sub_table_prefix_is_named_in_errors():
    with pytest.raises(ProfileError, match=r"^p.toml: rules.tiles.commission_rounding: "):
        paigow_tile_rules({"commission_rounding": "x"}, "p.toml", prefix="rules.tiles")
    with pytest.raises(ProfileError, match=r"^p.toml: rules: expected a table"):
        paigow_tile_rules(["x"], "p.toml")


def test_direct_construction_checks_and_converts_values():
    rules = PaiGowTileRules(commission_percent=4.5, commission_rounding="quarter")
    assert (rules.commission_basis_points, rules.commission_rounding) == (450, CommissionRounding.QUARTER)
    with pytest.raises(RulesError, match="expected one of"):
        PaiGowTileRules(house_way_tie_break="random")


def test_rules_are_hashable_and_immutable():
    rules = PaiGowTileRules(house_way_table={"6-6,6-6,4-5,3-6": "6-6,4-5/6-6,3-6"})
    assert hash(rules) == hash(PaiGowTileRules(house_way_table={"3-6,6-6,4-5,6-6": "6-6,4-5/6-6,3-6"}))
    with pytest.raises(TypeError):
        rules.house_way_table[("1-1", "1-1", "2-2", "2-2")] = Setting.parse("1-1,1-1/2-2,2-2")  # type: ignore[index]
