"""The journal's record format: what a record holds, how its data is encoded, and the bytes its
hash and MAC are computed over (``docs/journal.md``, byte by byte).

Also how records are read back as the steps that replay feeds a controller (:func:`steps_of`).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import hmac
import json
import math
import struct
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import drivers.events.all  # noqa: F401  (registers every device event type, so steps_of() can rebuild them)
import firmware_host.tables.events  # noqa: F401  (and every table-level event type)
from drivers.events import DeviceEvent, EventError, from_record, to_record
from firmware_host.errors import JournalEncodingError, JournalError
from firmware_host.tables.decisions import Decision

__all__ = [
    "CHECKPOINT_TYPE",
    "FORMAT",
    "GENESIS_PREV_HASH",
    "GENESIS_TYPE",
    "KINDS",
    "MONO_KEY",
    "ROUND_RESULT",
    "SHOE_RESULT",
    "Record",
    "Stamp",
    "canonical_json",
    "check_at",
    "encode",
    "encode_event",
    "mac_of",
    "seal",
    "segment_info",
    "steps_of",
]

#: Format version of the record encoding; part of every hashed message.
FORMAT = 1
#: Domain-separation prefix of every hashed message (docs/journal.md, "Hash computation").
MESSAGE_PREFIX = b"tablehost-journal/1\n"
#: ``prev_hash`` of record 1.
GENESIS_PREV_HASH = "0" * 64
#: The key of an input record's data that holds the step's monotonic stamp (nanoseconds,
#: ``CLOCK_BOOTTIME``): not a field name an event can have, so it never meets one.
MONO_KEY = "@mono_ns"
#: Type of the meta record every journal starts with (seq 1): format, keyed, key id.
GENESIS_TYPE = "journal"
#: Type of a checkpoint record (``meta``): the table's whole state after the record before it
#: (docs/checkpoints.md). A later segment of a journal starts with one (its ``segment`` key).
CHECKPOINT_TYPE = "checkpoint"
#: Decision types read by :func:`.journal_export.round_results` / :func:`.journal_export.shoe_results` (firmware_host.tables.decisions).
ROUND_RESULT = "round_result"
SHOE_RESULT = "shoe_result"

KINDS = ("meta", "input", "decision")

# --------------------------------------------------------------------------- encoding


def canonical_json(data: Any, what: str) -> str:
    """The canonical JSON text stored in ``data``: sorted keys, no spaces, UTF-8, no NaN.

    :raises JournalEncodingError: ``data`` is not a JSON object of JSON values; ``what`` names it.
    """
    if not isinstance(data, dict):
        raise JournalEncodingError(f"{what}: data must be a JSON object, not {type(data).__name__}")
    try:
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError is a ValueError
        raise JournalEncodingError(f"{what}: data is not JSON-ready: {exc}") from exc
    return text


def encode_event(event: DeviceEvent, mono_ns: int | None = None) -> tuple[str, str]:
    """``(type, canonical JSON of its fields)`` of an input event's record, with its monotonic
    stamp ``mono_ns`` (``CLOCK_BOOTTIME`` nanoseconds) under :data:`MONO_KEY` when given.

    :raises JournalError: not a registered event, or a bad ``mono_ns``; :class:`JournalEncodingError`:
        its fields cannot be encoded (a lone surrogate in a text, a number JSON has not).
    """
    try:
        name, fields = to_record(event)
    except EventError as exc:
        raise JournalError(f"cannot journal {event!r}: {exc}") from exc
    if mono_ns is not None:
        if isinstance(mono_ns, bool) or not isinstance(mono_ns, int) or not 0 <= mono_ns < 2**63:
            raise JournalError(f"mono_ns must be nanoseconds from 0 to 2**63, not {mono_ns!r}")
        fields = {**fields, MONO_KEY: mono_ns}
    return name, canonical_json(fields, f"event {name}")


_INT64 = struct.Struct(">q")
_LENGTH = struct.Struct(">I")
_ABSENT = b"\x00"
#: A present ``at`` (a real) and a present ``round`` (an integer): the flag byte, then the value.
_AT = struct.Struct(">Bd")
_ROUND = struct.Struct(">Bq")


@functools.lru_cache(maxsize=256)
def _text(value: str) -> bytes:
    """``value`` UTF-8 encoded after its length: a record's ``kind`` and ``type``, which a journal
    repeats (remembered, so a verify of thousands of records encodes each name once).

    :raises ValueError: ``value`` cannot be encoded (a lone surrogate).
    """
    encoded = value.encode()
    return _LENGTH.pack(len(encoded)) + encoded


def encode(seq: int, kind: str, type: str, at: float | None, round: int | None, data: str, prev_hash: str) -> bytes:
    """The bytes that ``hash`` and ``mac`` are computed over (docs/journal.md, byte by byte).

    Written for speed (a start verifies every record of the live segment with it): one join,
    no helper calls but the remembered names' bytes.

    :raises TypeError, ValueError, struct.error: a field of the wrong type or out of range.
    """
    if not (isinstance(kind, str) and isinstance(type, str) and isinstance(data, str) and isinstance(prev_hash, str)):
        for name, value in (("kind", kind), ("type", type), ("data", data), ("prev_hash", prev_hash)):
            if not isinstance(value, str):
                raise TypeError(f"{name} is {value!r}, not text")
    if at is None:
        when = _ABSENT
    elif isinstance(at, float):
        when = _AT.pack(1, at)
    else:
        raise TypeError(f"at is {at!r}, not a real number")
    if round is None:
        which = _ABSENT
    elif isinstance(round, int) and not isinstance(round, bool):
        which = _ROUND.pack(1, round)
    else:
        raise TypeError(f"round is {round!r}, not an integer")
    d, p = data.encode(), prev_hash.encode()
    return b"".join(
        (
            MESSAGE_PREFIX,
            _INT64.pack(seq),
            _text(kind),
            _text(type),
            when,
            which,
            _LENGTH.pack(len(d)),
            d,
            _LENGTH.pack(len(p)),
            p,
        )
    )


# --------------------------------------------------------------------------- records


@dataclasses.dataclass(frozen=True)
class Record:
    """One journal record as stored (``data`` parsed from its canonical JSON)."""

    seq: int
    kind: str
    type: str
    at: float | None
    round: int | None
    data: dict[str, Any]
    prev_hash: str
    hash: str
    mac: str | None

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> Record:
        """Build from a ``SELECT seq, kind, ..., mac`` row; :class:`JournalError` if ``data`` is not JSON."""
        seq, kind, type_, at, round_, data, prev_hash, hash_, mac = row
        try:
            parsed = json.loads(data)
        except (TypeError, ValueError) as exc:
            raise JournalError(f"record {seq}: data is not JSON: {exc}") from exc
        return cls(seq, kind, type_, at, round_, parsed, prev_hash, hash_, mac)

    def to_json(self) -> dict[str, Any]:
        """All fields as a JSON-ready dict (for printing a broken record)."""
        return dataclasses.asdict(self)


def seal(
    seq: int, kind: str, type: str, at: float | None, round: int | None, data: str, prev_hash: str, key: bytes | None
) -> tuple[Any, ...]:
    """The row to insert: the fields plus their hash and (with a key) MAC."""
    message = encode(seq, kind, type, at, round, data, prev_hash)
    mac = hmac.digest(key, message, "sha256").hex() if key is not None else None
    return (seq, kind, type, at, round, data, prev_hash, hashlib.sha256(message).hexdigest(), mac)


def segment_info(record: Record) -> dict[str, Any] | None:
    """The ``segment`` of a record that opens a later segment of a journal (None for any other record)."""
    if record.kind != "meta" or record.type != CHECKPOINT_TYPE or record.seq <= 1:
        return None
    info = record.data.get("segment")
    return info if isinstance(info, dict) else None


def steps_of(
    records: Iterable[Record], on_meta: Callable[[Record], None] | None = None
) -> Iterator[tuple[float, DeviceEvent, list[Decision]]]:
    """The steps ``(at, event, decisions)`` the records make, events rebuilt (see :meth:`.journal.Journal.steps`).

    :param on_meta: called with each ``meta`` record once every step before it has been
        yielded and the consumer asked for the next one (``journal verify --deep``).
    :raises JournalError: a decision without its input, or an event that cannot be rebuilt.
    """
    step: tuple[float, DeviceEvent, list[Decision]] | None = None
    for record in records:
        if record.kind == "decision":
            if step is None:
                raise JournalError(f"record {record.seq}: decision without its input")
            step[2].append(Decision(record.type, record.data, record.round))
            continue
        if step is not None:
            yield step
            step = None
        if record.kind == "meta" and on_meta is not None:
            on_meta(record)
        if record.kind == "input":
            if record.at is None:
                raise JournalError(f"record {record.seq}: an input without the time it was received")
            fields = dict(record.data)
            mono = fields.pop(MONO_KEY, None)
            try:
                step = (Stamp(record.at, mono if isinstance(mono, int) else None), from_record(record.type, fields), [])
            except EventError as exc:
                raise JournalError(f"record {record.seq}: cannot rebuild the event: {exc}") from exc
    if step is not None:
        yield step


class Stamp(float):
    """A journaled step's receive time: the wall clock as read (the float itself, the record's
    ``at``) and the monotonic clock (:attr:`mono_ns`; None in a record without it: every
    record tablehost 0.3.0 and earlier wrote). A float, so every reader of ``(at, event, decisions)``
    reads it as before."""

    __slots__ = ("mono_ns",)
    mono_ns: int | None

    def __new__(cls, at: float, mono_ns: int | None = None) -> Stamp:
        stamp = super().__new__(cls, at)
        stamp.mono_ns = mono_ns
        return stamp


def check_at(at: float) -> float:
    """``at`` as a finite float (-0.0 becomes 0.0, as SQLite would store it)."""
    if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at):
        raise JournalError(f"at must be a finite number of seconds, not {at!r}")
    return float(at) + 0.0


def mac_of(key: bytes) -> Callable[[bytes], str]:
    """The hex HMAC-SHA256 of a message under ``key``, as :func:`hmac.digest` gives it, with the
    key schedule done once: a verify checks every record with it.

    HMAC as RFC 2104 defines it, H((K' ^ opad) || H((K' ^ ipad) || m)) (K' the key, hashed first
    if longer than SHA-256's block, padded with zeros), from two SHA-256 states that have taken
    the padded keys: copying a :mod:`hashlib` state costs less than copying an :mod:`hmac` object
    (tests/host/journal/test_journal_properties.py checks it against :func:`hmac.digest`).
    """
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    padded = key.ljust(_BLOCK, b"\x00")
    inner, outer = hashlib.sha256(padded.translate(_IPAD)), hashlib.sha256(padded.translate(_OPAD))

    def mac(message: bytes) -> str:
        one = inner.copy()
        one.update(message)
        two = outer.copy()
        two.update(one.digest())
        return two.hexdigest()

    return mac


#: SHA-256's block size, and the bytes XORed with RFC 2104's ipad (0x36) and opad (0x5C).
_BLOCK = hashlib.sha256().block_size
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))
