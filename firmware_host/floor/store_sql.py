"""What the floor's two stores share (:class:`SqlStore`): storing feed messages idempotently by
``(table, seq)``, their continuity, the bounded refusals, and the read API, in SQL both SQLite
and PostgreSQL run.

It stores what :class:`~firmware_host.floor.admission.Admission` admitted, and keeps its
refusals in ``refused``, bounded: at most :data:`REFUSED_KEPT_PER_TABLE` rows per table and
:data:`REFUSED_KEPT_TOTAL` in all, each with a cut excerpt; beyond that a refusal is only
counted (``refused_counts``), so a flood never grows the database without bound. How many are
kept is counted in the store itself (``refused_counts.kept``), so several collectors share the
bound. A stored message is checked against its neighbours: ``prev_hash`` must be the hash of
message ``seq - 1`` (the genesis hash for message 1), else the chain has a **break**; a second,
different message for a stored ``seq`` is a break too (the first is kept). Missing ``seq``
numbers are **gaps**; a message that fills one is a **repair**. A message already stored
arrives again after any reconnect (QoS 1 is at least once), or from a second collector: it is
not inserted (``ON CONFLICT DO NOTHING``) and is counted as a duplicate.

Continuity is computed from the store at each batch and each read, never from a process's
memory: the engine serialises writers of one table (:meth:`SqlStore._begin`), so two
collectors storing the same feed see each other's messages.

A batch is written set-based, in one transaction, whatever its size: one upsert of its tables'
rows; one query reading each table's highest seq and the ``hash`` and ``prev_hash`` at the
batch's seqs and their neighbours (a JSON array of ``[table, seq]`` pairs as its one
parameter: :attr:`SqlStore._PAIRS`); the outcomes in Python, in batch order, each message
seeing those before it as if stored one by one (:class:`~firmware_host.floor.continuity.Batch`);
then one insert of the new messages (:meth:`SqlStore._insert`) and one statement each for the
problems, the duplicate counts (one row per table) and the statuses. A message the database
refuses (a value out of its range) makes the batch be written again a message at a time, each
in a savepoint (:class:`_OneMessage`), so it is refused alone; so does a message another writer
stored between the read and the insert (:class:`_Raced`: cannot happen under the engines'
locks, but a lone message is then decided by what that writer stored, as always).

Reading never trusts the database: a row that cannot be read back (text where a number
belongs, ``data`` that is not a JSON object) is :class:`~firmware_host.floor.model.Unreadable`, named.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import time
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from firmware_host.feed import schema
from firmware_host.floor import continuity, migrations
from firmware_host.floor.admission import Admitted, Refusal
from firmware_host.floor.model import UNKNOWN_TABLE, FloorError, Outcome, TableStatus, Unreadable

__all__ = ["SqlStore", "REFUSED_KEPT_PER_TABLE", "REFUSED_KEPT_TOTAL", "BREAK", "REPAIR"]

log = logging.getLogger("tablehost.floor")

#: The kinds of problem recorded.
BREAK, REPAIR = continuity.BREAK, continuity.REPAIR
#: Refusals kept with their excerpt, per table (and for unknown tables together), and in all.
REFUSED_KEPT_PER_TABLE = 1000
REFUSED_KEPT_TOTAL = 10_000
_COLUMNS = ("seq", "journal_seq", "journal_hash", "at", "round", "type", "data", "prev_hash", "hash", "key_id", "sig")
#: The columns of an inserted message row (:meth:`SqlStore._row`).
MESSAGE_ROW = ("table_id", *_COLUMNS, "received_at")
_REFUSAL = ("table", "topic", "seq", "reason", "excerpt", "size", "at")
_PROBLEM = ("table", "seq", "kind", "detail", "topic", "at")


class _OneMessage(Exception):
    """A message of the batch the database will not take: write the batch again, isolating each."""


class _Raced(_OneMessage):
    """A message of the batch was stored meanwhile by a writer the engine did not hold off: the
    batch's outcomes no longer hold, so it is written again a message at a time."""


class SqlStore:
    """The floor's store on one SQL engine; a subclass says how to connect (:meth:`_db`), how a
    write transaction begins (:meth:`_begin`) and what the engine's errors are.

    Its read API (:meth:`tables`, :meth:`status`, :meth:`read`, :meth:`export`,
    :meth:`refusals`, :meth:`problems`, :meth:`last_messages`) is what ``floor status``,
    ``floor export``, ``journal verify --floor`` and the floor dashboard use.
    """

    #: ``sqlite`` or ``postgresql``: which SQL of :mod:`~firmware_host.floor.migrations` it runs.
    engine: ClassVar[str]
    #: The engine's base error (a database that cannot be reached or written).
    _ERROR: ClassVar[tuple[type[BaseException], ...]]
    #: The engine's errors caused by one message's values: that message is refused alone.
    _VALUE_ERRORS: ClassVar[tuple[type[BaseException], ...]]
    #: SQL that keeps only rows whose seq is an integer (SQLite's columns are not typed).
    _INTEGER_SEQ: ClassVar[str] = ""
    #: SQL true of a message row that :func:`_message` cannot read back.
    _UNREADABLE: ClassVar[str]
    #: SQL of rows ``value`` from one parameter: a JSON array of text.
    _TEXTS: ClassVar[str] = "SELECT value FROM json_each(?)"
    #: SQL of rows ``(table_id, seq)`` from one parameter: a JSON array of ``[table, seq]`` pairs.
    _PAIRS: ClassVar[str] = "SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)"

    def __init__(self, name: str) -> None:
        #: What the store is called in messages (a path, or a DSN without its password).
        self.name = name
        #: Errors caused by one message's values: it is refused alone.
        self._one_message_errors: tuple[type[BaseException], ...] = (
            *self._VALUE_ERRORS,
            OverflowError,
            TypeError,
            ValueError,
        )
        self._signed = True  # the messages have key_id and sig
        self._refusals = True  # the refusal tables exist

    # ------------------------------------------------------------------ engine

    def _db(self) -> contextlib.AbstractContextManager[Any]:
        """A connection for the ``with`` block: ``execute(sql, args)`` with ``?`` placeholders."""
        raise NotImplementedError

    def _begin(self, db: Any, tables: list[str]) -> None:
        """Begin a write transaction that holds the store for the batch's ``tables``."""
        raise NotImplementedError

    def close(self) -> None:
        """Close the database."""
        raise NotImplementedError

    def _migrate(self, db: Any, current: int) -> None:
        """Apply the schema's steps above version ``current`` (:func:`~firmware_host.floor.migrations.migrate`)."""
        migrations.migrate(db, self.engine, current, lambda: self._begin(db, []), self.name)

    # ------------------------------------------------------------------ writing

    def ingest(self, batch: Sequence[Admitted | Refusal]) -> list[Outcome]:
        """Store a batch in one durable transaction.

        A message the database will not take (which :class:`Admission` should have refused) is
        refused on its own: the batch is written again with each message in a savepoint, so it
        never costs the rest of the batch (and a batch without one costs no savepoints).

        :raises FloorError: the database cannot be written (nothing of the batch is stored).
        """
        now = time.time()
        tables = sorted(
            {item.table for item in batch if item.table is not None}
            | ({UNKNOWN_TABLE} if any(isinstance(item, Refusal) for item in batch) else set())
        )
        try:
            try:
                return self._write(batch, tables, now, isolate=False)
            except _OneMessage:
                return self._write(batch, tables, now, isolate=True)
        except self._ERROR as exc:  # nothing of the batch is acknowledged: the broker keeps it
            raise FloorError(f"floor database {self.name}: cannot store: {exc}") from exc

    def _write(
        self, batch: Sequence[Admitted | Refusal], tables: list[str], now: float, isolate: bool
    ) -> list[Outcome]:
        with self._db() as db:
            self._begin(db, tables)
            try:
                self._seen(db, sorted({item.table for item in batch if isinstance(item, Admitted)}), now)
                outcomes = self._isolated(db, batch, now) if isolate else self._together(db, batch, now)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return outcomes

    def _together(self, db: Any, batch: Sequence[Admitted | Refusal], now: float) -> list[Outcome]:
        """The batch's messages set-based (:meth:`_store`), its refusals each on its own."""
        try:
            stored = iter(self._store(db, [item for item in batch if isinstance(item, Admitted)], now))
        except self._one_message_errors as exc:
            raise _OneMessage() from exc
        return [self._refuse(db, item, now) if isinstance(item, Refusal) else next(stored) for item in batch]

    def _isolated(self, db: Any, batch: Sequence[Admitted | Refusal], now: float) -> list[Outcome]:
        """The batch one message at a time, each in a savepoint: one the database refuses is refused alone."""
        outcomes = []
        for item in batch:
            if isinstance(item, Refusal):
                outcomes.append(self._refuse(db, item, now))
                continue
            db.execute("SAVEPOINT one")
            try:
                outcomes.append(self._one(db, item, now))
            except self._one_message_errors as exc:  # this message's values
                db.execute("ROLLBACK TO SAVEPOINT one")
                log.error("floor: cannot store a message of %s: %s", item.table, exc)
                refusal = Refusal(
                    item.table,
                    True,
                    item.topic,
                    item.message.get("seq"),
                    f"cannot store it: {exc}"[:300],
                    schema.encode(item.message)[:200].decode("utf-8", "backslashreplace"),
                    0,
                )
                outcomes.append(self._refuse(db, refusal, now))
            db.execute("RELEASE SAVEPOINT one")
        return outcomes

    def _one(self, db: Any, item: Admitted, now: float) -> Outcome:
        """One admitted message (its table's row made by :meth:`_write`)."""
        return self._store(db, [item], now)[0]

    def _store(self, db: Any, items: Sequence[Admitted], now: float) -> list[Outcome]:
        """Admitted messages, set-based: one read of what the store holds around them, their
        outcomes in Python (:class:`~firmware_host.floor.continuity.Batch`), then one insert of
        the new ones, and one statement each for the problems, duplicates and statuses.

        :raises _Raced: a message was stored meanwhile by a writer the engine did not hold off
            (the batch's outcomes no longer hold: it is written again, a message at a time).
        """
        events = [item for item in items if item.leaf != "status"]
        batch = continuity.Batch(self._chains(db, events) if events else {})
        statuses: dict[str, str] = {}
        outcomes = []
        for item in items:
            if item.leaf == "status":
                statuses[item.table] = schema.encode(item.message).decode("utf-8")
                outcomes.append(Outcome("status", item.table))
            else:
                outcomes.append(batch.add(item))
        if batch.new and self._insert(db, [self._row(item, now) for item in batch.new]) < len(batch.new):
            if len(items) > 1:
                raise _Raced()
            # Alone, as it always was: what the other writer stored decides (a duplicate, or a conflict).
            (item,) = items
            seq = item.message["seq"]
            held = db.execute(
                "SELECT hash, prev_hash FROM messages WHERE table_id = ? AND seq = ?", (item.table, seq)
            ).fetchone()
            batch = continuity.Batch({item.table: continuity.Chain(seq, {seq: tuple(held)})})
            outcomes = [batch.add(item)]
        self._record(db, batch, statuses, now)
        return outcomes

    def _chains(self, db: Any, events: Sequence[Admitted]) -> dict[str, continuity.Chain]:
        """What the store holds around ``events``, in one query: each table's highest integer seq,
        and the hashes at each seq of :func:`~firmware_host.floor.continuity.wanted`."""
        rows = db.execute(
            f"WITH w (table_id, seq) AS ({self._PAIRS}) "
            "SELECT t.table_id, NULL, NULL, NULL, (SELECT coalesce(max(seq), 0) FROM messages "
            f"WHERE table_id = t.table_id {self._INTEGER_SEQ}) FROM (SELECT DISTINCT table_id FROM w) AS t "
            "UNION ALL SELECT m.table_id, m.seq, m.hash, m.prev_hash, NULL FROM messages AS m "
            "JOIN w ON m.table_id = w.table_id AND m.seq = w.seq",
            (json.dumps(continuity.wanted(events)),),
        ).fetchall()
        chains: dict[str, continuity.Chain] = {}
        for table, seq, hash, prev_hash, max_seq in rows:
            chain = chains.setdefault(table, continuity.Chain())
            if max_seq is not None:
                chain.max_seq = int(max_seq)
            else:
                chain.rows[seq] = (hash, prev_hash)
        return chains

    def _insert(self, db: Any, rows: list[tuple[Any, ...]]) -> int:
        """Insert message ``rows`` (:data:`_COLUMNS` and ``received_at``) unless held: how many were taken."""
        return int(
            db.executemany(
                f"INSERT INTO messages ({', '.join(MESSAGE_ROW)}) VALUES ({', '.join('?' * len(MESSAGE_ROW))}) ON CONFLICT DO NOTHING",
                rows,
            ).rowcount
        )

    @staticmethod
    def _row(item: Admitted, now: float) -> tuple[Any, ...]:
        message = item.message
        data = json.dumps(message["data"], sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        return (
            item.table,
            message["seq"],
            message["journal_seq"],
            message["journal_hash"],
            message["at"],
            message["round"],
            message["type"],
            data,
            message["prev_hash"],
            message["hash"],
            message.get("key_id"),
            message.get("sig"),
            now,
        )

    def _record(self, db: Any, batch: continuity.Batch, statuses: dict[str, str], now: float) -> None:
        """The batch's problems, duplicate counts and statuses: a statement each."""
        if batch.problems:
            db.executemany(
                "INSERT INTO problems (table_id, seq, kind, detail, topic, at) VALUES (?, ?, ?, ?, ?, ?)",
                [(p.table, p.seq, p.kind, p.detail, _text_only(p.topic), now) for p in batch.problems],
            )
        if batch.duplicates:
            db.executemany(
                "UPDATE tables SET duplicates = duplicates + ? WHERE table_id = ?",
                [(count, table) for table, count in sorted(batch.duplicates.items())],
            )
        if statuses:
            db.executemany(
                "UPDATE tables SET status = ? WHERE table_id = ?", [(s, table) for table, s in sorted(statuses.items())]
            )

    def _seen(self, db: Any, tables: list[str], now: float) -> None:
        """Each of ``tables`` (distinct) has its row, seen ``now``: one statement."""
        if tables:
            db.execute(
                f"INSERT INTO tables (table_id, last_seen) SELECT value, ? FROM ({self._TEXTS}) AS t WHERE true "
                "ON CONFLICT (table_id) DO UPDATE SET last_seen = excluded.last_seen",
                (now, json.dumps(tables)),
            )

    def _refuse(self, db: Any, refusal: Refusal, now: float) -> Outcome:
        """Count the refusal under its table (or unknown), and keep it while within the bounds."""
        table = refusal.table
        if (
            table is not None
            and not refusal.known
            and not db.execute("SELECT 1 FROM tables WHERE table_id = ?", (table,)).fetchone()
        ):
            table = None
        bucket = UNKNOWN_TABLE if table is None else table
        if table is not None:
            self._seen(db, [table], now)  # its status shows what was refused on its topic
        reason = _text_only(refusal.reason)
        (total,) = db.execute("SELECT coalesce(sum(kept), 0) FROM refused_counts").fetchone()
        (kept,) = db.execute(
            "INSERT INTO refused_counts (table_id, count, kept, last_reason, last_at) VALUES (?, 1, 0, ?, ?) "
            "ON CONFLICT (table_id) DO UPDATE SET count = refused_counts.count + 1, "
            "last_reason = excluded.last_reason, last_at = excluded.last_at RETURNING kept",
            (bucket, reason, now),
        ).fetchone()
        if total < REFUSED_KEPT_TOTAL and kept < REFUSED_KEPT_PER_TABLE:
            db.execute(
                "INSERT INTO refused (table_id, topic, seq, reason, excerpt, size, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    bucket,
                    _text_only(refusal.topic),
                    refusal.seq,
                    reason,
                    _text_only(refusal.excerpt),
                    refusal.size,
                    now,
                ),
            )
            db.execute("UPDATE refused_counts SET kept = kept + 1 WHERE table_id = ?", (bucket,))
        return Outcome("refused", refusal.table, refusal.seq, refusal.reason)

    # ------------------------------------------------------------------ reading

    def tables(self) -> list[str]:
        """Every table the floor has heard of, in order."""
        with self._db() as db:
            return [str(t) for (t,) in db.execute("SELECT table_id FROM tables ORDER BY table_id").fetchall()]

    def status(self, table: str) -> TableStatus:
        """One table's status; what cannot be read of it is listed in ``unreadable``.

        :raises FloorError: no such table.
        """
        with self._db() as db:
            row = db.execute("SELECT status, last_seen, duplicates FROM tables WHERE table_id = ?", (table,)).fetchone()
            if row is None:
                known = [str(t) for (t,) in db.execute("SELECT table_id FROM tables ORDER BY table_id").fetchall()]
                raise FloorError(
                    f"floor database {self.name}: no table {table!r} (tables: {', '.join(known) or 'none'})"
                )
            unreadable = [str(u) for u in self._unreadable(db, table)]
            status: dict[str, Any] = {}
            if row[0]:
                try:
                    parsed = schema.parse_json(str(row[0]).encode("utf-8"))
                    status = parsed if isinstance(parsed, dict) else {}
                except schema.MessageError as exc:
                    unreadable.append(f"table {table!r} status: cannot read it: {exc}")
            gaps = self._gaps(db, table)
            (max_seq,) = db.execute(
                f"SELECT coalesce(max(seq), 0) FROM messages WHERE table_id = ? {self._INTEGER_SEQ}", (table,)
            ).fetchone()
            last = db.execute(
                f"SELECT at, received_at FROM messages WHERE table_id = ? {self._INTEGER_SEQ} "
                "ORDER BY seq DESC LIMIT 1",
                (table,),
            ).fetchone()
            counts = dict(
                db.execute("SELECT kind, count(*) FROM problems WHERE table_id = ? GROUP BY kind", (table,)).fetchall()
            )
            refused = (
                db.execute("SELECT count, last_reason FROM refused_counts WHERE table_id = ?", (table,)).fetchone()
                if self._refusals
                else None
            )
        refused = refused or (0, None)
        return TableStatus(
            table=table,
            last_seq=gaps[0][0] - 1 if gaps else int(max_seq),
            max_seq=int(max_seq),
            last_seen=_number(row[1]),
            lag_s=_lag(last),
            online=None if not status else status.get("state") == "online",
            version=_text(status.get("version")),
            game=_text(status.get("game")),
            gaps=gaps,
            breaks=int(counts.get(BREAK, 0)),
            refused=int(refused[0]),
            duplicates=int(_number(row[2]) or 0),
            last_refusal=refused[1],
            unreadable=unreadable,
        )

    def refused_unknown(self) -> int:
        """Refusals on topics naming no table the floor knows."""
        if not self._refusals:
            return 0
        with self._db() as db:
            row = db.execute("SELECT count FROM refused_counts WHERE table_id = ?", (UNKNOWN_TABLE,)).fetchone()
        return int(row[0]) if row else 0

    def refusals(self, table: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """The refusals kept (of one table; ``""``: unknown tables), newest first: each a dict of
        ``table, topic, seq, reason, excerpt, size, at``."""
        if not self._refusals:
            return []
        where, args = ("WHERE table_id = ?", (table, limit)) if table is not None else ("", (limit,))
        with self._db() as db:
            rows = db.execute(
                f"SELECT table_id, topic, seq, reason, excerpt, size, at FROM refused {where} ORDER BY id DESC LIMIT ?",
                args,
            ).fetchall()
        return [dict(zip(_REFUSAL, row)) for row in rows]

    def gaps(self, table: str) -> list[tuple[int, int]]:
        """The missing seq ranges ``(first, last)`` below the highest stored seq."""
        with self._db() as db:
            return self._gaps(db, table)

    def _gaps(self, db: Any, table: str) -> list[tuple[int, int]]:
        rows = db.execute(
            "SELECT seq, prev FROM (SELECT seq, lag(seq, 1, CAST(0 AS BIGINT)) OVER (ORDER BY seq) AS prev FROM "
            f"messages WHERE table_id = ? {self._INTEGER_SEQ}) AS s WHERE seq > prev + 1",
            (table,),
        ).fetchall()
        return [(int(prev) + 1, int(seq) - 1) for seq, prev in rows]

    def problems(self, table: str | None = None) -> list[dict[str, Any]]:
        """The breaks and repairs recorded (of one table, or all), oldest first: each a dict of
        ``table, seq, kind, detail, topic, at``."""
        where, args = ("WHERE table_id = ?", (table,)) if table is not None else ("", ())
        with self._db() as db:
            rows = db.execute(
                f"SELECT table_id, seq, kind, detail, topic, at FROM problems {where} ORDER BY id", args
            ).fetchall()
        return [dict(zip(_PROBLEM, row)) for row in rows]

    def _unreadable(self, db: Any, table: str) -> Iterator[Unreadable]:
        """The table's messages :meth:`read` cannot give back, found by the database alone."""
        rows = db.execute(
            f"SELECT {', '.join(self._columns())} FROM messages WHERE table_id = ? AND "
            f"({self._UNREADABLE}) ORDER BY seq",
            (table,),
        ).fetchall()
        for row in rows:
            made = _message(table, dict(zip(self._columns(), row)))
            yield made if isinstance(made, Unreadable) else Unreadable(table, row[0], "a column of the wrong type")

    def _columns(self) -> tuple[str, ...]:
        return _COLUMNS if self._signed else _COLUMNS[:-2]

    def read(
        self, table: str, type: str | None = None, *, after: int = 0, limit: int | None = None
    ) -> Iterator[dict[str, Any] | Unreadable]:
        """The table's stored messages in seq order (of one ``type``, or all; with seq above
        ``after``; at most ``limit``), each as published, or :class:`Unreadable`.

        :raises FloorError: no such table (when iterated).
        """
        self.status(table)  # a clear error for an unknown table
        where, args = ("AND type = ?", [table, after, type]) if type is not None else ("", [table, after])
        cap = "LIMIT ?" if limit is not None else ""
        query = (
            f"SELECT {', '.join(self._columns())} FROM messages WHERE table_id = ? AND seq > ? {where} "
            f"ORDER BY seq {cap}"
        )
        with self._db() as db:
            for row in db.execute(query, (*args, *([limit] if limit is not None else []))):
                yield _message(table, dict(zip(self._columns(), row)))

    def last_messages(self, table: str, count: int = 50, type: str | None = None) -> list[dict[str, Any] | Unreadable]:
        """The table's last ``count`` stored messages (of one ``type``, or all), oldest first."""
        self.status(table)
        where, args = ("AND type = ?", (table, type, count)) if type is not None else ("", (table, count))
        with self._db() as db:
            rows = db.execute(
                f"SELECT {', '.join(self._columns())} FROM messages WHERE table_id = ? {where} "
                "ORDER BY seq DESC LIMIT ?",
                args,
            ).fetchall()
        return [_message(table, dict(zip(self._columns(), row))) for row in reversed(rows)]

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


def _text_only(text: str) -> str:
    """``text`` without NUL characters, which PostgreSQL's text refuses (shown escaped)."""
    return text.replace("\x00", "\\x00")


def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and math.isfinite(value) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _lag(last: tuple[Any, Any] | None) -> float | None:
    if last is None or _number(last[0]) is None or _number(last[1]) is None:
        return None
    return round(float(last[1]) - float(last[0]), 3)
