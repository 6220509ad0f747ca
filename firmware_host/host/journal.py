"""The journal: a durable, append-only, hash-chained (optionally HMAC-keyed) record of the table.

Every input event and every decision the controller takes goes into one SQLite table
*before* any output acts on it, so that any round can be reconstructed (§ 541.12(c),
§ 535.10(l)), the table's state can be rebuilt after a crash by replaying :meth:`Journal.steps`
through the same controller, and tampering is detected by
:func:`~firmware_host.host.journal_verify.verify`.

Durability: WAL mode with ``synchronous=FULL``; one input and all its decisions are one
transaction (:meth:`Journal.append_step`), committed to disk before the call returns, so a
crash loses at most the one uncommitted step, never half of it.

The journal's other concerns have their own modules: the record format
(:mod:`.journal_codec`), the key (:mod:`.journal_keys`), the SQLite file (:mod:`.journal_file`),
the writer lock (:mod:`.journal_lock`), verifying (:mod:`.journal_verify`), the decisions it
holds (:mod:`.journal_export`), segments (:mod:`.segments`) and a first start (:mod:`.genesis`).
The record format and the hash encoding byte by byte are in ``docs/journal.md``.
"""

from __future__ import annotations

import os
import pathlib
import sqlite3
import struct
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from drivers.events import DeviceEvent
from firmware_host.errors import JournalEncodingError, JournalError
from firmware_host.host import genesis, segments
from firmware_host.host.journal_codec import (
    CHECKPOINT_TYPE,
    Record,
    canonical_json,
    check_at,
    encode_event,
    seal,
    segment_info,
    steps_of,
)
from firmware_host.host.journal_file import (
    COLUMNS,
    INSERT,
    bytes_in_use,
    cannot_open,
    checkpoint,
    open_for_appending,
    read_rows,
)
from firmware_host.host.journal_lock import lock_for_writing
from firmware_host.host.journal_verify import Ends, checked_ends, verify_chain
from firmware_host.tables.decisions import Decision

__all__ = ["CHECKPOINT_EVERY_COMMITS", "Journal"]

#: Commits between two checkpoints of the write-ahead log (:func:`.journal_file.checkpoint`): about
#: 1,000 pages of a step's records, as SQLite's own default (1,000 pages).
CHECKPOINT_EVERY_COMMITS = 256


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
        ends: Ends,
        writer_lock: int,
    ) -> None:
        self._conn, self.path, self._key = conn, path, key
        self._first, self._last_seq, self._last_hash, self._last_round = ends
        self._lock = threading.Lock()
        #: The descriptor holding the writer's lock (:func:`.journal_lock.lock_for_writing`) while open.
        self._writer_lock: int | None = writer_lock
        #: The archived segments a reader behind a rotation pages through (:meth:`records_after`).
        self._archived = segments.ArchivedPages(path)
        self._archived_lock = threading.Lock()
        #: Commits since the last checkpoint of the write-ahead log (:func:`.journal_file.checkpoint`).
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

        :param hmac_key: the table's key (:func:`.journal_keys.load_key`); every record then carries a MAC.
        :raises JournalError: not a journal, wrong or missing key, broken chain, I/O error.
        """
        path = pathlib.Path(path)
        writer_lock = lock_for_writing(path)
        try:
            genesis.prepare(path, hmac_key)
            conn = open_for_appending(path)
        except BaseException:
            os.close(writer_lock)
            raise
        try:
            journal = cls(conn, path, hmac_key, checked_ends(conn, path, hmac_key), writer_lock)
            segments.finish_rotation(path, journal.segment_number, journal.first_record.hash)
            report = verify_chain(conn, hmac_key)
            if not report.ok:
                raise JournalError(
                    f"journal {path}: {report.finding()}; it must not be appended to: run tablehost journal verify"
                )
        except BaseException as exc:
            conn.close()
            os.close(writer_lock)
            if isinstance(exc, sqlite3.Error):
                raise cannot_open(path, exc) from exc
            raise
        return journal

    def close(self) -> None:
        """Close the file (idempotent); the WAL is checkpointed into the main file."""
        with self._lock:
            self._conn.close()
            if self._writer_lock is not None:
                os.close(self._writer_lock)  # the lock goes with it
                self._writer_lock = None
        with self._archived_lock:
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
        return self._append([("meta", type, check_at(at), None, canonical_json(data, f"meta {type!r}"))])

    def append_metas(self, type: str, items: Sequence[dict[str, Any]], *, at: float) -> int:
        """Append one ``meta`` record of this type per item, all in ONE durable transaction (a
        salvage's restored records: one commit, not one per record); return the first seq."""
        at = check_at(at)
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
            kept in the input record's data under :data:`.journal_codec.MONO_KEY` (None: not stamped).
        :returns: the seq of the input record (its decisions follow it).
        :raises JournalError: unregistered event, data not JSON-ready, bad ``at``, I/O error.
        """
        at = check_at(at)
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
                    row = seal(seq, kind, type_, at, round_, data, prev_hash, self._key)
                    rows.append(row)
                    prev_hash = row[7]
            except (TypeError, ValueError, struct.error) as exc:
                raise JournalEncodingError(f"journal {self.path}: cannot encode record {seq}: {exc}") from exc
            try:
                self._conn.execute("BEGIN IMMEDIATE")
                self._conn.executemany(INSERT, rows)
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
                self._commits = 0
                checkpoint(self._conn, self.path)  # at a step's append: its error stops the service loop (Service.step)
            return int(rows[0][0])

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
        with self._lock:
            number = self.segment_number
            data = segments.opening_data(checkpoint, number + 1, self._key)
            row = seal(
                self._last_seq + 1, "meta", CHECKPOINT_TYPE, check_at(at), None, data, self._last_hash, self._key
            )
            archived = segments.archive_path(self.path, number)
            if archived.exists():
                raise JournalError(f"journal {self.path}: cannot rotate: {archived} exists already")
            try:
                segments.archive_and_cut(self._conn, archived, row)
            except (sqlite3.Error, OSError) as exc:
                raise JournalError(f"journal {self.path}: cannot rotate: {exc}") from exc
            # The file's first and last records are new; its last round stays.
            self._first, self._last_seq, self._last_hash, _ = checked_ends(self._conn, self.path, self._key)
            return archived

    # ----------------------------------------------------------------- reading

    def records(self, start_seq: int = 1) -> Iterator[Record]:
        """Every record from ``start_seq`` on, in order."""
        for row in read_rows(self._conn, start_seq):
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
                    f"SELECT {COLUMNS} FROM records WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit)
                ).fetchall()
                return [Record.from_row(row) for row in rows]
        # Behind a rotation: from the archived segments, outside the append lock (they never change).
        with self._archived_lock:
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
                f"SELECT {COLUMNS} FROM records WHERE {where} ORDER BY seq DESC LIMIT 1", args
            ).fetchone()
        return None if row is None else Record.from_row(row)

    def first_meta(self, type: str) -> dict[str, Any] | None:
        """The ``data`` of the first ``meta`` record of this type in this file, or None."""
        with self._lock:
            row = self._conn.execute(
                f"SELECT {COLUMNS} FROM records WHERE kind = 'meta' AND type = ? ORDER BY seq LIMIT 1", (type,)
            ).fetchone()
        return None if row is None else Record.from_row(row).data

    def size(self) -> int:
        """Bytes the segment's records take: the file's pages in use, those still in the
        write-ahead log included (a rotation frees the others, :meth:`rotate`)."""
        with self._lock:
            return bytes_in_use(self._conn)

    def meta(self, type: str) -> list[dict[str, Any]]:
        """The ``data`` of every ``meta`` record of this type, in order."""
        return [
            Record.from_row(row).data for row in read_rows(self._conn, 1, "AND kind = 'meta' AND type = ?", (type,))
        ]
