"""The ``[feed]`` section of a table profile, and ``tablehost run --feed URL``."""

from __future__ import annotations

from pathlib import Path

import pytest

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
    ],
)
def test_a_bad_feed_section_names_the_key(tmp_path: Path, section: str, key: str, why: str) -> None:
    with pytest.raises(ProfileError, match=key) as raised:
        load_table(table_profile(tmp_path, feed=section))
    assert why in str(raised.value)
