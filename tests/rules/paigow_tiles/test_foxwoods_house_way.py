"""The Foxwoods house way of 1997 (hardware-profiles/house-ways/foxwoods-1997.toml), § 535.10(b), (d).

One test per rule of the Wizard of Odds page, each with a hand that rule sets and the setting
the page's words give; then properties over every hand a set can deal.
"""

from __future__ import annotations

import functools
import json
import shutil
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.cli import main
from firmware_host.config.rules import load_paigow_rules
from firmware_host.rules.paigow_tiles.hands import legal_settings
from firmware_host.rules.paigow_tiles.house_way_rules import HouseWayDocument, compile_house_way, every_four_tiles
from firmware_host.rules.paigow_tiles.houseway import HouseWayStep, house_way
from firmware_host.rules.paigow_tiles.rules import PaiGowTileRules, house_way_key
from firmware_host.rules.paigow_tiles.tiles import TILE_SET, parse_tiles
from tests.support.paths import REPO

FOXWOODS = REPO / "hardware-profiles" / "house-ways" / "foxwoods-1997.toml"


@functools.lru_cache(maxsize=1)
def foxwoods() -> HouseWayDocument:
    with FOXWOODS.open("rb") as handle:
        return compile_house_way(tomllib.load(handle))


@functools.lru_cache(maxsize=1)
def foxwoods_rules() -> PaiGowTileRules:
    return PaiGowTileRules(house_way_table=foxwoods().table)


def sets(tiles: str) -> tuple[str, str]:
    """(setting, name of the rule that chose it) of four tiles under the Foxwoods house way."""
    key = ",".join(house_way_key(parse_tiles(tiles, count=4)))
    return foxwoods().table[key], foxwoods().chosen_by[key]


def test_535_10_b_the_foxwoods_house_way_is_complete_and_cites_the_page() -> None:
    document = foxwoods()
    assert document.complete and len(document.table) == len(every_four_tiles()) == 8130
    assert "https://wizardofodds.com/games/pai-gow-tiles/house-way/foxwoods/" in document.source
    assert "February 1997" in document.source


# Pair rules.
def test_pair_rule_a_never_splits_4s_5s_6s_10s_or_11s() -> None:
    # 1-3,1-3 with 6-6,4-5: split, 6-6+1-3 and 4-5+1-3 would be 6/3; kept, pair / Wong.
    assert sets("1-3,1-3,6-6,4-5") == ("1-3,1-3/6-6,4-5", "Pair A: never split 4s, 5s, 6s, 10s or 11s")
    assert sets("1-4,2-3,1-1,2-5")[0] == "1-4,2-3/1-1,2-5"  # mixed 5s kept, though 1-1+2-5 is a High 9
    assert sets("5-6,5-6,6-6,6-6")[0] == "6-6,6-6/5-6,5-6"  # two pairs: both kept
    for pair in ("2-2,2-2", "3-3,3-3", "1-5,1-5", "5-5,5-5", "4-6,4-6", "5-6,5-6"):
        setting, rule = sets(f"{pair},6-6,1-6")
        assert pair in setting and rule.startswith("Pair A")


@pytest.mark.parametrize("others", ["3-3,1-3", "1-5,2-2", "3-3,1-4", "1-5,2-3", "3-3,1-5"])
def test_pair_rule_b_splits_gee_joon_with_6_4_6_5_or_6_6(others: str) -> None:
    setting, rule = sets(f"1-2,2-4,{others}")
    assert rule.startswith("Pair B: split Gee Joon")
    assert "1-2,2-4" not in setting and "2-4,1-2" not in setting


def test_pair_rule_b_gee_joon_with_6_and_4_is_9_over_7() -> None:
    # 2-4 (as 3) with 3-3: 9; 1-2 (as 3) with 1-3: 7.
    assert sets("1-2,2-4,3-3,1-3") == ("3-3,2-4/1-3,1-2", "Pair B: split Gee Joon with a 6 and a 4")


def test_pair_rule_b_gee_joon_is_kept_with_other_tiles_and_with_a_pair_of_6s() -> None:
    assert sets("1-2,2-4,6-6,4-5")[0] == "2-4,1-2/6-6,4-5"  # with a 12 and a 9: not named, kept
    assert sets("1-2,2-4,3-3,3-3")[0] == "2-4,1-2/3-3,3-3"  # two 6s that pair: rule A keeps them


def test_pair_rule_c_splits_2s_and_12s_to_make_6_8_or_better() -> None:
    # 12+8 Gong over 12+7 (9): better than pair of 12s / 8+7 (5).
    assert sets("6-6,6-6,4-4,1-6") == ("6-6,4-4/6-6,1-6", "Pair C: split 2s and 12s to make 6/8 or better")
    assert sets("1-1,1-1,2-5,1-5")[0] == "1-1,2-5/1-1,1-5"  # 2s: 9/8
    # split 12s would be 6-6+2-2 and 6-6+1-3, 6/6: not 6/8, so the pair stays.
    assert sets("6-6,6-6,2-2,1-3") == ("6-6,6-6/1-3,2-2", "Pair rules: any other pair is played as a pair")


def test_pair_rule_c_splits_2s_and_12s_when_the_other_two_are_9_and_11() -> None:
    # 12+9 Wong, 12+11 = 3: not 6/8, split by the second half of rule C.
    assert sets("6-6,6-6,3-6,5-6") == (
        "6-6,3-6/6-6,5-6",
        "Pair C: split 2s and 12s when the other two tiles are 9 and 11",
    )
    assert sets("1-1,1-1,4-5,5-6")[1] == "Pair C: split 2s and 12s when the other two tiles are 9 and 11"


def test_pair_rule_d_splits_9s_with_2s_10s_and_12s() -> None:
    assert sets("3-6,4-5,1-1,5-5") == ("1-1,4-5/5-5,3-6", "Pair D: split 9s with any two of 2, 10 and 12")
    assert sets("3-6,4-5,5-5,4-6")[1] == "Pair D: split 9s with any two of 2, 10 and 12"
    assert sets("3-6,4-5,1-1,5-6")[0] == "3-6,4-5/1-1,5-6"  # an 11 is not named for 9s: kept


def test_pair_rule_e_splits_8s_with_2_10_11_12_and_with_9_and_11() -> None:
    assert sets("4-4,4-4,5-6,1-1") == ("1-1,4-4/4-4,5-6", "Pair E: split 8s with any two of 2, 10, 11 and 12")
    assert sets("2-6,3-5,5-6,4-6")[1] == "Pair E: split 8s with any two of 2, 10, 11 and 12"
    assert sets("2-6,3-5,3-6,5-6") == ("5-6,3-5/3-6,2-6", "Pair E: split 8s with a 9 and an 11")
    assert sets("4-4,4-4,1-6,5-6")[0] == "4-4,4-4/5-6,1-6"  # a 7 is not named for 8s: kept


def test_pair_rule_f_splits_7s_with_2_10_11_12() -> None:
    assert sets("1-6,1-6,5-5,4-6") == ("5-5,1-6/4-6,1-6", "Pair F: split 7s with any two of 2, 10, 11 and 12")
    assert sets("2-5,3-4,5-6,5-6")[0] == "5-6,5-6/2-5,3-4"  # two pairs, 11s never split (rule A)
    assert sets("1-6,1-6,2-3,1-1")[0] == "1-6,1-6/1-1,2-3"  # a 5 is not named for 7s: kept


def test_reading_two_pairs_are_played_as_two_hands() -> None:
    # Rule C read alone would split 1-1,1-1 with Gee Joon into 8/8 and 6-6,6-6,3-6,4-5 into Wong/Wong.
    assert sets("1-1,1-1,1-2,2-4") == ("2-4,1-2/1-1,1-1", "Reading: two pairs are played as two hands")
    assert sets("6-6,6-6,3-6,4-5") == ("6-6,6-6/3-6,4-5", "Reading: two pairs are played as two hands")


def test_two_pairs_are_never_worse_in_either_hand_than_any_other_setting() -> None:
    for kinds in every_four_tiles():
        settings = legal_settings(kinds)
        two_pairs = [
            setting
            for setting in settings
            if setting.high.rank.pair
            and setting.low.rank.pair
            and setting.high.rank.pair.group not in ("wong", "gong")
            and setting.low.rank.pair.group not in ("wong", "gong")
        ]
        for pairs in two_pairs:
            for other in settings:
                assert pairs.strengths[0] >= other.strengths[0] and pairs.strengths[1] >= other.strengths[1]


# Wong, Gong, and High Nine Rules.
def test_wong_gong_high_nine_plays_high_nine_over_gong_and_wong() -> None:
    rule = "Wong, Gong, and High Nine: a 2 or 12 with a 7 (High 9), else an 8 (Gong), else a 9 (Wong)"
    assert sets("6-6,4-4,1-6,1-4") == ("6-6,1-6/4-4,1-4", rule)  # High 9 / 3, not Gong / 2
    assert sets("6-6,4-5,2-6,1-4") == ("6-6,2-6/4-5,1-4", rule)  # Gong / 4 over Wong / 3
    assert sets("1-1,4-5,2-2,1-4")[0] == "1-1,4-5/2-2,1-4"  # only a Wong: played
    assert sets("6-6,4-5,2-2,1-4")[1] == rule


def test_wong_gong_high_nine_plays_the_12_in_the_high_hand() -> None:
    # A High 9 either way (6-6+1-6 or 1-1+1-6): the 12 is used, in the high hand.
    assert sets("6-6,1-1,1-6,1-5")[0] == "6-6,1-6/1-1,1-5"
    # 2 and 12 with an 8 and a 7: both settings hold a High 9 and a Gong; the 12 goes high.
    assert sets("6-6,1-1,4-4,1-6")[0] == "6-6,4-4/1-1,1-6"


def test_wong_gong_high_nine_exception_a_wong_over_gong_with_an_11() -> None:
    assert sets("6-6,4-5,4-4,5-6") == (
        "6-6,4-5/4-4,5-6",
        "Wong, Gong, High Nine, exception A: Wong over Gong when the fourth tile is an 11",
    )


def test_wong_gong_high_nine_exception_b_wong_over_high_nine_with_an_11() -> None:
    assert sets("1-1,3-6,2-5,5-6") == (
        "1-1,3-6/5-6,2-5",
        "Wong, Gong, High Nine, exception B: Wong over High Nine when the fourth tile is an 11",
    )


def test_wong_gong_high_nine_exception_c_gong_over_high_nine_with_a_4_or_a_low_8_and_a_5() -> None:
    assert sets("6-6,4-4,1-6,1-3")[0] == "6-6,4-4/1-3,1-6"  # the fourth tile a 4
    assert sets("6-6,4-4,3-4,2-2")[0] == "6-6,4-4/2-2,3-4"
    assert sets("6-6,3-5,1-6,1-4")[0] == "6-6,3-5/1-6,1-4"  # a low 8 and a 5
    assert sets("6-6,4-4,1-6,1-4")[0] == "6-6,1-6/4-4,1-4"  # a high 8 and a 5: the rule, High 9


# Other Hands.
def test_other_hands_maximise_the_low_hand_when_it_can_reach_a_high_3() -> None:
    # 4-6,3-4 (7) / 5-5,2-3 (5, highest tile the 5-5) over 5-5,3-4 (7) / 4-6,2-3 (a weaker 5).
    assert sets("5-5,4-6,2-3,3-4") == ("4-6,3-4/5-5,2-3", "Other Hands")
    # The best low is a 5, above a High 3: the low hand is maximised though a 9 is high either way.
    assert sets("5-5,4-6,1-4,4-5") == ("4-6,4-5/5-5,1-4", "Other Hands")


def test_other_hands_maximise_the_high_hand_when_the_low_is_below_a_high_3_and_the_high_reaches_7() -> None:
    # The best low is 1-3,2-2 against 3-5,2-3: a 3 whose highest tile is the low 8, below a High 3.
    # The best high is a 9 (1-3,2-3): maximised, though the low falls to 2.
    assert sets("2-2,1-3,2-3,3-5") == ("1-3,2-3/2-2,3-5", "Other Hands")


def test_other_hands_exception_a_puts_the_high_tile_in_the_high_hand_at_8_9() -> None:
    # 9/8 both ways; maximising the low would put the 5-5 in the low hand (5-5,3-5). Exception A: high.
    assert sets("5-5,4-6,3-5,4-5") == ("5-5,4-5/4-6,3-5", "Other Hands")


def test_other_hands_exception_b_7_8_with_2_and_12_puts_the_12_high() -> None:
    # 8/7 both ways; maximising the low would put the 12 in the low hand (6-6,2-3). Exception B: high.
    assert sets("6-6,1-1,3-3,2-3") == ("6-6,3-3/1-1,2-3", "Other Hands")


# Every hand.
def test_535_10_a_every_foxwoods_setting_is_a_legal_setting_of_its_tiles() -> None:
    rules = foxwoods_rules()
    for kinds in every_four_tiles():
        chosen = house_way(kinds, rules)
        assert chosen.step is HouseWayStep.RULES_SUBMISSION
        assert chosen.setting in legal_settings(kinds)
        assert chosen.setting.high.rank.strength >= chosen.setting.low.rank.strength


@settings(max_examples=300, deadline=None)
@given(st.permutations(range(len(TILE_SET))))
def test_535_10_a_a_dealt_hand_set_the_foxwoods_way_keeps_high_at_least_low(order: list[int]) -> None:
    tiles = [TILE_SET[index] for index in order[:4]]
    chosen = house_way(tiles, foxwoods_rules()).setting
    assert sorted(tile.index for tile in chosen.tiles) == sorted(tile.index for tile in tiles)
    assert chosen.high.rank.strength >= chosen.low.rank.strength


def test_535_10_b_a_table_profile_selects_the_foxwoods_house_way(tmp_path: Path) -> None:
    (tmp_path / "tables").mkdir()
    (tmp_path / "house-ways").mkdir()
    shutil.copy(FOXWOODS, tmp_path / "house-ways" / "foxwoods-1997.toml")
    profile = tmp_path / "tables" / "t.toml"
    rules = load_paigow_rules({"house_way": "../house-ways/foxwoods-1997.toml", "commission_percent": "5"}, profile)
    assert len(rules.tiles.house_way_table) == 8130
    chosen = house_way(parse_tiles("6-6,4-5,4-4,5-6", count=4), rules.tiles)
    assert chosen.setting.text == "6-6,4-5/4-4,5-6" and chosen.step is HouseWayStep.RULES_SUBMISSION


def test_535_10_b_tablehost_paigow_hand_plays_by_foxwoods_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    # 2 and 12 with an 8 and a 7: the four steps play the stronger low (1-1,4-4 Gong / 6-6,1-6 High 9);
    # Foxwoods puts the 12 in the high hand.
    assert main(["paigow", "hand", "--tiles", "6-6,1-1,4-4,1-6", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["house_way"]["high"]["tiles"] == ["1-1", "4-4"]
    assert main(["paigow", "hand", "--tiles", "6-6,1-1,4-4,1-6", "--json", "--house-way", str(FOXWOODS)]) == 0
    way = json.loads(capsys.readouterr().out)["house_way"]
    assert (way["step"], way["high"]["tiles"], way["low"]["tiles"]) == (
        "rules_submission",
        ["6-6", "4-4"],
        ["1-1", "1-6"],
    )
