"""The shaker's framed messages: golden frames (docs/protocols/dice-shaker.md) and payload checks."""

from __future__ import annotations

import pytest

from drivers.codecs import framed
from drivers.codecs.framed import Ack, Frame, Heartbeat, Identify, Identity, Nak, decode
from drivers.codecs.shaker import (
    TABLE,
    Die,
    Lid,
    Reading,
    RequestReading,
    Reset,
    Shake,
    ShakerFault,
    fault_name,
)  # fmt: skip
from drivers.errors import CodecError
from tests.support.paths import REPO

GOLDEN = [
    (Identify(1000), 0, "A5 02 00 80 03 E8 47 A0"),
    (
        Identity("DS-3", "DS3-0117", "1.0.4"),
        0,
        "A5 14 00 01 04 44 53 2D 33 08 44 53 33 2D 30 31 31 37 05 31 2E 30 2E 34 2E 03",
    ),
    (Heartbeat(), 0, "A5 00 00 02 EC DE"),
    (Ack(), 1, "A5 00 01 03 CF CE"),
    (Nak(framed.NAK_BAD_CRC), 0, "A5 01 00 04 01 2E 91"),
    (Shake(1), 1, "A5 02 01 10 00 01 70 79"),
    (Shake(3), 3, "A5 02 03 10 00 03 BD 53"),
    (Lid(True), 4, "A5 01 04 11 01 0E D7"),
    (Reading((Die(3), Die(5), Die(6)), 3), 5, "A5 08 05 12 03 03 03 01 05 01 06 01 64 DC"),
    (Reading((Die(3), Die(5, flat=False), Die(6)), 3), 5, "A5 08 05 12 03 03 03 01 05 00 06 01 53 EC"),
    (Reading((Die(2), Die(4)), 2), 5, "A5 06 05 12 02 02 02 01 04 01 94 A2"),
    (Lid(False), 6, "A5 01 06 11 00 70 96"),
    (ShakerFault(0x01, "LENS"), 7, "A5 06 07 13 01 04 4C 45 4E 53 35 1B"),
    (RequestReading(), 1, "A5 00 01 81 7E 04"),
    (Reset(), 2, "A5 00 02 82 1B 34"),
]
DOC = REPO / "docs/protocols/dice-shaker.md"


@pytest.mark.parametrize(("message", "seq", "hex_bytes"), GOLDEN, ids=[g[2][9:17] for g in GOLDEN])
def test_golden_frame_encodes_and_decodes(message: object, seq: int, hex_bytes: str) -> None:
    wire = bytes.fromhex(hex_bytes)
    assert TABLE.encode(message, seq) == wire
    consumed, frame = decode(wire)
    assert consumed == len(wire) and isinstance(frame, Frame) and frame.seq == seq
    assert TABLE.message(frame) == message


def test_docs_examples_are_the_golden_frames() -> None:
    doc = DOC.read_text()
    for _, _, hex_bytes in GOLDEN:
        assert f"`{hex_bytes}`" in doc


def test_every_shaker_event_and_command_is_reliable_and_the_link_layer_is_not() -> None:
    for message in (Shake(1), Lid(True), Reading((), 0), ShakerFault(1), RequestReading(), Reset()):
        assert TABLE.is_reliable(message), message
    for message in (Identify(), Identity("a", "b", "c"), Heartbeat(), Ack(), Nak(1)):
        assert not TABLE.is_reliable(message), message


def test_535_12_a_die_not_flat_travels_faithfully() -> None:
    reading = Reading((Die(4), Die(0, flat=False), Die(2)), 3)
    assert TABLE.message(decode(TABLE.encode(reading, 9))[1]) == reading


def test_535_12_b_a_die_out_of_the_shaker_travels_faithfully() -> None:
    reading = Reading((Die(1),), 1)
    assert TABLE.message(decode(TABLE.encode(reading, 9))[1]) == reading


def test_impossible_readings_pass_the_wire_for_the_controller_to_judge() -> None:
    # A face 7 and four dice are sensor nonsense, but the codec's job is to pass them on.
    reading = Reading((Die(7), Die(1), Die(2), Die(3)), 4)
    assert TABLE.message(decode(TABLE.encode(reading, 1))[1]) == reading


@pytest.mark.parametrize(
    ("frame", "why"),
    [
        (Frame(1, 0x11, b"\x02"), "neither 0x00"),
        (Frame(1, 0x11, b""), "too short"),
        (Frame(1, 0x12, b"\x03\x01\x03\x81"), "unknown bits"),
        (Frame(1, 0x12, b"\x03\x03\x03\x01\x05\x01"), "too short"),
        (Frame(1, 0x12, b"\x03\x01\x03\x01\x05"), "trailing"),
        (Frame(1, 0x10, b"\x00"), "too short"),
        (Frame(1, 0x13, b"\x01\x02\xff\xfe"), "not ASCII"),
        (Frame(1, 0x81, b"\x00"), "trailing"),
        (Frame(1, 0x7E, b""), "unknown message type 0x7E"),
    ],
)
def test_malformed_payloads_are_codec_errors_naming_the_message(frame: Frame, why: str) -> None:
    with pytest.raises(CodecError, match=why) as caught:
        TABLE.message(frame)
    assert str(caught.value).startswith("shaker")


@pytest.mark.parametrize("message", [Reading((Die(256),), 1), Reading((), -1), ShakerFault(300), Shake(70000)])
def test_unrepresentable_messages_are_refused_on_encode(message: object) -> None:
    with pytest.raises(CodecError, match="must be 0.."):
        TABLE.encode(message, 1)


def test_fault_names() -> None:
    assert fault_name(0x01) == "dice_sensor"
    assert fault_name(0x2A) == "fault_0x2A"
