"""The floor's SQLite store (:class:`~firmware_host.floor.model.Store`): each table's feed
messages, idempotent by ``(table, seq)``.

It stores what :class:`~firmware_host.floor.admission.Admission` admitted, and keeps its
refusals in ``refused``, bounded: at most :data:`REFUSED_KEPT_PER_TABLE` rows per table and
:data:`REFUSED_KEPT_TOTAL` in all, each with a cut excerpt; beyond that a refusal is only
counted (``refused_counts``), so a flood never grows the database without bound. A stored
message is checked against its neighbours: ``prev_hash`` must be the hash of message
``seq - 1`` (the genesis hash for message 1), else the chain has a **break**; a second,
different message for a stored ``seq`` is a break too (the first is kept). Missing ``seq``
numbers are **gaps**; a message that fills one is a **repair**. A message already stored
arrives again after any reconnect (QoS 1 is at least once): it is counted as a duplicate.

Reading never trusts the file: a row that cannot be read back (text where a number belongs,
``data`` that is not a JSON object) is :class:`~firmware_host.floor.model.Unreadable`, named.
"""

from __future__ import annotations

import json
import logging
import math
import os
import sqlite3
import time
from typing import Any, Iterator, Sequence

from firmware_host.feed import schema
from firmware_host.floor.admission import Admitted, Refusal
from firmware_host.floor.model import UNKNOWN_TABLE, FloorError, Outcome, TableStatus, Unreadable

__all__ = ["FloorStore", "FloorError", "TableStatus", "Outcome", "Unreadable"]

log = logging.getLogger("tablehost.floor")

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
    kind        TEXT NOT NULL,       -- break | repair
    detail      TEXT NOT NULL,
    topic       TEXT,
    at          REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS refused (
    id          INTEGER PRIMARY KEY,
    table_id    TEXT NOT NULL,       -- '' : a topic naming no table the floor knows
    topic       TEXT NOT NULL,       -- cut to 200 characters
    seq         INTEGER,
    reason      TEXT NOT NULL,
    excerpt     TEXT NOT NULL,       -- the payload's first 200 bytes
    size        INTEGER NOT NULL,    -- the payload's length
    at          REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS refused_counts (
    table_id    TEXT PRIMARY KEY,
    count       INTEGER NOT NULL,    -- every refusal, kept in `refused` or not
    last_reason TEXT,
    last_at     REAL
);
"""
#: Columns added since the first format (the signature), added to an older database when opened to write.
_ADDED = (("messages", "key_id", "TEXT"), ("messages", "sig", "TEXT"))
#: The kinds of problem recorded.
BREAK, REPAIR = "break", "repair"
#: Refusals kept with their excerpt, per table (and for unknown tables together), and in all.
REFUSED_KEPT_PER_TABLE = 1000
REFUSED_KEPT_TOTAL = 10_000
_COLUMNS = ("seq", "journal_seq", "journal_hash", "at", "round", "type", "data", "prev_hash", "hash", "key_id", "sig")


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
                for table, column, kind in _ADDED:
                    if column not in {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}:
                        self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
            self._conn.execute("SELECT count(*) FROM messages").fetchone()
            self._signed = "key_id" in {row[1] for row in self._conn.execute("PRAGMA table_info(messages)")}
            # A database of the first format, opened read-only, has no refusal tables: none refused then.
            self._refusals = self._conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'refused_counts'").fetchone()
            self._kept = self._count_kept() if not read_only else None
        except sqlite3.Error as exc:
            raise FloorError(f"floor database {path}: cannot open: {exc}") from exc

    def close(self) -> None:
        """Close the database."""
        self._conn.close()

    # ------------------------------------------------------------------ writing

    def ingest(self, batch: Sequence[Admitted | Refusal]) -> list[Outcome]:
        """Store a batch in one durable transaction.

        A message the database will not take (which :class:`Admission` should have refused) is
        refused on its own, inside a savepoint: it never costs the rest of the batch.

        :raises FloorError: the database cannot be written (nothing of the batch is stored).
        """
        now = time.time()
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                outcomes = [self._guarded(item, now) for item in batch]
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.rollback()
                self._kept = self._count_kept()
                raise
        except sqlite3.Error as exc:  # nothing of the batch is acknowledged: the broker keeps it
            raise FloorError(f"floor database {self.path}: cannot store: {exc}") from exc
        return outcomes

    def _guarded(self, item: Admitted | Refusal, now: float) -> Outcome:
        if isinstance(item, Refusal):
            return self._refuse(item, now)
        self._conn.execute("SAVEPOINT one")
        try:
            outcome = self._one(item, now)
        except (sqlite3.IntegrityError, sqlite3.InterfaceError, sqlite3.DataError, OverflowError, TypeError,
                ValueError) as exc:  # this message's values, not the database: refuse it alone
            self._conn.execute("ROLLBACK TO one")
            self._conn.execute("RELEASE one")
            log.error("floor: cannot store a message of %s: %s", item.table, exc)
            refusal = Refusal(item.table, True, item.topic, item.message.get("seq"), f"cannot store it: {exc}"[:300],
                              schema.encode(item.message)[:200].decode("utf-8", "backslashreplace"), 0)
            return self._refuse(refusal, now)
        self._conn.execute("RELEASE one")
        return outcome

    def _one(self, item: Admitted, now: float) -> Outcome:
        table, message = item.table, item.message
        if item.leaf == "status":
            self._seen(table, now)
            self._conn.execute("UPDATE tables SET status = ? WHERE table_id = ?",
                               (schema.encode(message).decode("utf-8"), table))
            return Outcome("status", table)
        seq = message["seq"]
        self._seen(table, now)
        stored = self._conn.execute("SELECT hash FROM messages WHERE table_id = ? AND seq = ?", (table, seq)).fetchone()
        if stored is not None:
            if stored[0] == message["hash"]:  # the same message (re-signed after a key rotation, maybe)
                self._conn.execute("UPDATE tables SET duplicates = duplicates + 1 WHERE table_id = ?", (table,))
                return Outcome("duplicate", table, seq)
            why = "a second, different message for this seq (the first is kept)"
            self._problem(table, seq, BREAK, why, item.topic, now)
            return Outcome("conflict", table, seq, why)
        (max_seq,) = self._conn.execute("SELECT coalesce(max(seq), 0) FROM messages WHERE table_id = ? "
                                        "AND typeof(seq) = 'integer'", (table,)).fetchone()
        data = json.dumps(message["data"], sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        self._conn.execute(
            f"INSERT INTO messages (table_id, {', '.join(_COLUMNS)}, received_at) VALUES ({', '.join('?' * 13)})",
            (table, seq, message["journal_seq"], message["journal_hash"], message["at"], message["round"],
             message["type"], data, message["prev_hash"], message["hash"], message.get("key_id"),
             message.get("sig"), now))
        self._check_links(table, message, item.topic, now)
        if seq < max_seq:
            self._problem(table, seq, REPAIR, f"fills a gap below seq {max_seq}", item.topic, now)
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

    def _seen(self, table: str, now: float) -> None:
        self._conn.execute("INSERT INTO tables (table_id, last_seen) VALUES (?, ?) "
                           "ON CONFLICT(table_id) DO UPDATE SET last_seen = excluded.last_seen", (table, now))

    def _refuse(self, refusal: Refusal, now: float) -> Outcome:
        """Count the refusal under its table (or unknown), and keep it while within the bounds."""
        table = refusal.table
        if table is not None and not refusal.known and not self._conn.execute(
                "SELECT 1 FROM tables WHERE table_id = ?", (table,)).fetchone():
            table = None
        bucket = UNKNOWN_TABLE if table is None else table
        if table is not None:
            self._seen(table, now)  # its status shows what was refused on its topic
        self._conn.execute("INSERT INTO refused_counts (table_id, count, last_reason, last_at) VALUES (?, 1, ?, ?) "
                           "ON CONFLICT(table_id) DO UPDATE SET count = count + 1, last_reason = excluded.last_reason, "
                           "last_at = excluded.last_at", (bucket, refusal.reason, now))
        kept = self._kept if self._kept is not None else self._count_kept()
        if kept[0] < REFUSED_KEPT_TOTAL and kept[1].get(bucket, 0) < REFUSED_KEPT_PER_TABLE:
            self._conn.execute("INSERT INTO refused (table_id, topic, seq, reason, excerpt, size, at) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?)", (bucket, refusal.topic, refusal.seq, refusal.reason,
                                                                refusal.excerpt, refusal.size, now))
            kept[1][bucket] = kept[1].get(bucket, 0) + 1
            self._kept = (kept[0] + 1, kept[1])
        return Outcome("refused", refusal.table, refusal.seq, refusal.reason)

    def _count_kept(self) -> tuple[int, dict[str, int]]:
        """Refusals kept: in all, and per table."""
        per = dict(self._conn.execute("SELECT table_id, count(*) FROM refused GROUP BY table_id").fetchall())
        return sum(per.values()), per

    def _problem(self, table: str | None, seq: int | None, kind: str, detail: str, topic: str, now: float) -> None:
        self._conn.execute("INSERT INTO problems (table_id, seq, kind, detail, topic, at) VALUES (?, ?, ?, ?, ?, ?)",
                           (table, seq, kind, detail, topic, now))

    # ------------------------------------------------------------------ reading

    def tables(self) -> list[str]:
        """Every table the floor has heard of."""
        return [str(t) for (t,) in self._conn.execute("SELECT table_id FROM tables ORDER BY table_id")]

    def status(self, table: str) -> TableStatus:
        """One table's status; what cannot be read of it is listed in ``unreadable``."""
        row = self._conn.execute("SELECT status, last_seen, duplicates FROM tables WHERE table_id = ?", (table,)).fetchone()
        if row is None:
            raise FloorError(f"floor database {self.path}: no table {table!r} (tables: {', '.join(self.tables()) or 'none'})")
        unreadable = [str(u) for u in self._unreadable(table)]
        status: dict[str, Any] = {}
        if row[0]:
            try:
                parsed = schema.parse_json(str(row[0]).encode("utf-8"))
                status = parsed if isinstance(parsed, dict) else {}
            except schema.MessageError as exc:
                unreadable.append(f"table {table!r} status: cannot read it: {exc}")
        gaps = self.gaps(table)
        (max_seq,) = self._conn.execute("SELECT coalesce(max(seq), 0) FROM messages WHERE table_id = ? "
                                        "AND typeof(seq) = 'integer'", (table,)).fetchone()
        last = self._conn.execute("SELECT at, received_at FROM messages WHERE table_id = ? AND typeof(seq) = "
                                  "'integer' ORDER BY seq DESC LIMIT 1", (table,)).fetchone()
        counts = dict(self._conn.execute("SELECT kind, count(*) FROM problems WHERE table_id = ? GROUP BY kind", (table,)))
        refused = self._conn.execute("SELECT count, last_reason FROM refused_counts WHERE table_id = ?",
                                     (table,)).fetchone() if self._refusals else None
        refused = refused or (0, None)
        return TableStatus(
            table=table, last_seq=gaps[0][0] - 1 if gaps else max_seq, max_seq=max_seq,
            last_seen=_number(row[1]), lag_s=_lag(last), online=None if not status else status.get("state") == "online",
            version=_text(status.get("version")), game=_text(status.get("game")), gaps=gaps,
            breaks=counts.get(BREAK, 0), refused=int(refused[0]), duplicates=int(_number(row[2]) or 0),
            last_refusal=refused[1], unreadable=unreadable)

    def refused_unknown(self) -> int:
        """Refusals on topics naming no table the floor knows."""
        if not self._refusals:
            return 0
        row = self._conn.execute("SELECT count FROM refused_counts WHERE table_id = ?", (UNKNOWN_TABLE,)).fetchone()
        return int(row[0]) if row else 0

    def refusals(self, table: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """The refusals kept (of one table; ``""``: unknown tables), newest first."""
        if not self._refusals:
            return []
        where, args = ("WHERE table_id = ?", (table, limit)) if table is not None else ("", (limit,))
        cursor = self._conn.execute(f"SELECT table_id, topic, seq, reason, excerpt, size, at FROM refused {where} "
                                    "ORDER BY id DESC LIMIT ?", args)
        return [dict(zip(("table", "topic", "seq", "reason", "excerpt", "size", "at"), row)) for row in cursor]

    def gaps(self, table: str) -> list[tuple[int, int]]:
        """The missing seq ranges ``(first, last)`` below the highest stored seq."""
        rows = self._conn.execute(
            "SELECT seq, prev FROM (SELECT seq, lag(seq, 1, 0) OVER (ORDER BY seq) AS prev FROM messages "
            "WHERE table_id = ? AND typeof(seq) = 'integer') WHERE seq > prev + 1", (table,)).fetchall()
        return [(prev + 1, seq - 1) for seq, prev in rows]

    def problems(self, table: str | None = None) -> list[dict[str, Any]]:
        """The breaks and repairs recorded (of one table, or all), oldest first."""
        where, args = ("WHERE table_id = ?", (table,)) if table is not None else ("", ())
        cursor = self._conn.execute(f"SELECT table_id, seq, kind, detail, topic, at FROM problems {where} ORDER BY id", args)
        return [dict(zip(("table", "seq", "kind", "detail", "topic", "at"), row)) for row in cursor]

    def _unreadable(self, table: str) -> Iterator[Unreadable]:
        """The table's messages :meth:`read` cannot give back, found by the database alone."""
        cursor = self._conn.execute(
            f"SELECT {', '.join(self._columns())} FROM messages WHERE table_id = ? AND (typeof(seq) != 'integer' "
            "OR typeof(journal_seq) != 'integer' OR typeof(at) NOT IN ('real', 'integer', 'null') "
            "OR typeof(round) NOT IN ('integer', 'null') OR typeof(type) != 'text' "
            "OR (CASE WHEN json_valid(data) THEN json_type(data) END) IS NOT 'object') ORDER BY seq", (table,))
        for row in cursor:
            made = _message(table, dict(zip(self._columns(), row)))
            yield made if isinstance(made, Unreadable) else Unreadable(table, row[0], "a column of the wrong type")

    def _columns(self) -> tuple[str, ...]:
        return _COLUMNS if self._signed else _COLUMNS[:-2]

    def read(self, table: str, type: str | None = None) -> Iterator[dict[str, Any] | Unreadable]:
        """The table's stored messages in seq order (of one ``type``, or all), as published, or
        :class:`Unreadable` for each that cannot be read back."""
        where, args = ("AND type = ?", (table, type)) if type is not None else ("", (table,))
        self.status(table)  # a clear error for an unknown table
        query = f"SELECT {', '.join(self._columns())} FROM messages WHERE table_id = ? {where} ORDER BY seq"
        for row in self._conn.execute(query, args):
            yield _message(table, dict(zip(self._columns(), row)))

    def messages(self, table: str, type: str | None = None) -> Iterator[dict[str, Any]]:
        """The readable messages of :meth:`read`."""
        return (m for m in self.read(table, type) if not isinstance(m, Unreadable))

    def export(self, table: str, type: str) -> Iterator[dict[str, Any] | Unreadable]:
        """The ``data`` of every message of ``type`` (``round_result``: what ``journal export --rounds``
        prints), or :class:`Unreadable`."""
        for message in self.read(table, type):
            yield message if isinstance(message, Unreadable) else message["data"]


def _message(table: str, row: dict[str, Any]) -> dict[str, Any] | Unreadable:
    """A stored row as published, or why it cannot be."""
    seq = row["seq"]
    for name in ("seq", "journal_seq"):
        if not isinstance(row[name], int):
            return Unreadable(table, seq, f"{name} is {row[name]!r}, not an integer")
    if row["at"] is not None and (not isinstance(row["at"], (int, float)) or not math.isfinite(row["at"])):
        return Unreadable(table, seq, f"at is {str(row['at'])[:40]!r}, not a number")
    if row["round"] is not None and not isinstance(row["round"], int):
        return Unreadable(table, seq, f"round is {str(row['round'])[:40]!r}, not an integer")
    for name in ("type", "journal_hash", "prev_hash", "hash"):
        if not isinstance(row[name], str):
            return Unreadable(table, seq, f"{name} is {str(row[name])[:40]!r}, not text")
    try:
        data = schema.parse_json(str(row["data"]).encode("utf-8"), limit=16 * schema.MAX_PAYLOAD)
    except schema.MessageError as exc:
        return Unreadable(table, seq, f"data: {exc}")
    if not isinstance(data, dict):
        return Unreadable(table, seq, "data is not a JSON object")
    message = {"table": table, **row, "data": data}
    if message.get("key_id") is None and message.get("sig") is None:  # stored by an unsigned collector
        message.pop("key_id", None)
        message.pop("sig", None)
    return message


def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and math.isfinite(value) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _lag(last: tuple[Any, Any] | None) -> float | None:
    if last is None or _number(last[0]) is None or _number(last[1]) is None:
        return None
    return round(last[1] - last[0], 3)
