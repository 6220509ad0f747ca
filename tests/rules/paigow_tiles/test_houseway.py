"""The dealer's house way, § 535.10(d), with hand-worked examples, and the casino's own table."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from firmware_host.config.rules import paigow_tile_rules
from firmware_host.errors import ProfileError, RulesError
from firmware_host.rules.paigow_tiles.hands import Hand, Setting, legal_settings
from firmware_host.rules.paigow_tiles.houseway import HouseWayStep, follows_house_way, house_way
from firmware_host.rules.paigow_tiles.rules import HouseWayTieBreak, PaiGowTileRules
from firmware_host.rules.paigow_tiles.tiles import TILE_SET, parse_tiles

STRONGEST_HIGH = PaiGowTileRules(house_way_tie_break=HouseWayTieBreak.STRONGEST_HIGH)


def dealer_sets(tiles: str, rules: PaiGowTileRules = PaiGowTileRules()) -> tuple[str, HouseWayStep]:
    chosen = house_way(parse_tiles(tiles, count=4), rules)
    return chosen.setting.text, chosen.step


# Each example is worked by hand; the values in the comments are the spots' last digit.
@pytest.mark.parametrize(
    ("tiles", "expected"),
    [
        # 2-4,1-2 is the Supreme Pair; 6-6+5-5 = 22 -> 2 is what is left.
        ("6-6,2-4,5-5,1-2", "2-4,1-2/6-6,5-5"),
        # Splitting it would give 2-4+6-6 = 18 -> 8 and 1-2+4-5 = 12/15 -> 5; the Supreme Pair stays.
        ("6-6,4-5,2-4,1-2", "2-4,1-2/6-6,4-5"),
    ],
)
def test_535_10_d_1_supreme_pair_is_played_as_the_supreme_pair(tiles, expected):
    assert dealer_sets(tiles) == (expected, HouseWayStep.SUPREME_PAIR)


@pytest.mark.parametrize(
    ("tiles", "expected"),
    [
        # Wong 6-6,4-5 over the splits 6-6+1-3 = 16 -> 6 / 4-5+2-2 = 13 -> 3, and 6-6+2-2 -> 6 / 4-5+1-3 -> 3.
        ("6-6,4-5,1-3,2-2", "6-6,4-5/1-3,2-2"),
        # Pair of Eights is played although 4-4+5-6 = 19 -> 9 with 4-4+1-6 = 15 -> 5 looks stronger.
        ("4-4,4-4,5-6,1-6", "4-4,4-4/5-6,1-6"),
        # Mixed Fives 1-4,2-3 with 5-5+5-6 = 21 -> 1.
        ("5-5,1-4,2-3,5-6", "1-4,2-3/5-5,5-6"),
        # Gong 1-1,3-5; the rest 5-5+1-5 = 16 -> 6.
        ("1-1,3-5,5-5,1-5", "1-1,3-5/5-5,1-5"),
        # Two pairs beat two Wongs: Pair of Twelves with Mixed Nines, both hands stronger than
        # Wong (Twelve and Nine) with Wong (Twelve and Nine).
        ("6-6,6-6,4-5,3-6", "6-6,6-6/3-6,4-5"),
    ],
)
def test_535_10_d_2_dealer_plays_a_pair_wong_or_gong_when_possible(tiles, expected):
    assert dealer_sets(tiles) == (expected, HouseWayStep.PAIR_WONG_GONG)


def test_535_10_d_2_tie_break_between_a_wong_and_a_gong():
    # 6-6,4-5 is a Wong (17th) leaving 4-4+1-5 = 14 -> 4; 6-6,4-4 is a Gong (19th) leaving
    # 4-5+1-5 = 15 -> 5. Strongest low hand: the Gong with 5; strongest high: the Wong with 4.
    tiles = "6-6,4-5,4-4,1-5"
    assert dealer_sets(tiles) == ("6-6,4-4/1-5,4-5", HouseWayStep.PAIR_WONG_GONG)
    assert dealer_sets(tiles, STRONGEST_HIGH) == ("6-6,4-5/4-4,1-5", HouseWayStep.PAIR_WONG_GONG)


@pytest.mark.parametrize(
    ("tiles", "expected"),
    [
        # 2-2+1-4 = 9 and 5-6+1-6 = 18 -> 8; the other splits are 5/2 and 6/1.
        ("5-6,1-6,2-2,1-4", "2-2,1-4/5-6,1-6"),
        # 2-4 counted as 3 with 3-3 makes 9; 5-5+1-6 = 17 -> 7.
        ("5-5,3-3,1-6,2-4", "3-3,2-4/5-5,1-6"),
    ],
)
def test_535_10_d_3_dealer_plays_nine_eight_or_seven_together(tiles, expected):
    assert dealer_sets(tiles) == (expected, HouseWayStep.NINE_EIGHT_SEVEN)


def test_535_10_d_3_tie_break_between_nine_eight_and_seven():
    # 3-6+5-5 = 9 / 1-6+2-6 = 5;  3-6+1-6 = 6 / 5-5+2-6 = 8;  3-6+2-6 = 7 / 5-5+1-6 = 7.
    # Strongest low hand: 7 and 7; strongest high hand: 9 and 5.
    tiles = "3-6,5-5,1-6,2-6"
    assert dealer_sets(tiles) == ("5-5,1-6/3-6,2-6", HouseWayStep.NINE_EIGHT_SEVEN)
    assert dealer_sets(tiles, STRONGEST_HIGH) == ("5-5,3-6/1-6,2-6", HouseWayStep.NINE_EIGHT_SEVEN)


@pytest.mark.parametrize(
    ("tiles", "expected"),
    [
        # Sums 5-5+1-5 = 6, 5-5+2-3 = 5, 5-5+3-3 = 6, 1-5+2-3 = 1, 1-5+3-3 = 2, 2-3+3-3 = 1:
        # no pair, no 9/8/7. Highest 5-5 (fifth) with lowest 2-3 (sixteenth): 5, leaving 3-3+1-5 = 2.
        ("5-5,1-5,2-3,3-3", "5-5,2-3/3-3,1-5"),
        # 4-4 (third) with 1-2 (seventeenth) = 11/14 -> 4; 1-6+2-5 = 14 -> 4 with a lower highest tile.
        ("4-4,1-6,2-5,1-2", "4-4,1-2/1-6,2-5"),
        # 4-4 with 1-2 = 4 becomes the low hand under 1-6+2-6 = 15 -> 5.
        ("4-4,1-6,2-6,1-2", "1-6,2-6/4-4,1-2"),
    ],
)
def test_535_10_d_4_dealer_plays_highest_ranking_tile_with_lowest(tiles, expected):
    assert dealer_sets(tiles) == (expected, HouseWayStep.HIGHEST_WITH_LOWEST)


def test_535_10_d_rules_submission_table_replaces_the_steps_for_its_tiles():
    rules = paigow_tile_rules({"house_way_table": {"6-6,6-6,4-5,3-6": "6-6,4-5/6-6,3-6"}}, "table.toml")
    assert dealer_sets("3-6,6-6,4-5,6-6", rules) == ("6-6,4-5/6-6,3-6", HouseWayStep.RULES_SUBMISSION)
    assert dealer_sets("6-6,4-5,1-3,2-2", rules) == ("6-6,4-5/1-3,2-2", HouseWayStep.PAIR_WONG_GONG)
    assert house_way(parse_tiles("6-6,6-6,4-5,3-6"), rules).to_json()["section"] == "535.10(b), 535.12(f)"


def test_535_12_f_follows_house_way_compares_ranks():
    assert follows_house_way(Setting.parse("6-6,4-5/1-3,2-2"))
    assert not follows_house_way(Setting.parse("6-6,2-2/1-3,4-5"))
    # Wong/Wong either way round ranks the same.
    rules = PaiGowTileRules(house_way_table={"6-6,6-6,4-5,3-6": "6-6,4-5/6-6,3-6"})
    assert follows_house_way(Setting.parse("6-6,3-6/6-6,4-5"), rules)
    assert not follows_house_way(Setting.parse("6-6,6-6/3-6,4-5"), rules)


def test_house_way_refuses_bad_tiles():
    with pytest.raises(RulesError, match="setting needs 4 tiles, got 5"):
        house_way(parse_tiles("6-6,4-5,1-3,2-2,1-1"))


def test_house_way_json_names_the_step_and_section():
    data = house_way(parse_tiles("6-6,4-5,1-3,2-2")).to_json()
    assert (data["high"]["tiles"], data["low"]["tiles"]) == (["6-6", "4-5"], ["1-3", "2-2"])
    assert (data["step"], data["section"]) == ("pair_wong_gong", "535.10(d)(2)")
    assert data["why"] == "a pair, Wong or Gong is played when possible"


def test_house_way_table_entry_must_use_its_own_tiles():
    with pytest.raises(ProfileError, match=r"rules.house_way_table: entry '6-6,6-6,4-5,3-6'"):
        paigow_tile_rules({"house_way_table": {"6-6,6-6,4-5,3-6": "6-6,4-5/6-6,1-1"}}, "t.toml")


def _check_step(tiles, chosen) -> None:
    """The step's own condition, checked independently of how house_way found it."""
    settings = legal_settings(tiles)
    hands = [hand for setting in settings for hand in (setting.high, setting.low)]
    pair_ranks = {hand.rank.pair.rank for hand in hands if hand.rank.pair}
    setting = chosen.setting
    if chosen.step is HouseWayStep.SUPREME_PAIR:
        assert setting.high.rank.pair.rank == 1
    elif chosen.step is HouseWayStep.PAIR_WONG_GONG:
        assert 1 not in pair_ranks and setting.high.rank.pair is not None
    elif chosen.step is HouseWayStep.NINE_EIGHT_SEVEN:
        assert not pair_ranks
        assert {setting.high.rank.value, setting.low.rank.value} & {7, 8, 9}
    else:
        assert not pair_ranks
        assert not {hand.rank.value for hand in hands} & {7, 8, 9}
        ranked = sorted(tiles, key=lambda tile: tile.rank)
        assert Hand(ranked[0], ranked[-1]) in (setting.high, setting.low)


def test_535_10_d_all_35960_four_tile_deals_set_without_error_high_outranking_low():
    steps = Counter()
    for tiles in itertools.combinations(TILE_SET, 4):
        for setting in legal_settings(tiles):
            assert setting.high.rank.strength >= setting.low.rank.strength
        chosen = house_way(tiles)
        high, low = chosen.setting.strengths
        assert high >= low
        assert sorted(tile.index for tile in chosen.setting.tiles) == sorted(tile.index for tile in tiles)
        _check_step(tiles, chosen)
        steps[chosen.step] += 1
    assert sum(steps.values()) == 35960
    # Every deal holding both Supreme Pair tiles: C(30, 2) choices of the other two tiles.
    assert steps[HouseWayStep.SUPREME_PAIR] == 435
    assert all(steps[step] for step in HouseWayStep if step is not HouseWayStep.RULES_SUBMISSION)
