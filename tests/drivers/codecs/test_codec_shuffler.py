"""The shuffler's messages: golden frames and control data stages (docs/protocols/shuffler.md),
and no byte string crashes a decoder."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.codecs import BadFrame, drain, framed
from drivers.codecs import shuffler as codec
from drivers.codecs.framed import Frame, Heartbeat
from drivers.codecs.shuffler import (
    TABLE,
    BatchLoaded,
    BatchReleased,
    BatchState,
    DeviceIdentity,
    DeviceStatus,
    Fault,
    FaultCleared,
    ReleaseBatch,
    ShuffleComplete,
    ShuffleProgress,
    ShuffleStarted,
    StartShuffle,
)  # fmt: skip
from drivers.errors import CodecError
from tests.support.paths import REPO

DOC = REPO / "docs/protocols/shuffler.md"
#: SHA-256 of "AS" "KD": the digest in the examples.
DIGEST = codec.order_digest(["AS", "KD"])
DIGEST_HEX = "6C 4F 96 FD 70 F8 78 65 E9 DA 1F 70 DC E3 91 26 D3 34 DC D8 D4 19 6D C2 C3 A4 8D 28 3D F4 36 46"

GOLDEN = [
    (BatchLoaded("A", 8, "red"), 1, "A5 06 01 10 41 08 03 72 65 64 EA 86"),
    (ShuffleStarted("A"), 2, "A5 01 02 11 41 F4 B3"),
    (ShuffleProgress("A", 50), 3, "A5 02 03 12 41 32 CB BC"),
    (ShuffleComplete("A", 416, DIGEST), 4, f"A5 23 04 13 41 01 A0 {DIGEST_HEX} 8F 29"),
    (BatchReleased("B", 416), 5, "A5 03 05 14 42 01 A0 C7 E7"),
    (Fault(codec.FAULT_JAM, "A", "JAM AT FEED"), 6, "A5 0E 06 15 01 41 0B 4A 41 4D 20 41 54 20 46 45 45 44 9C 32"),
    (Fault(codec.FAULT_DOOR_OPEN), 7, "A5 03 07 15 02 00 00 6E A6"),
    (FaultCleared(codec.FAULT_DOOR_OPEN), 8, "A5 01 08 16 02 D2 42"),
    (Heartbeat(), 9, "A5 00 09 02 56 46"),
    (StartShuffle("B", 416), 0, "A5 03 00 81 42 01 A0 9E 6A"),
    (ReleaseBatch("A"), 0, "A5 01 00 82 41 D7 6B"),
]
IDENTITY = (DeviceIdentity(1, "SH-16", "SH16-000042"), "01 05 53 48 2D 31 36 0B 53 48 31 36 2D 30 30 30 30 34 32")
FIRMWARE = ("3.2.0", "05 33 2E 32 2E 30")
STATUS = (
    DeviceStatus(
        False,
        0,
        (BatchState("A", "shuffled", 8, "red", 416, 100, DIGEST), BatchState("B", "released", 8, "blue", 416, 100)),
    ),
    f"00 00 02 41 03 08 03 72 65 64 01 A0 64 {DIGEST_HEX} 42 04 08 04 62 6C 75 65 01 A0 64 " + " ".join(["00"] * 32),
)


@pytest.mark.parametrize(("message", "seq", "hex_bytes"), GOLDEN, ids=[type(g[0]).__name__ for g in GOLDEN])
def test_golden_frame_encodes_and_decodes(message: object, seq: int, hex_bytes: str) -> None:
    wire = bytes.fromhex(hex_bytes)
    assert TABLE.encode(message, seq) == wire
    consumed, frame = framed.decode(wire)
    assert consumed == len(wire) and isinstance(frame, Frame) and frame.seq == seq
    assert TABLE.message(frame) == message


def test_golden_control_data_stages() -> None:
    assert codec.pack_identity(IDENTITY[0]) == bytes.fromhex(IDENTITY[1])
    assert codec.unpack_identity(bytes.fromhex(IDENTITY[1])) == IDENTITY[0]
    assert codec.pack_firmware(FIRMWARE[0]) == bytes.fromhex(FIRMWARE[1])
    assert codec.unpack_firmware(bytes.fromhex(FIRMWARE[1])) == FIRMWARE[0]
    assert codec.pack_status(STATUS[0]) == bytes.fromhex(STATUS[1])
    assert codec.unpack_status(bytes.fromhex(STATUS[1])) == STATUS[0]


def test_docs_show_every_golden_example() -> None:
    doc = " ".join(DOC.read_text().split())
    for hex_bytes in [g[2] for g in GOLDEN] + [IDENTITY[1], FIRMWARE[1]]:
        assert hex_bytes.replace(DIGEST_HEX, "<digest>") in doc, hex_bytes


def test_order_digest_is_sha256_of_the_card_codes() -> None:
    assert DIGEST.hex() == "6c4f96fd70f87865e9da1f70dce39126d334dcd8d4196dc2c3a48d283df43646"
    assert codec.order_digest(["KD", "AS"]) != DIGEST  # the order matters


def test_no_shuffler_message_is_acked_over_usb() -> None:
    for message, _, _ in GOLDEN:
        assert not TABLE.is_reliable(message)


@pytest.mark.parametrize(
    ("message", "why"),
    [
        (ShuffleStarted("C"), "not 'A' or 'B'"),
        (ShuffleProgress("A", 101), "0..100"),
        (ShuffleComplete("A", 416, b"short"), "32"),
        (StartShuffle("A", 70000), "0..65535"),
        (BatchLoaded("A", 300, "red"), "0..255"),
    ],
)
def test_unrepresentable_messages_are_refused_with_the_reason(message: object, why: str) -> None:
    with pytest.raises(CodecError, match=why):
        TABLE.encode(message)


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        (bytes.fromhex("43"), "batch byte 0x43"),  # SHUFFLE_STARTED for batch 'C'
        (bytes.fromhex("41 65"), "101% exceeds"),  # progress 101
    ],
)
def test_bad_payloads_are_codec_errors(payload: bytes, why: str) -> None:
    frame_type = 0x11 if len(payload) == 1 else 0x12
    with pytest.raises(CodecError, match=why):
        TABLE.message(Frame(1, frame_type, payload))


def test_status_with_an_unknown_state_is_refused() -> None:
    data = bytearray(bytes.fromhex(STATUS[1]))
    data[4] = 0x09  # batch A's state
    with pytest.raises(CodecError, match="state 0x09"):
        codec.unpack_status(bytes(data))


@given(st.binary(max_size=300))
def test_no_byte_string_crashes_the_frame_decoder_or_the_message_table(data: bytes) -> None:
    buffer = bytearray(data)
    for item in drain(framed.decode, buffer):
        if isinstance(item, BadFrame):
            continue
        try:
            TABLE.message(item)
        except CodecError:
            pass


@given(st.integers(0x10, 0x16), st.binary(max_size=64), st.integers(0, 255))
def test_any_payload_under_a_shuffler_type_decodes_or_is_a_codec_error(
    frame_type: int, payload: bytes, seq: int
) -> None:
    try:
        message = TABLE.message(Frame(seq, frame_type, payload))
    except CodecError:
        return
    assert TABLE.message(TABLE.to_frame(message, seq)) == message  # what decodes re-encodes to the same


@given(st.binary(max_size=300))
def test_no_byte_string_crashes_the_control_stage_parsers(data: bytes) -> None:
    for parse in (codec.unpack_identity, codec.unpack_firmware, codec.unpack_status):
        try:
            parse(data)
        except CodecError:
            pass
