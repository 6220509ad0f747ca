"""Verifying a journal: the chain of hashes (and, keyed, the MACs) from its first record, and
what is wrong where it breaks (:func:`verify`; ``tablehost journal verify``).

:func:`check_row` checks one stored row on its own; the salvage (:mod:`firmware_host.wiring.salvage`)
uses it on the rows after a break.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import os
import pathlib
import sqlite3
import struct
from collections.abc import Callable
from typing import Any, NamedTuple

from firmware_host.errors import JournalError
from firmware_host.host.journal_codec import GENESIS_PREV_HASH, KINDS, Record, encode, mac_of, segment_info
from firmware_host.host.journal_file import COLUMNS, read_rows, reading
from firmware_host.host.journal_keys import key_id, key_mismatch, recorded_key_id

__all__ = ["Ends", "Finding", "Problem", "VerifyReport", "check_row", "checked_ends", "verify", "verify_chain"]


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


class Finding(NamedTuple):
    problem: Problem
    detail: str
    seq: int  # the first broken record


def check_row(
    row: tuple[Any, ...],
    *,
    expected_seq: int,
    prev_hash: str,
    key: Callable[[bytes], str] | None,
    keyed: bool,
) -> Finding | None:
    """What is wrong with one stored row given its predecessor's hash (None: intact).

    Insertions are told apart from other broken links by :func:`_explain_insertion`.
    """
    seq, kind, type_, at, round_, data, stored_prev, stored_hash, mac = row
    if seq != expected_seq:
        if isinstance(seq, int) and seq > expected_seq:
            return Finding(Problem.DELETED, f"records {expected_seq}..{seq - 1} are missing", expected_seq)
        return Finding(Problem.CHANGED, f"seq is {seq!r}, expected {expected_seq}", expected_seq)
    try:
        message = encode(seq, kind, type_, at, round_, data, stored_prev)
    except (TypeError, ValueError, struct.error) as exc:
        return Finding(Problem.CHANGED, f"a field was altered: {exc}", seq)
    if stored_hash != hashlib.sha256(message).hexdigest():  # so a hash that passes is 64 lowercase hex digits
        return Finding(Problem.CHANGED, "its content does not match its stored hash", seq)
    if stored_prev != prev_hash:
        return Finding(Problem.BROKEN_LINK, "prev_hash is not the hash of the record before it", seq)
    if kind not in KINDS:
        return Finding(Problem.MALFORMED, f"kind {kind!r} is none of {', '.join(KINDS)}", seq)
    if key is not None:
        if mac != key(message):
            return Finding(
                Problem.BAD_MAC, "its MAC does not check with the key (altered or re-chained without the key)", seq
            )
    elif not keyed and mac is not None:
        return Finding(Problem.MALFORMED, "a MAC in an unkeyed journal", seq)
    return None


class Ends(NamedTuple):
    """A journal file's first record and where its chain ends (:func:`checked_ends`)."""

    first: Record
    last_seq: int
    last_hash: str
    #: The highest round number in any record (None before the first round).
    last_round: int | None


def checked_ends(conn: sqlite3.Connection, path: object, key: bytes | None) -> Ends:
    """The file's first and last records, once the first is shown to open a journal or a segment
    and to name ``key`` (opening a journal then checks the whole chain, :func:`verify_chain`).

    :raises JournalError: the first record is missing, or names another key (or none).
    """
    first = conn.execute(f"SELECT {COLUMNS} FROM records ORDER BY seq LIMIT 1").fetchone()
    first_record = Record.from_row(first) if first is not None else None
    if first_record is None or (first_record.seq != 1 and segment_info(first_record) is None):
        raise JournalError(f"journal {path}: its first record is missing; run tablehost journal verify")
    recorded_id = recorded_key_id(first_record)
    given_id = key_id(key) if key is not None else None
    if recorded_id != given_id:
        raise JournalError(f"journal {path}: " + key_mismatch(recorded_id, given_id))
    last = conn.execute(f"SELECT {COLUMNS} FROM records ORDER BY seq DESC LIMIT 1").fetchone()
    (last_round,) = conn.execute("SELECT max(round) FROM records").fetchone()
    return Ends(first_record, last[0], last[7], last_round)


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
    with reading(path) as conn:
        return verify_chain(conn, hmac_key)


def _first_link(conn: sqlite3.Connection) -> tuple[int, str]:
    """Where a file's chain starts: record 1 after the genesis hash, or (a later segment) its first
    record after the hash that record names, which only the segment before it can confirm."""
    row = conn.execute(f"SELECT {COLUMNS} FROM records ORDER BY seq LIMIT 1").fetchone()
    if row is None or not isinstance(row[0], int) or row[0] <= 1:
        return 1, GENESIS_PREV_HASH
    try:
        opens_segment = segment_info(Record.from_row(row)) is not None
    except JournalError:
        opens_segment = False
    return (row[0], str(row[6])) if opens_segment else (1, GENESIS_PREV_HASH)


def verify_chain(conn: sqlite3.Connection, key: bytes | None, start: tuple[int, str] | None = None) -> VerifyReport:
    """Walk the chain from its first record (``start``: its seq and the hash it must link to;
    default :func:`_first_link`); stop at the first problem."""
    first_seq, prev_hash = start if start is not None else _first_link(conn)
    checked, prev_kind, recorded_id = 0, None, None
    given_id = key_id(key) if key is not None else None
    usable_key: Callable[[bytes], str] | None = None  # the key's MAC, once the first record shows it is this file's
    keyed, found = False, None
    try:
        for row in read_rows(conn, first_seq if first_seq > 1 else 1):
            seq = first_seq + checked
            if checked == 0:
                try:
                    recorded_id = recorded_key_id(Record.from_row(row))
                except JournalError as exc:
                    found = Finding(Problem.MALFORMED, str(exc), seq)
                    break
                usable_key = mac_of(key) if key is not None and given_id == recorded_id else None
                keyed = recorded_id is not None
            found = check_row(row, expected_seq=seq, prev_hash=prev_hash, key=usable_key, keyed=keyed)
            if found is not None and found.problem in (Problem.CHANGED, Problem.BROKEN_LINK):
                found = _explain_insertion(conn, row, seq) or found
            if found is None and row[1] == "decision" and prev_kind not in ("input", "decision"):
                found = Finding(Problem.MALFORMED, "a decision not preceded by its input", seq)
            if found is not None:
                break
            checked, prev_hash, prev_kind = checked + 1, row[7], row[1]
    except sqlite3.Error as exc:  # only reading the rows reaches SQLite (_explain_insertion keeps its own)
        found = Finding(Problem.UNREADABLE, f"SQLite cannot read on: {exc}", first_seq + checked)
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
            key_mismatch(recorded_id, given_id),
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


def _outside_chain(conn: sqlite3.Connection, first_seq: int, last_seq: int) -> Finding | None:
    """A record stored outside seq ``first_seq``..``last_seq`` (e.g. the last record renumbered to 0)."""
    stray = conn.execute(
        "SELECT seq FROM records WHERE seq < ? OR seq > ? ORDER BY seq LIMIT 1", (first_seq, last_seq)
    ).fetchone()
    if stray is None:
        return None
    return Finding(
        Problem.MALFORMED,
        f"a record is stored at seq {stray[0]}, outside the chain {first_seq}..{last_seq}",
        last_seq + 1,
    )


def _record_at(conn: sqlite3.Connection, seq: int) -> Record | None:
    """The record stored at ``seq``, if there is one and it can be read."""
    try:
        row = conn.execute(f"SELECT {COLUMNS} FROM records WHERE seq = ?", (seq,)).fetchone()
        return Record.from_row(row) if row is not None else None
    except (sqlite3.Error, JournalError):
        return None


def _explain_insertion(conn: sqlite3.Connection, row: tuple[Any, ...], seq: int) -> Finding | None:
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
    return Finding(
        Problem.INSERTED,
        f"records {first}..{seq - 1} were inserted before record {seq}, which links to record {found[0]}",
        first,
    )
