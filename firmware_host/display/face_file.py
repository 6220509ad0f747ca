"""The face file: what the web face may read of the table, written by the service beside its journal.

The web face faces the network and may not read the journal (it holds every card before it is
exposed, and the protection data). The service, the journal's only writer, keeps
``<journal>.face`` (:func:`face_path`): a SQLite file (WAL) of one table, ``shown``, a row per
journal record that :func:`~firmware_host.display.face.shown` keeps, under the record's journal
seq, with the seq of the step it belongs to (its input record's; one update of the pages a step).
Its mode is :data:`MODE`, whatever the umask: the web face's user reads it through the group
(deploy/), while the journal is its owner's alone.

:class:`FaceWriter` is an output of the service, as the floor feed is: the journal is its queue.
``on_decisions`` only wakes its thread, which reads the journal's records after the last one it
took (:meth:`~firmware_host.host.journal.Journal.records_after`, across a rotation) and writes
what is shown, one transaction a page. The file is derived, never durable-critical: written with
``synchronous=NORMAL`` and no fsync of its own, rebuilt from the journal at every start of the
service (:meth:`FaceWriter.rebuild`: in one transaction, so a reader sees the file before or
after, and the rows it read are the same in both; the transaction writes the file's build token,
:func:`read_build`, so a file made anew whose rebuild is not committed yet reads as not built,
not as an empty journal), and a failure of it (a full disk, a corrupt
file, removed) is counted, logged at most once a minute and mended by a rebuild after a back-off
(:data:`RETRY_S` doubling to :data:`MAX_RETRY_S`); the table deals on.

Bound: the rows of the journal's live segment and of the one before it, which is what a web face
rebuilds its view from (a shoe in play at a rotation); older rows are deleted at each rotation.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from firmware_host.display.face import shown
from firmware_host.errors import JournalError
from firmware_host.host import segments
from firmware_host.host.journal_codec import Record
from firmware_host.tables.decisions import Decision

__all__ = [
    "FaceWriter",
    "FaceRow",
    "face_path",
    "read_after",
    "read_at",
    "read_build",
    "connect_reader",
    "MODE",
    "SUFFIX",
]

log = logging.getLogger("tablehost.face")

#: The face file's name beside the journal's.
SUFFIX = ".face"
#: Its mode: its owner (the service) writes, its group (the web face's user) reads.
MODE = 0o640
#: Journal records read, and face rows read, per page.
PAGE = 512
#: Random bytes of a build's token (:func:`read_build`).
BUILD_BYTES = 6
#: Seconds the writer's thread waits for a wake before it looks at the journal anyway.
LOOK_S = 1.0
#: Seconds before a failed face file is tried again, doubled at each failure up to :data:`MAX_RETRY_S`.
RETRY_S, MAX_RETRY_S = 1.0, 30.0
#: Seconds between two log lines about the face file's failures (the writer's, and the web face's
#: when it cannot read it).
COMPLAIN_EVERY_S = 60.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS shown (
    seq   INTEGER PRIMARY KEY,  -- the journal record's seq: the pages' event id
    step  INTEGER NOT NULL,     -- the seq of the step's input record (a meta record's own)
    at    REAL,                 -- the record's time
    type  TEXT NOT NULL,
    round INTEGER,
    data  TEXT NOT NULL
)
"""
#: The file's build: a random token, written by each rebuild in its transaction (none: not built yet).
#: Derived from nothing of the journal (a card's hash would tell of it): only "this is another build".
_BUILD_SCHEMA = "CREATE TABLE IF NOT EXISTS build (one INTEGER PRIMARY KEY CHECK (one = 1), token TEXT NOT NULL)"
_INSERT = "INSERT OR REPLACE INTO shown (seq, step, at, type, round, data) VALUES (?, ?, ?, ?, ?, ?)"


def face_path(journal: Path) -> Path:
    """The face file of the journal at ``journal``: beside it, ``<name>.face``."""
    return journal.with_name(journal.name + SUFFIX)


@dataclasses.dataclass(frozen=True)
class FaceRow:
    """One row of the face file: a decision the display may show, with its journal seq and step."""

    seq: int
    step: int
    at: float | None
    decision: Decision


class Pages(Protocol):
    """What the writer reads of the journal (:class:`~firmware_host.host.journal.Journal`)."""

    path: Path

    @property
    def last_seq(self) -> int: ...

    @property
    def first_record(self) -> Record: ...

    def records_after(self, seq: int, limit: int) -> list[Record]: ...


def connect_reader(path: Path) -> sqlite3.Connection:
    """A read-only connection to the face file that sees later commits.

    :raises sqlite3.Error: it cannot be opened (not there yet, not readable, not a face file).
    """
    conn = sqlite3.connect(
        path.absolute().as_uri() + "?mode=ro", uri=True, isolation_level=None, check_same_thread=False
    )
    try:
        conn.execute("SELECT count(*) FROM shown").fetchone()
        conn.execute("SELECT count(*) FROM build").fetchone()
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def read_build(conn: sqlite3.Connection) -> str | None:
    """The file's build token: None while it is not built yet (made anew, its rebuild not committed)."""
    row = conn.execute("SELECT token FROM build WHERE one = 1").fetchone()
    return None if row is None else str(row[0])


def read_after(conn: sqlite3.Connection, seq: int, limit: int = PAGE) -> list[FaceRow]:
    """Up to ``limit`` rows after ``seq``, in order (one statement: one snapshot)."""
    rows = conn.execute(
        "SELECT seq, step, at, type, round, data FROM shown WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit)
    ).fetchall()
    return [_row(*row) for row in rows]


def read_at(conn: sqlite3.Connection, seq: int) -> FaceRow | None:
    """The row of ``seq``, if the file holds it."""
    row = conn.execute("SELECT seq, step, at, type, round, data FROM shown WHERE seq = ?", (seq,)).fetchone()
    return None if row is None else _row(*row)


def _row(seq: int, step: int, at: float | None, type_: str, round_: int | None, data: str) -> FaceRow:
    return FaceRow(seq, step, at, Decision(type_, json.loads(data), round_))


class FaceWriter:
    """Keeps the face file of ``journal`` (an output of the service; see the module).

    :param journal: the open journal.
    :param path: the face file (default: :func:`face_path` of the journal's).
    """

    def __init__(self, journal: Pages, path: Path | None = None) -> None:
        self.journal = journal
        self.path = path or face_path(journal.path)
        #: The journal seq of the last record taken (shown or not).
        self.position = 0
        #: The journal seq of the last row written.
        self.written = 0
        #: Failures of the face file since start (each mended by a rebuild).
        self.failures = 0
        self._step = 0
        self._live_first = 0
        self._conn: sqlite3.Connection | None = None
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._moved = threading.Condition()
        self._thread: threading.Thread | None = None
        self._complained_at = float("-inf")

    # -- the service side -------------------------------------------------------------------
    def on_decisions(self, decisions: Sequence[Decision]) -> None:
        """The step is durable: wake the writer (never blocks)."""
        self._wake.set()

    def start(self) -> None:
        """Start the writer's thread (after :meth:`rebuild`, or it rebuilds first)."""
        self._thread = threading.Thread(target=self._run, name="face-writer", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop after the page in progress; close the file."""
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        self._close()

    def sync(self, timeout: float = 5.0) -> bool:
        """Wait until every record journaled before this call has been taken (True), or ``timeout`` seconds."""
        target = self.journal.last_seq
        self._wake.set()
        with self._moved:
            return self._moved.wait_for(lambda: self.position >= target, timeout)

    # -- the file -----------------------------------------------------------------------------
    def rebuild(self) -> bool:
        """Write the face file anew from the journal's live segment and the one before it, in one
        transaction; True when done (a failure is counted and logged, and the thread tries again)."""
        try:
            self._rebuild()
        except (sqlite3.Error, OSError, JournalError, ValueError) as exc:
            self._failed(exc)
            return False
        return True

    def _rebuild(self) -> None:
        conn = self._open()
        self._live_first = self.journal.first_record.seq
        since = _since(self.journal.path, self._live_first)
        self._step, after, written = 0, since - 1, 0
        with _transaction(conn):
            conn.execute("DELETE FROM shown")
            conn.execute("INSERT OR REPLACE INTO build (one, token) VALUES (1, ?)", (secrets.token_hex(BUILD_BYTES),))
            while page := self.journal.records_after(after, PAGE):
                written = self._insert(conn, page) or written
                after = page[-1].seq
        self._moved_to(after, written)

    def _catch_up(self) -> bool:
        """Write the shown records of one page after :attr:`position`; True when there was one."""
        conn = self._open()
        first = self.journal.first_record.seq
        if first != self._live_first:  # rotated: the segment before the live one is the old live one
            with _transaction(conn):
                conn.execute("DELETE FROM shown WHERE seq < ?", (self._live_first,))
            self._live_first = first
        page = self.journal.records_after(self.position, PAGE)
        if not page:
            return False
        with _transaction(conn):
            written = self._insert(conn, page)
        self._moved_to(page[-1].seq, written or self.written)
        return True

    def _moved_to(self, position: int, written: int) -> None:
        """Committed: every record through ``position`` taken, the last row written ``written``."""
        with self._moved:
            self.position, self.written = position, written
            self._moved.notify_all()

    def _insert(self, conn: sqlite3.Connection, page: list[Record]) -> int:
        """Insert the shown records of ``page``; the seq of the last one (0: none)."""
        rows: list[tuple[Any, ...]] = []
        for record in page:
            if record.kind == "input":
                self._step = record.seq
            decision = shown(record)
            if decision is not None:
                step = self._step if record.kind == "decision" else record.seq
                data = json.dumps(decision.data, separators=(",", ":"), ensure_ascii=False)
                rows.append((record.seq, step, record.at, decision.type, decision.round, data))
        conn.executemany(_INSERT, rows)
        return int(rows[-1][0]) if rows else 0

    def _open(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = _connect_writer(self.path)
        return self._conn

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    # -- the thread ---------------------------------------------------------------------------
    def _run(self) -> None:
        retry = RETRY_S
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                if self._conn is None:
                    self._rebuild()
                while self._catch_up() and not self._stopping.is_set():
                    pass
            except (sqlite3.Error, OSError, JournalError, ValueError) as exc:
                self._failed(exc)
                self._stopping.wait(retry)
                retry = min(retry * 2, MAX_RETRY_S)
                continue
            retry = RETRY_S
            self._wake.wait(LOOK_S)

    def _failed(self, exc: Exception) -> None:
        """A failure of the face file: counted, logged at a rate limit; the next round rebuilds it."""
        self.failures += 1
        self._close()
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
            _remove(self.path)  # not a face file (any more): made anew
        now = time.monotonic()
        if now - self._complained_at >= COMPLAIN_EVERY_S:
            self._complained_at = now
            log.warning(
                "face file %s failed (%d failure(s) so far; the table deals on, the web face waits): %s",
                self.path,
                self.failures,
                exc,
            )


def _connect_writer(path: Path) -> sqlite3.Connection:
    """The writer's connection, the file made :data:`MODE` first (its -wal and -shm take its mode)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, MODE)
    try:
        os.fchmod(fd, MODE)
    finally:
        os.close(fd)
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")  # derived: a crash loses nothing the rebuild does not mend
        conn.execute(_SCHEMA)
        conn.execute(_BUILD_SCHEMA)
    except sqlite3.Error:
        conn.close()
        raise
    return conn


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction (the connection is in autocommit mode), rolled back on any error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _since(journal: Path, live_first: int) -> int:
    """The first seq of the segment before the live one (the live one's, when it is the first)."""
    archived = [segment for segment in segments.segments_of(journal) if not segment.live]
    if not archived or live_first <= 1:
        return live_first
    with segments.opened(archived[-1]) as conn:
        (first,) = conn.execute("SELECT min(seq) FROM records").fetchone()
    return int(first) if first is not None else live_first


def _remove(path: Path) -> None:
    for name in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        name.unlink(missing_ok=True)
