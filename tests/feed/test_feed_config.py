"""The ``[feed]`` section of a table profile, and ``tablehost run --feed URL``."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.feed.broker import free_port
from bench.floor.tables import table_profile
from firmware_host.config.profiles import load_table
from firmware_host.errors import ProfileError


def test_a_profile_without_feed_has_the_feed_off(tmp_path: Path) -> None:
    assert load_table(table_profile(tmp_path)).feed is None


def test_the_feed_section_with_paths_relative_to_the_profile(tmp_path: Path) -> None:
    profile = table_profile(
        tmp_path,
        feed='broker = "mqtts://floor:8883"\nusername = "SIM-BAC-1"\n'
        'password_file = "secrets/feed.pw"\nca_file = "/etc/ca.pem"\nwarn_after_s = 5',
    )
    feed = load_table(profile).feed
    assert feed is not None
    assert (feed.broker, feed.topic_prefix, feed.username, feed.warn_after_s, feed.window) == (
        "mqtts://floor:8883",
        "tablehost",
        "SIM-BAC-1",
        5,
        64,
    )
    assert feed.password_file == profile.parent.resolve() / "secrets" / "feed.pw"
    assert feed.ca_file == Path("/etc/ca.pem")


@pytest.mark.parametrize(
    "section, key, why",
    [
        ('topic_prefix = "x"', "feed.broker", "expected the broker's URL"),
        ('broker = "http://floor"', "feed.broker", "mqtt://host:port"),
        ('broker = "mqtt://f"\ntopic_prefix = "a/#"', "feed.topic_prefix", "no wildcards"),
        ('broker = "mqtt://f"\ncert_file = "c.pem"', "feed.cert_file", "needs its key_file"),
        ('broker = "mqtt://f"\npassword = "hunter2"', "feed.password", "unknown"),
        ('broker = "mqtt://f"\nwindow = 0', "feed.window", ""),
        ('broker = "mqtt://f"\nack_lag_s = 0', "feed.ack_lag_s", "must be positive"),
        ('broker = "mqtt://f"\nfloor_key = 3', "feed.floor_key", ""),
    ],
)
def test_a_bad_feed_section_names_the_key(tmp_path: Path, section: str, key: str, why: str) -> None:
    with pytest.raises(ProfileError, match=key) as raised:
        load_table(table_profile(tmp_path, feed=section))
    assert why in str(raised.value)


def test_the_floor_key_and_the_lag_bound(tmp_path: Path) -> None:
    profile = table_profile(tmp_path, feed='broker = "mqtt://f"\nfloor_key = "keys/floor.pub"\nack_lag_s = 2.5')
    feed = load_table(profile).feed
    assert feed is not None
    assert (feed.floor_key, feed.ack_lag_s) == (profile.parent.resolve() / "keys" / "floor.pub", 2.5)
    defaults = load_table(table_profile(tmp_path, feed='broker = "mqtt://f"\n# floor_key: none')).feed
    assert defaults is not None and (defaults.floor_key, defaults.ack_lag_s) == (None, 30.0)


def test_a_table_without_the_floor_key_says_once_that_the_puback_moves_its_cursor(tmp_path: Path) -> None:
    from bench.floor.tables import run_table

    profile = table_profile(tmp_path, feed=f'broker = "mqtt://127.0.0.1:{free_port()}"\n# floor_key: none')
    done = run_table(profile, tmp_path / "journal.sqlite", 2)
    assert done.stderr.count("names no floor_key: the cursor moves when the broker takes a message") == 1


def test_a_floor_key_that_is_not_a_public_key_is_one_line_and_exit_2(tmp_path: Path) -> None:
    import subprocess

    from bench.floor.tables import run_command

    (tmp_path / "floor.pub").write_text("not a key\n")
    profile = table_profile(tmp_path, feed=f'broker = "mqtt://127.0.0.1:{free_port()}"\nfloor_key = "../../floor.pub"')
    done = subprocess.run(run_command(profile, tmp_path / "j.sqlite", 1), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "floor.pub: no PEM public key in it" in done.stderr
