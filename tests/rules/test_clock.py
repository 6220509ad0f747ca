"""The span arithmetic of the compliance limits (firmware_host/rules/clock.py): monotonic within
a boot, the synchronised wall clock across a reboot, unknown (the limit reached) otherwise."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from firmware_host.rules.clock import NS, Instant, hours_ns, left_ns, reached, seconds_ns, span
from firmware_host.rules.paigow_dice.dice import dice_clock
from firmware_host.rules.shuffler import ShufflerConfig, deck_clock, idle_due, idle_table, new_state, on_batch_loaded

walls = st.floats(min_value=0, max_value=4e9, allow_nan=False)
monos = st.integers(min_value=0, max_value=2**62)
steps = st.floats(min_value=-4e7, max_value=4e7, allow_nan=False)  # a year back to a year forward
boots = st.sampled_from(["a", "b"])


@given(walls, monos, st.integers(min_value=0, max_value=2**60), steps, st.booleans(), st.booleans())
def test_535_5_c_within_a_boot_the_span_is_the_monotonic_clocks_whatever_the_wall_clock_did(
    wall: float, mono: int, elapsed: int, step: float, synced_then: bool, synced_now: bool
) -> None:
    start = Instant(wall, mono, "a", synced_then)
    end = Instant(wall + step, mono + elapsed, "a", synced_now)
    assert span(start, end).ns == elapsed and span(start, end).basis == "monotonic"


@given(walls, monos, monos, st.integers(min_value=0, max_value=2**50))
def test_541_3_c_across_a_reboot_a_wall_clock_synchronised_at_both_ends_counts(
    wall: float, mono_then: int, mono_now: int, elapsed: int
) -> None:
    later = float(Fraction(wall) + Fraction(elapsed, NS))
    measured = span(Instant(wall, mono_then, "a", True), Instant(later, mono_now, "b", True))
    assert measured.basis == "wall-synchronised" and measured.ns == round((Fraction(later) - Fraction(wall)) * NS)


@given(walls, monos, monos, steps, st.sampled_from([(True, False), (False, True), (False, False), (None, True)]))
def test_535_5_c_across_a_reboot_an_unsynchronised_end_makes_the_span_unknown_and_the_limit_reached(
    wall: float, mono_then: int, mono_now: int, step: float, synced: tuple[bool | None, bool]
) -> None:
    measured = span(Instant(wall, mono_then, "a", synced[0]), Instant(wall + step, mono_now, "b", synced[1]))
    assert measured.ns is None and measured.basis == "unknown" and measured.reason
    assert reached(measured, hours_ns(24)) and left_ns(measured, hours_ns(24)) == 0


@given(walls, st.floats(min_value=0, max_value=1e6, allow_nan=False))
def test_a_stamp_without_the_monotonic_clock_measures_on_the_wall_stamps_as_before(wall: float, gap: float) -> None:
    later = wall + gap
    measured = span(Instant(wall), Instant(later, 5, "a", True))
    assert measured.basis == "wall-recorded" and measured.ns == round((Fraction(later) - Fraction(wall)) * NS)


@given(st.integers(min_value=0, max_value=2**62), st.integers(min_value=1, max_value=2**62))
def test_a_limit_is_reached_at_exactly_its_length(elapsed: int, limit: int) -> None:
    measured = span(Instant(0.0, 0, "a"), Instant(0.0, elapsed, "a"))
    assert reached(measured, limit) == (elapsed >= limit)
    assert left_ns(measured, limit) == limit - elapsed


def test_535_5_c_the_dice_clock_ignores_a_wall_clock_stepped_three_days_forward_or_a_year_back() -> None:
    registered = Instant(1.75e9, 10 * NS, "a", True)
    for step in (3 * 86400.0, -365 * 86400.0):
        clock = dice_clock(registered, Instant(1.75e9 + step, 10 * NS + 3600 * NS, "a", True))
        assert (clock.state, clock.seconds_left) == ("ok", 23 * 3600.0)
    assert dice_clock(registered, Instant(1.75e9, 10 * NS + hours_ns(24), "a", False)).state == "expired"


def test_541_3_c_the_deck_clock_runs_on_the_monotonic_clock_and_an_unknown_span_is_overdue() -> None:
    state = on_batch_loaded(new_state(ShufflerConfig()), "A", 8, "red", Instant(1.75e9, 0, "a", False)).state
    (clock,) = deck_clock(state, Instant(1.75e9 + 3 * 86400, 60 * NS, "a", False))
    assert (clock.status, clock.remaining_s) == ("ok", 4 * 3600 - 60.0)
    (rebooted,) = deck_clock(state, Instant(1.75e9 + 60, 5 * NS, "b", True))
    assert rebooted.status == "expired" and rebooted.reason is not None
    notice = rebooted.notice()
    assert notice is not None and notice.code == "deck-clock-expired" and "not synchronised" in notice.text


def test_541_5_h_2_an_idle_span_that_cannot_be_known_ends_the_shoe_and_says_why() -> None:
    state = new_state(ShufflerConfig())
    state = dataclasses.replace(state, in_play="A", last_activity=Instant(1.75e9, 0, "a", False))
    now = Instant(1.75e9 + 5, 5 * NS, "b", True)
    assert idle_due(state, now)
    (notice,) = idle_table(state, now).notices
    assert notice.code == "idle-table" and "not synchronised then" in notice.text and "taken as idle" in notice.text
    assert not idle_due(state, Instant(1.75e9 + 3 * 86400, 5 * NS, "a", False))  # a step is not idleness


@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12), walls)
def test_wall_stamps_convert_exactly(seconds: float, other: float) -> None:
    assert seconds_ns(seconds) == round(Fraction(seconds) * NS)
    assert hours_ns(seconds) == round(Fraction(seconds) * 3600 * NS)
    measured = span(Instant(other), Instant(seconds, 1, "a"))
    exact = round((Fraction(seconds) - Fraction(other)) * NS)
    assert measured.ns == (exact if exact >= 0 else None)
