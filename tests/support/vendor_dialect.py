"""A second vendor's shoe dialect with acks, for the tests (issue 31, item 4).

Not our layout: another start byte (0x7E), the header in another order (TYPE, SEQ, LEN)
and a CRC-32 trailer (little-endian) instead of our CRC-16. :func:`registered` adds it to
:mod:`drivers.dialects` as ``vendor-crc32`` for the length of a test.
"""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Iterator

from drivers import dialects
from drivers.codecs import BAD_CRC, BAD_LENGTH, GARBAGE, BadFrame, shoe_framed
from drivers.codecs.framed import Frame
from drivers.codecs.framer import Framer
from drivers.dialects import ShoeDialect
from drivers.errors import CodecError

__all__ = ["START", "MAX_LEN", "NAME", "VendorLayout", "registered"]

#: The dialect's name in the registry.
NAME = "vendor-crc32"
#: First byte of a vendor frame.
START = 0x7E
MAX_LEN = 48
HEADER = 4  # START, TYPE, SEQ, LEN
TRAILER = 4  # CRC-32 of TYPE, SEQ, LEN and the payload, little-endian
NAK_BAD_CRC, NAK_BAD_LENGTH = 1, 2


class VendorLayout:
    """The vendor's frame layout; counts the good frames it decoded (proof it is on the wire)."""

    def __init__(self) -> None:
        self.frames = 0

    def encode(self, frame: Frame) -> bytes:
        if not 0 <= frame.seq <= 255 or not 0 <= frame.type <= 255 or len(frame.payload) > MAX_LEN:
            raise CodecError(f"vendor frame out of range: {frame}")
        body = bytes((frame.type, frame.seq, len(frame.payload))) + frame.payload
        return bytes((START,)) + body + zlib.crc32(body).to_bytes(TRAILER, "little")

    def decode(self, buf: bytes | bytearray) -> tuple[int, Frame | BadFrame | None]:
        if not buf:
            return 0, None
        if buf[0] != START:
            start = buf.find(START)
            skipped = len(buf) if start < 0 else start
            return skipped, BadFrame("garbage", bytes(buf[:skipped]), GARBAGE)
        if len(buf) < HEADER:
            return 0, None
        length = buf[3]
        if length > MAX_LEN:
            return 1, BadFrame(f"length {length}", bytes(buf[:HEADER]), BAD_LENGTH)
        total = HEADER + length + TRAILER
        if len(buf) < total:
            return 0, None
        body = bytes(buf[1 : HEADER + length])
        if zlib.crc32(body) != int.from_bytes(buf[HEADER + length : total], "little"):
            return 1, BadFrame("bad CRC-32", bytes(buf[:total]), BAD_CRC)
        self.frames += 1
        return total, Frame(seq=body[1], type=body[0], payload=body[3:])

    def nak_reason(self, bad: BadFrame) -> int | None:
        return {BAD_CRC: NAK_BAD_CRC, BAD_LENGTH: NAK_BAD_LENGTH}.get(bad.kind)


@contextlib.contextmanager
def registered() -> Iterator[VendorLayout]:
    """The vendor's dialect registered as :data:`NAME` (the shoe's messages in its layout)."""
    layout = VendorLayout()
    dialects.register(ShoeDialect(NAME, framer=Framer(layout, shoe_framed.TABLE)))
    try:
        yield layout
    finally:
        dialects.unregister(NAME)
