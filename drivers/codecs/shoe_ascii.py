"""The ASCII dialect of the card-reading shoe on the market (grammar: ``docs/protocols/shoe.md`` § 2).

9600 baud, 8N1. Frames are space-delimited: ``[Tag]<Body>`` or a bare ``<Body>``, e.g.
`` [Game]<Card:4S> ``, `` [Manual Burn Cards]<Card:3H> `` (also seen suit first, ``H3``, during burns),
`` [Game]<Game> `` (failed read), `` [GameAlarm]<Alarm:E3 Card Not Read> ``, `` <W0x01> ``.
There is no checksum: anything that does not fit the grammar is skipped up to the next
``[`` or ``<`` and reported as a :class:`~drivers.codecs.BadFrame`. The dialect has no
identity message: the driver takes the identity from the profile.
"""

from __future__ import annotations

import re

from drivers.codecs import GARBAGE, TOO_LONG, UNKNOWN, BadFrame
from drivers.codecs.shoe_messages import (
    RANKS,
    SUITS,
    Card,
    CutCard,
    FaceUp,
    Fault,
    ShoeEmpty,
    ShoeMessage,
    Unreadable,
    Warning,
)  # fmt: skip
from drivers.errors import CodecError

__all__ = ["BAUDRATE", "MAX_FRAME", "decode", "encode", "GAME_TAG", "BURN_TAG", "ALARM_TAG"]

#: The shoe's fixed line speed (8 data bits, no parity, 1 stop bit).
BAUDRATE = 9600
#: Longest frame we accept, tag and brackets included; longer is garbage.
MAX_FRAME = 64
#: Blanks that separate frames; skipped silently.
_BLANK_RUN = re.compile(rb"[ \r\n\t]+")
#: Bytes that open a frame: the decoder resynchronises on them.
_OPENERS = b"[<"
#: Tag of cards dealt in play.
GAME_TAG = "Game"
#: Tag of cards drawn in the shoe's burn mode (§ 541.5(g)).
BURN_TAG = "Manual Burn Cards"
#: Tag the shoe uses for alarms outside a card read.
ALARM_TAG = "GameAlarm"
#: Body of a failed read: a card was drawn but not read.
_FAILED_READ = "game"
#: Body of the cut card. ASSUMED (not in the vendor's examples; confirm at the bench).
_CUT_CARD = "cut card"
#: Alarm text meaning a card came out face up. ASSUMED; matched case-insensitively.
_FACE_UP_TEXT = "card face up"
#: Alarm text meaning the shoe is empty. ASSUMED; matched case-insensitively.
_SHOE_EMPTY_TEXT = "shoe empty"
#: Alarm codes the sim sends for the assumed alarms above.
_FACE_UP_CODE, _SHOE_EMPTY_CODE = "E5", "E6"

#: A complete frame: optional ``[tag]`` (at most 28 characters) then ``<body>`` (at most
#: 32), no brackets inside either; so no frame exceeds :data:`MAX_FRAME`.
_FRAME = re.compile(rb"(?:\[([^\[\]<>]{1,28})\])?<([^\[\]<>]{1,32})>")
#: What a frame looks like before its closing ``>`` has arrived.
_PARTIAL = re.compile(rb"\[[^\[\]<>]*(?:\](?:<[^\[\]<>]*)?)?|<[^\[\]<>]*")
#: A warning body: ``W0x`` and one to four hex digits.
_WARNING = re.compile(r"W0[xX]([0-9A-Fa-f]{1,4})")
#: Rank spellings the shoe uses: one character each, and ``10`` for ten.
_RANK_SPELLINGS = {r: r for r in RANKS} | {"10": "T"}


def _card(text: str, burn: bool) -> Card | None:
    """Read ``4S``, ``10D``, ``TD`` or suit-first ``H3``; ``None`` if it is neither."""
    spelled = text.strip().upper()
    if spelled[-1:] in SUITS and spelled[:-1] in _RANK_SPELLINGS:
        return Card(_RANK_SPELLINGS[spelled[:-1]], spelled[-1], burn)
    if spelled[:1] in SUITS and spelled[1:] in _RANK_SPELLINGS:
        return Card(_RANK_SPELLINGS[spelled[1:]], spelled[0], burn)
    return None


def _alarm(text: str) -> ShoeMessage:
    code, _, description = text.strip().partition(" ")
    lowered = description.strip().lower()
    if _FACE_UP_TEXT in lowered:
        return FaceUp()
    if _SHOE_EMPTY_TEXT in lowered:
        return ShoeEmpty()
    return Fault(code, description.strip())


def _message(tag: str, body: str) -> ShoeMessage | None:
    """The message a well-formed frame carries, or ``None`` if the dialect does not define it."""
    burn = "burn" in tag.lower()
    keyword, colon, value = body.partition(":")
    keyword = keyword.strip().lower()
    if colon and keyword == "card" and value.strip():
        return _card(value, burn)
    if colon and keyword == "alarm" and value.strip():
        return _alarm(value)
    if not colon and keyword == _FAILED_READ:
        return Unreadable(burn)
    if not colon and keyword == _CUT_CARD:
        return CutCard()
    warning = _WARNING.fullmatch(body.strip())
    if warning:
        return Warning(int(warning.group(1), 16))
    return None


def _skip_to_opener(buf: bytes | bytearray, start: int) -> int:
    """Index of the first ``[`` or ``<`` at or after ``start`` (or ``len(buf)``)."""
    hits = [i for i in (buf.find(b"[", start), buf.find(b"<", start)) if i >= 0]
    return min(hits) if hits else len(buf)


def decode(buf: bytes | bytearray) -> tuple[int, ShoeMessage | BadFrame | None]:
    """Decode the frame at the start of ``buf`` (see :mod:`drivers.codecs` for the contract).

    Blanks are consumed with no item; a frame whose end has not arrived yet asks for more
    bytes; anything else is a :class:`BadFrame` covering the bytes up to the next ``[`` or ``<``.
    """
    if not buf:
        return 0, None
    blanks = _BLANK_RUN.match(buf)
    if blanks:
        return blanks.end(), None
    if buf[0] not in _OPENERS:
        end = _skip_to_opener(buf, 0)
        raw = bytes(buf[:end])
        return end, BadFrame(f"{len(raw)} byte(s) of garbage: {raw[:24]!r}", raw, GARBAGE)
    match = _FRAME.match(buf)
    if match is None:
        started = _PARTIAL.match(buf)  # matches at least the opener
        end = started.end() if started else 1
        if end == len(buf) and end < MAX_FRAME:
            return 0, None
        raw = bytes(buf[:end])
        kind = TOO_LONG if end >= MAX_FRAME else GARBAGE
        return end, BadFrame(f"malformed frame: {raw[:24]!r}", raw, kind)
    raw = match.group(0)
    tag = (match.group(1) or b"").decode("latin-1")
    body = match.group(2).decode("latin-1")
    message = _message(tag, body)
    if message is None:
        return len(raw), BadFrame(f"unknown frame {raw.decode('latin-1')!r}", raw, UNKNOWN)
    return len(raw), message


def encode(message: ShoeMessage, *, suit_first: bool = False) -> bytes:
    """The frame the market shoe sends for ``message``, blanks around it.

    :param suit_first: write a card suit first (``H3``), as the shoe does in some burns.
    :raises CodecError: for a message this dialect cannot express (a face-up card's
        rank and suit are lost: the dialect only has an alarm for it).
    """
    match message:
        case Card(rank=rank, suit=suit, burn=burn):
            text = f"[{BURN_TAG if burn else GAME_TAG}]<Card:{suit + rank if suit_first else rank + suit}>"
        case CutCard():
            text = f"[{GAME_TAG}]<Cut Card>"
        case Unreadable(burn=burn):
            text = f"[{BURN_TAG if burn else GAME_TAG}]<Game>"
        case FaceUp():
            text = f"[{ALARM_TAG}]<Alarm:{_FACE_UP_CODE} Card Face Up>"
        case ShoeEmpty():
            text = f"[{ALARM_TAG}]<Alarm:{_SHOE_EMPTY_CODE} Shoe Empty>"
        case Fault(code=code, text=description):
            text = f"[{ALARM_TAG}]<Alarm:{code} {description}>"
        case Warning(code=code):
            text = f"<W0x{code:02X}>"
        case _:
            raise CodecError(f"the ascii shoe dialect cannot express {message!r}")
    wire = f" {text} ".encode("latin-1")
    if _FRAME.fullmatch(wire.strip()) is None:
        raise CodecError(f"the ascii shoe dialect cannot express {message!r}: {text!r} is not a valid frame")
    return wire
