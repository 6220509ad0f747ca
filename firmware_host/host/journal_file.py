"""The journal's SQLite file: its schema, opening it (read-only or to append), and reading its
rows a page at a time."""

from __future__ import annotations

import contextlib
import logging
import os
import pathlib
import sqlite3
from collections.abc import Iterator
from typing import Any

from firmware_host.errors import JournalBusyError, JournalError

__all__ = [
    "APPLICATION_ID",
    "COLUMNS",
    "INSERT",
    "SCHEMA",
    "bytes_in_use",
    "cannot_open",
    "checkpoint",
    "connect",
    "holds_journal",
    "open_for_appending",
    "read_rows",
    "reading",
]

log = logging.getLogger("tablehost.journal")

#: SQLite header ``application_id`` marking a file as a tablehost journal ("TBJL").
APPLICATION_ID = 0x54424A4C
_PAGE = 512  # records fetched per query when iterating (no cursor is held open between pages)
COLUMNS = "seq, kind, type, at, round, data, prev_hash, hash, mac"
INSERT = f"INSERT INTO records ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
SCHEMA = """
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


def connect(path: str | os.PathLike[str], *, read_only: bool) -> sqlite3.Connection:
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
def reading(path: str | os.PathLike[str]) -> Iterator[sqlite3.Connection]:
    """A read-only connection to an existing journal, closed on exit; :class:`JournalError` if it is none."""
    conn = connect(path, read_only=True)
    try:
        try:
            if not holds_journal(conn, path):
                raise JournalError(f"journal {path}: not a tablehost journal (no records)")
        except sqlite3.Error as exc:
            raise JournalError(f"journal {path}: cannot read: {exc}") from exc
        yield conn
    finally:
        conn.close()


def holds_journal(conn: sqlite3.Connection, path: object) -> bool:
    """Whether the file holds a journal; :class:`JournalError` if it is some other SQLite file."""
    (app_id,) = conn.execute("PRAGMA application_id").fetchone()
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if app_id == APPLICATION_ID and "records" in tables:
        return True
    if app_id == 0 and not tables:
        return False
    raise JournalError(f"journal {path}: not a tablehost journal (another SQLite database)")


def read_rows(
    conn: sqlite3.Connection, start_seq: int, where: str = "", args: tuple[Any, ...] = ()
) -> Iterator[tuple[Any, ...]]:
    """Every row from ``start_seq`` in seq order, a page per query (no cursor held across yields)."""
    query = f"SELECT {COLUMNS} FROM records WHERE seq >= ? {where} ORDER BY seq LIMIT {_PAGE}"
    while True:
        page = conn.execute(query, (start_seq, *args)).fetchall()
        yield from page
        if len(page) < _PAGE:
            return
        start_seq = page[-1][0] + 1


def open_for_appending(path: pathlib.Path) -> sqlite3.Connection:
    """The journal file at ``path`` (made by :mod:`.genesis`) open to append to: in write-ahead-log
    mode, SQLite's automatic checkpoints off (the journal checkpoints itself, :func:`checkpoint`).

    :raises JournalError: it cannot be opened or holds no journal; :class:`JournalBusyError`:
        another connection holds it.
    """
    conn = connect(path, read_only=False)
    try:
        if not holds_journal(conn, path):
            raise JournalError(
                f"journal {path}: not a tablehost journal (a file with no journal in it, beside archived "
                "segments); move it away, or put the live segment back"
            )
        conn.execute("PRAGMA journal_mode=WAL")  # every journal is made so (.genesis): a no-op but for a copy
        conn.execute("PRAGMA wal_autocheckpoint=0")  # the journal checkpoints itself, and checks it (checkpoint)
    except BaseException as exc:
        conn.close()
        if isinstance(exc, sqlite3.Error):
            raise cannot_open(path, exc) from exc
        raise
    return conn


def cannot_open(path: object, exc: sqlite3.Error) -> JournalError:
    """The error opening the journal at ``path`` met: :class:`JournalBusyError` when another
    connection holds the file (``tablehost`` exits 75: try again later)."""
    busy = getattr(exc, "sqlite_errorcode", 0) & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return (JournalBusyError if busy else JournalError)(f"journal {path}: cannot open: {exc}")


def checkpoint(conn: sqlite3.Connection, path: object) -> None:
    """Copy the write-ahead log into the file, SQLite's checkpoint, and check that it worked
    (the caller holds the journal's append lock). SQLite's automatic checkpoint is off
    (``wal_autocheckpoint = 0``): it runs inside a commit and drops its errors, so a disk
    whose fsyncs fail would let the table act on while the file went bad (issue 27).

    A reader holding an older snapshot (``journal verify`` on a running table) may leave
    frames for the next checkpoint to copy; that is no error.

    :raises JournalError: the checkpoint failed (an I/O error, a full disk): the step is
        committed in the log, but the table must stop before it acts on it.
    """
    try:
        row = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    except sqlite3.Error as exc:
        raise JournalError(
            f"journal {path}: the checkpoint of its write-ahead log failed: {exc}; the table stops "
            "(the records are in the log; check the disk before starting again)"
        ) from exc
    if row is None or len(row) != 3 or row[1] < 0:
        raise JournalError(f"journal {path}: not in write-ahead-log mode (checkpoint returned {row!r})")
    busy, frames, copied = row
    if busy or copied < frames:
        log.debug("journal %s: checkpoint copied %d of %d frames (a reader holds the rest)", path, copied, frames)


def bytes_in_use(conn: sqlite3.Connection) -> int:
    """Bytes the file's records take: its pages in use, those still in the write-ahead log included."""
    (pages,) = conn.execute("PRAGMA page_count").fetchone()
    (free,) = conn.execute("PRAGMA freelist_count").fetchone()
    (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    return int((pages - free) * page_size)
