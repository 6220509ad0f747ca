"""The Baccarat roads (issue 14): worked examples from the rule, and its properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.roads import (
    DERIVED,
    GRID_ROWS,
    Outcome,
    RoadBuilder,
    big_road_grid,
    derived_mark,
    outcome_from_json,
    roads,
)


def shoe(text: str) -> list[Outcome]:
    """``"B P T"`` as outcomes (``b``/``p`` lower case: with a banker/player pair)."""
    names = {"B": "banker", "P": "player", "T": "tie"}
    return [
        Outcome(names[word[0].upper()], player_pair="p" in word[1:], banker_pair="b" in word[1:])
        for word in text.split()
    ]


outcomes = st.lists(
    st.builds(Outcome, st.sampled_from(["banker", "player", "tie"]), st.booleans(), st.booleans(), st.booleans()),
    max_size=90,
)


# -- worked examples ---------------------------------------------------------------------


def test_bead_plate_keeps_every_round_in_columns_of_six() -> None:
    road = roads(shoe("B P T B B P T"))
    assert road.bead_plate == (("B", "P", "T", "B", "B", "P"), ("T",))
    assert road.rounds == 7


def test_ties_go_on_the_current_cell_and_leading_ties_on_the_first() -> None:
    road = roads(shoe("T T B P T T T P"))
    assert [[(c.winner, c.ties) for c in column] for column in road.big_road] == [
        [("banker", 2)],
        [("player", 3), ("player", 0)],
    ]


def test_pair_marks_go_on_the_cell() -> None:
    road = roads(shoe("Bp P Tb"))
    first, second = road.big_road[0][0], road.big_road[1][0]
    assert (first.player_pair, first.banker_pair) == (True, False)
    assert (second.player_pair, second.banker_pair, second.ties) == (False, True, 1)


def test_a_dragon_tail_is_one_column() -> None:
    road = roads(shoe("B " * 9 + "P"))
    assert [len(column) for column in road.big_road] == [9, 1]
    grid = big_road_grid(road.big_road)
    assert grid[0] == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (1, 5), (2, 5), (3, 5)]
    assert grid[1] == [(1, 0)]


def test_a_column_turns_above_a_tail_it_meets() -> None:
    grid = big_road_grid([[1] * 8, [1] * 7])
    assert grid[1][-3:] == [(1, 4), (2, 4), (3, 4)]  # row 5 is the first column's tail


def test_big_eye_boy_compares_with_column_zero() -> None:
    # B P P: the second player cell is at c=1, r=1 = k; p = len(column 0) = 1, r == p: blue.
    # The third player cell, r=2 > p: red (one implementation marks it blue, against the rule).
    assert roads(shoe("B P P")).derived["big_eye_boy"] == (("blue",),)
    assert roads(shoe("B P P P")).derived["big_eye_boy"] == (("blue",), ("red",))


def test_first_cell_of_a_column_compares_the_two_columns_before() -> None:
    # B B P B: the last cell is c=2, r=0; columns 1 and 0 are 1 and 2 long: blue.
    assert roads(shoe("B B P B")).derived["big_eye_boy"] == (("blue",),)
    # B P B P: equal lengths each time: red, red (one column of reds).
    assert roads(shoe("B P B P")).derived["big_eye_boy"] == (("red", "red"),)


def test_each_derived_road_starts_at_its_own_column() -> None:
    road = roads(shoe("B P B P B P"))  # six columns of one: every mark red
    assert road.derived == {
        "big_eye_boy": (("red",) * 4,),
        "small_road": (("red",) * 3,),
        "cockroach_pig": (("red",) * 2,),
    }


def test_ask_the_road() -> None:
    road = roads(shoe("B P P"))
    # Banker next: a new column, c=2, r=0: columns 1 (3 long) and 0 (1 long) differ: blue.
    assert road.next["banker"] == {"big_eye_boy": "blue", "small_road": None, "cockroach_pig": None}
    # Player next: c=1, r=3 > p=1: red.
    assert road.next["player"] == {"big_eye_boy": "red", "small_road": None, "cockroach_pig": None}


def test_empty_shoe() -> None:
    road = roads([]).to_json_dict()
    assert road["big_road"] == [] and road["bead_plate"] == [] and road["rounds"] == 0
    assert road["next"]["banker"] == {"big_eye_boy": None, "small_road": None, "cockroach_pig": None}


def test_derived_mark_needs_the_columns_before() -> None:
    assert derived_mark([1], 1) is None
    assert derived_mark([1, 1], 1) is None  # c = k, r = 0
    assert derived_mark([1, 2], 1) == "blue"  # c = k, r = 1 = p
    assert derived_mark([2, 2, 1], 1) == "red"


def test_outcome_from_json_skips_void_rounds_and_names_bad_winners() -> None:
    assert outcome_from_json({"status": "void", "winner": None}) is None
    assert outcome_from_json({"winner": "banker", "natural": True}) == Outcome("banker", natural=True)
    with pytest.raises(RulesError, match="'dragon'"):
        outcome_from_json({"winner": "dragon"})


def test_counts() -> None:
    counts = roads([Outcome("banker", True, False, True), Outcome("tie", False, True), Outcome("player")]).counts
    assert counts == {"banker": 1, "player": 1, "tie": 1, "player_pair": 1, "banker_pair": 1, "natural": 1}


# -- properties ----------------------------------------------------------------------------


@given(outcomes, st.data())
def test_a_tie_changes_no_derived_road(shoe_outcomes: list[Outcome], data: st.DataObject) -> None:
    at = data.draw(st.integers(0, len(shoe_outcomes)))
    with_tie = shoe_outcomes[:at] + [Outcome("tie")] + shoe_outcomes[at:]
    before, after = roads(shoe_outcomes), roads(with_tie)
    assert after.derived == before.derived
    assert after.next == before.next


@given(outcomes)
def test_each_derived_road_has_one_mark_per_cell_from_its_start(shoe_outcomes: list[Outcome]) -> None:
    road = roads(shoe_outcomes)
    for name, k in DERIVED.items():
        due = sum(
            1 for c, column in enumerate(road.big_road) for r in range(len(column)) if (c == k and r >= 1) or c > k
        )
        assert sum(map(len, road.derived[name])) == due


@given(outcomes)
def test_derived_columns_are_one_colour_and_alternate(shoe_outcomes: list[Outcome]) -> None:
    for columns in roads(shoe_outcomes).derived.values():
        assert all(len(set(column)) == 1 for column in columns)
        assert all(a[0] != b[0] for a, b in zip(columns, columns[1:]))


@given(outcomes)
def test_big_road_holds_every_round(shoe_outcomes: list[Outcome]) -> None:
    road = roads(shoe_outcomes)
    wins = [o for o in shoe_outcomes if o.winner != "tie"]
    cells = [cell for column in road.big_road for cell in column]
    assert [cell.winner for cell in cells] == [o.winner for o in wins]
    assert sum(cell.ties for cell in cells) == (road.counts["tie"] if wins else 0)
    assert all(len({cell.winner for cell in column}) == 1 for column in road.big_road)
    assert all(a[0].winner != b[0].winner for a, b in zip(road.big_road, road.big_road[1:]))
    assert sum(map(len, road.bead_plate)) == len(shoe_outcomes)
    assert all(len(column) <= 6 for column in road.bead_plate)


@given(outcomes, st.sampled_from(["banker", "player"]))
def test_ask_the_road_is_what_the_next_round_does(shoe_outcomes: list[Outcome], side: str) -> None:
    builder = RoadBuilder()
    for outcome in shoe_outcomes:
        builder.add(outcome)
    asked = builder.roads()
    builder.add(Outcome(side))
    after = builder.roads()
    for name in DERIVED:
        grew = sum(map(len, after.derived[name])) - sum(map(len, asked.derived[name]))
        assert (asked.next[side][name] is not None) == (grew == 1)
        if grew:
            assert after.derived[name][-1][-1] == asked.next[side][name]


@given(outcomes)
def test_the_grid_draws_every_cell_once_inside_six_rows(shoe_outcomes: list[Outcome]) -> None:
    columns = roads(shoe_outcomes).big_road
    grid = big_road_grid(columns)
    spots = [spot for column in grid for spot in column]
    assert len(spots) == len(set(spots)) == sum(map(len, columns))
    assert all(0 <= y < GRID_ROWS for _, y in spots)
    for column in grid:  # each step is one down or one right
        assert all((x2 - x1, y2 - y1) in ((0, 1), (1, 0)) for (x1, y1), (x2, y2) in zip(column, column[1:]))
