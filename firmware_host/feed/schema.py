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
import re
from typing import Any, Iterable, Iterator

from firmware_host.host.journal import Record
from firmware_host.tables.decisions import DEVICE_BYTES_ALERTS

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
    "MessageError",
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
_HEX64 = re.compile(r"[0-9a-f]{64}\Z")


class MessageError(ValueError):
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


def derive(table: str, records: Iterable[JournalRecord], state: FeedState) -> Iterator[tuple[dict[str, Any], FeedState]]:
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
        message = seal({"table": table, "seq": state.seq + 1, "journal_seq": record.seq, "journal_hash": record.hash,
                        "at": record.at, "round": record.round, "type": made[0], "data": made[1],
                        "prev_hash": state.hash})
        state = FeedState(message["seq"], record.seq, message["hash"])
        yield message, state


def _canonical(value: dict[str, Any]) -> str:
    """Sorted keys, no spaces, UTF-8, no NaN: the one text of a JSON object."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def message_hash(message: dict[str, Any]) -> str:
    """SHA-256 (hex) of :data:`HASH_PREFIX` and the canonical JSON of every field but ``hash``."""
    body = {k: v for k, v in message.items() if k != "hash"}
    return hashlib.sha256(HASH_PREFIX + _canonical(body).encode("utf-8")).hexdigest()


def seal(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with its ``hash``."""
    return {**message, "hash": message_hash(message)}


def encode(message: dict[str, Any]) -> bytes:
    """The payload published: the canonical JSON of the whole message."""
    return _canonical(message).encode("utf-8")


def check_message(payload: bytes) -> dict[str, Any]:
    """Parse a payload and check its fields and its own hash (not its link: the collector does).

    :raises MessageError: not JSON, a field missing or of the wrong type, or a hash that does not check.
    """
    try:
        message = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise MessageError(f"not a JSON message: {exc}") from exc
    if not isinstance(message, dict) or set(message) != set(FIELDS):
        got = sorted(message) if isinstance(message, dict) else type(message).__name__
        raise MessageError(f"fields are {got}, expected {sorted(FIELDS)}")
    kinds = {"table": str, "seq": int, "journal_seq": int, "type": str, "data": dict}
    for name, kind in kinds.items():
        if not isinstance(message[name], kind) or isinstance(message[name], bool):
            raise MessageError(f"{name} is {message[name]!r}, not {kind.__name__}")
    if message["seq"] < 1 or message["journal_seq"] < 1:
        raise MessageError(f"seq {message['seq']} / journal_seq {message['journal_seq']} must be positive")
    for name in ("journal_hash", "prev_hash", "hash"):
        if not isinstance(message[name], str) or not _HEX64.match(message[name]):
            raise MessageError(f"{name} is not 64 lowercase hex digits")
    if message_hash(message) != message["hash"]:
        raise MessageError(f"message {message['seq']}: its content does not match its hash")
    return message
