"""The replay finds a device's dialect by name (issue 31, item 4): a registered framed dialect
is spoken through its framer, and a name no entry has is refused, named, where the capture
enters."""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.capture import CaptureWriter, DeviceInfo, read_capture
from drivers.events import DeviceEvent
from drivers.events.lifecycle import DeviceIdentified
from drivers.events.shoe import CardRead, CutCard, ShoeEmpty
from sim.devices.faults import ShoeFaults
from sim.devices.replay import Replay
from sim.devices.shoe import CUT
from sim.errors import SimError
from tests.capture_replay.sessions import captured_shoe, driver_for
from tests.support.device_events import Events
from tests.support.vendor_dialect import NAME, registered

SCRIPT = ["4S", "KD", CUT, "AC", "TD"]


def said(events: list[DeviceEvent]) -> list[DeviceEvent]:
    return [ev for ev in events if isinstance(ev, (CardRead, CutCard, ShoeEmpty))]


def test_a_capture_of_a_vendor_framed_dialect_replays_to_the_same_events(tmp_path: Path) -> None:
    path = tmp_path / "vendor.jsonl"
    recorded, replayed = Events(), Events()
    with registered():
        session = captured_shoe(path, NAME, recorded.queue.put, cards=SCRIPT, faults=ShoeFaults(duplicate_frame=0.5))
        with session as (sim, _, _):
            recorded.next(DeviceIdentified)
            for _ in range(len(SCRIPT) + 1):
                sim.draw()
            before = recorded.until(lambda ev: isinstance(ev, ShoeEmpty))
        with Replay(read_capture(path), speed=None) as replay:
            driver = driver_for(NAME, replay.url("shoe"), replayed.queue.put)
            driver.start()
            try:
                # The replay answered IDENTIFY in the vendor's layout: a talk-only replay would not.
                assert replayed.next(DeviceIdentified) == DeviceIdentified("shoe", "TS-8", "SIM-0001", "2.1.0")
                after = replayed.until(lambda ev: isinstance(ev, ShoeEmpty))
            finally:
                driver.stop()
    assert said(after) == said(before) and len(said(before)) == len(SCRIPT) + 1


def test_a_capture_device_of_an_unknown_dialect_is_refused_naming_it(tmp_path: Path) -> None:
    with CaptureWriter(tmp_path / "c.jsonl") as writer:
        writer.device("shoe", DeviceInfo("shoe", "morse", "serial", "X", "/dev/ttyUSB0"))
    capture = read_capture(tmp_path / "c.jsonl")
    with pytest.raises(SimError, match=r"^replay: shoe speaks 'morse'; a replay speaks framed, ascii, usb-framed$"):
        Replay(capture, devices=["shoe"])
    assert Replay(capture).devices == []  # by default, only the devices it can speak
