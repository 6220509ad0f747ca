"""Our framed protocol: golden frames (the examples of docs/protocols/shoe.md), resync, properties."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.codecs import BAD_CRC, BAD_LENGTH, GARBAGE, BadFrame, framed
from drivers.codecs.framed import Ack, Frame, Heartbeat, Identify, Identity, Nak, crc16, decode, encode
from drivers.codecs.shoe_framed import TABLE
from drivers.codecs.shoe_messages import (
    Card,
    CutCard,
    FaceUp,
    Fault,
    SetBurnMode,
    ShoeEmpty,
    Unreadable,
    Warning,
)  # fmt: skip
from drivers.errors import CodecError
from tests.support.codec_chunks import decode_in_chunks
from tests.support.paths import REPO

GOLDEN = [
    (Identify(1000), 0, "A5 02 00 80 03 E8 47 A0"),
    (Identity("TS-8", "SN0042", "1.2.0"), 0, "A5 12 00 01 04 54 53 2D 38 06 53 4E 30 30 34 32 05 31 2E 32 2E 30 E7 17"),
    (Heartbeat(), 0, "A5 00 00 02 EC DE"),
    (Ack(), 7, "A5 00 07 03 65 68"),
    (Nak(framed.NAK_BAD_CRC), 6, "A5 01 06 04 01 9C 31"),
    (Card("4", "S"), 7, "A5 03 07 10 34 53 00 FE 0A"),
    (Card("T", "D", burn=True), 1, "A5 03 01 10 54 44 01 22 21"),
    (CutCard(), 8, "A5 00 08 11 47 25"),
    (Unreadable(), 9, "A5 01 09 12 00 09 F4"),
    (FaceUp("K", "H"), 10, "A5 02 0A 13 4B 48 3F ED"),
    (FaceUp(), 11, "A5 02 0B 13 00 00 51 A3"),
    (ShoeEmpty(), 12, "A5 00 0C 14 DB 44"),
    (Fault("E3", "Card Not Read"), 13, "A5 11 0D 15 02 45 33 0D 43 61 72 64 20 4E 6F 74 20 52 65 61 64 1D 54"),
    (Warning(1), 14, "A5 02 0E 16 00 01 16 37"),
    (SetBurnMode(True), 1, "A5 01 01 81 01 FD CC"),
]


def test_crc16_ccitt_false_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize(("message", "seq", "hex_bytes"), GOLDEN, ids=[type(g[0]).__name__ for g in GOLDEN])
def test_golden_frame_encodes_and_decodes(message: object, seq: int, hex_bytes: str) -> None:
    wire = bytes.fromhex(hex_bytes)
    assert TABLE.encode(message, seq) == wire
    consumed, frame = decode(wire)
    assert consumed == len(wire)
    assert isinstance(frame, Frame) and frame.seq == seq
    assert TABLE.message(frame) == message


def test_docs_examples_are_the_golden_frames() -> None:
    doc = (REPO / "docs/protocols/shoe.md").read_text()
    for _, _, hex_bytes in GOLDEN:
        assert f"`{hex_bytes}`" in doc


def test_partial_frame_needs_more_bytes() -> None:
    wire = TABLE.encode(Card("A", "C"), 1)
    for cut in range(len(wire)):
        assert decode(wire[:cut]) == (0, None)


def test_garbage_is_skipped_up_to_the_next_sync() -> None:
    wire = b"\x00\x11junk" + TABLE.encode(CutCard(), 3)
    consumed, bad = decode(wire)
    assert isinstance(bad, BadFrame) and bad.kind == GARBAGE and consumed == 6
    assert bad.raw == b"\x00\x11junk"
    assert decode(wire[consumed:]) == (len(wire) - 6, Frame(3, 0x11, b""))


def test_bad_crc_costs_only_the_sync_byte() -> None:
    wire = bytearray(TABLE.encode(Card("4", "S"), 7))
    wire[5] ^= 0x01
    consumed, bad = decode(wire)
    assert consumed == 1 and isinstance(bad, BadFrame) and bad.kind == BAD_CRC
    assert bad.raw == bytes(wire)


def test_corrupt_length_does_not_hide_the_next_frame() -> None:
    good = TABLE.encode(ShoeEmpty(), 4)
    wire = bytes([framed.SYNC, 0xF0]) + good
    consumed, bad = decode(wire)
    assert consumed == 1 and isinstance(bad, BadFrame) and bad.kind == BAD_LENGTH
    frames = _decode_all(wire)
    assert frames[-1] == Frame(4, 0x14, b"")


def test_unknown_type_and_bad_payload_are_codec_errors() -> None:
    with pytest.raises(CodecError, match="unknown message type 0x7F"):
        TABLE.message(Frame(1, 0x7F, b""))
    with pytest.raises(CodecError, match="too short"):
        TABLE.message(Frame(1, 0x10, b"4"))
    with pytest.raises(CodecError, match="trailing"):
        TABLE.message(Frame(1, 0x11, b"x"))
    with pytest.raises(CodecError, match="rank"):
        TABLE.message(Frame(1, 0x10, b"XS\x00"))
    with pytest.raises(CodecError, match="unknown bits"):
        TABLE.message(Frame(1, 0x10, b"4S\x80"))


def test_encode_refuses_oversized_payload() -> None:
    with pytest.raises(CodecError, match="exceeds 64"):
        encode(Frame(0, 0x10, bytes(65)))


def test_a_table_refuses_a_type_code_twice() -> None:
    with pytest.raises(CodecError, match="defined twice"):
        framed.MessageTable("x", (framed.MessageType(0x01, CutCard),))


def test_next_seq_skips_zero() -> None:
    assert framed.next_seq(0) == 1 and framed.next_seq(254) == 255 and framed.next_seq(255) == 1


def _decode_all(stream: bytes | bytearray, chunks: list[int] | None = None) -> list[Frame | BadFrame]:
    return decode_in_chunks(decode, stream, chunks)


messages = st.one_of(
    st.builds(Card, st.sampled_from("A23456789TJQK"), st.sampled_from("CDHS"), st.booleans()),
    st.just(CutCard()), st.builds(Unreadable, st.booleans()), st.just(ShoeEmpty()), st.just(Heartbeat()),
    st.builds(Fault, st.text("E0123456789", max_size=4), st.text("abc XYZ", max_size=20)),
    st.builds(Warning, st.integers(0, 0xFFFF)),
)  # fmt: skip


@given(st.binary(max_size=400))
def test_no_byte_stream_crashes_the_decoder(stream: bytes) -> None:
    for item in _decode_all(stream):
        if isinstance(item, Frame):
            try:
                TABLE.message(item)
            except CodecError:
                pass


@given(st.lists(st.tuples(messages, st.integers(0, 255)), max_size=12), st.lists(st.integers(1, 30), min_size=1))
def test_valid_frames_survive_any_chunking(sent: list[tuple[object, int]], chunks: list[int]) -> None:
    stream = b"".join(TABLE.encode(m, seq) for m, seq in sent)
    items = _decode_all(stream, chunks)
    assert [(TABLE.message(f), f.seq) for f in items if isinstance(f, Frame)] == sent
    assert not any(isinstance(f, BadFrame) for f in items)


@given(st.lists(messages, min_size=1, max_size=6), st.binary(max_size=20))
def test_frames_after_garbage_are_recovered(sent: list[object], garbage: bytes) -> None:
    stream = re.sub(b"\xa5", b"", garbage) + b"".join(TABLE.encode(m, 1) for m in sent)
    got = [TABLE.message(f) for f in _decode_all(stream) if isinstance(f, Frame)]
    assert got == sent
