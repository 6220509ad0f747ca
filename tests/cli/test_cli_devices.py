"""``tablehost devices``: serial ports, USB devices with identity and allow-list, no libusb."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest
import serial.tools.list_ports
import usb.backend.libusb1
import usb.core
from serial.tools.list_ports_common import ListPortInfo

from firmware_host.cli import devices as devices_cli
from firmware_host.cli import main
from sim.devices.shuffler import SimulatedShuffler


@pytest.fixture(autouse=True)
def no_libusb(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests see the same machine wherever they run: no libusb, one USB serial adapter."""
    monkeypatch.setattr(usb.backend.libusb1, "get_backend", lambda *args, **kwargs: None)
    port = ListPortInfo("/dev/ttyUSB0")
    port.vid, port.pid, port.serial_number, port.description = 0x1209, 0x7AB2, "TS8-000123", "TS-8 shoe"
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [port])


def run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["devices", *args]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


def test_without_libusb_one_clear_line_and_the_serial_ports_all_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys)
    assert "/dev/ttyUSB0  1209:7ab2  TS-8 shoe" in out
    assert "usb: libusb-1.0 is not installed on this machine (install the package libusb-1.0-0)" in out
    assert "Traceback" not in out


def test_sim_lists_the_simulated_shuffler_with_identity_firmware_and_approval(
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = json.loads(run(capsys, "--sim", "--json"))
    assert report["serial"][0]["port"] == "/dev/ttyUSB0" and report["serial"][0]["serial_number"] == "TS8-000123"
    assert "libusb-1.0-0" in report["usb_unavailable"]
    (shuffler,) = report["usb"]
    assert (shuffler["source"], shuffler["vendor_id"], shuffler["product_id"]) == ("sim", "1209", "7ab1")
    assert shuffler["profile"] == "tablehost-sh16-2026"
    assert shuffler["identity"] == {"model": "SH-16", "serial": "SH16-SIM-0001", "firmware": "3.2.0",
                                    "approved": True, "refusal": None}  # fmt: skip
    text = run(capsys, "--sim")
    assert "simulated bus 1 address 1  1209:7ab1  tablehost SH-16  [tablehost-sh16-2026]" in text
    assert "model SH-16, serial SH16-SIM-0001, firmware 3.2.0 (approved)" in text


def test_a_device_with_unapproved_firmware_is_flagged(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(devices_cli, "default_backend", lambda: SimulatedShuffler(firmware="9.9.9"))
    out = run(capsys)
    assert "bus 1 address 1  1209:7ab1" in out
    assert "NOT APPROVED: firmware '9.9.9' is not approved (approved: 3.2.0)" in out


class _Mute(SimulatedShuffler):
    """Enumerates, but stalls every control request (strings and vendor requests)."""

    def ctrl_transfer(self, *args: object) -> int:
        raise usb.core.USBError("Pipe error", -9, errno.EPIPE)


def test_a_device_that_does_not_answer_is_listed_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(devices_cli, "default_backend", lambda: _Mute())
    out = run(capsys)
    assert "1209:7ab1  (no strings)  [tablehost-sh16-2026]" in out
    assert "identity not read: tablehost-sh16-2026: control request 0x01 failed" in out


def test_unknown_devices_are_listed_without_identity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "broken.toml").write_text("[device\n")  # skipped, not fatal
    report = json.loads(run(capsys, "--sim", "--json", "--devices-dir", str(tmp_path)))
    (device,) = report["usb"]
    assert device["profile"] is None and device["identity"] is None and device["product"] == "SH-16"
