"""House-way rules with ``play`` and the ``[choose]`` table (§ 535.10(b), (d)): meaning and refusals."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.house_way_plays import parse_chooser, parse_play
from firmware_host.rules.paigow_tiles.house_way_rules import compile_house_way
from firmware_host.rules.paigow_tiles.rules import house_way_key
from firmware_host.rules.paigow_tiles.tiles import parse_tiles


def document(*rules: dict[str, Any], choose: dict[str, Any] | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "house_way": {"name": "test", "source": "a test"},
        "rule": [{"name": f"r{number}", **rule} for number, rule in enumerate(rules, start=1)],
    }
    if choose is not None:
        doc["choose"] = choose
    return doc


class Entries:
    """A compiled table looked up by four tiles in any order: ``entries["6-6,4-4,4-4,1-6"]`` or ``None``."""

    def __init__(self, table: dict[str, str]) -> None:
        self.table = table

    def __getitem__(self, tiles: str) -> str | None:
        return self.table.get(",".join(house_way_key(parse_tiles(tiles, count=4))))


def table(*rules: dict[str, Any], choose: dict[str, Any] | None = None) -> Entries:
    return Entries(compile_house_way(document(*rules, choose=choose)).table)


def test_535_10_d_keep_pair_plays_the_pair_as_one_hand() -> None:
    entries = table({"play": "keep_pair", "pair": ["8"]})
    assert entries["6-6,4-4,4-4,1-6"] == "4-4,4-4/6-6,1-6"
    assert entries["6-6,2-6,3-5,1-6"] == "2-6,3-5/6-6,1-6"  # the mixed eights are a pair
    assert entries["6-6,4-4,3-5,1-6"] is None  # 4-4 with 3-5 is no pair (§ 535.4(a))


def test_535_10_d_split_pair_with_makes_at_least_splits_only_when_the_split_makes_it() -> None:
    entries = table({"play": "split_pair", "pair": ["12"], "makes_at_least": [6, 8]})
    assert entries["6-6,6-6,4-4,1-6"] == "6-6,4-4/6-6,1-6"  # Gong / 9
    assert entries["6-6,6-6,2-2,1-3"] is None  # 6/6 only


def test_535_10_d_split_pair_with_others_needs_both_other_tiles_to_match() -> None:
    entries = table({"play": "split_pair", "pair": ["9"], "others": [["2", "10"], ["2", "10"]]})
    assert entries["6-6,3-6,4-5,1-1"] is None and entries["1-1,3-6,4-5,5-5"] is not None


def test_535_10_d_combine_prefers_the_earlier_partners_then_the_tile_in_the_high_hand() -> None:
    rule = {"play": "combine", "tile": ["1-1", "6-6"], "partners": [["7"], ["8"], ["9"]], "high_hand_holds": "6-6"}
    entries = table(rule)
    assert entries["6-6,4-5,2-6,1-4"] == "6-6,2-6/4-5,1-4"  # Gong over Wong
    assert entries["6-6,1-1,4-4,1-6"] == "6-6,4-4/1-1,1-6"  # both settings hold a 7 and an 8: 12 high
    without = table({key: value for key, value in rule.items() if key != "high_hand_holds"})
    assert without["6-6,1-1,4-4,1-6"] == "1-1,4-4/6-6,1-6"  # the stronger low hand (12 with the 7)


def test_535_10_d_choose_maximises_the_high_hand_below_the_threshold() -> None:
    choose = {"maximise_high_when_best_low_below": "3-3,1-6", "maximise_high_when_best_high_at_least": 7}
    assert table({"play": "choose"}, choose=choose)["1-3,2-2,2-3,3-5"] == "1-3,2-3/2-2,3-5"
    assert table({"play": "choose"})["1-3,2-2,2-3,3-5"] == "1-3,2-2/3-5,2-3"  # default: strongest low


def test_535_10_d_a_choose_exception_moves_a_tile_between_settings_of_equal_points() -> None:
    choose = {"exception": [{"name": "A", "low_high": [8, 9], "or_more": True, "high_hand_holds": "highest"}]}
    assert table({"play": "choose"}, choose=choose)["5-5,4-6,4-5,3-5"] == "5-5,4-5/4-6,3-5"
    assert table({"play": "choose"})["5-5,4-6,4-5,3-5"] == "4-6,4-5/5-5,3-5"
    exact = {"exception": [{"name": "A", "low_high": [8, 9], "high_hand_holds": "highest"}]}
    assert table({"play": "choose"}, choose=exact)["5-5,4-6,4-5,3-5"] == "5-5,4-5/4-6,3-5"


def test_535_10_d_an_earlier_play_wins_over_a_later_one() -> None:
    entries = table({"play": "keep_pair", "pair": ["12"]}, {"play": "split_pair", "pair": ["12"]})
    assert entries["6-6,6-6,4-4,1-6"] == "6-6,6-6/4-4,1-6"


def test_a_list_pattern_stands_for_any_of_its_tiles() -> None:
    entries = table({"tiles": [["1-1", "6-6"], "9", "8", "11"], "together": [1, 2]})
    assert entries["6-6,5-6,4-5,4-4"] == "6-6,4-5/4-4,5-6" and entries["1-1,5-6,3-6,2-6"] == "1-1,3-6/5-6,2-6"


@pytest.mark.parametrize(
    ("rule", "choose", "why"),
    [
        ({"play": "shuffle"}, None, "play: expected one of"),
        ({"play": "keep_pair"}, None, "pair: expected a list of pair kinds"),
        ({"play": "keep_pair", "pair": ["3"]}, None, "pair: expected a list of pair kinds"),
        ({"play": "keep_pair", "pair": [["8"]]}, None, "pair: expected a list of pair kinds"),  # was a TypeError
        ({"play": "keep_pair", "pair": ["8"], "makes_at_least": [6, 8]}, None, "makes_at_least: unknown key"),
        ({"play": "split_pair", "pair": ["8"], "others": ["2"]}, None, "others: expected two tile patterns"),
        ({"play": "split_pair", "pair": ["8"], "others": ["2", "13"]}, None, "'13' is neither a tile"),
        ({"play": "split_pair", "pair": ["8"], "makes_at_least": [6, 10]}, None, "expected points 0-9"),
        (
            {"play": "split_pair", "pair": ["8"], "makes_at_least": [6, 8], "others": ["2", "2"]},
            None,
            "give one or the other",
        ),
        ({"play": "combine", "tile": ["1-1"], "partners": []}, None, "partners: expected a list"),
        (
            {"play": "combine", "tile": ["1-1"], "partners": [["7"]], "high_hand_holds": "7"},
            None,
            "high_hand_holds: expected a tile",
        ),
        ({"play": "choose", "tiles": ["1-1"]}, None, "tiles: unknown key"),
        ({"play": "choose"}, {"maximise_high_when_best_low_below": "3-3"}, "expected 2 tiles"),
        ({"play": "choose"}, {"maximise_high_when_best_low_below": 3}, "expected a hand"),
        ({"play": "choose"}, {"maximise_high_when_best_high_at_least": True}, "expected points 0-9"),
        ({"play": "choose"}, {"colour": "red"}, "choose.colour: unknown key"),
        ({"play": "choose"}, {"exception": {"name": "x"}}, "expected \\[\\[choose.exception\\]\\] tables"),
        ({"play": "choose"}, {"exception": [{"name": "x", "low_high": [8]}]}, "low_high: expected \\[LOW, HIGH\\]"),
        (
            {"play": "choose"},
            {"exception": [{"name": "x", "low_high": [8, 9], "holds": ["9-9"]}]},
            "holds: expected a tile",
        ),
        ({"play": "choose"}, {"exception": [{"low_high": [8, 9]}]}, "name: expected text"),
        ({"play": "choose"}, "max", "\\[choose\\]: expected a table"),
    ],
)
def test_a_broken_play_or_choose_names_the_key_and_why(rule: dict[str, Any], choose: Any, why: str) -> None:
    doc = document(rule)
    if choose is not None:
        doc["choose"] = choose
    with pytest.raises(RulesError, match=why):
        compile_house_way(doc)


_KEYS = {
    "name",
    "play",
    "pair",
    "others",
    "makes_at_least",
    "tile",
    "partners",
    "high_hand_holds",
    "low_high",
    "or_more",
    "holds",
    "exception",
    "maximise_high_when_best_low_below",
    "maximise_high_when_best_high_at_least",
}
#: TOML-like values: what a hostile or mistaken house-way file can hold.
_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 20)
    | st.sampled_from(["", "8", "12", "supreme", "6-6", "1-1", "3-3,1-6", "highest", "x", "9-9"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(sorted(_KEYS)), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.sampled_from(sorted(_KEYS)), _VALUES, max_size=6),
    st.sampled_from(["keep_pair", "split_pair", "combine", "two_pairs", "choose", "other"]),
)
def test_a_hostile_play_rule_is_refused_with_a_rules_error_or_built(raw: dict[str, Any], play: str) -> None:
    try:
        built = parse_play({"name": "r", **raw, "play": play}, "rule 1")
    except RulesError:
        return
    assert built.play == play and built.name == raw.get("name", "r")


@settings(max_examples=200, deadline=None)
@given(_VALUES)
def test_a_hostile_choose_table_is_refused_with_a_rules_error_or_built(raw: Any) -> None:
    try:
        chooser = parse_chooser(raw)
    except RulesError:
        return
    assert chooser.high_at_least % 100 == 0 and all(exception.name for exception in chooser.exceptions)
