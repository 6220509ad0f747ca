"""The advantage-play statistic (docs/protection.md, "Detection"): exact, one-sided, its false
alarms bounded by Ville's inequality, and the day's watch that raises each alarm once."""

from __future__ import annotations

import datetime
import random
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.advantage_play import (
    DetectionPolicy,
    Tally,
    Watch,
    e_value,
    exceeds,
    exceeds_exactly,
    kt_probability,
    log_e_value,
    max_likelihood,
    table_day,
)
from firmware_host.rules.gaming_day import GamingDay


@st.composite
def tallies(draw: st.DrawFn, most: int = 200) -> Tally:
    windows = draw(st.integers(0, most))
    outside = draw(st.integers(0, most))
    return Tally(windows, draw(st.integers(0, windows)), outside, draw(st.integers(0, outside)))


levels = st.fractions(min_value=Fraction(1, 10**6), max_value=1).filter(lambda f: f > 0)


def one_sided(tally: Tally) -> Fraction:
    """The statistic an alarm compares: the e-value where the seat bets more in windows, else 0."""
    return e_value(tally) if tally.concentrated else Fraction(0)


def test_kt_and_ml_are_the_products_they_stand_for() -> None:
    # KT: prod over the trials of (successes so far + 1/2) / (trials so far + 1), in any order.
    sequence = [1, 0, 0, 1, 1, 0, 1]
    product, seen, hits = Fraction(1), 0, 0
    for outcome in sequence:
        chance = Fraction(2 * hits + 1, 2 * (seen + 1))
        product *= chance if outcome else 1 - chance
        seen, hits = seen + 1, hits + outcome
    assert kt_probability(4, 7) == product
    assert max_likelihood(4, 7) == Fraction(4, 7) ** 4 * Fraction(3, 7) ** 3
    assert max_likelihood(0, 0) == kt_probability(0, 0) == 1


def test_a_seat_betting_only_in_windows_alarms_after_three_of_them() -> None:
    level = DetectionPolicy().level(6)  # 1/20 over 7 seats x 6 kinds x 2 checks = 1/1680
    assert level == Fraction(1, 1680)
    assert not exceeds(Tally(2, 2, 98, 0), level)  # two windows in 100 rounds: e = 386
    assert exceeds(Tally(3, 3, 147, 0), level)  # three in 150: e = 35,393
    assert not exceeds(Tally(3, 3, 147, 30), level)  # the same seat also betting a fifth of the rest


def test_a_seat_avoiding_windows_never_alarms() -> None:
    tally = Tally(windows=20, bets_in=0, outside=200, bets_out=150)
    assert e_value(tally) > 10**6  # two-sided evidence is large ...
    assert not exceeds(tally, Fraction(1, 2))  # ... but the alarm is one-sided


@settings(max_examples=150, deadline=None)
@given(tallies(), levels)
def test_the_filtered_alarm_is_the_exact_one(tally: Tally, level: Fraction) -> None:
    assert exceeds(tally, level) is exceeds_exactly(tally, level)


@settings(max_examples=200, deadline=None)
@given(tallies(most=120))
def test_the_float_log_is_within_the_filter_margin(tally: Tally) -> None:
    exact = e_value(tally)
    assert abs(log_e_value(tally) - (_ln(exact.numerator) - _ln(exact.denominator))) < 1e-9


def _ln(n: int) -> float:
    import math

    return math.log(n)


@settings(max_examples=150, deadline=None)
@given(tallies(), st.data())
def test_moving_a_bet_into_a_window_never_weakens_the_evidence(tally: Tally, data: st.DataObject) -> None:
    assume(tally.bets_out and tally.bets_in < tally.windows)
    moved = Tally(tally.windows, tally.bets_in + 1, tally.outside, tally.bets_out - 1)
    assert one_sided(moved) >= one_sided(tally)
    level = data.draw(levels)
    assert exceeds(moved, level) or not exceeds(tally, level)


@settings(max_examples=150, deadline=None)
@given(tallies(), levels)
def test_a_bet_more_in_a_window_with_the_rest_unchanged_never_weakens_the_alarm(tally: Tally, level: Fraction) -> None:
    assume(tally.bets_in < tally.windows)
    more = Tally(tally.windows, tally.bets_in + 1, tally.outside, tally.bets_out)
    assert exceeds(more, level) or not exceeds(tally, level)


@settings(max_examples=200, deadline=None)
@given(st.tuples(st.integers(0, 10**5), st.integers(0, 10**5)).map(sorted), st.integers(0, 10**5),
       st.integers(0, 10**5), levels)  # fmt: skip
def test_nothing_valid_raises(windows_and_bets: list[int], outside: int, bets_out: int, level: Fraction) -> None:
    bets_in, windows = windows_and_bets
    tally = Tally(windows, bets_in, max(outside, bets_out), min(outside, bets_out))
    log_e_value(tally)
    exceeds(tally, level)


def test_counts_that_cannot_be_are_refused() -> None:
    for bad in ((1, 2, 0, 0), (0, 0, 1, 2), (-1, 0, 0, 0), (True, 0, 0, 0)):
        with pytest.raises(RulesError):
            Tally(*bad)
    with pytest.raises(RulesError):
        exceeds(Tally(), Fraction(0))


def _false_alarm_chance(windows: list[bool], p: Fraction, level: Fraction) -> Fraction:
    """Exactly: the chance that a card-blind seat betting with chance ``p`` alarms at some round
    of ``windows`` (the chance of every record not yet alarmed, carried round by round)."""
    alive, alarmed = {Tally(): Fraction(1)}, Fraction(0)
    for window in windows:
        after: dict[Tally, Fraction] = {}
        for tally, chance in alive.items():
            for bet, weight in ((True, p), (False, 1 - p)):
                record = tally.add(window, bet)
                if exceeds(record, level):
                    alarmed += chance * weight
                else:
                    after[record] = after.get(record, Fraction(0)) + chance * weight
        alive = after
    return alarmed


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=40),
       st.fractions(min_value=Fraction(1, 50), max_value=Fraction(49, 50)),
       st.fractions(min_value=Fraction(1, 1000), max_value=Fraction(1, 2)))  # fmt: skip
def test_false_alarms_are_bounded_by_the_level_exactly(windows: list[bool], p: Fraction, level: Fraction) -> None:
    # Ville's inequality: over every round of the day, looked at every round.
    assert _false_alarm_chance(windows, p, level) <= level


def test_the_bound_is_not_vacuous() -> None:
    # A short day with many windows and a loose level: a card-blind seat can alarm, within the bound.
    windows = [False, False, False, True, True, True, True, False, True, True, True] * 3
    chance = _false_alarm_chance(windows, Fraction(1, 5), Fraction(1, 4))
    assert Fraction(1, 200) < chance <= Fraction(1, 4)  # 0.0082: universal inference is cautious


# -- the day's watch -------------------------------------------------------------------------------
KINDS = ("banker", "player", "tie", "player_pair", "banker_pair", "lucky_six")
POLICY = DetectionPolicy()


def _play_day(rng: random.Random, shoes: int, counter: int | None) -> tuple[Watch, list]:
    """Shoes of 75 rounds with pair windows late in the shoe; six card-blind seats (seat 7:
    a counter when ``counter`` is 7)."""
    watch, found = Watch.for_kinds(KINDS), []
    for shoe in range(1, shoes + 1):
        for number in range(75):
            window = number > 50 and rng.random() < 0.08
            open_ = ("player_pair", "banker_pair") if window else ()
            wagers = {}
            for seat in range(1, 8):
                if seat == counter:
                    if window:
                        wagers[seat, "player_pair"] = wagers[seat, "banker_pair"] = 25_000
                elif rng.random() < 0.8:
                    kind = rng.choices(KINDS, (45, 40, 8, 3, 3, 1))[0]
                    wagers[seat, kind] = rng.choice((500, 1000, 2500, 5000, 10_000))
            watch, raised = watch.observe(POLICY, 1, shoe, Fraction(number, 80), open_, wagers)
            found += raised
        watch, raised = watch.review(POLICY)
        found += raised
    return watch, found


def test_the_counter_seat_is_flagged_and_the_others_are_not() -> None:
    watch, found = _play_day(random.Random(21), shoes=5, counter=7)
    assert {(e.seat, e.kind) for e in found} == {(7, "player_pair"), (7, "banker_pair")}
    assert {e.check for e in found} == {"presence"}  # tested first; one alarm per seat and kind
    first = found[0]
    assert first.tally.bets_out == 0 and first.tally.bets_in == first.tally.windows >= 3
    assert first.wonging  # late in every shoe, big in a window
    data = first.to_json()
    assert data["seat"] == 7 and data["log10_e_value"] >= data["log10_threshold"]
    assert "seat 7" in first.text() and "wonging" in first.text()
    # Each seat and kind alarms once a day.
    assert len(found) == len(set((e.seat, e.kind) for e in found))


@pytest.mark.parametrize("seed", range(4))
def test_card_blind_seats_are_not_flagged(seed: int) -> None:
    _, found = _play_day(random.Random(seed), shoes=12, counter=None)
    assert found == []


def test_a_new_day_starts_new_records() -> None:
    watch, _ = Watch.for_kinds(KINDS).observe(POLICY, 1, 1, Fraction(0), ("tie",), {(3, "tie"): 500})
    assert watch.tally(3, "tie", "presence") == Tally(1, 1, 0, 0)
    watch, _ = watch.observe(POLICY, 2, 1, Fraction(0), (), {})
    assert watch.tally(3, "tie", "presence") == Tally(0, 0, 1, 0) and watch.day == 2


def test_table_day_starts_at_the_gaming_days_hour() -> None:
    six, day = 6 * 3600, GamingDay(datetime.time(6), "UTC")
    first = table_day(six, day)
    assert table_day(six - 1, day) == first - 1 and table_day(six + 86_400, day) == first + 1


def test_a_seat_that_always_bets_but_big_only_in_windows_is_flagged_by_its_size() -> None:
    watch, found, rng = Watch.for_kinds(KINDS), [], random.Random(5)
    for shoe in range(1, 4):
        for number in range(75):
            window = number > 50 and rng.random() < 0.1
            wagers = {(2, "player_pair"): 50_000 if window else 500}
            watch, raised = watch.observe(POLICY, 1, shoe, Fraction(number, 80), ("player_pair",) if window else (),
                                          wagers)  # fmt: skip
            found += raised
    assert [(e.seat, e.kind, e.check) for e in found] == [(2, "player_pair", "size")]
    assert not found[0].wonging  # it played every shoe from the start
    assert watch.tally(2, "player_pair", "presence").bets_out > 0


def test_the_records_do_not_depend_on_the_order_a_set_of_windows_iterates_in() -> None:
    # A checkpoint restores a frozenset from a sorted list; its iteration order may differ.
    forward = frozenset(["player_pair", "banker_pair", "lucky_six"])
    backward = frozenset(["lucky_six", "banker_pair", "player_pair"])
    one, _ = Watch.for_kinds(KINDS).observe(POLICY, 1, 1, Fraction(0), forward, {})
    two, _ = Watch.for_kinds(KINDS).observe(POLICY, 1, 1, Fraction(0), backward, {})
    assert (
        list(one.windows.items())
        == list(two.windows.items())
        == [("player_pair", 1), ("banker_pair", 1), ("lucky_six", 1)]
    )
