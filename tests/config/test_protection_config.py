"""``[protection]`` of a table profile: exact thresholds, errors naming file, key and why."""

from __future__ import annotations

import datetime
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_host.config.profiles import load_table
from firmware_host.config.protection import PAIGOW_HOUSE_WAY_EDGE, detection_policy
from firmware_host.errors import ProfileError
from firmware_host.rules.baccarat.advantage_play import DetectionPolicy
from firmware_host.rules.gaming_day import GamingDay
from tests.support.table_profiles import GOOD
from tests.support.table_profiles import write_table as _table


def test_without_the_table_the_threshold_is_0_and_the_pai_gow_edge_the_house_way_s(tmp_path: Path) -> None:
    protection = load_table(_table(tmp_path, GOOD)).protection
    assert protection.advantage_threshold == 0
    assert protection.paigow_edge == PAIGOW_HOUSE_WAY_EDGE == Fraction(2582016, 100_000_000)


def test_numbers_are_read_as_the_decimals_written(tmp_path: Path) -> None:
    body = GOOD + "[protection]\nadvantage_threshold = 0.005\npaigow_edge_percent = 1.5\n"
    protection = load_table(_table(tmp_path, body)).protection
    assert protection.advantage_threshold == Fraction(5, 1000)  # not the binary float nearest 0.005
    assert protection.paigow_edge == Fraction(15, 1000)


@pytest.mark.parametrize(
    ("lines", "key", "why"),
    [
        ('advantage_threshold = "high"', "protection.advantage_threshold", "expected a number"),
        ("advantage_threshold = true", "protection.advantage_threshold", "expected a number"),
        ("advantage_threshold = 1.5", "protection.advantage_threshold", "outside -1 (included) to 1 (excluded)"),
        ("paigow_edge_percent = 100", "protection.paigow_edge_percent", "outside -100"),
        ("threshold = 0", "protection.threshold", "unknown key"),
        ("advantage_threshold = nan", "protection.advantage_threshold", "not a finite number"),
        ("advantage_threshold = -inf", "protection.advantage_threshold", "not a finite number"),
    ],
)
def test_a_bad_protection_table_names_file_key_and_why(tmp_path: Path, lines: str, key: str, why: str) -> None:
    path = _table(tmp_path, GOOD + f"[protection]\n{lines}\n")
    with pytest.raises(ProfileError) as caught:
        load_table(path)
    assert (caught.value.path, caught.value.key) == (str(path), key)
    assert why in caught.value.why


@settings(max_examples=30, deadline=None)
@given(value=st.one_of(st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=True)))
def test_any_number_is_taken_exactly_or_refused_by_name(tmp_path_factory: pytest.TempPathFactory, value: float) -> None:
    text = (
        repr(value)
        if not isinstance(value, float) or value == value and abs(value) != float("inf")
        else ("inf" if value > 0 else "-inf")
    )
    path = _table(tmp_path_factory.mktemp("p"), GOOD + f"[protection]\nadvantage_threshold = {text}\n")
    try:
        threshold = load_table(path).protection.advantage_threshold
    except ProfileError as exc:
        assert exc.key == "protection.advantage_threshold" and ("outside" in exc.why or "finite" in exc.why)
    else:
        assert -1 <= threshold < 1 and threshold == Fraction(repr(value))


def test_the_detection_policy_from_a_profile() -> None:
    policy = detection_policy({"alpha": "1/100", "late_share": 0.6, "big_wager": 20_000,
                               "day_starts": "05:30"}, "t.toml")  # fmt: skip
    assert policy == DetectionPolicy(Fraction(1, 100), 20_000, Fraction(3, 5), GamingDay(datetime.time(5, 30), "UTC"))
    for key, value in (("alpha", 2), ("alpha", "x"), ("big_wager", 0), ("late_share", True), ("day_starts", "25:00")):
        with pytest.raises(ProfileError, match=f"protection.{key}"):
            detection_policy({key: value}, "t.toml")
