"""The market shoe's ASCII dialect: golden frames, resynchronisation, properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.codecs import GARBAGE, TOO_LONG, UNKNOWN, BadFrame
from drivers.codecs.shoe_ascii import MAX_FRAME, decode, encode
from drivers.codecs.shoe_messages import Card, CutCard, FaceUp, Fault, ShoeEmpty, Unreadable, Warning
from drivers.errors import CodecError
from tests.support.codec_chunks import decode_in_chunks

GOLDEN = [
    (b" [Game]<Card:4S> ", Card("4", "S")),
    (b" [Game]<Card:10D> ", Card("T", "D")),
    (b" [Game]<Card:TD> ", Card("T", "D")),
    (b" [Manual Burn Cards]<Card:H3> ", Card("3", "H", burn=True)),
    (b" [Manual Burn Cards]<Card:KC> ", Card("K", "C", burn=True)),
    (b" [Game]<Game> ", Unreadable()),
    (b" [Manual Burn Cards]<Game> ", Unreadable(burn=True)),
    (b" [Game]<Alarm:E3 Card Not Read> ", Fault("E3", "Card Not Read")),
    (b" [GameAlarm]<Alarm:E9 Door Open> ", Fault("E9", "Door Open")),
    (b" <W0x01> ", Warning(1)),
    (b" [Game]<Cut Card> ", CutCard()),
    (b" [GameAlarm]<Alarm:E5 Card Face Up> ", FaceUp()),
    (b" [GameAlarm]<Alarm:E6 Shoe Empty> ", ShoeEmpty()),
]


@pytest.mark.parametrize(("wire", "message"), GOLDEN, ids=[g[0].decode().strip() for g in GOLDEN])
def test_golden_frame_decodes(wire: bytes, message: object) -> None:
    assert decode_in_chunks(decode, wire) == [message]


def test_encode_writes_the_golden_forms() -> None:
    assert encode(Card("4", "S")) == b" [Game]<Card:4S> "
    assert encode(Card("3", "H", burn=True), suit_first=True) == b" [Manual Burn Cards]<Card:H3> "
    assert encode(Unreadable()) == b" [Game]<Game> "
    assert encode(Fault("E3", "Card Not Read")) == b" [GameAlarm]<Alarm:E3 Card Not Read> "
    assert encode(Warning(1)) == b" <W0x01> "


def test_encode_refuses_what_the_dialect_cannot_carry() -> None:
    with pytest.raises(CodecError, match="cannot express"):
        encode(Fault("E3", "x" * 40))


def test_incomplete_frame_needs_more() -> None:
    wire = b"[Manual Burn Cards]<Card:H3>"
    for cut in range(1, len(wire)):
        assert decode(bytearray(wire[:cut])) == (0, None)


def test_garbage_is_reported_and_skipped_to_the_next_frame() -> None:
    items = decode_in_chunks(decode, b"\x00\xffnoise [Game]<Card:AS> ")
    assert isinstance(items[0], BadFrame) and items[0].kind == GARBAGE and items[0].raw == b"\x00\xffnoise "
    assert items[1:] == [Card("A", "S")]


def test_a_frame_cut_short_by_another_is_garbage() -> None:
    items = decode_in_chunks(decode, b" [Game]<Car [Game]<Card:2C> ")
    assert isinstance(items[0], BadFrame) and items[0].raw == b"[Game]<Car "
    assert items[1:] == [Card("2", "C")]


def test_unknown_body_is_reported() -> None:
    (item,) = decode_in_chunks(decode, b" [Game]<Card:ZZ> ")
    assert isinstance(item, BadFrame) and item.kind == UNKNOWN and item.raw == b"[Game]<Card:ZZ>"


def test_overlong_frame_is_skipped() -> None:
    wire = b"[" + b"x" * MAX_FRAME + b"]<Card:4S> [Game]<Card:5S> "
    items = decode_in_chunks(decode, wire, [7])
    assert isinstance(items[0], BadFrame) and items[0].kind == TOO_LONG
    assert items[-1] == Card("5", "S")


cards = st.builds(Card, st.sampled_from("A23456789TJQK"), st.sampled_from("CDHS"), st.booleans())
messages = st.one_of(
    cards, st.just(CutCard()), st.builds(Unreadable, st.booleans()), st.just(FaceUp()), st.just(ShoeEmpty()),
    st.builds(Warning, st.integers(0, 0xFFFF)),
    st.builds(Fault, st.sampled_from(["E1", "E3", "E9"]), st.sampled_from(["Card Not Read", "Door Open", "Jam"])),
)  # fmt: skip


@given(st.binary(max_size=300))
def test_no_byte_stream_crashes_the_decoder(stream: bytes) -> None:
    for item in decode_in_chunks(decode, stream):
        assert isinstance(item, (BadFrame, Card, CutCard, Unreadable, FaceUp, ShoeEmpty, Fault, Warning))


@given(st.lists(st.tuples(messages, st.booleans()), max_size=10), st.lists(st.integers(1, 20), min_size=1))
def test_valid_frames_survive_any_chunking(sent: list[tuple[object, bool]], chunks: list[int]) -> None:
    stream = b"".join(encode(m, suit_first=first) for m, first in sent)  # type: ignore[arg-type]
    assert decode_in_chunks(decode, stream, chunks) == [m for m, _ in sent]


@given(
    st.binary(max_size=40).filter(lambda b: b"[" not in b and b"<" not in b), st.lists(messages, min_size=1, max_size=5)
)
def test_frames_after_garbage_are_recovered(garbage: bytes, sent: list[object]) -> None:
    items = decode_in_chunks(decode, garbage + b"".join(encode(m) for m in sent))  # type: ignore[arg-type]
    assert [i for i in items if not isinstance(i, BadFrame)] == sent
