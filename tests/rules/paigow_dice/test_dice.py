"""Dice readings: valid roll, no roll (§ 535.12(a),(b)), invalid reading; the clock (§ 535.5(c))."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.dice import (
    INVALID_READING,
    NO_ROLL_DIE_OUT,
    NO_ROLL_NOT_FLAT,
    DieReading,
    dice_clock,
    parse_dice,
    total,
    validate_reading,
)


def flat(*faces: int) -> tuple[DieReading, ...]:
    return tuple(DieReading(face, True) for face in faces)


def test_three_flat_dice_are_a_valid_roll_with_their_total():
    verdict = validate_reading(flat(3, 5, 1), 3)
    assert (verdict.valid, verdict.reason, verdict.total, verdict.no_roll) == (True, None, 9, False)
    assert verdict.text == "3+5+1 = 9"


def test_535_12_a_a_die_not_flat_is_a_no_roll():
    dice = (DieReading(3, True), DieReading(5, False), DieReading(1, True))
    verdict = validate_reading(dice, 3)
    assert (verdict.valid, verdict.reason, verdict.no_roll, verdict.section) == (
        False,
        NO_ROLL_NOT_FLAT,
        True,
        "535.12(a)",
    )
    assert verdict.total is None
    assert "die 2 not flat" in verdict.text


def test_535_12_a_a_cocked_die_has_no_face_so_its_face_is_not_checked():
    dice = (DieReading(3, True), DieReading(0, False), DieReading(1, True))
    assert validate_reading(dice, 3).reason == NO_ROLL_NOT_FLAT


@pytest.mark.parametrize("in_shaker", [0, 1, 2])
def test_535_12_b_a_die_out_of_the_shaker_is_a_no_roll(in_shaker):
    verdict = validate_reading(flat(*[4] * in_shaker), in_shaker)
    assert (verdict.valid, verdict.reason, verdict.no_roll, verdict.section) == (
        False,
        NO_ROLL_DIE_OUT,
        True,
        "535.12(b)",
    )


def test_535_12_b_die_out_is_reported_before_a_die_not_flat():
    assert validate_reading((DieReading(4, False), DieReading(2, True)), 2).reason == NO_ROLL_DIE_OUT


@pytest.mark.parametrize(
    ("dice", "in_shaker", "why"),
    [
        (flat(3, 7, 1), 3, "face 7"),
        (flat(0, 2, 1), 3, "face 0"),
        (flat(1, 2, 3, 4), 4, "4 dice"),
        (flat(1, 2, 3), 4, "4 dice"),
        (flat(1, 2), 3, "2 dice read but 3"),
        (flat(1, 2, 3), -1, "not a count"),
        (flat(1, 2, 3), True, "not a count"),
        ((DieReading(True, True), DieReading(2, True), DieReading(3, True)), 3, "face True"),
        (("3", DieReading(2, True), DieReading(3, True)), 3, "not a die reading"),
    ],
)
def test_impossible_readings_are_invalid_not_a_no_roll(dice, in_shaker, why):
    verdict = validate_reading(dice, in_shaker)
    assert (verdict.valid, verdict.reason, verdict.no_roll, verdict.total) == (False, INVALID_READING, False, None)
    assert why in verdict.text


def test_verdict_json_for_the_journal_rolls():
    assert validate_reading(flat(6, 6, 6), 3).to_json_dict() == {
        "valid": True,
        "reason": None,
        "section": None,
        "text": "6+6+6 = 18",
        "total": 18,
    }
    assert validate_reading(flat(6, 6), 2).to_json_dict()["section"] == "535.12(b)"


@given(st.lists(st.integers(1, 6), min_size=3, max_size=3))
def test_total_is_the_sum_of_three_flat_faces(faces):
    assert total(flat(*faces)) == sum(faces) == validate_reading(flat(*faces), 3).total


@pytest.mark.parametrize("dice", [flat(1, 2), flat(1, 2, 9), (DieReading(1, False),) + flat(2, 3)])
def test_total_of_anything_but_a_valid_roll_is_a_rules_error(dice):
    with pytest.raises(RulesError, match="dice have no total"):
        total(dice)


def test_parse_dice():
    assert parse_dice("3, 5,1") == flat(3, 5, 1)
    for bad, why in [
        ("3,5", "exactly 3"),
        ("3,5,1,2", "exactly 3"),
        ("3,7,1", "'7' is not a face"),
        ("3,x,1", "'x'"),
        ("3,²,1", "'²'"),
        ("", "exactly 3"),
        ("3,-1,2", "'-1'"),
    ]:
        with pytest.raises(RulesError, match=why):
            parse_dice(bad)


HOUR = 3600.0


def test_535_5_c_dice_clock_ok_warn_expired():
    assert dice_clock(None, 10.0).state == "unregistered"
    assert not dice_clock(None, 10.0).may_start_round
    ok = dice_clock(0.0, 22 * HOUR, warning_minutes=60)
    assert (ok.state, ok.seconds_left, ok.may_start_round) == ("ok", 2 * HOUR, True)
    warn = dice_clock(0.0, 23 * HOUR, warning_minutes=60)
    assert (warn.state, warn.may_start_round) == ("warn", True)


def test_535_5_c_dice_clock_expires_at_exactly_24_hours():
    assert dice_clock(100.0, 100.0 + 24 * HOUR - 1).state == "ok"
    expired = dice_clock(100.0, 100.0 + 24 * HOUR)
    assert (expired.state, expired.seconds_left, expired.may_start_round) == ("expired", 0.0, False)


def test_dice_clock_honours_a_stricter_casino_limit():
    assert dice_clock(0.0, 12 * HOUR, max_hours=12).state == "expired"


def test_535_5_c_a_wall_clock_earlier_than_the_registration_takes_the_dice_as_expired():
    # Stamps without the monotonic clock (an earlier version's) measure on the wall clock; one
    # that went back cannot say how long the dice have been out: the limit is taken as reached.
    clock = dice_clock(50.0, 10.0)
    assert (clock.state, clock.may_start_round) == ("expired", False)
    assert clock.reason is not None and "earlier" in clock.reason
