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

Continuity is computed from the store at each insert and each read, never from a process's
memory: the engine serialises writers of one table (:meth:`SqlStore._begin`), so two
collectors storing the same feed see each other's messages.

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
from firmware_host.floor import migrations
from firmware_host.floor.admission import Admitted, Refusal
from firmware_host.floor.model import UNKNOWN_TABLE, FloorError, Outcome, TableStatus, Unreadable

__all__ = ["SqlStore", "REFUSED_KEPT_PER_TABLE", "REFUSED_KEPT_TOTAL", "BREAK", "REPAIR"]

log = logging.getLogger("tablehost.floor")

#: The kinds of problem recorded.
BREAK, REPAIR = "break", "repair"
#: Refusals kept with their excerpt, per table (and for unknown tables together), and in all.
REFUSED_KEPT_PER_TABLE = 1000
REFUSED_KEPT_TOTAL = 10_000
_COLUMNS = ("seq", "journal_seq", "journal_hash", "at", "round", "type", "data", "prev_hash", "hash", "key_id", "sig")
_REFUSAL = ("table", "topic", "seq", "reason", "excerpt", "size", "at")
_PROBLEM = ("table", "seq", "kind", "detail", "topic", "at")


class _OneMessage(Exception):
    """A message of the batch the database will not take: write the batch again, isolating each."""


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
                for table in sorted({item.table for item in batch if isinstance(item, Admitted)}):
                    self._seen(db, table, now)
                outcomes = [self._guarded(db, item, now, isolate) for item in batch]
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return outcomes

    def _guarded(self, db: Any, item: Admitted | Refusal, now: float, isolate: bool) -> Outcome:
        if isinstance(item, Refusal):
            return self._refuse(db, item, now)
        if not isolate:
            try:
                return self._one(db, item, now)
            except self._one_message_errors as exc:
                raise _OneMessage() from exc
        db.execute("SAVEPOINT one")
        try:
            outcome = self._one(db, item, now)
        except self._one_message_errors as exc:  # this message's values
            db.execute("ROLLBACK TO SAVEPOINT one")
            db.execute("RELEASE SAVEPOINT one")
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
            return self._refuse(db, refusal, now)
        db.execute("RELEASE SAVEPOINT one")
        return outcome

    def _one(self, db: Any, item: Admitted, now: float) -> Outcome:
        """One admitted message (its table's row made by :meth:`_write`): two statements when new."""
        table, message = item.table, item.message
        if item.leaf == "status":
            db.execute(
                "UPDATE tables SET status = ? WHERE table_id = ?", (schema.encode(message).decode("utf-8"), table)
            )
            return Outcome("status", table)
        seq = message["seq"]
        max_seq, stored, before, after = db.execute(
            f"SELECT (SELECT coalesce(max(seq), 0) FROM messages WHERE table_id = ? {self._INTEGER_SEQ}), "
            "(SELECT hash FROM messages WHERE table_id = ? AND seq = ?), "
            "(SELECT hash FROM messages WHERE table_id = ? AND seq = ?), "
            "(SELECT prev_hash FROM messages WHERE table_id = ? AND seq = ?)",
            (table, table, seq, table, seq - 1, table, seq + 1),
        ).fetchone()
        if stored is None:
            data = json.dumps(
                message["data"], sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
            )
            inserted = db.execute(
                f"INSERT INTO messages (table_id, {', '.join(_COLUMNS)}, received_at) VALUES ({', '.join('?' * 13)}) "
                "ON CONFLICT DO NOTHING",
                (
                    table,
                    seq,
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
                ),
            ).rowcount
            if not inserted:  # stored meanwhile by a writer the engine did not hold off
                (stored,) = db.execute(
                    "SELECT hash FROM messages WHERE table_id = ? AND seq = ?", (table, seq)
                ).fetchone()
        if stored is not None:
            if stored == message["hash"]:  # the same message (re-signed after a key rotation, maybe)
                db.execute("UPDATE tables SET duplicates = duplicates + 1 WHERE table_id = ?", (table,))
                return Outcome("duplicate", table, seq)
            why = "a second, different message for this seq (the first is kept)"
            self._problem(db, table, seq, BREAK, why, item.topic, now)
            return Outcome("conflict", table, seq, why)
        if seq == 1:
            before = schema.GENESIS_HASH
        if before is not None and before != message["prev_hash"]:
            self._problem(db, table, seq, BREAK, f"prev_hash is not the hash of message {seq - 1}", item.topic, now)
        if after is not None and after != message["hash"]:
            self._problem(db, table, seq + 1, BREAK, f"prev_hash is not the hash of message {seq}", item.topic, now)
        if seq < max_seq:
            self._problem(db, table, seq, REPAIR, f"fills a gap below seq {max_seq}", item.topic, now)
        return Outcome("stored", table, seq, gap=(max_seq + 1, seq - 1) if seq > max_seq + 1 else None)

    def _seen(self, db: Any, table: str, now: float) -> None:
        db.execute(
            "INSERT INTO tables (table_id, last_seen) VALUES (?, ?) "
            "ON CONFLICT (table_id) DO UPDATE SET last_seen = excluded.last_seen",
            (table, now),
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
            self._seen(db, table, now)  # its status shows what was refused on its topic
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

    def _problem(
        self, db: Any, table: str | None, seq: int | None, kind: str, detail: str, topic: str, now: float
    ) -> None:
        db.execute(
            "INSERT INTO problems (table_id, seq, kind, detail, topic, at) VALUES (?, ?, ?, ?, ?, ?)",
            (table, seq, kind, detail, _text_only(topic), now),
        )

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
