"""A journal in segments: files chained by hash, rotated without losing or duplicating a record.

A journal starts as one file (segment 1, whose first record is the genesis). Rotating it
(:meth:`firmware_host.host.journal.Journal.rotate`) moves the file aside as
``<stem>.<NNNNNN><suffix>`` (``table.000001.sqlite``) and starts a new file at the same path
whose first record is a checkpoint of the table's whole state, numbered on from the old
file's last record (seq stays global and gapless) and linked to its hash (and under the
HMAC, like every record). Old segments may be compressed in place (``.gz``, ``.xz``) and
still verify and export. docs/journal.md, "Segments".

The live file is never renamed: a reader may have it open (the floor feed, ``journal
verify`` on a running table), and SQLite's locks and write-ahead log hold only for a file
that keeps its name. A rotation copies the live file whole with ``VACUUM INTO`` to
``<archive>.partial``, makes it durable and renames it to its archive name, then cuts the
live file in one transaction: every record out, the opening checkpoint in. A kill before
that commit leaves a copy beside a live file that still holds everything, which
:func:`finish_rotation` (run by every open) removes; after it, the rotation is done. So
whichever moment the kill hits, every record is in exactly one segment.
"""

from __future__ import annotations

import bz2
import contextlib
import dataclasses
import gzip
import logging
import lzma
import os
import pathlib
import re
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

from firmware_host import durable
from firmware_host.errors import JournalError
from firmware_host.host.journal_codec import FORMAT, GENESIS_PREV_HASH, Record, canonical_json, segment_info
from firmware_host.host.journal_file import COLUMNS, INSERT, read_rows, reading
from firmware_host.host.journal_keys import key_id
from firmware_host.host.journal_verify import Problem, VerifyReport, verify_chain

__all__ = [
    "Segment",
    "SegmentReport",
    "ArchivedPages",
    "segments_of",
    "archive_path",
    "partial_path",
    "write_archive",
    "opening_data",
    "archive_and_cut",
    "finish_rotation",
    "opened",
    "connections",
    "verify_segments",
    "records",
    "COMPRESSED",
]

log = logging.getLogger("tablehost.journal")

#: Compressed forms of an archived segment that are read (decompressed to a temporary file).
COMPRESSED: dict[str, Callable[..., Any]] = {".gz": gzip.open, ".xz": lzma.open, ".bz2": bz2.open}
#: Digits of a segment's number in its file name.
NUMBER_DIGITS = 6


@dataclasses.dataclass(frozen=True)
class Segment:
    """One file of a journal: ``number`` from its name (the live file: after the last archived one)."""

    path: pathlib.Path
    number: int
    live: bool


@dataclasses.dataclass(frozen=True)
class SegmentReport:
    """What :func:`verify_segments` found in one segment (records ``first_seq..last_seq``)."""

    path: str
    number: int
    first_seq: int
    last_seq: int
    records: int
    seconds: float


def archive_path(path: pathlib.Path, number: int) -> pathlib.Path:
    """Where segment ``number`` of the journal at ``path`` goes when it is rotated out."""
    return path.with_name(f"{path.stem}.{number:0{NUMBER_DIGITS}d}{path.suffix}")


def segments_of(path: str | os.PathLike[str]) -> list[Segment]:
    """The journal's archived segments beside ``path`` (by number, compressed or not), then ``path``."""
    path = pathlib.Path(path)
    pattern = re.compile(
        re.escape(path.stem)
        + rf"\.(\d{{{NUMBER_DIGITS}}})"
        + re.escape(path.suffix)
        + r"("
        + "|".join(re.escape(s) for s in COMPRESSED)
        + r")?\Z"
    )
    found: dict[int, pathlib.Path] = {}
    if path.parent.is_dir():
        for entry in path.parent.iterdir():
            match = pattern.match(entry.name)
            if match:
                number = int(match.group(1))
                if number in found:
                    raise JournalError(
                        f"journal {path}: segment {number} is there twice ({found[number].name}, "
                        f"{entry.name}); keep one"
                    )
                found[number] = entry
    archived = [Segment(found[n], n, False) for n in sorted(found)]
    live_number = archived[-1].number + 1 if archived else 1
    return [*archived, *([Segment(path, live_number, True)] if path.exists() else [])]


def partial_path(archived: pathlib.Path) -> pathlib.Path:
    """Where a rotation writes the copy of a segment before it takes its archive name."""
    return archived.with_name(archived.name + ".partial")


def write_archive(conn: sqlite3.Connection, archived: pathlib.Path) -> None:
    """Copy the live file, as ``conn`` sees it, to ``archived``: complete, compact, durable.

    ``VACUUM INTO`` is a read of one snapshot, so readers of the live file are neither waited
    for nor disturbed; the copy takes its name by one durable rename only once it is whole.
    """
    partial = partial_path(archived)
    partial.unlink(missing_ok=True)
    conn.execute("VACUUM INTO ?", (str(partial),))
    durable.publish(partial, archived)


def opening_data(checkpoint: dict[str, Any], number: int, key: bytes | None) -> str:
    """The data of the checkpoint record that opens segment ``number`` (:meth:`.journal.Journal.rotate`):
    the table's state ``checkpoint`` and the ``segment`` it opens, canonical JSON."""
    segment = {
        "number": number,
        "format": FORMAT,
        "keyed": key is not None,
        "key_id": key_id(key) if key is not None else None,
    }
    return canonical_json({**checkpoint, "segment": segment}, "segment checkpoint")


def archive_and_cut(conn: sqlite3.Connection, archived: pathlib.Path, opening: tuple[Any, ...]) -> None:
    """The rotation of the file ``conn`` writes (the caller holds the append lock): copy it to
    ``archived`` (:func:`write_archive`), then cut it in one transaction to its new segment's
    ``opening`` row (sealed), then vacuum the cut pages away.

    :raises sqlite3.Error, OSError: the file is as it was, and no archive is left behind.
    """
    try:
        write_archive(conn, archived)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("DELETE FROM records")
        conn.execute(INSERT, opening)
        conn.execute("COMMIT")
    except (sqlite3.Error, OSError):
        if conn.in_transaction:
            conn.rollback()
        partial_path(archived).unlink(missing_ok=True)
        archived.unlink(missing_ok=True)  # the file was not cut: it still holds the segment
        raise
    try:
        conn.execute("VACUUM")  # give the cut segment's pages back (a failure only leaves them free)
    except sqlite3.Error as exc:
        log.warning(
            "journal rotated (the closed segment is %s), but the live file cannot be vacuumed: %s", archived, exc
        )


def finish_rotation(path: pathlib.Path, live_number: int, live_first_hash: str) -> None:
    """Undo a rotation a kill cut short, before the live file (segment ``live_number``, first
    record's hash ``live_first_hash``) is appended to again; idempotent.

    A copy cut short (``.partial``) is dropped. A whole copy under the live segment's own
    archive name means the kill came before the live file was cut: the live file still holds
    every record, so the copy goes and the next quiet moment rotates again.

    :raises JournalError: a file holds the live segment's archive name but not its records.
    """
    archived = archive_path(path, live_number)
    partial = partial_path(archived)
    if not (partial.exists() or archived.exists()):
        return
    partial.unlink(missing_ok=True)
    if archived.exists():
        with reading(archived) as conn:
            first = _opening(conn)
        if first is None or first.hash != live_first_hash:
            raise JournalError(
                f"journal {path}: {archived.name} is named as segment {live_number}, which is the "
                "live file, but holds other records; move it away (tablehost journal verify)"
            )
        archived.unlink()
    durable.fsync_directory(path.parent)


@contextlib.contextmanager
def opened(segment: Segment) -> Iterator[sqlite3.Connection]:
    """A read-only connection to a segment, decompressed into a temporary file if compressed."""
    opener = COMPRESSED.get(segment.path.suffix)
    if opener is None:
        with reading(segment.path) as conn:
            yield conn
        return
    with tempfile.TemporaryDirectory(prefix="tablehost-segment-") as tmp:
        plain = pathlib.Path(tmp) / segment.path.stem
        try:
            with opener(segment.path, "rb") as source, open(plain, "wb") as target:
                shutil.copyfileobj(source, target, 1 << 20)
        except (OSError, EOFError, lzma.LZMAError) as exc:
            raise JournalError(f"journal segment {segment.path}: cannot decompress: {exc}") from exc
        with reading(plain) as conn:
            yield conn


def _opening(conn: sqlite3.Connection) -> Record | None:
    row = conn.execute(f"SELECT {COLUMNS} FROM records ORDER BY seq LIMIT 1").fetchone()
    try:
        return Record.from_row(row) if row is not None else None
    except JournalError:
        return None


def _number_in(record: Record | None) -> int | None:
    """The segment number a file's first record gives (1 for the genesis)."""
    if record is None:
        return None
    if record.seq == 1:
        return 1
    info = segment_info(record)
    number = info.get("number") if info else None
    return number if isinstance(number, int) else None


def verify_segments(path: str | os.PathLike[str], *, hmac_key: bytes | None = None) -> VerifyReport:
    """Check the chain across every segment of the journal at ``path``, oldest first.

    Besides what :func:`~firmware_host.host.journal_verify.verify` finds in one file: a segment missing
    (the numbers or the records jump), two swapped (a file holds another segment than its name
    says), one cut short (records missing between its end and the next segment's start), a
    segment keyed with another key. The report's ``segments`` lists each segment checked.
    """
    found = segments_of(path)
    if not found:
        raise JournalError(f"journal {path}: no such file")
    expected_seq, prev_hash, expected_number = 1, GENESIS_PREV_HASH, 1
    reports: list[SegmentReport] = []
    total, key_ids = 0, set()
    report: VerifyReport | None = None
    for segment in found:
        started = time.perf_counter()
        with opened(segment) as conn:
            problem = _placement(conn, segment, expected_seq, expected_number)
            if problem is not None:
                return _segment_problem(report, total, expected_seq, prev_hash, reports, *problem)
            report = verify_chain(conn, hmac_key, (expected_seq, prev_hash))
        total += report.records_checked
        key_ids.add(report.key_id)
        reports.append(
            SegmentReport(
                str(segment.path),
                segment.number,
                expected_seq,
                report.last_seq,
                report.records_checked,
                time.perf_counter() - started,
            )
        )
        if not report.ok or len(key_ids) > 1:
            detail = report.detail if len(key_ids) == 1 else f"segment {segment.number} is keyed with another key"
            return dataclasses.replace(
                report,
                ok=False,
                records_checked=total,
                segments=tuple(reports),
                detail=f"{segment.path.name}: {detail}",
                problem=report.problem or Problem.WRONG_KEY,
            )
        expected_seq, prev_hash, expected_number = report.last_seq + 1, report.last_hash, segment.number + 1
    assert report is not None
    return dataclasses.replace(report, records_checked=total, first_seq=1, segments=tuple(reports))


def _placement(
    conn: sqlite3.Connection, segment: Segment, expected_seq: int, expected_number: int
) -> tuple[Problem, str, int] | None:
    """Whether the segment holds what its place in the order says: its number, starting at ``expected_seq``."""
    first = _opening(conn)
    number = _number_in(first)
    if first is None or number is None:
        return None  # not a first record at all: verify_chain names it
    if number != segment.number:
        return (
            Problem.SEGMENT_SWAPPED,
            f"{segment.path.name} holds segment {number}, not segment {segment.number} (files renamed or swapped)",
            first.seq,
        )
    if number > expected_number:
        return (
            Problem.SEGMENT_MISSING,
            f"segment{'s' if number - expected_number > 1 else ''} "
            f"{expected_number}{'..' + str(number - 1) if number - expected_number > 1 else ''} missing "
            f"before {segment.path.name} (records {expected_seq}..{first.seq - 1})",
            expected_seq,
        )
    if first.seq > expected_seq:
        return (
            Problem.SEGMENT_CUT,
            f"segment {expected_number - 1} ends at record {expected_seq - 1} but "
            f"{segment.path.name} starts at {first.seq}: records {expected_seq}..{first.seq - 1} were cut off",
            expected_seq,
        )
    if first.seq < expected_seq:
        return (
            Problem.SEGMENT_SWAPPED,
            f"{segment.path.name} starts at record {first.seq}, which the segment "
            f"before it holds already (up to {expected_seq - 1})",
            first.seq,
        )
    return None


def _segment_problem(
    report: VerifyReport | None,
    total: int,
    expected_seq: int,
    prev_hash: str,
    reports: list[SegmentReport],
    problem: Problem,
    detail: str,
    seq: int,
) -> VerifyReport:
    keyed = report.keyed if report is not None else False
    key = report.key_id if report is not None else None
    return VerifyReport(
        False, total, keyed, key, expected_seq - 1, prev_hash, seq, problem, detail, segments=tuple(reports)
    )


def connections(path: str | os.PathLike[str]) -> Iterator[sqlite3.Connection]:
    """A read-only connection to each segment of the journal in turn, oldest first."""
    found = segments_of(path)
    if not found:
        raise JournalError(f"journal {path}: no such file")
    for segment in found:
        with opened(segment) as conn:
            yield conn


def records(path: str | os.PathLike[str], start_seq: int = 1) -> Iterator[Record]:
    """Every record from ``start_seq`` on across the journal's segments, in order (read-only).

    :raises JournalError: a segment is missing, unreadable or does not start where the one
        before it ended.
    """
    expected = None
    for segment in segments_of(path):
        with opened(segment) as conn:
            try:
                first = _opening(conn)
                last = conn.execute("SELECT max(seq) FROM records").fetchone()[0]
                if first is None or last is None or last < start_seq:
                    expected = last + 1 if last is not None else expected
                    continue
                if expected is not None and first.seq != expected:
                    raise JournalError(
                        f"journal {path}: {segment.path.name} starts at record {first.seq}, not "
                        f"{expected}: a segment is missing or cut short (tablehost journal verify)"
                    )
                for row in read_rows(conn, max(start_seq, first.seq)):
                    yield Record.from_row(row)
            except sqlite3.Error as exc:
                raise JournalError(f"journal segment {segment.path}: cannot read: {exc}") from exc
            expected = last + 1


class ArchivedPages:
    """Pages of records from the archived segments of the journal at ``path``, for a reader
    that fell behind a rotation (the floor feed after a broker outage, docs/feed.md).

    The segment last read stays open (a compressed one stays decompressed), so catching up
    through it costs one open, not one a page. Not thread-safe: one reader at a time.
    """

    def __init__(self, path: pathlib.Path) -> None:
        self.path = path
        self._stack = contextlib.ExitStack()
        #: The open segment's connection and its records' seq range.
        self._open: tuple[sqlite3.Connection, int, int] | None = None

    def page(self, after_seq: int, limit: int) -> list[Record]:
        """Up to ``limit`` records after ``after_seq`` from the archived segment holding
        ``after_seq + 1``, in order; empty when no archived segment holds it."""
        wanted = after_seq + 1
        if self._open is None or not self._open[1] <= wanted <= self._open[2]:
            self._open = self._find(wanted)
            if self._open is None:
                return []
        rows = (
            self._open[0]
            .execute(f"SELECT {COLUMNS} FROM records WHERE seq > ? ORDER BY seq LIMIT ?", (after_seq, limit))
            .fetchall()
        )
        return [Record.from_row(row) for row in rows]

    def _find(self, wanted: int) -> tuple[sqlite3.Connection, int, int] | None:
        """Open the archived segment holding record ``wanted`` (newest first: a reader is
        seldom more than a segment behind)."""
        self.close()
        for segment in reversed([s for s in segments_of(self.path) if not s.live]):
            stack = contextlib.ExitStack()
            conn = stack.enter_context(opened(segment))
            first = _opening(conn)
            (last,) = conn.execute("SELECT max(seq) FROM records").fetchone()
            if first is not None and last is not None and first.seq <= wanted <= last:
                self._stack = stack
                return conn, first.seq, last
            stack.close()
            if first is not None and first.seq < wanted:
                return None  # older segments end sooner still
        return None

    def close(self) -> None:
        """Close the open segment (a decompressed copy is deleted)."""
        self._stack.close()
        self._open = None
