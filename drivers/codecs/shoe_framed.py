"""The shoe's messages in our framed protocol (:mod:`drivers.codecs.framed`).

Payloads (byte by byte in ``docs/protocols/shoe.md``): ranks and suits travel as their
ASCII letters (``'T'`` = 0x54 for ten, ``'S'`` = 0x53 for spades) so hex dumps read
naturally; 0x00 stands for "not read".
"""

from __future__ import annotations

import struct

from drivers.codecs import framed
from drivers.codecs.framed import MessageTable, MessageType, PayloadReader, pack_text
from drivers.codecs.framer import Framer
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

__all__ = ["TABLE", "FRAMER", "FLAG_BURN", "UNKNOWN"]

#: Bit 0 of a card's flags byte: drawn in burn mode.
FLAG_BURN = 0x01
#: Rank or suit byte meaning "the shoe did not read it".
UNKNOWN = 0x00


def _letter(reader: PayloadReader) -> str:
    return chr(reader.u8())


def _flags(reader: PayloadReader) -> bool:
    flags = reader.u8()
    if flags & ~FLAG_BURN:
        raise CodecError(f"shoe card flags 0x{flags:02X} set unknown bits")
    return bool(flags & FLAG_BURN)


def _unpack_face_up(reader: PayloadReader) -> FaceUp:
    rank, suit = reader.u8(), reader.u8()
    if rank == UNKNOWN and suit == UNKNOWN:
        return FaceUp()
    return FaceUp(chr(rank), chr(suit))


def _pack_face_up(message: FaceUp) -> bytes:
    if message.rank is None or message.suit is None:
        return bytes((UNKNOWN, UNKNOWN))
    return (message.rank + message.suit).encode("ascii")


#: The shoe family's message table: 0x10-0x7F shoe -> host, 0x81-0xFF host -> shoe.
TABLE = MessageTable(
    "shoe",
    (
        # CARD: rank letter, suit letter, flags (bit 0 = burn).
        MessageType(0x10, Card,
                    pack=lambda m: (m.rank + m.suit).encode("ascii") + bytes((FLAG_BURN if m.burn else 0,)),
                    unpack=lambda r: Card(_letter(r), _letter(r), _flags(r))),
        # CUT_CARD: no payload.
        MessageType(0x11, CutCard),
        # UNREADABLE: flags (bit 0 = burn).
        MessageType(0x12, Unreadable,
                    pack=lambda m: bytes((FLAG_BURN if m.burn else 0,)),
                    unpack=lambda r: Unreadable(_flags(r))),
        # FACE_UP: rank letter, suit letter (0x00 0x00 when not read).
        MessageType(0x13, FaceUp, pack=_pack_face_up, unpack=_unpack_face_up),
        # SHOE_EMPTY: no payload.
        MessageType(0x14, ShoeEmpty),
        # FAULT: code text, description text (each length-prefixed ASCII).
        MessageType(0x15, Fault,
                    pack=lambda m: pack_text(m.code) + pack_text(m.text),
                    unpack=lambda r: Fault(r.text(), r.text())),
        # WARNING: 16-bit warning code.
        MessageType(0x16, Warning, pack=lambda m: struct.pack(">H", m.code), unpack=lambda r: Warning(r.u16())),
        # SET_BURN_MODE (host -> shoe): 0x01 on, 0x00 off.
        MessageType(0x81, SetBurnMode,
                    pack=lambda m: bytes((1 if m.on else 0,)),
                    unpack=lambda r: SetBurnMode(bool(r.u8()))),
    ),
)  # fmt: skip

#: The shoe's messages in our frame layout: what the ack/retry layer speaks to a ``"framed"`` shoe.
FRAMER = Framer(framed, TABLE)
