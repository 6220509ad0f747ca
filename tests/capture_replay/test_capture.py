"""The capture format and its taps: serial transport, pyusb backend, input events."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from drivers.capture import (
    FORMAT,
    RX,
    TX,
    CaptureError,
    CaptureWriter,
    Chunk,
    Control,
    DeviceInfo,
    EventRecord,
    Link,
    read_capture,
)  # fmt: skip
from drivers.codecs import framed
from drivers.events.lifecycle import DeviceIdentified
from drivers.events.shoe import CardRead
from drivers.events.shuffler import BatchStatus, ShuffleCompleted
from drivers.shoe import FramedShoe
from drivers.shuffler import ShufflerDriver
from firmware_host.tables.events import DealerCommand
from sim.devices.shuffler import SimulatedShuffler
from tests.capture_replay.sessions import captured_shoe
from tests.support.device_events import FAST, Events, eventually


def test_framed_shoe_capture_holds_both_directions_links_and_events(tmp_path: Path) -> None:
    events = Events()
    path = tmp_path / "shoe.jsonl"
    with captured_shoe(path, "framed", events.queue.put, cards=["4S", "KD"]) as (sim, driver, writer):
        events.next(DeviceIdentified)
        assert isinstance(driver, FramedShoe)
        driver.set_burn_mode(True)
        eventually(lambda: sim.burn_mode)
        sim.draw()
        events.next(CardRead)
        writer.event(DealerCommand("console", "no_more_bets"))
    capture = read_capture(path)
    assert capture.devices["shoe"] == DeviceInfo("shoe", "framed", "serial", "TS-8", sim.url)
    sent, received = capture.data("shoe", TX), capture.data("shoe", RX)
    identify = framed.decode(bytearray(sent))[1]
    assert isinstance(identify, framed.Frame) and identify.type == 0x80  # the driver's first words: IDENTIFY
    assert framed.encode(framed.Frame(1, 0x81, b"\x01")) in sent  # SET_BURN_MODE on, SEQ 1
    assert b"TS-8" in received  # the IDENTITY answer
    links = [r.state for r in capture.records if isinstance(r, Link)]
    assert links == ["open", "closed"]
    assert capture.events() == [
        DeviceIdentified("shoe", "TS-8", "SIM-0001", "2.1.0"),
        CardRead("shoe", "4", "S", burn=True),
        DealerCommand("console", "no_more_bets"),
    ]
    times = [r.t for r in capture.records]
    assert times == sorted(times) and times[0] >= 0  # monotonic, from the capture's start


def test_writer_lines_are_the_documented_records() -> None:
    clock = iter([10.0, 10.5, 11.0, 11.25, 12.0, 12.5])
    stream = io.StringIO()
    writer = CaptureWriter(stream, clock=lambda: next(clock))
    writer.device("shoe", DeviceInfo("shoe", "ascii", "serial", "ASCII-SHOE", "/dev/ttyUSB0"))
    writer.chunk("shoe", RX, b" [Game]<Card:4S> ")
    writer.control("shuffler", RX, 0x01, 0, 0, b"\x01")
    writer.link("shoe", "lost", "port failed")
    writer.event(DealerCommand("console", "reveal"))
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert lines[0]["format"] == FORMAT and lines[0]["version"] == 1
    assert lines[1:] == [
        {"t": 0.5, "dev": "shoe", "device": {"kind": "shoe", "dialect": "ascii", "transport": "serial",
                                             "model": "ASCII-SHOE", "port": "/dev/ttyUSB0"}},
        {"t": 1.0, "dev": "shoe", "dir": "rx", "hex": b" [Game]<Card:4S> ".hex()},
        {"t": 1.25, "dev": "shuffler", "dir": "rx", "ctrl": {"request": 1, "value": 0, "index": 0}, "hex": "01"},
        {"t": 2.0, "dev": "shoe", "link": "lost", "text": "port failed"},
        {"t": 2.5, "dev": "console", "event": "DealerCommand",
         "data": {"device": "console", "command": "reveal", "args": None}},
    ]  # fmt: skip


def test_usb_backend_tap_records_control_and_bulk_transfers(tmp_path: Path) -> None:
    path = tmp_path / "shuffler.jsonl"
    sim = SimulatedShuffler(seed=3, decks_per_batch=1)
    events = Events()
    with CaptureWriter(path) as writer:
        tap = writer.tap("shuffler", DeviceInfo("shuffler", "usb-framed", "usb", "SH-16", "usb"))
        driver = ShufflerDriver(
            "shuffler", writer.tap_events(events.queue.put), backend=tap.usb_backend(sim), timing=FAST
        )
        driver.start()
        try:
            events.next(BatchStatus)
            driver.start_shuffle("A", 52)
            events.next(ShuffleCompleted)
        finally:
            driver.stop()
    capture = read_capture(path)
    controls = [r for r in capture.records if isinstance(r, Control)]
    assert b"SH-16" in b"".join(c.data for c in controls if c.direction == RX)  # GET_IDENTITY's answer
    assert any(c.direction == TX for c in controls)  # SET_HEARTBEAT
    assert capture.chunks("shuffler", TX) and capture.chunks("shuffler", RX)  # START_SHUFFLE out, events in
    assert any(isinstance(ev, ShuffleCompleted) for ev in capture.events("shuffler"))


@pytest.mark.parametrize(("text", "why"), [
    ("", "not a tablehost capture"),
    ('{"format": "other"}\n', "not a tablehost capture"),
    (f'{{"format": "{FORMAT}", "version": 9}}\n', "version 9"),
    (f'{{"format": "{FORMAT}", "version": 1}}\nnot json\n', ":2: not a JSON line"),
    (f'{{"format": "{FORMAT}", "version": 1}}\n{{"t": 1, "dev": "shoe", "dir": "up", "hex": ""}}\n', ":2: bad record"),
    (f'{{"format": "{FORMAT}", "version": 1}}\n{{"t": 1, "dev": "shoe", "dir": "rx", "hex": "zz"}}\n', ":2: bad record"),
    (f'{{"format": "{FORMAT}", "version": 1}}\n{{"t": 1, "dev": "x", "event": "Nope", "data": {{}}}}\n', ":2: bad record"),
])  # fmt: skip
def test_bad_capture_files_are_named_with_the_line_and_why(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    with pytest.raises(CaptureError, match=why) as raised:
        read_capture(path)
    assert str(path) in str(raised.value)


def test_missing_capture_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CaptureError, match="cannot be read"):
        read_capture(tmp_path / "nope.jsonl")


def test_records_read_back_as_typed_records(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    with CaptureWriter(path) as writer:
        writer.chunk("shoe", TX, b"\xa5")
        writer.event(DealerCommand("console", "reveal"))
    records = read_capture(path).records
    assert isinstance(records[0], Chunk) and records[0].data == b"\xa5" and records[0].direction == TX
    assert isinstance(records[1], EventRecord) and records[1].event() == DealerCommand("console", "reveal")


def test_writing_after_close_is_ignored(tmp_path: Path) -> None:
    writer = CaptureWriter(tmp_path / "c.jsonl")
    writer.close()
    writer.chunk("shoe", RX, b"x")  # a reader thread racing the end of a capture
    assert len(read_capture(tmp_path / "c.jsonl").records) == 0
