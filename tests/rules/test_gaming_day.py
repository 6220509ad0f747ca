"""The one gaming day (firmware_host/rules/gaming_day.py): its start in its time zone."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_host.errors import RulesError
from firmware_host.rules.gaming_day import GamingDay

UTC = datetime.UTC


def at(text: str) -> float:
    return datetime.datetime.fromisoformat(text).timestamp()


def test_a_day_starts_at_its_hour_in_its_zone() -> None:
    day = GamingDay(datetime.time(6), "America/New_York")
    assert day.of(at("2026-07-02T09:59:59+00:00")) == datetime.date(2026, 7, 1)  # 05:59:59 EDT
    assert day.of(at("2026-07-02T10:00:00+00:00")) == datetime.date(2026, 7, 2)  # 06:00 EDT
    assert day.of(at("2026-12-02T10:59:59+00:00")) == datetime.date(2026, 12, 1)  # 05:59:59 EST
    assert GamingDay().of(at("2026-12-02T06:00:00+00:00")) == datetime.date(2026, 12, 2)  # 06:00 UTC by default


@given(st.floats(min_value=0, max_value=4e9), st.integers(min_value=0, max_value=23))
def test_every_moment_is_in_the_day_that_started_last(moment: float, hour: int) -> None:
    day = GamingDay(datetime.time(hour), "UTC")
    start = datetime.datetime.combine(day.of(moment), datetime.time(hour), UTC).timestamp()
    assert start <= moment < start + 86400
    assert day.number(moment) == day.of(moment).toordinal()


@pytest.mark.parametrize("zone", ["Mars/Olympus", "../etc/passwd", ""])
def test_an_unknown_zone_is_refused(zone: str) -> None:
    with pytest.raises(RulesError, match="time zone"):
        GamingDay(datetime.time(6), zone)
