"""The feed's durable cursor: the last message the broker acknowledged, in the journal's database.

It lives in its own table (``feed_cursor``) of the journal's SQLite file, written through its
own connection and statements, so the journal's records and their chain are never touched.
A lost update (a power cut right after a PUBACK) only moves the cursor back, and the feed
resends from there: the collector deduplicates by ``(table, seq)``. So the cursor is written
with ``synchronous=NORMAL`` (durable against a crash of the process, not of the machine) and
never holds the database's write lock for longer than one small transaction.

With the cursor is kept the floor store's **epoch** its position is of (docs/feed.md, "The
store's epoch"): the cursor moves back only to a newer epoch (:meth:`FeedCursor.adopt`). A
cursor written before epochs reads as epoch 0 (the column is added, its rows keep their place).

A rotation copies the file whole, the cursor too: each archived segment keeps the cursor as it
stood then, a state of the feed derived from the journal (:meth:`FeedCursor.archived`), where a
search of the journal behind the cursor may start (:mod:`firmware_host.feed.catch_up`).
"""

from __future__ import annotations

import os
import sqlite3

from firmware_host.errors import TablehostError
from firmware_host.feed.schema import FeedState
from firmware_host.host import segments

__all__ = ["FeedCursor", "CursorError"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS feed_cursor (
    table_id    TEXT PRIMARY KEY,   -- the table whose feed this is
    seq         INTEGER NOT NULL,   -- last feed seq the broker acknowledged (PUBACK)
    journal_seq INTEGER NOT NULL,   -- the journal record that message came from
    hash        TEXT NOT NULL,      -- that message's hash: the next one's prev_hash
    epoch       INTEGER NOT NULL DEFAULT 0  -- the floor store's epoch that acknowledged it
)
"""
#: The epoch column, added to a cursor table written before epochs.
_ADD_EPOCH = "ALTER TABLE feed_cursor ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0"
#: How long a cursor write waits for the journal's writer to finish its transaction, seconds.
BUSY_TIMEOUT_S = 5.0


class CursorError(TablehostError):
    """The cursor cannot be read or written."""


class FeedCursor:
    """The cursor of one table's feed in the journal file at ``path``.

    :param path: the journal's SQLite file (the journal must exist: open it first).
    :param table_id: the table.
    """

    def __init__(self, path: str | os.PathLike[str], table_id: str) -> None:
        self.path, self.table_id = path, table_id
        try:
            self._conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(_SCHEMA)
            if "epoch" not in {row[1] for row in self._conn.execute("PRAGMA table_info(feed_cursor)")}:
                self._conn.execute(_ADD_EPOCH)
        except sqlite3.Error as exc:
            raise CursorError(f"feed cursor in {path}: cannot open: {exc}") from exc

    def load(self) -> FeedState:
        """The last acknowledged state (the start of the feed when nothing was acknowledged yet)."""
        try:
            row = self._conn.execute(
                "SELECT seq, journal_seq, hash FROM feed_cursor WHERE table_id = ?", (self.table_id,)
            ).fetchone()
        except sqlite3.Error as exc:
            raise CursorError(f"feed cursor in {self.path}: cannot read: {exc}") from exc
        return FeedState() if row is None else FeedState(*row)

    def save(self, state: FeedState) -> None:
        """Record ``state`` as acknowledged in the cursor's epoch (never moves the cursor back)."""
        try:
            self._conn.execute(
                "INSERT INTO feed_cursor (table_id, seq, journal_seq, hash) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(table_id) DO UPDATE SET seq = excluded.seq, journal_seq = excluded.journal_seq, "
                "hash = excluded.hash WHERE excluded.seq > feed_cursor.seq",
                (self.table_id, state.seq, state.journal_seq, state.hash),
            )
        except sqlite3.Error as exc:
            raise CursorError(f"feed cursor in {self.path}: cannot write: {exc}") from exc

    def epoch(self) -> int:
        """The floor store's epoch the cursor is of (0: none yet, or a cursor from before epochs)."""
        try:
            row = self._conn.execute("SELECT epoch FROM feed_cursor WHERE table_id = ?", (self.table_id,)).fetchone()
        except sqlite3.Error as exc:
            raise CursorError(f"feed cursor in {self.path}: cannot read: {exc}") from exc
        return 0 if row is None else int(row[0])

    def adopt(self, state: FeedState, epoch: int) -> None:
        """Record ``state`` as what the floor's store of a newer ``epoch`` holds: the one way the
        cursor moves back (an older or the same epoch changes nothing)."""
        try:
            self._conn.execute(
                "INSERT INTO feed_cursor (table_id, seq, journal_seq, hash, epoch) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(table_id) DO UPDATE SET seq = excluded.seq, journal_seq = excluded.journal_seq, "
                "hash = excluded.hash, epoch = excluded.epoch WHERE excluded.epoch > feed_cursor.epoch",
                (self.table_id, state.seq, state.journal_seq, state.hash, epoch),
            )
        except sqlite3.Error as exc:
            raise CursorError(f"feed cursor in {self.path}: cannot write: {exc}") from exc

    def archived(self) -> list[FeedState]:
        """The cursor as each archived segment beside the journal kept it at its rotation (a
        compressed segment, one without this table's cursor or one that cannot be read: none)."""
        found: list[FeedState] = []
        try:
            listed = segments.segments_of(self.path)
        except TablehostError:  # a segment there twice: the journal's own checks name it
            return found
        for segment in listed:
            if segment.live or segment.path.suffix in segments.COMPRESSED:
                continue
            try:
                conn = sqlite3.connect(f"{segment.path.resolve().as_uri()}?mode=ro", uri=True)
                try:
                    row = conn.execute(
                        "SELECT seq, journal_seq, hash FROM feed_cursor WHERE table_id = ?", (self.table_id,)
                    ).fetchone()
                finally:
                    conn.close()
            except sqlite3.Error:
                continue
            if row is not None:
                found.append(FeedState(*row))
        return found

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()
