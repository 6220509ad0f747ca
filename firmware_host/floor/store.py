"""The floor's SQLite store: each table's feed messages, idempotent by ``(table, seq)``.

Every message is checked before it is stored (:func:`firmware_host.feed.schema.check_message`:
its fields and its own hash) and its ``table`` must be the table its topic names; a message
that fails is refused and kept in ``problems`` with the reason, never in ``messages``. A stored
message is checked against its neighbours: ``prev_hash`` must be the hash of message
``seq - 1`` (the genesis hash for message 1), else the chain has a **break**; a second,
different message for a stored ``seq`` is a break too (the first is kept). Missing ``seq``
numbers are **gaps**; a message that fills one is a **repair**. A message already stored
arrives again after any reconnect (QoS 1 is at least once): it is counted as a duplicate.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import time
from typing import Any, Iterator

from firmware_host.errors import TablehostError
from firmware_host.feed import schema

__all__ = ["FloorStore", "FloorError", "TableStatus", "Outcome"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    table_id     TEXT NOT NULL,
    seq          INTEGER NOT NULL,   -- the feed's seq: gapless from 1 per table
    journal_seq  INTEGER NOT NULL,   -- the table's journal record it comes from
    journal_hash TEXT NOT NULL,      -- that record's chain hash: the floor's anchor of the journal
    at           REAL,
    round        INTEGER,
    type         TEXT NOT NULL,
    data         TEXT NOT NULL,      -- canonical JSON
    prev_hash    TEXT NOT NULL,
    hash         TEXT NOT NULL,
    received_at  REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tables (
    table_id    TEXT PRIMARY KEY,
    status      TEXT,                -- the last retained status (JSON)
    last_seen   REAL,                -- when anything of the table last arrived
    duplicates  INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS problems (
    id          INTEGER PRIMARY KEY,
    table_id    TEXT,
    seq         INTEGER,
    kind        TEXT NOT NULL,       -- refused | break | repair
    detail      TEXT NOT NULL,
    topic       TEXT,
    at          REAL NOT NULL
);
"""
#: The kinds of problem recorded.
REFUSED, BREAK, REPAIR = "refused", "break", "repair"


class FloorError(TablehostError):
    """The floor's database cannot be opened or read."""


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What became of one received message: ``stored``, ``duplicate`` or ``refused`` (with why)."""

    kind: str
    table: str | None = None
    seq: int | None = None
    detail: str = ""


@dataclasses.dataclass(frozen=True)
class TableStatus:
    """One table as ``tablehost floor status`` lists it."""

    table: str
    last_seq: int  #: highest seq up to which nothing is missing
    max_seq: int
    last_seen: float | None
    lag_s: float | None  #: the last message's delay from the table's journal to the floor
    online: bool | None
    version: str | None
    game: str | None
    gaps: list[tuple[int, int]]
    breaks: int
    refused: int
    duplicates: int

    def to_json(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {**dataclasses.asdict(self), "gaps": [list(g) for g in self.gaps]}


class FloorStore:
    """The floor's database at ``path`` (created if missing). One writer: the collector."""

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        self.path = path
        try:
            if read_only:
                if not os.path.isfile(path):
                    raise FloorError(f"floor database {path}: no such file")
                uri = f"file:{os.path.abspath(path)}?mode=ro"
                self._conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=5.0, check_same_thread=False)
            else:
                self._conn = sqlite3.connect(path, isolation_level=None, timeout=5.0, check_same_thread=False)
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=FULL")
                self._conn.executescript(_SCHEMA)
            self._conn.execute("SELECT count(*) FROM messages").fetchone()
        except sqlite3.Error as exc:
            raise FloorError(f"floor database {path}: cannot open: {exc}") from exc

    def close(self) -> None:
        """Close the database."""
        self._conn.close()

    # ------------------------------------------------------------------ writing

    def ingest(self, batch: list[tuple[str, str, str, bytes]]) -> list[Outcome]:
        """Store a batch of ``(prefix, table, leaf, payload)`` in one durable transaction.

        ``leaf`` is ``events`` or ``status``; ``table`` the table the topic names.
        """
        now = time.time()
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                outcomes = [self._one(table, leaf, payload, now) for _, table, leaf, payload in batch]
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.rollback()
                raise
        except sqlite3.Error as exc:  # nothing of the batch is acknowledged: the broker keeps it
            raise FloorError(f"floor database {self.path}: cannot store: {exc}") from exc
        return outcomes

    def _one(self, table: str, leaf: str, payload: bytes, now: float) -> Outcome:
        topic = f"{table}/{leaf}"
        if leaf == "status":
            return self._status(table, payload, now, topic)
        try:
            message = schema.check_message(payload)
        except schema.MessageError as exc:
            return self._refuse(table, None, str(exc), topic, now)
        seq = message["seq"]
        if message["table"] != table:
            return self._refuse(table, seq, f"message of table {message['table']!r} on the topic of table {table!r}",
                                topic, now)
        self._seen(table, now)
        stored = self._conn.execute("SELECT hash FROM messages WHERE table_id = ? AND seq = ?", (table, seq)).fetchone()
        if stored is not None:
            if stored[0] == message["hash"]:
                self._conn.execute("UPDATE tables SET duplicates = duplicates + 1 WHERE table_id = ?", (table,))
                return Outcome("duplicate", table, seq)
            self._problem(table, seq, BREAK, "a second, different message for this seq (the first is kept)", topic, now)
            return Outcome("refused", table, seq, "conflicts with the stored message")
        (max_seq,) = self._conn.execute("SELECT coalesce(max(seq), 0) FROM messages WHERE table_id = ?", (table,)).fetchone()
        self._conn.execute(
            "INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (table, seq, message["journal_seq"], message["journal_hash"], message["at"], message["round"],
             message["type"], json.dumps(message["data"], sort_keys=True, separators=(",", ":"), ensure_ascii=False),
             message["prev_hash"], message["hash"], now))
        self._check_links(table, message, topic, now)
        if seq < max_seq:
            self._problem(table, seq, REPAIR, f"fills a gap below seq {max_seq}", topic, now)
        return Outcome("stored", table, seq)

    def _check_links(self, table: str, message: dict[str, Any], topic: str, now: float) -> None:
        seq = message["seq"]
        if seq == 1:
            before: tuple[str] | None = (schema.GENESIS_HASH,)
        else:
            before = self._conn.execute("SELECT hash FROM messages WHERE table_id = ? AND seq = ?",
                                        (table, seq - 1)).fetchone()
        if before is not None and before[0] != message["prev_hash"]:
            self._problem(table, seq, BREAK, f"prev_hash is not the hash of message {seq - 1}", topic, now)
        after = self._conn.execute("SELECT prev_hash FROM messages WHERE table_id = ? AND seq = ?",
                                   (table, seq + 1)).fetchone()
        if after is not None and after[0] != message["hash"]:
            self._problem(table, seq + 1, BREAK, f"prev_hash is not the hash of message {seq}", topic, now)

    def _status(self, table: str, payload: bytes, now: float, topic: str) -> Outcome:
        try:
            status = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            return self._refuse(table, None, f"status is not JSON: {exc}", topic, now)
        if not isinstance(status, dict) or status.get("table") != table:
            return self._refuse(table, None, f"status of {status!r} on the topic of table {table!r}", topic, now)
        self._seen(table, now)
        self._conn.execute("UPDATE tables SET status = ? WHERE table_id = ?", (json.dumps(status), table))
        return Outcome("status", table)

    def _seen(self, table: str, now: float) -> None:
        self._conn.execute("INSERT INTO tables (table_id, last_seen) VALUES (?, ?) "
                           "ON CONFLICT(table_id) DO UPDATE SET last_seen = excluded.last_seen", (table, now))

    def _refuse(self, table: str, seq: int | None, why: str, topic: str, now: float) -> Outcome:
        self._seen(table, now)  # its status shows what was refused on its topic
        self._problem(table, seq, REFUSED, why, topic, now)
        return Outcome("refused", table, seq, why)

    def _problem(self, table: str | None, seq: int | None, kind: str, detail: str, topic: str, now: float) -> None:
        self._conn.execute("INSERT INTO problems (table_id, seq, kind, detail, topic, at) VALUES (?, ?, ?, ?, ?, ?)",
                           (table, seq, kind, detail, topic, now))

    # ------------------------------------------------------------------ reading

    def tables(self) -> list[str]:
        """Every table the floor has heard of."""
        return [t for (t,) in self._conn.execute("SELECT table_id FROM tables ORDER BY table_id")]

    def status(self, table: str) -> TableStatus:
        """One table's status."""
        row = self._conn.execute("SELECT status, last_seen, duplicates FROM tables WHERE table_id = ?", (table,)).fetchone()
        if row is None:
            raise FloorError(f"floor database {self.path}: no table {table!r} (tables: {', '.join(self.tables()) or 'none'})")
        status = json.loads(row[0]) if row[0] else {}
        gaps = self.gaps(table)
        (max_seq,) = self._conn.execute("SELECT coalesce(max(seq), 0) FROM messages WHERE table_id = ?", (table,)).fetchone()
        last = self._conn.execute("SELECT at, received_at FROM messages WHERE table_id = ? ORDER BY seq DESC LIMIT 1",
                                  (table,)).fetchone()
        counts = dict(self._conn.execute("SELECT kind, count(*) FROM problems WHERE table_id = ? GROUP BY kind", (table,)))
        return TableStatus(
            table=table, last_seq=gaps[0][0] - 1 if gaps else max_seq, max_seq=max_seq, last_seen=row[1],
            lag_s=None if last is None or last[0] is None else round(last[1] - last[0], 3),
            online=None if not status else status.get("state") == "online", version=status.get("version"),
            game=status.get("game"), gaps=gaps, breaks=counts.get(BREAK, 0), refused=counts.get(REFUSED, 0),
            duplicates=row[2])

    def gaps(self, table: str) -> list[tuple[int, int]]:
        """The missing seq ranges ``(first, last)`` below the highest stored seq."""
        rows = self._conn.execute(
            "SELECT seq, prev FROM (SELECT seq, lag(seq, 1, 0) OVER (ORDER BY seq) AS prev FROM messages "
            "WHERE table_id = ?) WHERE seq > prev + 1", (table,)).fetchall()
        return [(prev + 1, seq - 1) for seq, prev in rows]

    def problems(self, table: str | None = None) -> list[dict[str, Any]]:
        """The problems recorded (of one table, or all), oldest first."""
        where, args = ("WHERE table_id = ?", (table,)) if table is not None else ("", ())
        cursor = self._conn.execute(f"SELECT table_id, seq, kind, detail, topic, at FROM problems {where} ORDER BY id", args)
        return [dict(zip(("table", "seq", "kind", "detail", "topic", "at"), row)) for row in cursor]

    def messages(self, table: str, type: str | None = None) -> Iterator[dict[str, Any]]:
        """The table's stored messages in seq order (of one ``type``, or all), as published."""
        where, args = ("AND type = ?", (table, type)) if type is not None else ("", (table,))
        self.status(table)  # a clear error for an unknown table
        columns = ("seq", "journal_seq", "journal_hash", "at", "round", "type", "data", "prev_hash", "hash")
        query = f"SELECT {', '.join(columns)} FROM messages WHERE table_id = ? {where} ORDER BY seq"
        for row in self._conn.execute(query, args):
            message = dict(zip(columns, row))
            message["data"] = json.loads(message["data"])
            yield {"table": table, **message}

    def export(self, table: str, type: str) -> Iterator[dict[str, Any]]:
        """The ``data`` of every message of ``type`` (``round_result``: what ``journal export --rounds`` prints)."""
        for message in self.messages(table, type):
            yield message["data"]
