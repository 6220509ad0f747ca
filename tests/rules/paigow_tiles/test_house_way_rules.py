"""A casino's house way as data: § 535.10(b), (d), § 535.12(f) (hardware-profiles/house-ways/)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.house_way_rules import compile_house_way, every_four_tiles
from firmware_host.rules.paigow_tiles.houseway import HouseWayStep, house_way
from firmware_host.rules.paigow_tiles.rules import PaiGowTileRules
from firmware_host.rules.paigow_tiles.tiles import parse_tiles
from tests.support.paths import REPO

HOUSE_WAYS = REPO / "hardware-profiles" / "house-ways"
TAJ_MAHAL = HOUSE_WAYS / "taj-mahal-two-small-tiles.toml"


def taj_mahal() -> PaiGowTileRules:
    with TAJ_MAHAL.open("rb") as handle:
        return PaiGowTileRules(house_way_table=compile_house_way(tomllib.load(handle)).table)


def dealer_sets(tiles: str, rules: PaiGowTileRules) -> tuple[str, HouseWayStep]:
    chosen = house_way(parse_tiles(tiles, count=4), rules)
    return chosen.setting.text, chosen.step


def document(**rule: Any) -> dict[str, Any]:
    return {"house_way": {"name": "test", "source": "a test"}, "rule": [{"name": "r", **rule}]}


@pytest.mark.parametrize("path", sorted(HOUSE_WAYS.glob("*.toml")), ids=lambda path: path.name)
def test_535_10_b_every_shipped_house_way_compiles_and_cites_its_source(path: Path) -> None:
    with path.open("rb") as handle:
        compiled = compile_house_way(tomllib.load(handle))
    assert compiled.name and compiled.table
    assert "https://" in compiled.source


def test_535_10_b_taj_mahal_two_small_tiles_exception_a_plays_2_and_12_together() -> None:
    # 6-6+1-1 = 14 -> 4 and 1-3+4-6 = 14 -> 4; the four steps would play 6-6 with 4-6 (2) and 1-1 with 1-3 (6).
    assert dealer_sets("1-1,6-6,1-3,4-6", taj_mahal()) == ("6-6,1-1/1-3,4-6", HouseWayStep.RULES_SUBMISSION)
    assert dealer_sets("1-1,6-6,1-3,4-6", PaiGowTileRules())[0] == "1-1,1-3/6-6,4-6"


def test_535_10_b_taj_mahal_exception_b_plays_6_over_6() -> None:
    setting, step = dealer_sets("1-1,2-2,2-3,5-6", taj_mahal())  # 2+4 = 6, 5+11 = 16 -> 6
    assert (setting, step) == ("1-1,2-2/5-6,2-3", HouseWayStep.RULES_SUBMISSION)


def test_535_10_b_taj_mahal_exception_c_puts_the_12_in_the_low_hand() -> None:
    rules = taj_mahal()
    for tiles in ("1-1,6-6,1-3,1-4", "1-1,6-6,2-2,3-3", "1-1,6-6,5-5,5-6"):
        chosen = house_way(parse_tiles(tiles, count=4), rules)
        assert chosen.step is HouseWayStep.RULES_SUBMISSION
        assert "6-6" in chosen.setting.low.text and "1-1" in chosen.setting.high.text


def test_535_10_d_tiles_the_house_way_does_not_set_follow_the_four_steps() -> None:
    assert dealer_sets("6-6,4-5,1-3,2-2", taj_mahal()) == dealer_sets("6-6,4-5,1-3,2-2", PaiGowTileRules())
    assert dealer_sets("6-6,4-5,1-3,2-2", taj_mahal())[1] is HouseWayStep.PAIR_WONG_GONG


def test_535_10_b_a_settings_entry_wins_over_a_rule() -> None:
    doc = document(tiles=["1-1", "6-6", "4", "10"], together=[1, 2])
    doc["settings"] = {"1-1,6-6,1-3,4-6": "1-1,1-3/6-6,4-6"}
    table = compile_house_way(doc).table
    assert table["6-6,1-1,1-3,4-6"] == "1-1,1-3/6-6,4-6" and table["6-6,1-1,2-2,4-6"] == "6-6,1-1/2-2,4-6"


def test_535_10_b_an_earlier_rule_wins_over_a_later_one() -> None:
    doc = document(tiles=["1-1", "6-6", "1-3", "4-6"], together=[1, 3])
    doc["rule"].append({"name": "later", "tiles": ["1-1", "6-6", "4", "10"], "together": [1, 2]})
    assert compile_house_way(doc).table["6-6,1-1,1-3,4-6"] == "1-1,1-3/6-6,4-6"


def test_a_spot_count_does_not_stand_for_the_supreme_pair_tiles() -> None:
    table = compile_house_way(document(tiles=["6-6", "1-1", "6", "4"], together=[1, 2])).table
    tiles = {tile for key in table for tile in key.split(",")}
    assert tiles == {"6-6", "1-1", "3-3", "1-5", "1-3", "2-2"}  # no 2-4, whose 6 spots may count 3 (§ 535.4(d))
    with pytest.raises(RulesError, match="'3' is neither a tile"):
        compile_house_way(document(tiles=["6-6", "1-1", "3", "4"], together=[1, 2]))


@pytest.mark.parametrize(
    ("doc", "why"),
    [
        ({"house_way": {"name": "x"}}, "source: expected text"),
        ({"house_way": {"name": "x", "source": "y", "author": "z"}}, "house_way.author: unknown key"),
        ({"house_way": {"name": "x", "source": "y"}, "extra": 1}, "extra: unknown key"),
        ({"house_way": {"name": "x", "source": "y", "complete": "yes"}}, "house_way.complete: expected true or false"),
        ({"house_way": {"name": "x", "source": "y", "complete": True}}, "8130 four-tile hands are not set"),
        (
            {"house_way": {"name": "x", "source": "y"}, "settings": {"6-6,6-6,4-5,3-6": "6-6,4-5/6-6,1-1"}},
            "settings: entry '6-6,6-6,4-5,3-6': the setting",
        ),
        (document(tiles=["1-1", "6-6", "4"], together=[1, 2]), "rule 1 \\('r'\\): tiles: expected four"),
        (document(tiles=["1-1", "6-6", "4", "13"], together=[1, 2]), "'13' is neither a tile"),
        (document(tiles=["1-1", "6-6", "4", "6-1"], together=[1, 2]), "'6-1' is neither a tile"),
        (document(tiles=["1-1", "6-6", "4", "10"], together=[1, 1]), "together: expected two different places"),
        (document(tiles=["1-1", "6-6", "4", "10"], together=[0, 5]), "together: expected two different places"),
        (document(tiles=["2-4", "2-4", "4", "10"], together=[1, 2]), "no four tiles of one set match"),
        ({"house_way": {"name": "x", "source": "y"}, "rule": {"name": "r"}}, "rule: expected \\[\\[rule\\]\\] tables"),
    ],
)
def test_a_broken_house_way_names_the_key_and_why(doc: dict[str, Any], why: str) -> None:
    with pytest.raises(RulesError, match=why):
        compile_house_way(doc)


def test_a_complete_house_way_sets_every_four_tiles() -> None:
    settings = {",".join(t.text for t in kinds): house_way(kinds).setting.text for kinds in every_four_tiles()}
    compiled = compile_house_way({"house_way": {"name": "x", "source": "y", "complete": True}, "settings": settings})
    assert compiled.complete and len(compiled.table) == len(every_four_tiles()) == 8130
