"""Hypothesis: no byte stream crashes the shaker's decoding; valid frames survive any chunking."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drivers.codecs import BadFrame
from drivers.codecs.framed import Frame, Heartbeat, decode
from drivers.codecs.shaker import TABLE, Die, Lid, Reading, RequestReading, Reset, Shake, ShakerFault
from drivers.errors import CodecError
from tests.support.codec_chunks import decode_in_chunks

dice = st.builds(Die, st.integers(0, 255), st.booleans())
messages = st.one_of(
    st.builds(Shake, st.integers(0, 0xFFFF)),
    st.builds(Lid, st.booleans()),
    st.builds(Reading, st.lists(dice, max_size=31).map(tuple), st.integers(0, 255)),
    st.builds(ShakerFault, st.integers(0, 255), st.text("ABCXYZ 0123", max_size=40)),
    st.just(RequestReading()), st.just(Reset()), st.just(Heartbeat()),
)  # fmt: skip


@given(st.binary(max_size=400), st.lists(st.integers(1, 40), min_size=1, max_size=5))
def test_no_byte_stream_crashes_the_decoder(stream: bytes, chunks: list[int]) -> None:
    for item in decode_in_chunks(decode, stream, chunks):
        assert isinstance(item, (Frame, BadFrame))
        if isinstance(item, Frame):
            try:
                TABLE.message(item)
            except CodecError as exc:
                assert str(exc).startswith("shaker")


@given(st.lists(st.tuples(messages, st.integers(0, 255)), max_size=10), st.lists(st.integers(1, 30), min_size=1))
def test_valid_frames_survive_any_chunking(sent: list[tuple[object, int]], chunks: list[int]) -> None:
    stream = b"".join(TABLE.encode(message, seq) for message, seq in sent)
    items = decode_in_chunks(decode, stream, chunks)
    assert [(TABLE.message(frame), frame.seq) for frame in items] == sent


@given(st.lists(messages, min_size=1, max_size=6), st.binary(max_size=30))
def test_frames_after_line_noise_are_recovered(sent: list[object], noise: bytes) -> None:
    stream = noise.replace(b"\xa5", b"") + b"".join(TABLE.encode(message, 1) for message in sent)
    got = [TABLE.message(item) for item in decode_in_chunks(decode, stream) if isinstance(item, Frame)]
    assert got == sent
