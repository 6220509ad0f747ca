"""The journal: a durable, append-only, hash-chained (optionally HMAC-keyed) record of the table.

Every input event and every decision the controller takes goes into one SQLite table
*before* any output acts on it, so that any round can be reconstructed (§ 541.12(c),
§ 535.10(l)), the table's state can be rebuilt after a crash by replaying :meth:`Journal.steps`
through the same controller, and tampering is detected by :func:`verify`.

Durability: WAL mode with ``synchronous=FULL``; one input and all its decisions are one
transaction (:meth:`Journal.append_step`), committed to disk before the call returns, so a
crash loses at most the one uncommitted step, never half of it.

The record format and the hash encoding byte by byte are in ``docs/journal.md``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import fcntl
import hashlib
import hmac
import json
import logging
import math
import os
import pathlib
import sqlite3
import stat
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import drivers.events.all  # noqa: F401  (registers every device event type, so steps() can rebuild them)
import firmware_host.tables.events  # noqa: F401  (and every table-level event type)
from drivers.events import DeviceEvent, EventError, from_record, to_record
from firmware_host import durable
from firmware_host.errors import JournalBusyError, JournalEncodingError, JournalError
from firmware_host.tables.decisions import Decision
from firmware_host.text import TextError, read_file

if TYPE_CHECKING:
    from firmware_host.host.segments import ArchivedPages

log = logging.getLogger("tablehost.journal")

__all__ = [
    "Journal",
    "writer_lock_path",
    "Record",
    "VerifyReport",
    "Problem",
    "verify",
    "export_rounds",
    "export_shoes",
    "load_key",
    "key_id",
    "KEY_BYTES",
    "MONO_KEY",
    "Stamp",
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
#: SQLite header ``application_id`` marking a file as a tablehost journal ("TBJL").
APPLICATION_ID = 0x54424A4C
#: Length of keys made by ``tablehost journal keygen``; the shortest key :func:`load_key` accepts.
KEY_BYTES = 32
#: Largest key file read, bytes.
KEY_FILE_LONGEST = 4096
#: Decision types exported by :func:`export_rounds` / :func:`export_shoes` (firmware_host.tables.decisions).
ROUND_RESULT = "round_result"
SHOE_RESULT = "shoe_result"

KINDS = ("meta", "input", "decision")
#: Commits between two checkpoints of the write-ahead log (:meth:`Journal._checkpoint`): about
#: 1,000 pages of a step's records, as SQLite's own default (1,000 pages).
CHECKPOINT_EVERY_COMMITS = 256
_PAGE = 512  # records fetched per query when iterating (no cursor is held open between pages)
_COLUMNS = "seq, kind, type, at, round, data, prev_hash, hash, mac"
_INSERT = f"INSERT INTO records ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
_SCHEMA = """
CREATE TABLE records (
    seq       INTEGER PRIMARY KEY,   -- gapless from 1
    kind      TEXT NOT NULL,         -- 'meta' | 'input' | 'decision'
    type      TEXT NOT NULL,         -- event class name, decision type or meta type
    at        REAL,                  -- service receive time of the step's input (s); meta: when written
    round     INTEGER,               -- the decision's round, NULL for inputs and most metas
    data      TEXT NOT NULL,         -- canonical JSON object
    prev_hash TEXT NOT NULL,         -- hash of record seq-1; 64 zeros for seq 1
    hash      TEXT NOT NULL,         -- SHA-256 of the encoded record (docs/journal.md)
    mac       TEXT                   -- HMAC-SHA256 of the same bytes, NULL when unkeyed
)
"""


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
_REAL = struct.Struct(">d")
_ABSENT = b"\x00"
_PRESENT = b"\x01"


def encode(seq: int, kind: str, type: str, at: float | None, round: int | None, data: str, prev_hash: str) -> bytes:
    """The bytes that ``hash`` and ``mac`` are computed over (docs/journal.md, byte by byte).

    Written for speed (a start verifies every record of the live segment with it): one join,
    no helper calls.

    :raises TypeError, ValueError, struct.error: a field of the wrong type or out of range.
    """
    if not (isinstance(kind, str) and isinstance(type, str) and isinstance(data, str) and isinstance(prev_hash, str)):
        for name, value in (("kind", kind), ("type", type), ("data", data), ("prev_hash", prev_hash)):
            if not isinstance(value, str):
                raise TypeError(f"{name} is {value!r}, not text")
    number = _INT64.pack(seq)
    if at is None:
        when = _ABSENT
    elif isinstance(at, float):
        when = _PRESENT + _REAL.pack(at)
    else:
        raise TypeError(f"at is {at!r}, not a real number")
    if round is None:
        which = _ABSENT
    elif isinstance(round, int) and not isinstance(round, bool):
        which = _PRESENT + _INT64.pack(round)
    else:
        raise TypeError(f"round is {round!r}, not an integer")
    k, t, d, p = kind.encode(), type.encode(), data.encode(), prev_hash.encode()
    return b"".join(
        (
            MESSAGE_PREFIX,
            number,
            _LENGTH.pack(len(k)),
            k,
            _LENGTH.pack(len(t)),
            t,
            when,
            which,
            _LENGTH.pack(len(d)),
            d,
            _LENGTH.pack(len(p)),
            p,
        )
    )


def key_id(key: bytes) -> str:
    """A short public name of a key (16 hex digits), recorded in the journal's first record."""
    return hmac.digest(key, b"tablehost journal key id", "sha256")[:8].hex()


def load_key(path: str | os.PathLike[str]) -> bytes:
    """Read an HMAC key file (raw bytes, at least :data:`KEY_BYTES` long, readable by its owner only).

    :raises JournalError: missing, unreadable, too short, or readable/writable by group or others.
    """
    path = pathlib.Path(path)
    try:
        mode = path.stat().st_mode
        key = read_file(path, KEY_FILE_LONGEST)  # never waits on a FIFO; a regular file, bounded
    except OSError as exc:
        raise JournalError(f"key file {path}: cannot read: {exc.strerror or exc}") from exc
    except TextError as exc:
        raise JournalError(f"key file {path}: {exc}") from exc
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise JournalError(f"key file {path}: mode {stat.S_IMODE(mode):04o} lets others read it; chmod 0400 {path}")
    if len(key) < KEY_BYTES:
        raise JournalError(
            f"key file {path}: {len(key)} bytes; a key has at least {KEY_BYTES} (tablehost journal keygen)"
        )
    return key


def write_key(path: str | os.PathLike[str]) -> str:
    """Create a new key file of :data:`KEY_BYTES` random bytes, mode 0400, durably; return its :func:`key_id`.

    :raises JournalError: the file exists (never overwritten) or cannot be written.
    """
    key = os.urandom(KEY_BYTES)
    try:
        durable.write_file(path, key, mode=0o400, replace=False)
    except FileExistsError as exc:
        raise JournalError(f"key file {path}: already exists; a key is never overwritten") from exc
    except OSError as exc:
        raise JournalError(f"key file {path}: cannot create: {exc.strerror or exc}") from exc
    return key_id(key)


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


def _seal(
    seq: int, kind: str, type: str, at: float | None, round: int | None, data: str, prev_hash: str, key: bytes | None
) -> tuple[Any, ...]:
    """The row to insert: the fields plus their hash and (with a key) MAC."""
    message = encode(seq, kind, type, at, round, data, prev_hash)
    mac = hmac.digest(key, message, "sha256").hex() if key is not None else None
    return (seq, kind, type, at, round, data, prev_hash, hashlib.sha256(message).hexdigest(), mac)


def _connect(path: str | os.PathLike[str], *, read_only: bool) -> sqlite3.Connection:
    """Open the SQLite file; read-only opens never create it. :class:`JournalError` on failure.

    A read-only open of a closed journal in a directory the reader cannot write (an auditor's
    copy) cannot create SQLite's ``-shm`` file; with no ``-wal`` file beside it the main file
    is complete, so it is then opened as immutable.
    """
    path = pathlib.Path(path)
    if read_only and not path.is_file():
        raise JournalError(f"journal {path}: no such file")
    uri = path.absolute().as_uri() + ("?mode=ro" if read_only else "?mode=rw")  # made only by .genesis
    try:
        try:
            return _probe(sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False))
        except sqlite3.OperationalError:
            wal = path.with_name(path.name + "-wal")
            if not read_only or (wal.exists() and wal.stat().st_size > 0):
                raise
            return _probe(
                sqlite3.connect(uri + "&immutable=1", uri=True, isolation_level=None, check_same_thread=False)
            )
    except sqlite3.Error as exc:
        hint = "" if not read_only else "; copy it (with its -wal file, if any) to a directory you can write"
        raise JournalError(f"journal {path}: cannot open: {exc}{hint}") from exc


def writer_lock_path(path: pathlib.Path) -> pathlib.Path:
    """The file whose lock the one process appending to the journal at ``path`` holds."""
    return path.with_name(path.name + ".lock")


def _lock_for_writing(path: pathlib.Path) -> int:
    """Take the journal's writer lock (``flock`` on :func:`writer_lock_path`); return its descriptor.

    One process appends to a journal: a second ``tablehost run`` or a ``journal rotate`` while
    the table runs is refused here. The kernel drops the lock with the process, a SIGKILL too.

    :raises JournalBusyError: another process holds it (``tablehost`` exits 75: try again later).
    :raises JournalError: the lock file cannot be made.
    """
    lock_path = writer_lock_path(path)
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise JournalError(f"journal {path}: cannot open {lock_path.name}: {exc.strerror}") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        raise JournalBusyError(
            f"journal {path}: another process is writing to it (a running tablehost?); stop it first"
        ) from exc
    return fd


def _probe(conn: sqlite3.Connection) -> sqlite3.Connection:
    """Set the connection up and read the schema (which fails if the file is not SQLite)."""
    try:
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        conn.close()
        raise
    return conn


@contextlib.contextmanager
def _reading(path: str | os.PathLike[str]) -> Iterator[sqlite3.Connection]:
    """A read-only connection to an existing journal, closed on exit; :class:`JournalError` if it is none."""
    conn = _connect(path, read_only=True)
    try:
        try:
            if not _has_records_table(conn, path):
                raise JournalError(f"journal {path}: not a tablehost journal (no records)")
        except sqlite3.Error as exc:
            raise JournalError(f"journal {path}: cannot read: {exc}") from exc
        yield conn
    finally:
        conn.close()


def _has_records_table(conn: sqlite3.Connection, path: object) -> bool:
    """Whether the file holds a journal; :class:`JournalError` if it is some other SQLite file."""
    (app_id,) = conn.execute("PRAGMA application_id").fetchone()
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if app_id == APPLICATION_ID and "records" in tables:
        return True
    if app_id == 0 and not tables:
        return False
    raise JournalError(f"journal {path}: not a tablehost journal (another SQLite database)")


def _rows(
    conn: sqlite3.Connection, start_seq: int, where: str = "", args: tuple[Any, ...] = ()
) -> Iterator[tuple[Any, ...]]:
    """Every row from ``start_seq`` in seq order, a page per query (no cursor held across yields)."""
    query = f"SELECT {_COLUMNS} FROM records WHERE seq >= ? {where} ORDER BY seq LIMIT {_PAGE}"
    while True:
        page = conn.execute(query, (start_seq, *args)).fetchall()
        yield from page
        if len(page) < _PAGE:
            return
        start_seq = page[-1][0] + 1


def segment_info(record: Record) -> dict[str, Any] | None:
    """The ``segment`` of a record that opens a later segment of a journal (None for any other record)."""
    if record.kind != "meta" or record.type != CHECKPOINT_TYPE or record.seq <= 1:
        return None
    info = record.data.get("segment")
    return info if isinstance(info, dict) else None


def _genesis_key_id(record: Record) -> str | None:
    """The key id the file's first record names (None: unkeyed): the journal's genesis (seq 1),
    or the checkpoint that opens a later segment; :class:`JournalError` if it is neither."""
    header = record.data if record.seq == 1 else segment_info(record)
    if header is None or (record.seq == 1 and (record.kind != "meta" or record.type != GENESIS_TYPE)):
        raise JournalError(
            f"record {record.seq} is not a journal's first record ('meta', {GENESIS_TYPE!r}) "
            f"nor a segment's ('meta', {CHECKPOINT_TYPE!r} with a segment)"
        )
    if not header.get("keyed"):
        return None
    recorded = header.get("key_id")
    if not isinstance(recorded, str):
        raise JournalError(f"record {record.seq} says the journal is keyed but names no key id: {header!r}")
    return recorded


class Journal:
    """An open journal, the only writer of its file. Use :meth:`open`; a context manager.

    Thread-safe: appends are serialised by a lock, so the controller's thread may own it
    while another thread reads.
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        path: pathlib.Path,
        key: bytes | None,
        last_seq: int,
        last_hash: str,
        last_round: int | None,
    ) -> None:
        self._conn, self.path, self._key = conn, path, key
        self._last_seq, self._last_hash, self._last_round = last_seq, last_hash, last_round
        self._lock = threading.Lock()
        self._first: Record | None = None
        #: The descriptor holding the writer's lock (:func:`_lock_for_writing`) while open.
        self._writer_lock: int | None = None
        #: The archived segments a reader behind a rotation pages through (:meth:`records_after`).
        self._archived: ArchivedPages | None = None
        self._archived_lock = threading.Lock()
        #: Commits since the last checkpoint (:meth:`_checkpoint`).
        self._commits = 0

    # ----------------------------------------------------------------- opening

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, hmac_key: bytes | None = None) -> Journal:
        """Create the journal at ``path`` or open the existing one for appending.

        A new journal starts with a ``meta``/``journal`` record naming its format and whether
        (and with which key id) it is keyed; it is made whole under a temporary name and then
        renamed into place, and a first start an earlier version left cut short (a file that
        provably holds no record) is made anew (:mod:`.genesis`). An existing one must match
        ``hmac_key`` and its whole chain must verify.

        :param hmac_key: the table's key (:func:`load_key`); every record then carries a MAC.
        :raises JournalError: not a journal, wrong or missing key, broken chain, I/O error.
        """
        from firmware_host.host import genesis, segments  # the companion modules import this one

        path = pathlib.Path(path)
        writer_lock = _lock_for_writing(path)
        try:
            genesis.prepare(path, hmac_key)
            conn = _connect(path, read_only=False)
        except BaseException:
            os.close(writer_lock)
            raise
        try:
            if not _has_records_table(conn, path):
                raise JournalError(
                    f"journal {path}: not a tablehost journal (a file with no journal in it, beside archived "
                    "segments); move it away, or put the live segment back"
                )
            conn.execute("PRAGMA journal_mode=WAL")  # every journal is made so (.genesis): a no-op but for a copy
            conn.execute("PRAGMA wal_autocheckpoint=0")  # the journal checkpoints itself, and checks it (_checkpoint)
            journal = cls._check_ends(conn, path, hmac_key)
            segments.finish_rotation(path, journal.segment_number, journal.first_record.hash)
            report = _verify_chain(conn, hmac_key)
            if not report.ok:
                raise JournalError(
                    f"journal {path}: {report.finding()}; it must not be appended to: run tablehost journal verify"
                )
        except sqlite3.Error as exc:
            conn.close()
            os.close(writer_lock)
            busy = getattr(exc, "sqlite_errorcode", 0) & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
            raise (JournalBusyError if busy else JournalError)(f"journal {path}: cannot open: {exc}") from exc
        except BaseException:
            conn.close()
            os.close(writer_lock)
            raise
        journal._writer_lock = writer_lock
        return journal

    @classmethod
    def _check_ends(cls, conn: sqlite3.Connection, path: pathlib.Path, key: bytes | None) -> Journal:
        """Check the first record and the key, read the last record, then build the :class:`Journal`
        (:meth:`open` then checks the whole chain of the file, :func:`_verify_chain`)."""
        first = conn.execute(f"SELECT {_COLUMNS} FROM records ORDER BY seq LIMIT 1").fetchone()
        first_record = Record.from_row(first) if first is not None else None
        if first_record is None or (first_record.seq != 1 and segment_info(first_record) is None):
            raise JournalError(f"journal {path}: its first record is missing; run tablehost journal verify")
        recorded_id = _genesis_key_id(first_record)
        given_id = key_id(key) if key is not None else None
        if recorded_id != given_id:
            raise JournalError(f"journal {path}: " + _key_mismatch(recorded_id, given_id))
        last = conn.execute(f"SELECT {_COLUMNS} FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        (last_round,) = conn.execute("SELECT max(round) FROM records").fetchone()
        journal = cls(conn, path, key, last[0], last[7], last_round)
        journal._first = first_record
        return journal

    def close(self) -> None:
        """Close the file (idempotent); the WAL is checkpointed into the main file."""
        with self._lock:
            self._conn.close()
            if self._writer_lock is not None:
                os.close(self._writer_lock)  # the lock goes with it
                self._writer_lock = None
        with self._archived_lock:
            if self._archived is not None:
                self._archived.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------- state

    @property
    def last_seq(self) -> int:
        """Seq of the last record written."""
        return self._last_seq

    @property
    def last_hash(self) -> str:
        """Hash of the last record written: publish it elsewhere to make truncation detectable."""
        return self._last_hash

    @property
    def first_record(self) -> Record:
        """The file's first record: the genesis (seq 1), or the checkpoint opening a later segment."""
        assert self._first is not None
        return self._first

    @property
    def segment_number(self) -> int:
        """This file's number among the journal's segments (1 until the journal is first rotated)."""
        info = segment_info(self.first_record)
        return int(info["number"]) if info is not None else 1

    @property
    def keyed(self) -> bool:
        """Whether records carry a MAC."""
        return self._key is not None

    def last_round(self) -> int | None:
        """The highest round number in any record (None before the first round)."""
        return self._last_round

    # ----------------------------------------------------------------- appending

    def append_meta(self, type: str, data: dict[str, Any], *, at: float | None = None) -> int:
        """Append one ``meta`` record (table opened, profile, device refused...); return its seq.

        :param at: when it happened in service time; default: now (``time.time()``).
        """
        at = time.time() if at is None else at
        return self._append([("meta", type, _check_at(at), None, canonical_json(data, f"meta {type!r}"))])

    def append_metas(self, type: str, items: Sequence[dict[str, Any]], *, at: float) -> int:
        """Append one ``meta`` record of this type per item, all in ONE durable transaction (a
        salvage's restored records: one commit, not one per record); return the first seq."""
        at = _check_at(at)
        return self._append([("meta", type, at, None, canonical_json(item, f"meta {type!r}")) for item in items])

    def append_step(
        self,
        at: float,
        event: DeviceEvent,
        decisions: Sequence[Decision],
        encoded: tuple[str, str] | None = None,
        *,
        mono_ns: int | None = None,
    ) -> int:
        """Append one input event and the decisions it caused as ONE durable transaction.

        Returns only after the transaction is committed to disk (``synchronous=FULL``), so the
        caller may act on the decisions afterwards. The decisions carry the same ``at``.

        :param at: the service's receive time of ``event`` on the wall clock, as read (seconds).
        :param encoded: ``event`` as :func:`encode_event` made it already, monotonic stamp
            included (None: encoded here).
        :param mono_ns: the same moment on the monotonic clock (``CLOCK_BOOTTIME``, nanoseconds),
            kept in the input record's data under :data:`MONO_KEY` (None: not stamped).
        :returns: the seq of the input record (its decisions follow it).
        :raises JournalError: unregistered event, data not JSON-ready, bad ``at``, I/O error.
        """
        at = _check_at(at)
        name, data = encode_event(event, mono_ns) if encoded is None else encoded
        entries: list[tuple[str, str, float | None, int | None, str]] = [("input", name, at, None, data)]
        for decision in decisions:
            entries.append(
                (
                    "decision",
                    decision.type,
                    at,
                    decision.round,
                    canonical_json(decision.data, f"decision {decision.type!r}"),
                )
            )
        return self._append(entries)

    def _append(self, entries: list[tuple[str, str, float | None, int | None, str]]) -> int:
        """Seal and insert ``entries`` in one transaction; return the first seq."""
        with self._lock:
            seq, prev_hash, rows = self._last_seq, self._last_hash, []
            try:
                for kind, type_, at, round_, data in entries:
                    seq += 1
                    row = _seal(seq, kind, type_, at, round_, data, prev_hash, self._key)
                    rows.append(row)
                    prev_hash = row[7]
            except (TypeError, ValueError, struct.error) as exc:
                raise JournalEncodingError(f"journal {self.path}: cannot encode record {seq}: {exc}") from exc
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                self._conn.executemany(_INSERT, rows)
                self._conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if self._conn.in_transaction:
                    self._conn.rollback()
                why = "another process wrote to it" if isinstance(exc, sqlite3.IntegrityError) else str(exc)
                raise JournalError(f"journal {self.path}: cannot append record {rows[0][0]}: {why}") from exc
            rounds = [r for (_, _, _, r, _) in entries if r is not None]
            if rounds:
                self._last_round = max(rounds if self._last_round is None else [*rounds, self._last_round])
            self._last_seq, self._last_hash = seq, prev_hash
            self._commits += 1
            if self._commits >= CHECKPOINT_EVERY_COMMITS and entries[0][0] == "input":
                self._checkpoint()  # at a step's append: its error stops the service loop (Service.step)
            return int(rows[0][0])

    def _checkpoint(self) -> None:
        """Copy the write-ahead log into the file, SQLite's checkpoint, and check that it worked
        (the caller holds the append lock). SQLite's automatic checkpoint is off
        (``wal_autocheckpoint = 0``): it runs inside a commit and drops its errors, so a disk
        whose fsyncs fail would let the table act on while the file went bad (issue 27).

        A reader holding an older snapshot (``journal verify`` on a running table) may leave
        frames for the next checkpoint to copy; that is no error.

        :raises JournalError: the checkpoint failed (an I/O error, a full disk): the step is
            committed in the log, but the table must stop before it acts on it.
        """
        self._commits = 0
        try:
            row = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error as exc:
            raise JournalError(
                f"journal {self.path}: the checkpoint of its write-ahead log failed: {exc}; the table stops "
                "(the records are in the log; check the disk before starting again)"
            ) from exc
        if row is None or len(row) != 3 or row[1] < 0:
            raise JournalError(f"journal {self.path}: not in write-ahead-log mode (checkpoint returned {row!r})")
        busy, frames, copied = row
        if busy or copied < frames:
            log.debug(
                "journal %s: checkpoint copied %d of %d frames (a reader holds the rest)", self.path, copied, frames
            )

    def rotate(self, checkpoint: dict[str, Any], *, at: float) -> pathlib.Path:
        """Close this segment and continue the journal in the same file.

        The segment is copied whole to its archive name (:func:`.segments.archive_path`), then
        the file is cut in one transaction: its records out, and in their place the checkpoint
        ``checkpoint`` (the table's state after the last record) with the ``segment`` it
        opens, following the last record in seq and linked to its hash, under the key.
        Readers of the file are neither waited for nor disturbed; crash-safe (:mod:`.segments`).

        :returns: where the closed segment now is.
        :raises JournalError: the segment name is taken, or I/O fails; the journal stays as it was.
        """
        from firmware_host.host import segments  # the companion module imports this one

        with self._lock:
            number = self.segment_number
            segment = {
                "number": number + 1,
                "format": FORMAT,
                "keyed": self._key is not None,
                "key_id": key_id(self._key) if self._key is not None else None,
            }
            data = canonical_json({**checkpoint, "segment": segment}, "segment checkpoint")
            row = _seal(
                self._last_seq + 1, "meta", CHECKPOINT_TYPE, _check_at(at), None, data, self._last_hash, self._key
            )
            archived = segments.archive_path(self.path, number)
            if archived.exists():
                raise JournalError(f"journal {self.path}: cannot rotate: {archived} exists already")
            try:
                segments.archive_and_cut(self._conn, archived, row)
            except (sqlite3.Error, OSError) as exc:
                raise JournalError(f"journal {self.path}: cannot rotate: {exc}") from exc
            self._reload_ends()
            return archived

    def _reload_ends(self) -> None:
        """Read the file's first and last records again (after a rotation)."""
        first = self._conn.execute(f"SELECT {_COLUMNS} FROM records ORDER BY seq LIMIT 1").fetchone()
        last = self._conn.execute(f"SELECT {_COLUMNS} FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        self._first, self._last_seq, self._last_hash = Record.from_row(first), last[0], last[7]

    # ----------------------------------------------------------------- reading

    def records(self, start_seq: int = 1) -> Iterator[Record]:
        """Every record from ``start_seq`` on, in order."""
        for row in _rows(self._conn, start_seq):
            yield Record.from_row(row)

    def records_after(self, seq: int, limit: int) -> list[Record]:
        """Up to ``limit`` committed records after ``seq``, in order: one page for another thread.

        The floor feed reads the journal through this (docs/feed.md): it relies on ``seq``
        being global and gapless and on every record keeping its chain ``hash``. Taken under
        the append lock, so a reader never sees a step that is not yet committed. A ``seq``
        before the live file's first record is read from the archived segments.

        :raises JournalError: no segment beside the journal holds record ``seq + 1``.
        """
        with self._lock:
            if seq + 1 >= self.first_record.seq:
                rows = self._conn.execute(
                    f"SELECT {_COLUMNS} FROM records WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit)
                ).fetchall()
                return [Record.from_row(row) for row in rows]
        # Behind a rotation: from the archived segments, outside the append lock (they never change).
        with self._archived_lock:
            if self._archived is None:
                from firmware_host.host import segments  # the companion module imports this one

                self._archived = segments.ArchivedPages(self.path)
            page = self._archived.page(seq, limit)
        if not page:
            raise JournalError(
                f"journal {self.path}: record {seq + 1} is in no segment beside it (an archived "
                "segment moved away?); it cannot be read again until that segment is back"
            )
        return page

    def steps(self, after_seq: int = 0) -> Iterator[tuple[float, DeviceEvent, list[Decision]]]:
        """Every step in order as ``(at, event, decisions)``, events rebuilt: what replay feeds the controller.

        :param after_seq: only the steps after this record (a checkpoint's seq).
        :raises JournalError: a record names an event type that is not registered or does not fit.
        """
        return steps_of(self.records(after_seq + 1))

    def last_checkpoint(self, before_seq: int | None = None) -> Record | None:
        """The last checkpoint record in this file (before ``before_seq``, if given), or None."""
        where = "kind = 'meta' AND type = ?"
        args: tuple[object, ...] = (CHECKPOINT_TYPE,)
        if before_seq is not None:
            where, args = where + " AND seq < ?", (*args, before_seq)
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_COLUMNS} FROM records WHERE {where} ORDER BY seq DESC LIMIT 1", args
            ).fetchone()
        return None if row is None else Record.from_row(row)

    def first_meta(self, type: str) -> dict[str, Any] | None:
        """The ``data`` of the first ``meta`` record of this type in this file, or None."""
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_COLUMNS} FROM records WHERE kind = 'meta' AND type = ? ORDER BY seq LIMIT 1", (type,)
            ).fetchone()
        return None if row is None else Record.from_row(row).data

    def size(self) -> int:
        """Bytes the segment's records take: the file's pages in use, those still in the
        write-ahead log included (a rotation frees the others, :meth:`rotate`)."""
        with self._lock:
            (pages,) = self._conn.execute("PRAGMA page_count").fetchone()
            (free,) = self._conn.execute("PRAGMA freelist_count").fetchone()
            (page_size,) = self._conn.execute("PRAGMA page_size").fetchone()
        return int((pages - free) * page_size)

    def meta(self, type: str) -> list[dict[str, Any]]:
        """The ``data`` of every ``meta`` record of this type, in order."""
        return [Record.from_row(row).data for row in _rows(self._conn, 1, "AND kind = 'meta' AND type = ?", (type,))]


def steps_of(
    records: Iterable[Record], on_meta: Callable[[Record], None] | None = None
) -> Iterator[tuple[float, DeviceEvent, list[Decision]]]:
    """The steps ``(at, event, decisions)`` the records make, events rebuilt (see :meth:`Journal.steps`).

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


def _check_at(at: float) -> float:
    """``at`` as a finite float (-0.0 becomes 0.0, as SQLite would store it)."""
    if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at):
        raise JournalError(f"at must be a finite number of seconds, not {at!r}")
    return float(at) + 0.0


def _key_mismatch(recorded_id: str | None, given_id: str | None) -> str:
    if recorded_id is None:
        return "it is not keyed, but a key was given"
    if given_id is None:
        return f"it is keyed (key id {recorded_id}): give its key file"
    return f"it is keyed with key id {recorded_id}, the key given is {given_id}"


# --------------------------------------------------------------------------- verifying


class Problem(enum.StrEnum):
    """Why :func:`verify` rejects a journal."""

    CHANGED = "changed content"
    DELETED = "deleted record"
    INSERTED = "inserted record"
    BROKEN_LINK = "broken link"
    BAD_MAC = "bad MAC"
    KEY_NEEDED = "key needed"
    WRONG_KEY = "wrong key"
    NOT_KEYED = "not keyed"
    MALFORMED = "malformed record"
    UNREADABLE = "unreadable database"
    SEGMENT_MISSING = "missing segment"
    SEGMENT_SWAPPED = "swapped segment"
    SEGMENT_CUT = "segment cut short"


@dataclasses.dataclass(frozen=True)
class VerifyReport:
    """The result of :func:`verify`.

    :param ok: the chain is intact (and, for a keyed journal, every MAC checks with the key).
    :param records_checked: records read before the first problem (all of them when ok).
    :param keyed: whether the journal's first record says it is keyed; ``key_id`` names the key.
    :param last_seq, last_hash: the last intact record; compare with a copy kept elsewhere to
        detect records cut off the end, which no chain can show by itself.
    :param broken_seq: the first broken record (None when ok or when the problem is the key).
    :param problem: what is wrong; ``detail`` says it in words; ``record``: the record, if readable.
    """

    ok: bool
    records_checked: int
    keyed: bool
    key_id: str | None
    last_seq: int
    last_hash: str
    broken_seq: int | None = None
    problem: Problem | None = None
    detail: str = ""
    record: Record | None = None
    #: The first record checked: 1, or the first record of a later segment.
    first_seq: int = 1
    #: The segments checked, oldest first (one for a journal never rotated): see :mod:`.segments`.
    segments: tuple[Any, ...] = ()

    def finding(self) -> str:
        """What is wrong, in the words ``tablehost journal verify`` prints (one line; '' when ok)."""
        chain = f"keyed, key id {self.key_id}" if self.keyed else "unkeyed"
        if self.ok:
            return ""
        if self.broken_seq is None:
            return (
                f"NOT VERIFIED: {self.problem}: {self.detail} (chain of {self.records_checked} records intact; {chain})"
            )
        return (
            f"BROKEN at record {self.broken_seq}: {self.problem}: {self.detail} "
            f"({self.records_checked} records intact before it; {chain})"
        )


class _Finding(NamedTuple):
    problem: Problem
    detail: str
    seq: int  # the first broken record


def _mac_of(key: bytes) -> Callable[[bytes], str]:
    """The hex HMAC-SHA256 of a message under ``key``, as :func:`hmac.digest` gives it, from one
    HMAC whose key schedule is done once: a verify checks every record with it, and
    :func:`hmac.digest` sets the key up again at each call (twice the time)."""
    keyed = hmac.new(key, digestmod="sha256")

    def mac(message: bytes) -> str:
        one = keyed.copy()
        one.update(message)
        return one.hexdigest()

    return mac


def _check_row(
    row: tuple[Any, ...],
    *,
    expected_seq: int,
    prev_hash: str,
    key: Callable[[bytes], str] | None,
    keyed: bool,
) -> _Finding | None:
    """What is wrong with one stored row given its predecessor's hash (None: intact).

    Insertions are told apart from other broken links by :func:`_explain_insertion`.
    """
    seq, kind, type_, at, round_, data, stored_prev, stored_hash, mac = row
    if seq != expected_seq:
        if isinstance(seq, int) and seq > expected_seq:
            return _Finding(Problem.DELETED, f"records {expected_seq}..{seq - 1} are missing", expected_seq)
        return _Finding(Problem.CHANGED, f"seq is {seq!r}, expected {expected_seq}", expected_seq)
    try:
        message = encode(seq, kind, type_, at, round_, data, stored_prev)
    except (TypeError, ValueError, struct.error) as exc:
        return _Finding(Problem.CHANGED, f"a field was altered: {exc}", seq)
    if stored_hash != hashlib.sha256(message).hexdigest():  # so a hash that passes is 64 lowercase hex digits
        return _Finding(Problem.CHANGED, "its content does not match its stored hash", seq)
    if stored_prev != prev_hash:
        return _Finding(Problem.BROKEN_LINK, "prev_hash is not the hash of the record before it", seq)
    if kind not in KINDS:
        return _Finding(Problem.MALFORMED, f"kind {kind!r} is none of {', '.join(KINDS)}", seq)
    if key is not None:
        if mac != key(message):
            return _Finding(
                Problem.BAD_MAC, "its MAC does not check with the key (altered or re-chained without the key)", seq
            )
    elif not keyed and mac is not None:
        return _Finding(Problem.MALFORMED, "a MAC in an unkeyed journal", seq)
    return None


def verify(path: str | os.PathLike[str], *, hmac_key: bytes | None = None) -> VerifyReport:
    """Check the whole chain of the journal at ``path`` (read-only; safe while the service runs).

    Finds the first record that was changed, deleted, inserted, unlinked, or (keyed journals,
    with ``hmac_key``) re-chained by someone without the key. A keyed journal without the key
    is not ``ok`` (:attr:`Problem.KEY_NEEDED`), nor is an unkeyed one when a key is given.

    A journal in segments (rotated: :mod:`.segments`) is checked across all of them, oldest first.

    :raises JournalError: the file is missing, unreadable or not a journal.
    """
    from firmware_host.host import segments  # the companion module imports this one

    if len(segments.segments_of(path)) > 1 or not pathlib.Path(path).exists():
        return segments.verify_segments(path, hmac_key=hmac_key)
    with _reading(path) as conn:
        return _verify_chain(conn, hmac_key)


def _first_link(conn: sqlite3.Connection) -> tuple[int, str]:
    """Where a file's chain starts: record 1 after the genesis hash, or (a later segment) its first
    record after the hash that record names, which only the segment before it can confirm."""
    row = conn.execute(f"SELECT {_COLUMNS} FROM records ORDER BY seq LIMIT 1").fetchone()
    if row is None or not isinstance(row[0], int) or row[0] <= 1:
        return 1, GENESIS_PREV_HASH
    try:
        opens_segment = segment_info(Record.from_row(row)) is not None
    except JournalError:
        opens_segment = False
    return (row[0], str(row[6])) if opens_segment else (1, GENESIS_PREV_HASH)


def _verify_chain(conn: sqlite3.Connection, key: bytes | None, start: tuple[int, str] | None = None) -> VerifyReport:
    """Walk the chain from its first record (``start``: its seq and the hash it must link to;
    default :func:`_first_link`); stop at the first problem."""
    first_seq, prev_hash = start if start is not None else _first_link(conn)
    checked, prev_kind, recorded_id = 0, None, None
    given_id = key_id(key) if key is not None else None
    usable_key: Callable[[bytes], str] | None = None  # the key's MAC, once the first record shows it is this file's
    rows = _rows(conn, first_seq if first_seq > 1 else 1)
    while True:
        try:
            row = next(rows, None)
        except sqlite3.Error as exc:
            found: _Finding | None = _Finding(Problem.UNREADABLE, f"SQLite cannot read on: {exc}", first_seq + checked)
            break
        if row is None:
            found = None
            break
        seq = first_seq + checked
        if checked == 0:
            try:
                recorded_id = _genesis_key_id(Record.from_row(row))
            except JournalError as exc:
                found = _Finding(Problem.MALFORMED, str(exc), seq)
                break
            usable_key = _mac_of(key) if key is not None and given_id == recorded_id else None
        found = _check_row(row, expected_seq=seq, prev_hash=prev_hash, key=usable_key, keyed=recorded_id is not None)
        if found is not None and found.problem in (Problem.CHANGED, Problem.BROKEN_LINK):
            found = _explain_insertion(conn, row, seq) or found
        if found is None and row[1] == "decision" and prev_kind not in ("input", "decision"):
            found = _Finding(Problem.MALFORMED, "a decision not preceded by its input", seq)
        if found is not None:
            break
        checked, prev_hash, prev_kind = checked + 1, row[7], row[1]
    last_seq = first_seq + checked - 1
    if found is None:
        found = _outside_chain(conn, first_seq, last_seq)
    if found is None and recorded_id != given_id:
        problem = (
            Problem.NOT_KEYED if recorded_id is None else Problem.KEY_NEEDED if given_id is None else Problem.WRONG_KEY
        )
        return VerifyReport(
            False,
            checked,
            recorded_id is not None,
            recorded_id,
            last_seq,
            prev_hash,
            first_seq if problem is Problem.NOT_KEYED else None,
            problem,
            _key_mismatch(recorded_id, given_id),
            first_seq=first_seq,
        )
    if found is None:
        return VerifyReport(
            True, checked, recorded_id is not None, recorded_id, last_seq, prev_hash, first_seq=first_seq
        )
    return VerifyReport(
        False,
        checked,
        recorded_id is not None,
        recorded_id,
        last_seq,
        prev_hash,
        found.seq,
        found.problem,
        found.detail,
        _record_at(conn, found.seq),
        first_seq=first_seq,
    )


def _outside_chain(conn: sqlite3.Connection, first_seq: int, last_seq: int) -> _Finding | None:
    """A record stored outside seq ``first_seq``..``last_seq`` (e.g. the last record renumbered to 0)."""
    stray = conn.execute(
        "SELECT seq FROM records WHERE seq < ? OR seq > ? ORDER BY seq LIMIT 1", (first_seq, last_seq)
    ).fetchone()
    if stray is None:
        return None
    return _Finding(
        Problem.MALFORMED,
        f"a record is stored at seq {stray[0]}, outside the chain {first_seq}..{last_seq}",
        last_seq + 1,
    )


def _record_at(conn: sqlite3.Connection, seq: int) -> Record | None:
    """The record stored at ``seq``, if there is one and it can be read."""
    try:
        row = conn.execute(f"SELECT {_COLUMNS} FROM records WHERE seq = ?", (seq,)).fetchone()
        return Record.from_row(row) if row is not None else None
    except (sqlite3.Error, JournalError):
        return None


def _explain_insertion(conn: sqlite3.Connection, row: tuple[Any, ...], seq: int) -> _Finding | None:
    """If ``row`` links to an earlier record than its predecessor, the records between were inserted."""
    try:
        found = conn.execute(
            "SELECT seq FROM records WHERE hash = ? AND seq < ? ORDER BY seq DESC LIMIT 1", (row[6], seq - 1)
        ).fetchone()
    except sqlite3.Error:
        return None
    if found is None:
        return None
    first = found[0] + 1
    return _Finding(
        Problem.INSERTED,
        f"records {first}..{seq - 1} were inserted before record {seq}, which links to record {found[0]}",
        first,
    )


# --------------------------------------------------------------------------- exporting


def _export(path: str | os.PathLike[str], decision_type: str) -> Iterator[dict[str, Any]]:
    """The ``data`` of every decision of ``decision_type``, across the journal's segments."""
    from firmware_host.host import segments  # the companion module imports this one

    for conn in segments.connections(path):
        try:
            for row in _rows(conn, 1, "AND kind = 'decision' AND type = ?", (decision_type,)):
                yield Record.from_row(row).data
        except sqlite3.Error as exc:
            raise JournalError(f"journal {path}: cannot read: {exc}") from exc


def export_rounds(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The ``data`` of every ``round_result`` decision, in order (``journal export --rounds``)."""
    return _export(path, ROUND_RESULT)


def export_shoes(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The ``data`` of every ``shoe_result`` decision, in order (``journal export --shoes``)."""
    return _export(path, SHOE_RESULT)
