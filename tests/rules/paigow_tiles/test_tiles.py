"""The tile set: § 535.3(c), § 535.4(f), § 535.6(a)(1)."""

from __future__ import annotations

import re

import pytest

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_tiles.hands import INSPECTION_PAIRS
from firmware_host.rules.paigow_tiles.tiles import (
    TILE_KINDS,
    TILE_SET,
    check_drawable,
    check_tile_set,
    parse_tile,
    parse_tiles,
    tiles_text,
)
from tests.support.regulations import CH535_CH541, ORDINALS, REGULATIONS, regulation_text, subsection


def _ranking_535_4_f() -> list[tuple[str, str, int, int]]:
    """§ 535.4(f) read from the rules text itself: (tile, name, ranking, number of tiles in set)."""
    table = subsection(regulation_text(CH535_CH541), "535.4", "f")
    rows = re.findall(r"(" + "|".join(ORDINALS) + r") (\w+) \((\d-\d)\) (\d)", table)
    return [(tile, name, ORDINALS[ordinal], int(copies)) for ordinal, name, tile, copies in rows]


RANKING_535_4_F = _ranking_535_4_f() if REGULATIONS.is_dir() else []


@pytest.mark.parametrize(("text", "name", "rank", "copies"), RANKING_535_4_F)
def test_535_4_f_individual_ranking_row(text, name, rank, copies):
    tile = parse_tile(text)
    assert (tile.text, tile.name, tile.rank, tile.copies) == (text, name, rank, copies)
    # The name is the number of spots (§ 535.4(f) "Twelve (6-6)").
    assert (
        tile.spots
        == {
            "Two": 2,
            "Three": 3,
            "Four": 4,
            "Five": 5,
            "Six": 6,
            "Seven": 7,
            "Eight": 8,
            "Nine": 9,
            "Ten": 10,
            "Eleven": 11,
            "Twelve": 12,
        }[name]
    )


def test_535_4_f_the_whole_ranking_is_read_from_the_rules_text():
    rows = _ranking_535_4_f()
    assert len(rows) == 21
    assert [row[0] for row in rows] == [tile.text for tile in TILE_KINDS]


def test_535_3_c_set_has_32_tiles_of_21_kinds():
    assert len(TILE_SET) == 32
    assert len(TILE_KINDS) == 21


def test_535_6_a_1_full_set_passes_inspection():
    check_tile_set(TILE_SET)
    check_tile_set(reversed(TILE_SET))


def test_535_6_a_1_missing_tile_is_named():
    short = list(TILE_SET)
    short.remove(parse_tile("2-4"))
    with pytest.raises(RulesError, match=r"missing 2-4"):
        check_tile_set(short)


def test_535_6_a_1_substituted_tile_names_both_the_missing_and_the_surplus():
    swapped = [tile for tile in TILE_SET if tile.text != "1-2"] + [parse_tile("6-6")]
    with pytest.raises(RulesError, match=r"missing 1-2; surplus 6-6"):
        check_tile_set(swapped)


def test_535_6_a_1_thirty_three_tiles_are_refused():
    with pytest.raises(RulesError, match="surplus 4-5"):
        check_tile_set([*TILE_SET, parse_tile("4-5")])


def test_535_6_b_sixteen_inspection_pairs_hold_the_set_once_supreme_pair_first():
    assert len(INSPECTION_PAIRS) == 16
    check_tile_set(tile for hand in INSPECTION_PAIRS for tile in hand.tiles)
    assert INSPECTION_PAIRS[0].rank.pair.name == "Supreme Pair"
    assert [hand.rank.pair.rank for hand in INSPECTION_PAIRS] == list(range(1, 17))


@pytest.mark.parametrize(("text", "expected"), [("6-6", "6-6"), ("5-4", "4-5"), (" 2 - 1 ", "1-2"), ("3-1", "1-3")])
def test_parse_tile_accepts_either_end_first(text, expected):
    assert parse_tile(text).text == expected


@pytest.mark.parametrize("text", ["", "0-1", "7-1", "66", "6-6-6", "a-b", "6_6"])
def test_parse_tile_refuses_what_is_not_a_tile(text):
    with pytest.raises(RulesError, match="expected two spot counts"):
        parse_tile(text)


def test_parse_tiles_round_trips_and_checks_the_count():
    tiles = parse_tiles("6-6,5-4,1-3,2-2", count=4)
    assert tiles_text(tiles) == "6-6,4-5,1-3,2-2"
    with pytest.raises(RulesError, match="expected 4 tiles, got 3"):
        parse_tiles("6-6,4-5,1-3", count=4)


def test_535_4_f_a_single_tile_cannot_appear_twice():
    with pytest.raises(RulesError, match="tile 4-5 appears 2 times; a set holds 1"):
        check_drawable(parse_tiles("4-5,4-5"))
    with pytest.raises(RulesError, match="tile 6-6 appears 3 times; a set holds 2"):
        parse_tiles("6-6,6-6,6-6")
    check_drawable(parse_tiles("6-6,6-6"))


def test_tiles_of_one_kind_are_one_object():
    assert parse_tile("6-6") is parse_tile("6-6")
    assert parse_tile("4-5") == parse_tile("5-4")
    assert parse_tile("4-5") != parse_tile("3-6")


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        ("1-2", ((3, 17), (6, 15))),  # § 535.4(d): as 6 it ranks fifteenth instead of seventeenth
        ("2-4", ((3, 17), (6, 15))),  # § 535.4(d): as 3 it ranks seventeenth instead of fifteenth
        ("6-6", ((12, 1),)),
        ("1-4", ((5, 16),)),
    ],
)
def test_535_4_d_supreme_pair_tiles_count_3_or_6_with_changed_rank(text, counts):
    assert parse_tile(text).counts() == counts
