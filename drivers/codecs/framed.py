"""Our framed binary protocol: the link layer shared by the shoe, the dice shaker and later devices.

A frame on the wire (all multi-byte integers big-endian)::

    +------+-----+-----+------+-------------+---------+
    | SYNC | LEN | SEQ | TYPE | PAYLOAD ... | CRC16   |
    | 0xA5 | 1 B | 1 B | 1 B  | LEN bytes   | 2 bytes |
    +------+-----+-----+------+-------------+---------+

The CRC is CRC-16/CCITT-FALSE over LEN, SEQ, TYPE and PAYLOAD (not SYNC). The full
description, with worked hex examples, is ``docs/protocols/shoe.md``.

This module is pure: :func:`decode` and :func:`encode` move between bytes and
:class:`Frame`; a :class:`MessageTable` moves between frames and typed messages. Each
device family (shoe, shaker) builds one table from its own :class:`MessageType` entries;
the link-layer messages below (identify, identity, heartbeat, ack, nak) are in every table.

Reliability (carried out by :mod:`drivers.device` and :mod:`sim.devices.link`, described here
because the SEQ field's meaning belongs to the format): every *reliable* frame gets the
sender's next sequence number (1..255, wrapping 255 -> 1; 0 is never used for reliable
frames) and is kept until the peer acks it; the peer drops a reliable frame whose SEQ
equals the last one it accepted (a duplicate) but acks it again. A sender has at most
one reliable frame outstanding (stop-and-wait), so consecutive reliable frames always
differ in SEQ.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from drivers.codecs import BAD_CRC, BAD_LENGTH, GARBAGE, BadFrame
from drivers.errors import CodecError

__all__ = [
    "SYNC", "MAX_PAYLOAD", "HEADER_SIZE", "CRC_SIZE", "OVERHEAD", "crc16",
    "Frame", "decode", "encode", "next_seq",
    "PayloadReader", "pack_text", "MessageType", "MessageTable",
    "Identify", "Identity", "Heartbeat", "Ack", "Nak", "LINK_TYPES",
    "NAK_BAD_CRC", "NAK_BAD_LENGTH", "nak_reason",
]  # fmt: skip

#: First byte of every frame: 0b10100101, alternating bits, rare in idle-line noise.
SYNC = 0xA5
#: Longest payload a frame may carry; a LEN above it is a corrupt header, so a decoder
#: never waits for more than 6 + 64 bytes before it can judge a frame.
MAX_PAYLOAD = 64
#: SYNC, LEN, SEQ and TYPE.
HEADER_SIZE = 4
#: The CRC-16 trailer.
CRC_SIZE = 2
#: Bytes a frame adds to its payload.
OVERHEAD = HEADER_SIZE + CRC_SIZE
#: Sequence numbers of reliable frames run 1..255 and wrap to 1; 0 means "none yet".
SEQ_MODULUS = 256

#: NAK reason: the frame's CRC did not match.
NAK_BAD_CRC = 1
#: NAK reason: the frame's LEN exceeded :data:`MAX_PAYLOAD`.
NAK_BAD_LENGTH = 2

#: CRC-16/CCITT-FALSE: polynomial x^16 + x^12 + x^5 + 1.
_CRC_POLY = 0x1021
#: CRC-16/CCITT-FALSE initial register value (no reflection, no final XOR).
_CRC_INIT = 0xFFFF


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ _CRC_POLY) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _crc_table()


def crc16(data: bytes | bytearray | memoryview) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (check value: ``crc16(b"123456789") == 0x29B1``)."""
    crc = _CRC_INIT
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[(crc >> 8) ^ byte]
    return crc


def nak_reason(bad: BadFrame) -> int | None:
    """The NAK reason a receiver answers a bad frame with, or ``None`` (garbage: no NAK)."""
    return {BAD_CRC: NAK_BAD_CRC, BAD_LENGTH: NAK_BAD_LENGTH}.get(bad.kind)


def next_seq(seq: int) -> int:
    """The sequence number after ``seq`` for a reliable frame: 1..255, wrapping to 1."""
    return seq % (SEQ_MODULUS - 1) + 1


@dataclasses.dataclass(frozen=True)
class Frame:
    """One decoded frame.

    :param seq: the SEQ byte (0..255).
    :param type: the TYPE byte (0..255).
    :param payload: the PAYLOAD bytes (at most :data:`MAX_PAYLOAD`).
    """

    seq: int
    type: int
    payload: bytes = b""


def encode(frame: Frame) -> bytes:
    """The wire bytes of ``frame``.

    :raises CodecError: if a field is out of range or the payload is too long.
    """
    if not 0 <= frame.seq <= 255 or not 0 <= frame.type <= 255:
        raise CodecError(f"frame seq {frame.seq} and type {frame.type} must each be 0..255")
    if len(frame.payload) > MAX_PAYLOAD:
        raise CodecError(f"frame payload of {len(frame.payload)} bytes exceeds {MAX_PAYLOAD}")
    body = bytes((len(frame.payload), frame.seq, frame.type)) + frame.payload
    return bytes((SYNC,)) + body + crc16(body).to_bytes(CRC_SIZE, "big")


def decode(buf: bytes | bytearray) -> tuple[int, Frame | BadFrame | None]:
    """Decode the frame at the start of ``buf`` (see :mod:`drivers.codecs` for the contract).

    Bytes before a SYNC are garbage and skipped up to the next SYNC. A header whose LEN
    exceeds :data:`MAX_PAYLOAD`, or a frame whose CRC fails, costs only its SYNC byte: the
    decoder then resynchronises on the next SYNC, so a frame hidden behind a corrupt
    header is still found.
    """
    if not buf:
        return 0, None
    if buf[0] != SYNC:
        start = buf.find(SYNC)
        skipped = len(buf) if start < 0 else start
        raw = bytes(buf[:skipped])
        return skipped, BadFrame(f"{skipped} byte(s) of garbage before a frame: {raw[:16].hex(' ')}", raw, GARBAGE)
    if len(buf) < 2:
        return 0, None
    length = buf[1]
    if length > MAX_PAYLOAD:
        return 1, BadFrame(f"frame length {length} exceeds {MAX_PAYLOAD}", bytes(buf[:2]), BAD_LENGTH)
    total = OVERHEAD + length
    if len(buf) < total:
        return 0, None
    body_end = HEADER_SIZE + length
    received = int.from_bytes(buf[body_end:total], "big")
    computed = crc16(memoryview(buf)[1:body_end])
    if received != computed:
        raw = bytes(buf[:total])
        return 1, BadFrame(f"bad CRC: got 0x{received:04X}, computed 0x{computed:04X}", raw, BAD_CRC)
    return total, Frame(seq=buf[2], type=buf[3], payload=bytes(buf[HEADER_SIZE:body_end]))


class PayloadReader:
    """Reads typed fields from a payload, raising :class:`CodecError` on a short or long one."""

    def __init__(self, payload: bytes, what: str) -> None:
        self._payload, self._at, self._what = payload, 0, what

    def _take(self, count: int) -> bytes:
        if self._at + count > len(self._payload):
            raise CodecError(f"{self._what}: payload of {len(self._payload)} bytes is too short")
        chunk = self._payload[self._at : self._at + count]
        self._at += count
        return chunk

    def u8(self) -> int:
        """One unsigned byte."""
        return self._take(1)[0]

    def u16(self) -> int:
        """One unsigned 16-bit big-endian integer."""
        return int(struct.unpack(">H", self._take(2))[0])

    def text(self) -> str:
        """A length-prefixed ASCII string (see :func:`pack_text`)."""
        raw = self._take(self.u8())
        try:
            return raw.decode("ascii")
        except UnicodeDecodeError as exc:
            raise CodecError(f"{self._what}: text field {raw!r} is not ASCII") from exc

    def end(self) -> None:
        """Check that every byte was read."""
        if self._at != len(self._payload):
            raise CodecError(f"{self._what}: {len(self._payload) - self._at} unexpected trailing byte(s)")


def pack_text(text: str) -> bytes:
    """A length-prefixed ASCII string field: one length byte, then the characters."""
    try:
        raw = text.encode("ascii")
    except UnicodeEncodeError as exc:
        raise CodecError(f"text field {text!r} is not ASCII") from exc
    if len(raw) > 255:
        raise CodecError(f"text field of {len(raw)} characters exceeds 255")
    return bytes((len(raw),)) + raw


M = TypeVar("M")


@dataclasses.dataclass(frozen=True)
class MessageType(Generic[M]):
    """One entry of a :class:`MessageTable`: how a message class travels in a frame.

    :param code: the TYPE byte.
    :param cls: the message class (a dataclass).
    :param reliable: whether frames of this type are numbered, acked and retransmitted.
    :param pack: message -> payload bytes; ``None`` for messages with no fields.
    :param unpack: payload reader -> message; ``None`` for messages with no fields.
    """

    code: int
    cls: type[M]
    reliable: bool = True
    pack: Callable[[M], bytes] | None = None
    unpack: Callable[[PayloadReader], M] | None = None


@dataclasses.dataclass(frozen=True)
class Identify:
    """Host -> device: "who are you?"; also tells the device how often to send heartbeats.

    :param heartbeat_ms: the heartbeat interval the host wants, in milliseconds (0: the device's default).
    """

    heartbeat_ms: int = 0


@dataclasses.dataclass(frozen=True)
class Identity:
    """Device -> host, the answer to :class:`Identify`. Its frame's SEQ is the device's last
    assigned reliable sequence number (0: none since power-on), so that the host can tell a
    retransmission it already has from a frame it missed across a reconnection."""

    model: str
    serial: str
    firmware: str


@dataclasses.dataclass(frozen=True)
class Heartbeat:
    """Device -> host every heartbeat interval: "still here"."""


@dataclasses.dataclass(frozen=True)
class Ack:
    """Either direction: the reliable frame whose SEQ this frame's SEQ repeats arrived."""


@dataclasses.dataclass(frozen=True)
class Nak:
    """Either direction: a frame arrived damaged; resend the outstanding reliable frame.

    This frame's SEQ is the last sequence number the sender of the nak accepted.

    :param reason: one of the ``NAK_*`` codes.
    """

    reason: int


#: The link layer, identical for every device family: TYPE 0x01-0x0F device -> host and
#: 0x80 host -> device are reserved for it; families use 0x10-0x7F (device -> host) and
#: 0x81-0xFF (host -> device).
LINK_TYPES: tuple[MessageType[Any], ...] = (
    MessageType(0x01, Identity, reliable=False,
                pack=lambda m: pack_text(m.model) + pack_text(m.serial) + pack_text(m.firmware),
                unpack=lambda r: Identity(r.text(), r.text(), r.text())),
    MessageType(0x02, Heartbeat, reliable=False),
    MessageType(0x03, Ack, reliable=False),
    MessageType(0x04, Nak, reliable=False, pack=lambda m: bytes((m.reason,)), unpack=lambda r: Nak(r.u8())),
    MessageType(0x80, Identify, reliable=False,
                pack=lambda m: struct.pack(">H", m.heartbeat_ms), unpack=lambda r: Identify(r.u16())),
)  # fmt: skip


class MessageTable:
    """The message types of one device family, plus the link layer's.

    :param family: a name for error messages, e.g. ``"shoe"``.
    :param types: the family's :class:`MessageType` entries.
    :raises CodecError: if two entries share a TYPE code or a class.
    """

    def __init__(self, family: str, types: tuple[MessageType[Any], ...]) -> None:
        self.family = family
        self._by_code: dict[int, MessageType[Any]] = {}
        self._by_class: dict[type, MessageType[Any]] = {}
        for entry in LINK_TYPES + types:
            if entry.code in self._by_code or entry.cls in self._by_class:
                raise CodecError(f"{family}: message type 0x{entry.code:02X} ({entry.cls.__name__}) is defined twice")
            self._by_code[entry.code] = entry
            self._by_class[entry.cls] = entry

    def knows(self, code: int) -> bool:
        """Whether TYPE ``code`` is in this table."""
        return code in self._by_code

    def is_reliable(self, message_or_code: object) -> bool:
        """Whether a message (or TYPE code) travels reliably (numbered, acked, retransmitted)."""
        if isinstance(message_or_code, int):
            return self._by_code[message_or_code].reliable
        return self._entry_of(message_or_code).reliable

    def _entry_of(self, message: object) -> MessageType[Any]:
        entry = self._by_class.get(type(message))
        if entry is None:
            raise CodecError(f"{self.family}: {type(message).__name__} is not a message of this protocol")
        return entry

    def to_frame(self, message: object, seq: int = 0) -> Frame:
        """The frame carrying ``message`` with sequence number ``seq``."""
        entry = self._entry_of(message)
        payload = entry.pack(message) if entry.pack else b""
        return Frame(seq=seq, type=entry.code, payload=payload)

    def encode(self, message: object, seq: int = 0) -> bytes:
        """The wire bytes of ``message`` with sequence number ``seq``."""
        return encode(self.to_frame(message, seq))

    def message(self, frame: Frame) -> Any:
        """The typed message a frame carries.

        :raises CodecError: for an unknown TYPE or a payload that does not fit it.
        """
        entry = self._by_code.get(frame.type)
        if entry is None:
            raise CodecError(f"{self.family}: unknown message type 0x{frame.type:02X}")
        name = f"{self.family} {entry.cls.__name__} (type 0x{frame.type:02X})"
        reader = PayloadReader(frame.payload, name)
        message = entry.unpack(reader) if entry.unpack else entry.cls()
        reader.end()
        return message
