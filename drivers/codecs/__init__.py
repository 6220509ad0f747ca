"""Pure wire codecs: bytes in, messages out, and back. No I/O, no clock, no threads.

Every codec module offers the same contract:

``decode(buffer) -> (consumed, item)``
    Look at the start of ``buffer`` (bytes received so far, not yet consumed). ``consumed``
    is how many bytes the caller must drop from the front; ``item`` is a decoded frame, a
    :class:`BadFrame` (bytes skipped, with the reason) or ``None``. ``(0, None)`` means
    "need more bytes". A codec never raises on input bytes and always makes progress or asks
    for more, so a caller's loop ``while buffer: consumed, item = decode(buffer) ...`` ends.
``encode(message) -> bytes``
    The bytes that put ``message`` on the wire (:class:`~drivers.errors.CodecError` if the
    message cannot be represented).

Modules: :mod:`drivers.codecs.framed` (our binary framing, generic over message tables),
:mod:`drivers.codecs.framer` (a frame layout joined to a family's message table: what the
ack/retry layer speaks), :mod:`drivers.codecs.shoe_messages` (what a card-reading shoe says,
whatever its dialect), :mod:`drivers.codecs.shoe_framed` and :mod:`drivers.codecs.shoe_ascii`
(the shoe's two dialects; :mod:`drivers.dialects` finds them, and any other, by name).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["drain", "Decoder", "BadFrame", "GARBAGE", "BAD_CRC", "BAD_LENGTH", "TOO_LONG", "UNKNOWN"]

#: :attr:`BadFrame.kind`: bytes that do not start a frame; skipped up to the next frame start.
GARBAGE = "garbage"
#: :attr:`BadFrame.kind`: a complete frame whose checksum does not match (framed: nak it).
BAD_CRC = "bad_crc"
#: :attr:`BadFrame.kind`: a frame header announcing a length the protocol does not allow.
BAD_LENGTH = "bad_length"
#: :attr:`BadFrame.kind`: a frame start with no frame end within the dialect's longest frame.
TOO_LONG = "too_long"
#: :attr:`BadFrame.kind`: a well-formed frame whose content the dialect does not define.
UNKNOWN = "unknown"


@dataclasses.dataclass(frozen=True)
class BadFrame:
    """Bytes a decoder skipped, and why.

    :param reason: human-readable explanation, e.g. ``"bad CRC: got 0x1234, computed 0xBEEF"``.
    :param raw: the bytes skipped (or the bad frame's bytes, for :data:`BAD_CRC`).
    :param kind: one of :data:`GARBAGE`, :data:`BAD_CRC`, :data:`BAD_LENGTH`, :data:`TOO_LONG`, :data:`UNKNOWN`.
    """

    reason: str
    raw: bytes
    kind: str = GARBAGE


#: A codec's ``decode`` function.
Decoder = Callable[[bytearray], tuple[int, Any]]


def drain(decode: Decoder, buffer: bytearray) -> Iterator[Any]:
    """Yield every item (frame, message or :class:`BadFrame`) ``decode`` finds in ``buffer``.

    Consumed bytes are removed from ``buffer``; what is left is an incomplete frame that
    waits for more bytes. This is the one buffer loop every driver and sim uses.
    """
    while buffer:
        consumed, item = decode(buffer)
        if consumed:
            del buffer[:consumed]
        if item is not None:
            yield item
        elif not consumed:
            return
