"""The floor's copy of a table's feed, checked message by message to restore a damaged journal
(``tablehost journal salvage``, docs/recovery.md "Salvage").

A message is taken only when it proves itself: its fields and its own hash check
(:func:`~firmware_host.feed.schema.check_message`), it is signed by one of the table's feed keys
(:func:`~firmware_host.feed.signing.verify`), its ``seq`` follows the one before, and its
``prev_hash`` is the hash of the message before it whenever that one was taken (after a message
refused or missing the link cannot be checked, and the report says so). A message anchored in the
journal record the salvage has from the journal itself must name that record's hash
(``journal_hash``): a copy that differs there is not this journal's. Any other is restored; its
``journal_hash`` is also recomputed from its content (:func:`record_hash`) whenever the hash of the
journal record before it is known (one the salvage has, or another restored one), which proves the
record's content and its place in the chain; otherwise its content rests on the table's signature alone.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from firmware_host.errors import JournalError
from firmware_host.feed import schema, signing
from firmware_host.feed.schema import FeedState
from firmware_host.floor.model import Unreadable
from firmware_host.host.journal_codec import GENESIS_TYPE, canonical_json, encode

__all__ = ["Restored", "FloorCopy", "check_copy", "record_hash", "ranges"]


@dataclasses.dataclass(frozen=True)
class Restored:
    """A message of the floor's copy beyond what the journal kept, as published (signature included).

    :param record_checked: its ``journal_hash`` was recomputed from its content and the record before it.
    """

    message: dict[str, Any]
    record_checked: bool


@dataclasses.dataclass
class FloorCopy:
    """What :func:`check_copy` made of the floor's copy.

    :param restored: the messages beyond the kept part, in order, each proven.
    :param refused: ``(feed seq, why)`` of every message not taken.
    :param anchored: messages that name a record the salvage has from the journal, and match its hash.
    :param unlinked: feed seqs taken whose link to the message before could not be checked.
    :param missing: feed seqs of which the floor holds no message at all (before the last taken), as ranges.
    :param last: the feed's state after the last message taken: where the table's feed goes on.
    """

    restored: list[Restored] = dataclasses.field(default_factory=list)
    refused: list[tuple[Any, str]] = dataclasses.field(default_factory=list)
    anchored: int = 0
    unlinked: list[int] = dataclasses.field(default_factory=list)
    missing: list[tuple[int, int]] = dataclasses.field(default_factory=list)
    last: FeedState = FeedState()


def record_hash(message: dict[str, Any], prev_hash: str) -> str | None:
    """The chain hash of the journal record ``message`` was made from, given the hash of the record
    before it (None: the message does not carry all of the record, e.g. a device event's fields)."""
    kind, type_, data = "decision", message["type"], dict(message["data"])
    if type_ == schema.JOURNAL_OPENED:
        kind, type_ = "meta", GENESIS_TYPE
    elif type_ == schema.DEVICE_EVENT:
        kind, type_ = "input", str(data.pop("event", ""))
    at = message["at"]
    try:
        text = canonical_json(data, "restored record")
        encoded = encode(
            message["journal_seq"], kind, type_, None if at is None else float(at), message["round"], text, prev_hash
        )
    except (JournalError, TypeError, ValueError, OverflowError):
        return None
    return hashlib.sha256(encoded).hexdigest()


def check_copy(
    messages: Iterable[dict[str, Any] | Unreadable],
    keys: Mapping[str, Ed25519PublicKey],
    known: Mapping[int, str],
    first: int = 1,
) -> FloorCopy:
    """Check the floor's ``messages`` of one table (in seq order) against the table's feed ``keys``
    and the hashes of the journal records the salvage has from the journal itself (``known``:
    seq -> hash); a message of a record it has must name that hash, any other is restored.
    Messages of records before ``first`` (the file's first record: those of archived segments)
    are passed over unchecked, so the first message after them is not linked."""
    copy = FloorCopy()
    taken: dict[int, str] = {}  # feed seq -> hash of the messages taken
    hashes = dict(known)  # journal seq -> record hash, the restored ones' added
    expected, last_journal_seq = 1, 0
    for item in messages:
        if isinstance(item, Unreadable):
            copy.refused.append((item.seq, f"the floor cannot read it: {item.why}"))
            continue
        seq: Any = item.get("seq")
        why = _why_not(item, keys)  # a message that does not prove itself moves nothing on
        if why is None and item["journal_seq"] < first:
            continue  # of an archived segment: passed over only once it proves itself (signed as it is)
        if why is None and seq < expected:
            why = f"feed seq {seq} again, or out of order"
        elif why is None:
            expected = seq + 1
            why = _link(item, seq, taken, copy)
        if why is None:
            why = _place(item, known, last_journal_seq)
        if why is not None:
            copy.refused.append((seq, why))
            continue
        last_journal_seq = journal_seq = item["journal_seq"]
        taken[seq] = item["hash"]
        if journal_seq in known:
            copy.anchored += 1
        else:
            before = hashes.get(journal_seq - 1)
            checked = before is not None and record_hash(item, before) == item["journal_hash"]
            copy.restored.append(Restored(item, checked))
            hashes[journal_seq] = item["journal_hash"]
        copy.last = FeedState(seq, journal_seq, item["hash"])
    named = set(taken) | {seq for seq, _ in copy.refused if isinstance(seq, int)}
    start = 1 if first <= 1 else min(named, default=1)
    copy.missing = ranges(seq for seq in range(start, max(taken, default=0) + 1) if seq not in named)
    return copy


def _why_not(message: dict[str, Any], keys: Mapping[str, Ed25519PublicKey]) -> str | None:
    """Why the message does not prove itself (its form, its own hash, its signature), or None."""
    try:
        schema.check_message(schema.encode(message), signed=True)
    except schema.MessageError as exc:
        return str(exc)
    except ValueError as exc:  # a value JSON has not (an infinite float a REAL column can hold)
        return f"not a message the table could have signed: {exc}"
    return signing.verify(message, dict(keys))


def _link(message: dict[str, Any], seq: int, taken: dict[int, str], copy: FloorCopy) -> str | None:
    """Check ``prev_hash`` is the hash of the message before, when that one was taken."""
    before = taken.get(seq - 1, schema.GENESIS_HASH if seq == 1 else None)
    if before is not None and message["prev_hash"] != before:
        return f"its prev_hash is not the hash of message {seq - 1}"
    if before is None:
        copy.unlinked.append(seq)
    return None


def _place(message: dict[str, Any], known: Mapping[int, str], last_journal_seq: int) -> str | None:
    """Check the message's place in the journal: after the one before, and the hash of a record it names that the salvage has."""
    journal_seq = message["journal_seq"]
    if journal_seq <= last_journal_seq:
        return f"journal seq {journal_seq} does not follow {last_journal_seq}"
    held = known.get(journal_seq)
    if held is not None and held != message["journal_hash"]:
        return f"it names record {journal_seq} with another hash than the journal's: not this journal's copy"
    return None


def ranges(numbers: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted integers as inclusive ``(first, last)`` runs: ``[1, 2, 3, 7] -> [(1, 3), (7, 7)]``."""
    runs: list[tuple[int, int]] = []
    for number in sorted(numbers):
        if runs and number <= runs[-1][1]:
            continue  # the same number again
        if runs and number == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], number)
        else:
            runs.append((number, number))
    return runs
