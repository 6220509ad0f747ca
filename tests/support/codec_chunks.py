"""Feed a byte stream to a codec in pieces, as a serial port would deliver it."""

from __future__ import annotations

from typing import Any

from drivers.codecs import Decoder, drain


def decode_in_chunks(decode: Decoder, stream: bytes | bytearray, chunks: list[int] | None = None) -> list[Any]:
    """Every item ``decode`` yields when ``stream`` arrives in pieces of the sizes in ``chunks`` (cycled)."""
    buffer = bytearray()
    out: list[Any] = []
    sizes = chunks or [max(1, len(stream))]
    at, i = 0, 0
    while at < len(stream):
        size = max(1, sizes[i % len(sizes)])
        buffer += stream[at : at + size]
        at, i = at + size, i + 1
        out.extend(drain(decode, buffer))
    return out
