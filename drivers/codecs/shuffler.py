"""The automatic card shuffler's messages: framed bulk messages and vendor control requests.

The shuffler (§ 541.3(b), § 541.15) is a USB device. Its events and the host's commands
travel over a pair of bulk endpoints as frames of our framed protocol
(:mod:`drivers.codecs.framed`: sync byte, length, sequence number, type, payload, CRC-16),
so a capture of its traffic reads like the shoe's and the shaker's. Identity, firmware
version, status and reset are vendor control requests on endpoint 0, whose data stages are
built and parsed here too. Everything in this module is pure: bytes in, values out.

Byte-by-byte layouts with hex examples are in ``docs/protocols/shuffler.md``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import struct
from collections.abc import Callable, Iterable
from typing import TypeVar

from drivers.codecs.framed import MessageTable, MessageType, PayloadReader, pack_text
from drivers.errors import CodecError

__all__ = [
    "TABLE", "BATCHES", "NO_BATCH", "DIGEST_SIZE", "NO_DIGEST", "PROTOCOL_VERSION",
    "BatchLoaded", "ShuffleStarted", "ShuffleProgress", "ShuffleComplete", "BatchReleased",
    "Fault", "FaultCleared", "StartShuffle", "ReleaseBatch", "ShufflerMessage",
    "FAULT_NAMES", "FAULT_JAM", "FAULT_DOOR_OPEN", "FAULT_CARD_COUNT", "FAULT_NOT_READY", "FAULT_INTERNAL", "fault_name",
    "REQUEST_IN", "REQUEST_OUT", "GET_IDENTITY", "GET_FIRMWARE", "RESET", "GET_STATUS", "SET_HEARTBEAT",
    "CONTROL_IN_LENGTH", "DeviceIdentity", "BatchState", "DeviceStatus", "STATE_NAMES",
    "pack_identity", "unpack_identity", "pack_firmware", "unpack_firmware", "pack_status", "unpack_status",
    "order_digest",
]  # fmt: skip

#: Version of this protocol, the first byte of GET_IDENTITY's answer.
PROTOCOL_VERSION = 1
#: The two batch slots of the shuffler, sent as their ASCII letters (0x41, 0x42) (§ 541.3(b)(2)).
BATCHES: tuple[str, str] = ("A", "B")
#: The batch byte of a FAULT that concerns no batch.
NO_BATCH = 0x00
#: A SHA-256 digest of a batch's shuffled order (see :func:`order_digest`).
DIGEST_SIZE = 32
#: The digest a batch reports before any shuffle.
NO_DIGEST = bytes(DIGEST_SIZE)

#: Fault code: cards jammed in the mechanism; the shuffle in progress is abandoned.
FAULT_JAM = 0x01
#: Fault code: the shuffler's door is open; no shuffle runs until it closes.
FAULT_DOOR_OPEN = 0x02
#: Fault code: a shuffle counted another number of cards than START_SHUFFLE expected.
FAULT_CARD_COUNT = 0x03
#: Fault code: a command the shuffler cannot carry out now (shuffle an empty or released
#: slot, release a batch that is not shuffled); the text says why.
FAULT_NOT_READY = 0x04
#: Fault code: any other firmware error (including a bad frame from the host); the text says which.
FAULT_INTERNAL = 0xFF
#: Fault codes by the name the driver reports.
FAULT_NAMES: dict[int, str] = {
    FAULT_JAM: "jam",
    FAULT_DOOR_OPEN: "door_open",
    FAULT_CARD_COUNT: "card_count",
    FAULT_NOT_READY: "not_ready",
    FAULT_INTERNAL: "internal",
}


def fault_name(code: int) -> str:
    """The name of fault ``code`` (``"fault_0x2A"`` for a code this host does not know)."""
    return FAULT_NAMES.get(code, f"fault_0x{code:02X}")


def order_digest(cards: Iterable[str]) -> bytes:
    """SHA-256 of a batch's shuffled order: the two-character card codes (``"AS"``, ``"TD"``)
    concatenated in the order the cards leave the shuffler, as ASCII.

    Two shuffles with the same digest produced the same order (a shuffler that did not shuffle).
    """
    return hashlib.sha256("".join(cards).encode("ascii")).digest()


T = TypeVar("T")


def _pack_batch(batch: str) -> bytes:
    if batch not in BATCHES:
        raise CodecError(f"shuffler batch {batch!r} is not 'A' or 'B'")
    return batch.encode("ascii")


def _batch_of(value: int) -> str:
    batch = chr(value)
    if batch not in BATCHES:
        raise CodecError(f"shuffler batch byte 0x{value:02X} is not 'A' (0x41) or 'B' (0x42)")
    return batch


def _unpack_batch(reader: PayloadReader) -> str:
    return _batch_of(reader.u8())


def _u8(value: int, what: str) -> bytes:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 0xFF:
        raise CodecError(f"shuffler {what} {value!r} must be 0..255")
    return bytes((value,))


def _u16(value: int, what: str) -> bytes:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 0xFFFF:
        raise CodecError(f"shuffler {what} {value!r} must be 0..65535")
    return struct.pack(">H", value)


def _digest(value: bytes) -> bytes:
    if len(value) != DIGEST_SIZE:
        raise CodecError(f"shuffler order digest of {len(value)} bytes must have {DIGEST_SIZE}")
    return bytes(value)


def _read_digest(reader: PayloadReader) -> bytes:
    return bytes(reader.u8() for _ in range(DIGEST_SIZE))


# -- bulk messages --------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class BatchLoaded:
    """Shuffler -> host: a batch of cards was put into slot ``batch``.

    :param batch: ``"A"`` or ``"B"``.
    :param decks: the decks the slot is set up for (on the shuffler's panel).
    :param back_colour: the back colour the slot is set up for, e.g. ``"red"``.
    """

    batch: str
    decks: int
    back_colour: str


@dataclasses.dataclass(frozen=True)
class ShuffleStarted:
    """Shuffler -> host: the shuffle of ``batch`` began."""

    batch: str


@dataclasses.dataclass(frozen=True)
class ShuffleProgress:
    """Shuffler -> host: the shuffle of ``batch`` is ``percent`` (0..100) done."""

    batch: str
    percent: int


@dataclasses.dataclass(frozen=True)
class ShuffleComplete:
    """Shuffler -> host: the shuffle of ``batch`` finished.

    :param cards: the cards the shuffler counted through its mechanism.
    :param digest: :func:`order_digest` of the order the cards will leave in.
    """

    batch: str
    cards: int
    digest: bytes


@dataclasses.dataclass(frozen=True)
class BatchReleased:
    """Shuffler -> host: the shuffled ``batch`` was lifted out for the dealer (``cards`` in it)."""

    batch: str
    cards: int


@dataclasses.dataclass(frozen=True)
class Fault:
    """Shuffler -> host: a fault (one of :data:`FAULT_NAMES`' codes; others are passed on).

    :param batch: the batch concerned, or ``None`` (sent as 0x00).
    :param text: the firmware's detail, ASCII, may be empty.
    """

    code: int
    batch: str | None = None
    text: str = ""


@dataclasses.dataclass(frozen=True)
class FaultCleared:
    """Shuffler -> host: the fault ``code`` is over (jam cleared, door closed)."""

    code: int


@dataclasses.dataclass(frozen=True)
class StartShuffle:
    """Host -> shuffler: shuffle ``batch``, which should hold ``expected_cards`` cards."""

    batch: str
    expected_cards: int


@dataclasses.dataclass(frozen=True)
class ReleaseBatch:
    """Host -> shuffler: lift the shuffled ``batch`` out for the dealer to load the shoe."""

    batch: str


#: Any message a shuffler sends on its bulk IN endpoint (besides the link layer's HEARTBEAT).
ShufflerMessage = (
    BatchLoaded | ShuffleStarted | ShuffleProgress | ShuffleComplete | BatchReleased | Fault | FaultCleared
)


def _unpack_loaded(reader: PayloadReader) -> BatchLoaded:
    return BatchLoaded(_unpack_batch(reader), reader.u8(), reader.text())


def _unpack_progress(reader: PayloadReader) -> ShuffleProgress:
    batch, percent = _unpack_batch(reader), reader.u8()
    if percent > 100:
        raise CodecError(f"shuffler progress {percent}% exceeds 100%")
    return ShuffleProgress(batch, percent)


def _pack_progress(message: ShuffleProgress) -> bytes:
    if not 0 <= message.percent <= 100:
        raise CodecError(f"shuffler progress {message.percent}% must be 0..100")
    return _pack_batch(message.batch) + _u8(message.percent, "progress")


def _pack_fault(message: Fault) -> bytes:
    batch = bytes((NO_BATCH,)) if message.batch is None else _pack_batch(message.batch)
    return _u8(message.code, "fault code") + batch + pack_text(message.text)


def _unpack_fault(reader: PayloadReader) -> Fault:
    code, batch = reader.u8(), reader.u8()
    return Fault(code, None if batch == NO_BATCH else _batch_of(batch), reader.text())


#: The shuffler family's message table: 0x10-0x7F shuffler -> host, 0x81-0xFF host -> shuffler.
#: USB bulk transfers are already checked and retried by the bus, so no message is acked
#: (every type is unreliable); the shuffler numbers its frames to expose a lost one.
TABLE = MessageTable(
    "shuffler",
    (
        # BATCH_LOADED: batch, decks, text back colour.
        MessageType(0x10, BatchLoaded, reliable=False,
                    pack=lambda m: _pack_batch(m.batch) + _u8(m.decks, "decks") + pack_text(m.back_colour),
                    unpack=_unpack_loaded),
        # SHUFFLE_STARTED: batch.
        MessageType(0x11, ShuffleStarted, reliable=False,
                    pack=lambda m: _pack_batch(m.batch), unpack=lambda r: ShuffleStarted(_unpack_batch(r))),
        # SHUFFLE_PROGRESS: batch, percent 0..100.
        MessageType(0x12, ShuffleProgress, reliable=False, pack=_pack_progress, unpack=_unpack_progress),
        # SHUFFLE_COMPLETE: batch, u16 cards counted, 32-byte SHA-256 order digest.
        MessageType(0x13, ShuffleComplete, reliable=False,
                    pack=lambda m: _pack_batch(m.batch) + _u16(m.cards, "card count") + _digest(m.digest),
                    unpack=lambda r: ShuffleComplete(_unpack_batch(r), r.u16(), _read_digest(r))),
        # BATCH_RELEASED: batch, u16 cards lifted out.
        MessageType(0x14, BatchReleased, reliable=False,
                    pack=lambda m: _pack_batch(m.batch) + _u16(m.cards, "card count"),
                    unpack=lambda r: BatchReleased(_unpack_batch(r), r.u16())),
        # FAULT: code, batch or 0x00, text detail.
        MessageType(0x15, Fault, reliable=False, pack=_pack_fault, unpack=_unpack_fault),
        # FAULT_CLEARED: code.
        MessageType(0x16, FaultCleared, reliable=False,
                    pack=lambda m: _u8(m.code, "fault code"), unpack=lambda r: FaultCleared(r.u8())),
        # START_SHUFFLE (host -> shuffler): batch, u16 expected cards.
        MessageType(0x81, StartShuffle, reliable=False,
                    pack=lambda m: _pack_batch(m.batch) + _u16(m.expected_cards, "expected card count"),
                    unpack=lambda r: StartShuffle(_unpack_batch(r), r.u16())),
        # RELEASE_BATCH (host -> shuffler): batch.
        MessageType(0x82, ReleaseBatch, reliable=False,
                    pack=lambda m: _pack_batch(m.batch), unpack=lambda r: ReleaseBatch(_unpack_batch(r))),
    ),
)  # fmt: skip


# -- vendor control requests -------------------------------------------------------------

#: bmRequestType of a vendor request to the device, data stage device -> host.
REQUEST_IN = 0xC0
#: bmRequestType of a vendor request to the device, data stage host -> device (or none).
REQUEST_OUT = 0x40
#: bRequest IN: protocol version, model and serial number.
GET_IDENTITY = 0x01
#: bRequest IN: firmware version.
GET_FIRMWARE = 0x02
#: bRequest OUT, no data: abandon any shuffle, flush the IN queue and number frames from 1
#: again. Cards stay where they are; a jam or an open door stays until it is physically cleared.
RESET = 0x03
#: bRequest IN: the door, the latched fault and both batches' state.
GET_STATUS = 0x04
#: bRequest OUT, no data, wValue = heartbeat interval in ms (0: no heartbeats).
SET_HEARTBEAT = 0x05
#: wLength the host asks for on every IN request: more than any answer needs.
CONTROL_IN_LENGTH = 256

#: Batch states in GET_STATUS, by wire value.
STATE_NAMES: dict[int, str] = {
    0x00: "empty",  # no cards in the slot
    0x01: "loaded",  # cards in the slot, not shuffled (or shuffle abandoned)
    0x02: "shuffling",
    0x03: "shuffled",  # shuffled and stored, ready to be released
    0x04: "released",  # lifted out: in the shoe or on the table
}
_STATE_CODES = {name: code for code, name in STATE_NAMES.items()}


@dataclasses.dataclass(frozen=True)
class DeviceIdentity:
    """GET_IDENTITY's answer (with the firmware from GET_FIRMWARE)."""

    protocol: int
    model: str
    serial: str


@dataclasses.dataclass(frozen=True)
class BatchState:
    """One batch slot in GET_STATUS.

    :param state: one of :data:`STATE_NAMES`' values.
    :param cards: cards counted by the last shuffle (0 before one).
    :param percent: progress of the shuffle in progress or last finished.
    :param digest: the last shuffle's order digest (all zero before one).
    """

    batch: str
    state: str
    decks: int
    back_colour: str
    cards: int = 0
    percent: int = 0
    digest: bytes = NO_DIGEST


@dataclasses.dataclass(frozen=True)
class DeviceStatus:
    """GET_STATUS's answer: door, latched fault (0: none) and both batches, A then B."""

    door_open: bool
    fault: int
    batches: tuple[BatchState, ...]


def _read_all(data: bytes, what: str, read: Callable[[PayloadReader], T]) -> T:
    """Parse a whole control data stage with ``read``; trailing bytes are an error."""
    reader = PayloadReader(bytes(data), f"shuffler {what}")
    value = read(reader)
    reader.end()
    return value


def pack_identity(identity: DeviceIdentity) -> bytes:
    """GET_IDENTITY's data stage: u8 protocol version, text model, text serial."""
    return _u8(identity.protocol, "protocol version") + pack_text(identity.model) + pack_text(identity.serial)


def unpack_identity(data: bytes) -> DeviceIdentity:
    """Parse GET_IDENTITY's data stage (:class:`CodecError` if it does not fit)."""
    return _read_all(data, "identity", lambda r: DeviceIdentity(r.u8(), r.text(), r.text()))


def pack_firmware(version: str) -> bytes:
    """GET_FIRMWARE's data stage: text firmware version."""
    return pack_text(version)


def unpack_firmware(data: bytes) -> str:
    """Parse GET_FIRMWARE's data stage (:class:`CodecError` if it does not fit)."""
    return _read_all(data, "firmware version", lambda r: r.text())


def _pack_batch_state(state: BatchState) -> bytes:
    code = _STATE_CODES.get(state.state)
    if code is None:
        raise CodecError(f"shuffler batch state {state.state!r} is not one of {', '.join(_STATE_CODES)}")
    return (
        _pack_batch(state.batch) + bytes((code,)) + _u8(state.decks, "decks") + pack_text(state.back_colour)
        + _u16(state.cards, "card count") + _u8(state.percent, "progress") + _digest(state.digest)
    )  # fmt: skip


def _unpack_batch_state(reader: PayloadReader) -> BatchState:
    batch, code = _unpack_batch(reader), reader.u8()
    if code not in STATE_NAMES:
        raise CodecError(f"shuffler batch {batch} state 0x{code:02X} is not one of 0x00..0x04")
    return BatchState(
        batch, STATE_NAMES[code], reader.u8(), reader.text(), reader.u16(), reader.u8(), _read_digest(reader)
    )


def pack_status(status: DeviceStatus) -> bytes:
    """GET_STATUS's data stage: u8 door, u8 fault, u8 batch count N, then N batch records."""
    head = bytes((int(status.door_open),)) + _u8(status.fault, "fault code") + _u8(len(status.batches), "batch count")
    return head + b"".join(_pack_batch_state(state) for state in status.batches)


def _unpack_status(reader: PayloadReader) -> DeviceStatus:
    door = reader.u8()
    if door > 1:
        raise CodecError(f"shuffler door byte 0x{door:02X} is neither 0x00 (closed) nor 0x01 (open)")
    fault, count = reader.u8(), reader.u8()
    return DeviceStatus(bool(door), fault, tuple(_unpack_batch_state(reader) for _ in range(count)))


def unpack_status(data: bytes) -> DeviceStatus:
    """Parse GET_STATUS's data stage (:class:`CodecError` if it does not fit)."""
    return _read_all(data, "status", _unpack_status)
