"""``[sim.players]`` and the detection keys of ``[protection]`` reach the simulated dealer and the table."""

from __future__ import annotations

import datetime
from fractions import Fraction
from pathlib import Path

import pytest

from firmware_host.config.profiles import load_table
from firmware_host.errors import ProfileError
from firmware_host.rules.baccarat.cards import parse_cards
from firmware_host.rules.gaming_day import GamingDay
from firmware_host.wiring import baccarat as wiring
from firmware_host.wiring.simulated import sim_players
from sim.dealers.counter import CardCounter
from tests.support.paths import REPO

COUNTERS = REPO / "hardware-profiles" / "tables" / "sim-baccarat-counters.toml"


def test_the_counters_profile_seats_a_counter_at_ten_times_the_minimum() -> None:
    profile = load_table(COUNTERS)
    table = wiring.controller(profile)
    players = sim_players(profile, table.rules)
    assert players["counters"] == (3,) and players["counter_stake"] == 25_000
    assert isinstance(players["counter"], CardCounter) and players["counter"].decks == profile.decks
    assert {"player_pair", "banker_pair", "lucky_six"} <= table.rules.offered_wagers


def test_a_profile_without_counters_gives_the_dealer_nothing_new() -> None:
    profile = load_table(REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml")
    assert sim_players(profile, wiring.controller(profile).rules) == {}


def _with(tmp_path: Path, extra: str) -> Path:
    text = COUNTERS.read_text() + extra
    (tmp_path / "tables").mkdir()
    (tmp_path / "devices").symlink_to(REPO / "hardware-profiles" / "devices")
    path = tmp_path / "tables" / "t.toml"
    path.write_text(text)
    return path


def test_the_detection_keys_reach_the_table(tmp_path: Path) -> None:
    path = _with(
        tmp_path, '[protection]\nalpha = "1/100"\nbig_wager = 20000\nlate_share = 0.75\nday_starts = "04:00"\n'
    )
    policy = wiring.controller(load_table(path)).advantage_play.policy
    assert (policy.alpha, policy.big_wager, policy.late_share, policy.gaming_day) == \
        (Fraction(1, 100), 20_000, Fraction(3, 4), GamingDay(datetime.time(4), "UTC"))  # fmt: skip


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("alpha = 1", "protection.alpha"),
        ('alpha = "a/b"', "protection.alpha"),
        ("big_wager = 2.5", "protection.big_wager"),
        ('day_starts = "6"', "protection.day_starts"),
    ],
)
def test_a_wrong_detection_key_is_named(tmp_path: Path, line: str, key: str) -> None:
    with pytest.raises(ProfileError) as caught:
        load_table(_with(tmp_path, f"[protection]\n{line}\n"))
    assert caught.value.key == key


def test_a_counter_resumed_mid_shoe_knows_the_cards_the_table_had_shown() -> None:
    profile = load_table(COUNTERS)
    shown = parse_cards("AH KD 9S 9C")
    counter = sim_players(profile, wiring.controller(profile).rules, shown)["counter"]
    assert list(counter.seen) == shown
