"""``tablehost capture``: a profile's devices recorded standalone."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from drivers.capture import RX, TX, read_capture
from drivers.events.lifecycle import DeviceIdentified
from drivers.events.shoe import CardRead
from firmware_host.cli import main
from sim.devices.shoe import SimShoe
from tests.support.paths import REPO

DEVICES = REPO / "hardware-profiles" / "devices"


def bench_profile(tmp_path: Path, devices: str) -> Path:
    """A table profile beside a copy of the device models (as ``hardware-profiles/`` lays them out)."""
    shutil.copytree(DEVICES, tmp_path / "devices")
    (tmp_path / "tables").mkdir()
    path = tmp_path / "tables" / "bench.toml"
    path.write_text(f'[table]\nid = "BENCH-T"\ngame = "baccarat"\n\n{devices}')
    return path


def test_capture_records_a_shoe_on_its_port_and_prints_its_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with SimShoe(dialect="framed", endpoint="socket", cards=["4S", "KD"]) as sim:
        sim.draw()
        sim.draw()  # kept by the shoe until a host has identified it
        profile = bench_profile(tmp_path, f'[devices.shoe]\nmodel = "tablehost-ts8-2026"\nport = "{sim.url}"\n')
        out = tmp_path / "bench.capture"
        assert main(["capture", "--profile", str(profile), "--out", str(out), "--seconds", "1"]) == 0
    capture = read_capture(out)
    assert capture.devices["shoe"].dialect == "framed" and capture.devices["shoe"].port == sim.url
    assert capture.data("shoe", TX) and capture.data("shoe", RX)
    assert [ev for ev in capture.events("shoe") if isinstance(ev, (DeviceIdentified, CardRead))] == [
        DeviceIdentified("shoe", "TS-8", "SIM-0001", "2.1.0"),
        CardRead("shoe", "4", "S"),
        CardRead("shoe", "K", "D"),
    ]
    printed = capsys.readouterr().out
    assert "shoe CardRead rank=4 suit=S burn=False" in printed
    assert "shoe: " in printed and " bytes received" in printed


def test_capture_records_a_simulated_shuffler(tmp_path: Path) -> None:
    profile = bench_profile(
        tmp_path,
        '[devices.shoe]\nmodel = "tablehost-ts8-2026"\nport = "sim"\n\n'
        '[devices.shuffler]\nmodel = "tablehost-sh16-2026"\nport = "sim"\n',
    )
    out = tmp_path / "sim.capture"
    assert (
        main(["capture", "--profile", str(profile), "--out", str(out), "--seconds", "0.5", "--device", "shuffler"]) == 0
    )
    capture = read_capture(out)
    assert list(capture.devices) == ["shuffler"] and capture.devices["shuffler"].transport == "usb"
    assert any(type(ev).__name__ == "BatchStatus" for ev in capture.events("shuffler"))


def test_unknown_device_and_bad_seconds_are_clear_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = bench_profile(tmp_path, '[devices.shoe]\nmodel = "tablehost-ts8-2026"\nport = "sim"\n')
    assert main(["capture", "--profile", str(profile), "--out", str(tmp_path / "x"), "--device", "dice"]) == 2
    assert "no device dice (it has: shoe)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["capture", "--profile", str(profile), "--out", str(tmp_path / "x"), "--seconds", "-1"])
    assert "--seconds: -1: must be a number above 0" in capsys.readouterr().err
