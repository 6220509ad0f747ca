"""The feed's messages as pure functions of the journal (docs/feed.md, "Message schema").

A journal record becomes at most one feed message (:func:`publishable`); the feed numbers
the messages it publishes from 1 per table and chains them with SHA-256 (:func:`derive`).
Nothing here reads a clock or keeps state: the same journal always yields the same messages,
byte for byte (:func:`encode`), so a table that restarts resends identical bytes and a
consumer deduplicates them by ``(table, seq)``.

Never a card before it is exposed at the table: raw device events (``CardRead``, ``DiceRead``,
shuffle orders...) are not published, only the decisions that bind the table — which the
controllers make card-free until the cards are exposed (§ 541.9(c)(2)) — and device-status
events that name no card.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
from collections.abc import Iterable, Iterator
from typing import Any, NoReturn

from firmware_host.errors import TablehostError
from firmware_host.host.journal_codec import Record
from firmware_host.tables.decisions import DEVICE_BYTES_ALERTS
from firmware_host.text import json_surrogate

__all__ = [
    "FORMAT",
    "GENESIS_HASH",
    "FeedState",
    "JournalRecord",
    "publishable",
    "derive",
    "seal",
    "encode",
    "message_hash",
    "check_message",
    "check_status",
    "parse_json",
    "MessageError",
    "MAX_PAYLOAD",
    "MAX_DEPTH",
    "MAX_SEQ",
]

#: Format of the feed's messages; part of every hashed text.
FORMAT = 1
#: Domain-separation prefix of every hashed message.
HASH_PREFIX = b"tablehost-feed/1\n"
#: ``prev_hash`` of message 1.
GENESIS_HASH = "0" * 64
#: Decision types that only tell people what to do next (host.service.PRESENTATION): not published.
UNPUBLISHED_DECISIONS = frozenset({"prompt", "lamp"})
#: The journal's first record (``meta``/``journal``) is published, so the floor anchors record 1
#: and can tell a swapped journal from a rewritten one.
JOURNAL_OPENED = "journal_opened"
#: Status input events published, each with the fields it may carry: none names a card.
DEVICE_STATUS: dict[str, tuple[str, ...]] = {
    "DeviceIdentified": ("device", "model", "serial", "firmware"),
    "DeviceLost": ("device", "reason"),
    "DeviceFault": ("device", "code", "text"),
    "ShufflerFault": ("device", "code", "text", "batch"),
    "ShufflerFaultCleared": ("device", "code"),
    "ShoeEmpty": ("device",),
    "ShoeWarning": ("device", "code"),
    "IdentityUnverified": ("device", "why"),
    # The text of a protocol error may quote the undecodable bytes, which can be a card's frame.
    "ProtocolError": ("device",),
    # The table's own: when its feed was in trouble and why, and the Rules Submission in force.
    "FloorFeedStatus": ("device", "trouble"),
    "RulesInForce": ("device", "rules"),
}
#: Message type of a published device-status event (its class name is ``data["event"]``).
DEVICE_EVENT = "device_event"
#: Every field of a message, in the order docs/feed.md lists them.
FIELDS = ("table", "seq", "journal_seq", "journal_hash", "at", "round", "type", "data", "prev_hash", "hash")
#: The signature's fields (:mod:`firmware_host.feed.signing`): outside the hash, so a message
#: re-signed under a new key keeps its hash and its place in the chain.
SIGNATURE_FIELDS = ("key_id", "sig")
#: Fields of a table's retained status (``<prefix>/<table>/status``).
STATUS_FIELDS = ("table", "state", "version", "game", "seq")
STATUS_STATES = ("online", "offline")

# Limits of a message from the network (docs/feed.md, "Limits"). A genuine message is a few
# hundred bytes (a shoe_result a few kilobytes) and nests 4 deep.
#: Largest payload accepted, bytes.
MAX_PAYLOAD = 256 * 1024
#: Deepest nesting of objects and arrays accepted.
MAX_DEPTH = 32
#: Most objects and arrays in one payload (brackets counted before parsing, those in strings too):
#: what parsing costs grows with them.
MAX_CONTAINERS = 10_000
#: Largest ``seq``, ``journal_seq`` and ``round``: 2**53, the largest integer every JSON reader keeps exactly.
MAX_SEQ = 2**53
#: Longest digit string of a number (an integer up to 2**53 has 16 digits; a float's text is short).
MAX_NUMBER_TEXT = 32
#: Longest ``version`` / ``game`` of a status, and ``type`` of a message.
MAX_NAME = 64

_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
#: A table id: what a topic level, a key file's name and a profile's ``id`` all allow.
TABLE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,63}\Z")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_SQUARE = bytes.maketrans(b"{}", b"[]")


class MessageError(TablehostError, ValueError):
    """A feed message that is malformed or whose hash does not check."""


#: What the feed reads of a journal record: its seq, kind, type, at, round, data and hash.
JournalRecord = Record


@dataclasses.dataclass(frozen=True)
class FeedState:
    """Where the feed stands: the last message made (or acknowledged) and the record it came from.

    :param seq: the last message's ``seq`` (0: none yet).
    :param journal_seq: the journal record it came from (0: none yet); derivation goes on after it.
    :param hash: its ``hash`` (:data:`GENESIS_HASH` before message 1).
    """

    seq: int = 0
    journal_seq: int = 0
    hash: str = GENESIS_HASH


def publishable(record: JournalRecord) -> tuple[str, dict[str, Any]] | None:
    """The ``(type, data)`` of the message a journal record becomes, or None if it is not published."""
    if record.kind == "meta":
        return (JOURNAL_OPENED, dict(record.data)) if record.seq == 1 else None
    if record.kind == "decision":
        if record.type in UNPUBLISHED_DECISIONS:
            return None
        if record.type == "alert" and record.data.get("code") in DEVICE_BYTES_ALERTS:
            return record.type, {k: v for k, v in record.data.items() if k != "text"}
        return record.type, dict(record.data)
    fields = DEVICE_STATUS.get(record.type)
    if record.kind != "input" or fields is None:
        return None  # raw game input (cards, dice, wagers, buttons) or a table-level event
    return DEVICE_EVENT, {"event": record.type, **{k: record.data[k] for k in fields if k in record.data}}


def derive(
    table: str, records: Iterable[JournalRecord], state: FeedState
) -> Iterator[tuple[dict[str, Any], FeedState]]:
    """The messages of ``records`` (the journal's records after ``state.journal_seq``, in order).

    Yields each message with the state after it. A record that is not published still moves
    the state on (its ``journal_seq``), so reading resumes after it.
    """
    for record in records:
        if record.seq <= state.journal_seq:
            continue
        made = publishable(record)
        if made is None:
            state = FeedState(state.seq, record.seq, state.hash)
            continue
        message = seal(
            {
                "table": table,
                "seq": state.seq + 1,
                "journal_seq": record.seq,
                "journal_hash": record.hash,
                "at": record.at,
                "round": record.round,
                "type": made[0],
                "data": made[1],
                "prev_hash": state.hash,
            }
        )
        state = FeedState(message["seq"], record.seq, message["hash"])
        yield message, state


def _canonical(value: dict[str, Any]) -> str:
    """Sorted keys, no spaces, UTF-8, no NaN: the one text of a JSON object."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def message_hash(message: dict[str, Any]) -> str:
    """SHA-256 (hex) of :data:`HASH_PREFIX` and the canonical JSON of every field but ``hash`` (and the
    signature's, :data:`SIGNATURE_FIELDS`)."""
    body = {k: v for k, v in message.items() if k != "hash" and k not in SIGNATURE_FIELDS}
    return hashlib.sha256(HASH_PREFIX + _canonical(body).encode("utf-8")).hexdigest()


def seal(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with its ``hash``."""
    return {**message, "hash": message_hash(message)}


def encode(message: dict[str, Any]) -> bytes:
    """The payload published: the canonical JSON of the whole message."""
    return _canonical(message).encode("utf-8")


def _refuse_constant(name: str) -> NoReturn:
    raise MessageError(f"{name} is not a JSON number")


def _parse_int(text: str) -> int:
    if len(text) > MAX_NUMBER_TEXT:
        raise MessageError(f"an integer of {len(text)} digits")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text) if len(text) <= MAX_NUMBER_TEXT else math.inf
    if not math.isfinite(value):
        raise MessageError(
            f"the number {text[:MAX_NUMBER_TEXT]}... is not finite"
            if len(text) > MAX_NUMBER_TEXT
            else f"the number {text} is not finite"
        )
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    made = dict(pairs)
    if len(made) != len(pairs):
        raise MessageError("an object repeats a key")
    return made


def too_deep(payload: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether a JSON text nests deeper than ``limit`` (or its brackets do not balance).

    No recursion and no parsing, a few linear passes in C over the UTF-8 bytes (a quote, a
    backslash or a bracket is never part of a multi-byte character): escapes are taken out, so
    every quote left delimits a string, then the strings; then only the brackets are kept, and
    each pass removes the innermost (``[]``) pairs. A text within the limit has no bracket left
    after ``limit`` passes.
    """
    if payload.count(b"[") + payload.count(b"{") <= limit:
        return False
    unescaped = payload.replace(b"\\\\", b"").replace(b'\\"', b"")
    rest = b"".join(unescaped.split(b'"')[::2]).translate(_SQUARE, _NOT_BRACKETS)
    if b"[" * (limit + 1) in rest:
        return True
    for _ in range(limit):
        shorter = rest.replace(b"[]", b"")
        if len(shorter) == len(rest):
            break
        rest = shorter
    return bool(rest)


def parse_json(payload: bytes, limit: int = MAX_PAYLOAD) -> Any:
    """A payload's JSON, parsed as a hostile peer may have written it.

    At most ``limit`` bytes of UTF-8, nesting at most :data:`MAX_DEPTH`, at most
    :data:`MAX_CONTAINERS` objects and arrays, numbers finite (no
    ``NaN``, ``Infinity`` or ``1e999``) and at most :data:`MAX_NUMBER_TEXT` digits, no key twice,
    and Unicode text only (no lone surrogate, which no hash, signature or store could encode:
    the text policy of :mod:`firmware_host.text`).

    :raises MessageError: why not (never another exception).
    """
    if len(payload) > limit:
        raise MessageError(f"payload of {len(payload)} bytes (at most {limit})")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MessageError(f"not UTF-8: {exc}") from exc
    containers = payload.count(b"[") + payload.count(b"{")
    if containers > MAX_CONTAINERS:
        raise MessageError(f"{containers} objects and arrays (at most {MAX_CONTAINERS})")
    if too_deep(payload):
        raise MessageError(f"nested more than {MAX_DEPTH} deep, or brackets that do not balance")
    try:
        value = json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_int=_parse_int,
            parse_float=_parse_float,
            object_pairs_hook=_unique_keys,
        )
    except MessageError as exc:
        raise MessageError(f"not a JSON message: {exc}") from None
    except (ValueError, RecursionError) as exc:  # RecursionError: unreachable under MAX_DEPTH; never fatal
        raise MessageError(f"not a JSON message: {exc}") from None
    if json_surrogate(payload, value):
        raise MessageError("a text holds a lone surrogate (a \\uD800 to \\uDFFF escape): not Unicode text")
    return value


def _integer(message: dict[str, Any], name: str, low: int, high: int = MAX_SEQ, *, optional: bool = False) -> None:
    value = message[name]
    if value is None and optional:
        return
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise MessageError(
            f"{name} is {_short(value)}, not an integer {low}..{high}" + (" or null" if optional else "")
        )


def _short(value: Any) -> str:
    """``repr`` of a value, cut to 60 characters (a refusal never quotes a whole payload)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fields(message: Any, fields: tuple[str, ...], signed: bool) -> dict[str, Any]:
    if not isinstance(message, dict):
        raise MessageError(f"a JSON {type(message).__name__}, not an object")
    allowed, present = set(fields) | set(SIGNATURE_FIELDS), set(message)
    missing = set(fields) - present
    if missing or not present <= allowed:
        unknown = sorted(present - allowed)
        raise MessageError(
            f"fields are {_short(sorted(present))}: missing {sorted(missing)}"
            + (f", unknown {_short(unknown)}" if unknown else "")
        )
    if signed and not set(SIGNATURE_FIELDS) <= present:
        raise MessageError(f"unsigned: no {' and no '.join(sorted(set(SIGNATURE_FIELDS) - present))}")
    return message


def _table(value: Any) -> None:
    if not isinstance(value, str) or not TABLE_ID.match(value):
        raise MessageError(f"table is {_short(value)}, not a table id")


def check_message(payload: bytes, *, signed: bool = False) -> dict[str, Any]:
    """Parse a payload and check every field and its own hash (not its link, nor its signature:
    the collector checks those).

    :param signed: the signature's fields must be there (their form is checked when they are).
    :raises MessageError: not JSON, too large or deep, a field missing, unknown, of the wrong type
        or out of range, or a hash that does not check. Never another exception.
    """
    message = _fields(parse_json(payload), FIELDS, signed)
    _table(message["table"])
    _integer(message, "seq", 1)
    _integer(message, "journal_seq", 1)
    _integer(message, "round", 0, optional=True)
    at = message["at"]
    if at is not None and (not isinstance(at, (int, float)) or isinstance(at, bool) or not 0 <= at < MAX_SEQ):
        raise MessageError(f"at is {_short(at)}, not a time (seconds, finite, 0..2**53) or null")
    if not isinstance(message["type"], str) or not _TYPE.match(message["type"]):
        raise MessageError(f"type is {_short(message['type'])}, not a message type")
    if not isinstance(message["data"], dict):
        raise MessageError(f"data is {_short(message['data'])}, not an object")
    for name in ("journal_hash", "prev_hash", "hash"):
        if not isinstance(message[name], str) or not _HEX64.match(message[name]):
            raise MessageError(f"{name} is not 64 lowercase hex digits")
    if message_hash(message) != message["hash"]:
        raise MessageError(f"message {message['seq']}: its content does not match its hash")
    return message


def check_status(payload: bytes, *, signed: bool = False) -> dict[str, Any]:
    """Parse and check a table's retained status (``state`` online/offline, ``version``, ``game``, ``seq``).

    :raises MessageError: as :func:`check_message`.
    """
    status = _fields(parse_json(payload), STATUS_FIELDS, signed)
    _table(status["table"])
    if status["state"] not in STATUS_STATES:
        raise MessageError(f"state is {_short(status['state'])}, not one of {', '.join(STATUS_STATES)}")
    for name in ("version", "game"):
        value = status[name]
        if not isinstance(value, str) or not 0 < len(value) <= MAX_NAME or not value.isprintable():
            raise MessageError(f"{name} is {_short(value)}, not a name of 1..{MAX_NAME} printable characters")
    _integer(status, "seq", 0)
    return status
