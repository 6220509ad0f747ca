"""Wire spying: the real shoe driver through :func:`drivers.capture.spy_url`, every byte in the log."""

from __future__ import annotations

from pathlib import Path

import pytest
import serial

from drivers.capture import parse_spy_url, spy_url
from drivers.events.lifecycle import DeviceIdentified, DeviceLost
from drivers.events.shoe import CardRead
from sim.devices.shoe import SimShoe
from tests.capture_replay.sessions import driver_for
from tests.support.device_events import FAST, Events

#: Columns of the hex bytes in a pyserial spy hexdump line: ``SSSSSS.mmm LBL  OOOO  XX XX ...``.
HEX_COLUMNS = slice(22, 22 + 16 * 3 + 1)


def hexdump_bytes(log: str, label: str) -> bytes:
    """The bytes of every ``label`` (RX or TX) line of a pyserial spy hexdump."""
    return b"".join(bytes.fromhex(line[HEX_COLUMNS]) for line in log.splitlines() if line[11:15].strip() == label)


@pytest.mark.parametrize("endpoint", ["pty", "socket"])
def test_driver_works_through_the_spy_and_the_log_has_every_byte(tmp_path: Path, endpoint: str) -> None:
    log = tmp_path / "shoe.spy"
    events = Events()
    with SimShoe(dialect="ascii", endpoint=endpoint, cards=["4S", "KD"]) as sim:
        driver = driver_for("ascii", spy_url(sim.url, log), events.queue.put)
        driver.start()
        try:
            events.next(DeviceIdentified)
            sim.draw()
            sim.draw()
            assert [events.next(CardRead), events.next(CardRead)] == [
                CardRead("shoe", "4", "S"),
                CardRead("shoe", "K", "D"),
            ]
        finally:
            driver.stop()
    text = log.read_text()
    assert text.startswith(f"# open {sim.url} at ")
    assert hexdump_bytes(text, "RX") == b" [Game]<Card:4S>  [Game]<Card:KD> "


def test_framed_driver_through_the_spy_logs_both_directions_and_keeps_history_across_reconnects(tmp_path: Path) -> None:
    log = tmp_path / "shoe.spy"
    events = Events()
    with SimShoe(dialect="framed", endpoint="socket", cards=["4S"], ack_timeout=FAST.ack) as sim:
        driver = driver_for("framed", spy_url(sim.url, log), events.queue.put)
        driver.start()
        try:
            events.next(DeviceIdentified)
            sim.link.begin_outage(0.3)
            events.next(DeviceLost)
            events.next(DeviceIdentified)
        finally:
            driver.stop()
    text = log.read_text()
    assert text.count("# open ") >= 2  # appended, not truncated, on each reopening
    assert b"TS-8" in hexdump_bytes(text, "RX")  # IDENTITY
    assert hexdump_bytes(text, "TX").startswith(bytes.fromhex("a5 02 00 80"))  # IDENTIFY


def test_spy_url_round_trips_and_rejects_other_urls(tmp_path: Path) -> None:
    url = spy_url("socket://127.0.0.1:7001?logging=debug", tmp_path / "a b#c.log")
    assert parse_spy_url(url) == ("socket://127.0.0.1:7001?logging=debug", str(tmp_path / "a b#c.log"))
    with pytest.raises(ValueError, match="expected spylog://"):
        parse_spy_url("spy:///dev/ttyUSB0?file=x")
    with pytest.raises(serial.SerialException, match="expected spylog://"):
        serial.serial_for_url("spylog:///dev/null")
