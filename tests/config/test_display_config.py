"""The ``[display]`` table of a table profile (issue 14): address, TLS, PIN files, limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.config.profiles import load_table
from firmware_host.errors import ProfileError
from tests.support.paths import REPO
from tests.support.table_profiles import GOOD as BASE


def profile(tmp_path: Path, display: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(BASE + "\n[display]\n" + display)
    return path


def load(path: Path):  # type: ignore[no-untyped-def]
    return load_table(path, devices_dir=REPO / "hardware-profiles" / "devices")


def test_the_display_is_off_by_default() -> None:
    display = load(REPO / "hardware-profiles" / "tables" / "sim-baccarat.toml").display
    assert display.listen is None and display.tls is None  # its PIN files are read only when it is on
    assert set(display.pin_files) == {"dealer", "supervisor"}
    bench = load(REPO / "hardware-profiles" / "tables" / "bench.toml").display
    assert bench.listen is None and bench.pin_files == {} and bench.limits is None


def test_a_full_display_table(tmp_path: Path) -> None:
    display = load(
        profile(
            tmp_path,
            'listen = "0.0.0.0:8443"\ntls_cert = "c.pem"\ntls_key = "/etc/k.pem"\n'
            'dealer_pin_file = "pins/d.pin"\nsupervisor_pin_file = "pins/s.pin"\n'
            "limits = { min = 2500, max = 500000 }\n",
        )
    ).display
    assert display.listen == "0.0.0.0:8443"
    assert display.tls == ((tmp_path / "c.pem").resolve(), Path("/etc/k.pem"))
    assert display.pin_files == {
        "dealer": (tmp_path / "pins/d.pin").resolve(),
        "supervisor": (tmp_path / "pins/s.pin").resolve(),
    }
    assert display.limits == {"min": 2500, "max": 500000}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('dealer_pin = "1234"', r"display.dealer_pin: a PIN is never written in the profile"),
        ('tls_cert = "c.pem"', r"display.tls_key: give both tls_cert and tls_key"),
        ("limits = { min = 10 }", r"display.limits.\(limits\): give both min and max"),
        ("limits = { min = 10, max = 5 }", r"min not above max"),
        ("listen = 8080", r"display.listen"),
        ('colour = "red"', r"display.colour"),
    ],
)
def test_bad_display_tables_are_named(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ProfileError, match=message):
        load(profile(tmp_path, text + "\n"))


def test_allowed_hosts_and_trusted_proxies(tmp_path: Path) -> None:
    # Issue 20: no Host check, and X-Forwarded-For believed from 127.0.0.1 by default.
    assert load(profile(tmp_path, "")).display.trusted_proxies == ()  # none unless named
    display = load(
        profile(
            tmp_path,
            'allowed_hosts = ["Table-12.floor.example", "10.0.0.9"]\ntrusted_proxies = ["10.0.0.2", "10.1.0.0/16"]\n',
        )
    ).display
    assert display.allowed_hosts == ("table-12.floor.example", "10.0.0.9")
    assert display.trusted_proxies == ("10.0.0.2", "10.1.0.0/16")
    with pytest.raises(ProfileError, match=r"trusted_proxies.*'everyone' is not an IP address or network"):
        load(profile(tmp_path, 'trusted_proxies = ["everyone"]\n'))
    with pytest.raises(ProfileError, match=r"allowed_hosts.*'evil example' is not a host name"):
        load(profile(tmp_path, 'allowed_hosts = ["evil example"]\n'))
