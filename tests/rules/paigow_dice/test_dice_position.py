"""Starting position: § 535.8(c) (dealer counted as one) and § 535.11(j), § 621a.9(j) (bank as one)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.position import (
    TABLE_ORDER,
    following,
    label,
    parse_position,
    starting_position,
)

# Worked by hand, counting on a drawing of the table: counterclockwise from the dealer come
# positions 1..6, then the Dead Hand (on the dealer's left, § 535.2(b)(2)), then the dealer.
# Columns are the dice totals 3..18; "D" is the dealer, "X" the Dead Hand.
HAND_WORKED = """
bank   3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18
none   2 3 4 5 6 X D 1  2  3  4  5  6  X  D  1
1      3 4 5 6 X D 1 2  3  4  5  6  X  D  1  2
2      4 5 6 X D 1 2 3  4  5  6  X  D  1  2  3
3      5 6 X D 1 2 3 4  5  6  X  D  1  2  3  4
4      6 X D 1 2 3 4 5  6  X  D  1  2  3  4  5
5      X D 1 2 3 4 5 6  X  D  1  2  3  4  5  6
6      D 1 2 3 4 5 6 X  D  1  2  3  4  5  6  X
"""


def _hand_worked_cases() -> list[tuple[int | None, int, object]]:
    header, *rows = HAND_WORKED.strip().splitlines()
    totals = [int(t) for t in header.split()[1:]]
    symbol = {"D": "dealer", "X": "dead"}
    cases = []
    for row in rows:
        bank, *cells = row.split()
        for dice_total, cell in zip(totals, cells, strict=True):
            expected = symbol.get(cell) or int(cell)
            cases.append((None if bank == "none" else int(bank), dice_total, expected))
    return cases


@pytest.mark.parametrize(("bank_seat", "dice_total", "expected"), _hand_worked_cases())
def test_535_8_c_and_535_11_j_every_total_with_every_bank_seat(bank_seat, dice_total, expected):
    assert starting_position(dice_total, bank_seat) == expected


def test_hand_worked_table_covers_every_total_and_bank_seat():
    cases = _hand_worked_cases()
    assert len(cases) == 16 * 7
    assert {(b, t) for b, t, _ in cases} == {(b, t) for b in (None, 1, 2, 3, 4, 5, 6) for t in range(3, 19)}


def test_535_8_c_1_total_9_goes_to_the_dealer():
    assert starting_position(9, None) == "dealer"


def test_535_8_c_2_total_15_goes_to_position_6():
    assert starting_position(15, None) == 6


def test_535_11_j_bank_is_counted_as_one_so_total_8_returns_to_the_bank():
    assert all(starting_position(8 + 1, seat) == seat for seat in range(1, 7))
    assert all(starting_position(17, seat) == seat for seat in range(1, 7))


def test_535_11_j_count_passes_the_dead_hand_before_the_dealer():
    # Bank at 6: 6 is one, the Dead Hand two, the dealer three.
    assert [starting_position(t, 6) for t in (3, 10)] == ["dealer", "dead"]


@pytest.mark.parametrize("bad_total", [0, 1, 2, 19, 24, -3, True, 9.0, "9"])
def test_impossible_total_is_a_rules_error(bad_total):
    with pytest.raises(RulesError, match="total"):
        starting_position(bad_total, None)


@pytest.mark.parametrize("bad_seat", [0, 7, -1, True, "3", 2.0])
def test_bank_seat_outside_1_to_6_is_a_rules_error(bad_seat):
    with pytest.raises(RulesError, match="bank seat"):
        starting_position(9, bad_seat)


@given(st.integers(3, 18), st.one_of(st.none(), st.integers(1, 6)))
def test_start_is_always_a_table_position_and_total_plus_8_is_the_same(dice_total, bank_seat):
    start = starting_position(dice_total, bank_seat)
    assert start in TABLE_ORDER
    if dice_total + 8 <= 18:
        assert starting_position(dice_total + 8, bank_seat) == start
    assert following(start, 8) == start


def test_labels_round_trip_and_reject_unknown():
    assert [label(p) for p in TABLE_ORDER] == ["dealer", "1", "2", "3", "4", "5", "6", "dead"]
    assert all(parse_position(label(p)) == p for p in TABLE_ORDER)
    with pytest.raises(RulesError, match="position '7'"):
        parse_position("7")
