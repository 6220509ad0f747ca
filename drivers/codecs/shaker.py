"""The Pai Gow dice shaker's messages in our framed protocol (:mod:`drivers.codecs.framed`).

The shaker reports what its sensors see, faithfully: every shake, the lid coming off and
going back on, and what the dice sensor reads (each die's face and whether it lies flat,
and how many dice are in the shaker). It never judges a roll: a die not flat, a die out
of the shaker or too few shakes are the controller's business (§ 535.8(a), § 535.12).

Payloads, byte by byte with hex examples, are in ``docs/protocols/dice-shaker.md``. The
link layer (identify/identity, heartbeat, ack, nak; sequence numbers and CRC) is the
framed protocol's own and shared with the shoe.
"""

from __future__ import annotations

import dataclasses
import struct

from drivers.codecs import framed
from drivers.codecs.framed import MessageTable, MessageType, PayloadReader, pack_text
from drivers.codecs.framer import Framer
from drivers.errors import CodecError

__all__ = [
    "TABLE", "FRAMER", "Die", "Shake", "Lid", "Reading", "ShakerFault", "RequestReading", "Reset",
    "FLAG_FLAT", "LID_CLOSED", "LID_OPEN", "FAULTS", "fault_name", "fault_text", "ShakerMessage",
]  # fmt: skip

#: Bit 0 of a die's flags byte: the die lies flat on the bottom of the shaker (§ 535.12(a)).
FLAG_FLAT = 0x01
#: Lid byte: the lid is on the shaker.
LID_CLOSED = 0x00
#: Lid byte: the lid is off the shaker.
LID_OPEN = 0x01

#: Fault codes the shaker sends in :class:`ShakerFault`: (name the driver reports, what it means).
FAULTS: dict[int, tuple[str, str]] = {
    0x01: ("dice_sensor", "the dice sensor cannot see the dice"),  # dirty lens, no light
    0x02: ("lid_switch", "the lid switch disagrees with the dice sensor"),  # stuck or broken reed
    0x03: ("shake_sensor", "the motion sensor stopped answering: shakes are not counted"),
    0x04: ("tamper", "the shaker's base was opened"),
    0xFF: ("internal", "firmware error"),  # any other; the detail text says which
}


def fault_name(code: int) -> str:
    """The name of fault ``code`` (``"fault_0x2A"`` for a code this host does not know)."""
    return FAULTS.get(code, (f"fault_0x{code:02X}", ""))[0]


def fault_text(fault: ShakerFault) -> str:
    """One line for the dealer and the journal: what the fault code means, and the shaker's detail."""
    meaning = FAULTS.get(fault.code, ("", f"unknown fault code 0x{fault.code:02X}"))[1]
    return f"{meaning}: {fault.text}" if fault.text else meaning


@dataclasses.dataclass(frozen=True)
class Die:
    """One die as the dice sensor sees it.

    :param face: the face up as reported (0..255 on the wire; a real die shows 1..6,
        anything else is passed on for the controller to call an invalid reading).
    :param flat: whether the die lies flat on the bottom of the shaker (§ 535.12(a)).
    """

    face: int
    flat: bool = True


@dataclasses.dataclass(frozen=True)
class Shake:
    """Shaker -> host: one shake felt.

    :param count: shakes since the lid was last put on, 1 for the first (§ 535.8(a)).
    """

    count: int


@dataclasses.dataclass(frozen=True)
class Lid:
    """Shaker -> host: the lid came off (``open=True``) or was put back on."""

    open: bool


@dataclasses.dataclass(frozen=True)
class Reading:
    """Shaker -> host: what the dice sensor sees, sent after every :class:`Lid` open and
    in answer to :class:`RequestReading`.

    :param dice: the dice the sensor sees, in its own order.
    :param dice_in_shaker: how many dice the sensor counts in the shaker (§ 535.12(b)).
    """

    dice: tuple[Die, ...]
    dice_in_shaker: int


@dataclasses.dataclass(frozen=True)
class ShakerFault:
    """Shaker -> host: a fault of the device itself (not of the roll).

    :param code: one of :data:`FAULTS`' keys (other codes are passed on).
    :param text: the firmware's detail, ASCII, may be empty.
    """

    code: int
    text: str = ""


@dataclasses.dataclass(frozen=True)
class RequestReading:
    """Host -> shaker: send a :class:`Reading` of the dice now."""


@dataclasses.dataclass(frozen=True)
class Reset:
    """Host -> shaker: set the shake count to zero and clear latched faults."""


#: Any message a shaker sends.
ShakerMessage = Shake | Lid | Reading | ShakerFault


def _pack_shake(message: Shake) -> bytes:
    if not 0 <= message.count <= 0xFFFF:
        raise CodecError(f"shaker shake count {message.count} must be 0..65535")
    return struct.pack(">H", message.count)


def _unpack_lid(reader: PayloadReader) -> Lid:
    value = reader.u8()
    if value not in (LID_CLOSED, LID_OPEN):
        raise CodecError(f"shaker lid byte 0x{value:02X} is neither 0x00 (closed) nor 0x01 (open)")
    return Lid(value == LID_OPEN)


def _pack_reading(message: Reading) -> bytes:
    try:
        header = bytes((message.dice_in_shaker, len(message.dice)))
        return header + b"".join(bytes((die.face, FLAG_FLAT if die.flat else 0)) for die in message.dice)
    except ValueError as exc:  # bytes() refuses values outside 0..255
        raise CodecError(f"shaker reading {message}: every count and face must be 0..255") from exc


def _unpack_die(reader: PayloadReader) -> Die:
    face, flags = reader.u8(), reader.u8()
    if flags & ~FLAG_FLAT:
        raise CodecError(f"shaker die flags 0x{flags:02X} set unknown bits")
    return Die(face, bool(flags & FLAG_FLAT))


def _unpack_reading(reader: PayloadReader) -> Reading:
    dice_in_shaker, dice_read = reader.u8(), reader.u8()
    return Reading(tuple(_unpack_die(reader) for _ in range(dice_read)), dice_in_shaker)


def _pack_fault(message: ShakerFault) -> bytes:
    if not 0 <= message.code <= 255:
        raise CodecError(f"shaker fault code {message.code} must be 0..255")
    return bytes((message.code,)) + pack_text(message.text)


#: The shaker family's message table: 0x10-0x7F shaker -> host, 0x81-0xFF host -> shaker.
TABLE = MessageTable(
    "shaker",
    (
        # SHAKE: 16-bit shake count since the lid went on.
        MessageType(0x10, Shake, pack=_pack_shake, unpack=lambda r: Shake(r.u16())),
        # LID: 0x00 closed, 0x01 open.
        MessageType(0x11, Lid, pack=lambda m: bytes((LID_OPEN if m.open else LID_CLOSED,)), unpack=_unpack_lid),
        # READING: dice in shaker, dice read, then per die read: face, flags (bit 0 = flat).
        MessageType(0x12, Reading, pack=_pack_reading, unpack=_unpack_reading),
        # FAULT: fault code, detail text (length-prefixed ASCII).
        MessageType(0x13, ShakerFault, pack=_pack_fault, unpack=lambda r: ShakerFault(r.u8(), r.text())),
        # REQUEST_READING (host -> shaker): no payload.
        MessageType(0x81, RequestReading),
        # RESET (host -> shaker): no payload.
        MessageType(0x82, Reset),
    ),
)  # fmt: skip

#: The shaker's messages in our frame layout: what the ack/retry layer speaks to a shaker.
FRAMER = Framer(framed, TABLE)
