"""Hardware profiles: every shipped profile loads, and a broken one names file, key and why."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from drivers import dialects
from drivers.codecs import shoe_framed
from firmware_host.config.profiles import ROTATE_MB, load_device_model, load_table
from firmware_host.errors import ProfileError
from firmware_host.rules.gaming_day import GamingDay
from tests.support.paths import REPO
from tests.support.table_profiles import GOOD
from tests.support.table_profiles import write_table as _table

ROOT = REPO / "hardware-profiles"


@pytest.mark.parametrize("path", sorted((ROOT / "tables").glob("*.toml")), ids=lambda p: p.name)
def test_every_shipped_table_profile_loads(path: Path) -> None:
    profile = load_table(path)
    assert profile.table_id
    assert profile.devices


@pytest.mark.parametrize("path", sorted((ROOT / "devices").glob("*.toml")), ids=lambda p: p.name)
def test_every_shipped_device_model_loads(path: Path) -> None:
    model = load_device_model(path)
    assert model.approved.models and model.approved.firmware


@pytest.mark.parametrize(
    ("body", "key", "why"),
    [
        (GOOD.replace('game = "baccarat"', 'game = "poker"'), "table.game", "'poker' is not one of"),
        (GOOD.replace('id = "T1"\n', ""), "table.id", "missing"),
        (GOOD.replace('port = "sim"', "port = 5"), "devices.shoe.port", "expected a string"),
        (GOOD.replace("tablehost-ts8-2026", "nope-0"), "devices.shoe.model", "no device model file"),
        (GOOD + "[gpio]\nlamp = { green = 5, red = 5 }\n", "gpio.(pins)", "GPIO5 is assigned twice"),
        (GOOD + "[gpio]\nbuttons = { reveal = 40 }\n", "gpio.buttons.reveal", "outside 0..27"),
        (GOOD + "[table2]\n", "table2", "unknown key"),
        (GOOD.replace("[devices.shoe]", "[devices.shoe]\nbaud = 3"), "devices.shoe.baud", "unknown key"),
        (
            GOOD.replace('model = "tablehost-ts8-2026"', 'model = "tablehost-ds3-2026"'),
            "devices.shoe.model",
            "a shaker does not belong at a baccarat table",
        ),
        ("[table\n", "(syntax)", "not valid TOML"),
        (GOOD + "[clock]\nstep_tolerance_s = 0\n", "clock.step_tolerance_s", "must be positive"),
        (GOOD + "[clock]\nstep_tolerance_s = nan\n", "clock.step_tolerance_s", "up to 3600"),
        (GOOD + "[clock]\nstep_tolerance_s = 7200\n", "clock.step_tolerance_s", "up to 3600"),
        (GOOD + "[clock]\nstep = 1\n", "clock.step", "unknown key"),
        (GOOD + '[gaming_day]\ntime_zone = "Mars/Olympus"\n', "gaming_day.time_zone", "no such IANA time zone"),
        (GOOD + '[gaming_day]\nstarts = "6 am"\n', "gaming_day.starts", "not a time of day"),
        (
            GOOD + '[gaming_day]\nstarts = "05:00"\n[journal]\ngaming_day_starts = "04:00"\n',
            "gaming_day.starts",
            "differs from journal.gaming_day_starts",
        ),
    ],
)
def test_broken_table_profile_names_file_key_and_why(tmp_path: Path, body: str, key: str, why: str) -> None:
    path = _table(tmp_path, body)
    with pytest.raises(ProfileError) as caught:
        load_table(path)
    assert caught.value.path == str(path)
    assert caught.value.key == key
    assert why in caught.value.why


def test_the_clock_step_tolerance_is_two_seconds_unless_the_profile_says(tmp_path: Path) -> None:
    for folder, body, tolerance in (
        ("a", GOOD, 2_000_000_000),
        ("b", GOOD + "[clock]\nstep_tolerance_s = 0.5\n", 500_000_000),
    ):
        (tmp_path / folder).mkdir()
        assert load_table(_table(tmp_path / folder, body)).clock.step_tolerance_ns == tolerance


def test_the_gaming_day_is_defined_once_and_its_older_spellings_give_its_start(tmp_path: Path) -> None:
    bodies = {
        "default": (GOOD, GamingDay()),
        "own": (GOOD + '[gaming_day]\nstarts = "05:30"\ntime_zone = "Europe/London"\n',
                GamingDay(datetime.time(5, 30), "Europe/London")),
        "journal": (GOOD + '[journal]\ngaming_day_starts = "04:00"\n', GamingDay(datetime.time(4), "UTC")),
        "protection": (GOOD + '[protection]\nday_starts = "07:00"\n', GamingDay(datetime.time(7), "UTC")),
    }  # fmt: skip
    for folder, (body, day) in bodies.items():
        (tmp_path / folder).mkdir()
        assert load_table(_table(tmp_path / folder, body)).gaming_day == day, folder


def test_missing_profile_file_is_a_profile_error(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="no such file"):
        load_table(tmp_path / "absent.toml")


def test_usb_device_model_needs_its_ids(tmp_path: Path) -> None:
    path = tmp_path / "x-usb.toml"
    path.write_text(
        '[device]\nkind = "shuffler"\nvendor = "x"\nmodel = "X"\ntransport = "usb"\ndialect = "usb-framed"\n'
        '[approved]\nmodels = ["X"]\nfirmware = ["1"]\n'
    )
    with pytest.raises(ProfileError, match="device.usb_vendor_id: a USB device needs"):
        load_device_model(path)


def _shoe_model(tmp_path: Path, dialect: str) -> Path:
    path = tmp_path / "x-shoe.toml"
    path.write_text(
        f'[device]\nkind = "shoe"\nvendor = "x"\nmodel = "X"\ntransport = "serial"\ndialect = "{dialect}"\n'
        '[approved]\nmodels = ["X"]\nfirmware = ["1"]\n'
    )
    return path


def test_shoe_dialects_are_the_drivers_registry_and_an_unknown_one_is_named(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=r"device\.dialect: 'morse' is not one of framed, ascii$"):
        load_device_model(_shoe_model(tmp_path, "morse"))
    dialects.register(dialects.ShoeDialect("vendor-x", framer=shoe_framed.FRAMER))
    try:
        assert load_device_model(_shoe_model(tmp_path, "vendor-x")).dialect == "vendor-x"
    finally:
        dialects.unregister("vendor-x")


def test_sim_players_name_the_counting_seats_and_the_minimum(tmp_path: Path) -> None:
    path = _table(
        tmp_path, GOOD + "[sim.players]\ncounters = [3, 5]\n[display]\nlimits = { min = 1000, max = 50000 }\n"
    )
    players = load_table(path).players
    assert players.counters == (3, 5) and players.minimum == 1000  # the display's table minimum


@pytest.mark.parametrize(
    ("players", "why"),
    [
        ("counters = [8]", "seat number 1 to 7"),
        ("counters = [3, 3]", "named twice"),
        ('counters = "3"', "expected a list of seat numbers"),
        ("counters = [true]", "seat number 1 to 7"),
        ("minimum = 0", "outside 1..10000000"),
        ("seats = 3", "unknown key"),
    ],
)
def test_broken_sim_players_name_the_key(tmp_path: Path, players: str, why: str) -> None:
    path = _table(tmp_path, GOOD + f"[sim.players]\n{players}\n")
    with pytest.raises(ProfileError) as caught:
        load_table(path)
    assert caught.value.key.startswith("sim.players.") and why in caught.value.why


@pytest.mark.parametrize(
    ("journal", "rotate_bytes"),
    [("", int(ROTATE_MB * 1_000_000)), ("rotate_mb = 2.5", 2_500_000), ("rotate_mb = 0", None)],
)
def test_the_live_segment_is_bounded_unless_a_profile_says_never(
    tmp_path: Path, journal: str, rotate_bytes: int | None
) -> None:
    """Restart stays flat (issue 27 item 6): ``run`` verifies the live segment at every start,
    so a profile rotates at :data:`ROTATE_MB` unless it says otherwise (0: never)."""
    upkeep = load_table(_table(tmp_path, GOOD + f"[journal]\n{journal}\n")).journal_upkeep
    assert upkeep.rotate_bytes == rotate_bytes


def test_a_negative_rotate_mb_names_the_key(tmp_path: Path) -> None:
    with pytest.raises(ProfileError) as caught:
        load_table(_table(tmp_path, GOOD + "[journal]\nrotate_mb = -1\n"))
    assert caught.value.key == "journal.rotate_mb" and "0 (never) or positive" in caught.value.why
