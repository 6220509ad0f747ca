"""The floor store's read API (:class:`StoreReads`), in SQL both SQLite and PostgreSQL run:
what ``floor status``, ``floor export``, ``journal verify --floor`` and the floor dashboard use.

Continuity (gaps, breaks, lag) is read from the store itself, never from a process's memory, so
every collector and reader of one database sees the same. Reading never trusts the database: a
row that cannot be read back (text where a number belongs, ``data`` that is not a JSON object)
is :class:`~firmware_host.floor.model.Unreadable`, named. The writes are
:class:`~firmware_host.floor.store_sql.SqlStore`'s.
"""

from __future__ import annotations

import contextlib
import json
import math
import threading
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from firmware_host.feed import schema
from firmware_host.floor.continuity import BREAK
from firmware_host.floor.model import UNKNOWN_TABLE, FloorError, TableStatus, Unreadable

__all__ = ["StoreReads"]

_COLUMNS = ("seq", "journal_seq", "journal_hash", "at", "round", "type", "data", "prev_hash", "hash", "key_id", "sig")
_REFUSAL = ("table", "topic", "seq", "reason", "excerpt", "size", "at")
_PROBLEM = ("table", "seq", "kind", "detail", "topic", "at")


class StoreReads:
    """Reading the floor's store on one SQL engine; a subclass says how to connect (:meth:`_db`).

    Its read API (:meth:`tables`, :meth:`status`, :meth:`read`, :meth:`export`,
    :meth:`refusals`, :meth:`problems`, :meth:`last_messages`) is what ``floor status``,
    ``floor export``, ``journal verify --floor`` and the floor dashboard use.
    """

    #: ``sqlite`` or ``postgresql``: which SQL of :mod:`~firmware_host.floor.migrations` it runs.
    engine: ClassVar[str]
    #: SQL that keeps only rows whose seq is an integer (SQLite's columns are not typed).
    _INTEGER_SEQ: ClassVar[str] = ""
    #: SQL true of a message row that :func:`_message` cannot read back.
    _UNREADABLE: ClassVar[str]
    #: SQL of rows ``(table_id, seq)`` from parameter ``$1``: a JSON array of ``[table, seq]`` pairs.
    _PAIRS: ClassVar[str]

    #: Whether the engine tells its followers of each commit (:meth:`listen`); else they poll :meth:`changes`.
    notifies: ClassVar[bool] = False

    def __init__(self, name: str) -> None:
        #: What the store is called in messages (a path, or a DSN without its password).
        self.name = name
        self._signed = True  # the messages have key_id and sig
        self._refusals = True  # the refusal tables exist

    def _db(self) -> contextlib.AbstractContextManager[Any]:
        """A connection for the ``with`` block: ``execute(sql, args)`` with ``$1``, ``$2``... placeholders."""
        raise NotImplementedError

    def close(self) -> None:
        """Close the database."""
        raise NotImplementedError

    def listen(self, heard: Callable[[list[str] | None], None], stop: threading.Event) -> None:
        """Until ``stop``: ``heard`` the tables of each commit (None: every table). Only where :attr:`notifies`."""
        raise NotImplementedError

    def tables(self) -> list[str]:
        """Every table the floor has heard of, in order."""
        with self._db() as db:
            return [str(t) for (t,) in db.execute("SELECT table_id FROM tables ORDER BY table_id").fetchall()]

    def status(self, table: str) -> TableStatus:
        """One table's status; what cannot be read of it is listed in ``unreadable``.

        :raises FloorError: no such table.
        """
        with self._db() as db:
            row = db.execute(
                "SELECT status, last_seen, duplicates FROM tables WHERE table_id = $1", (table,)
            ).fetchone()
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
                f"SELECT coalesce(max(seq), 0) FROM messages WHERE table_id = $1 {self._INTEGER_SEQ}", (table,)
            ).fetchone()
            last = db.execute(
                f"SELECT at, received_at FROM messages WHERE table_id = $1 {self._INTEGER_SEQ} "
                "ORDER BY seq DESC LIMIT 1",
                (table,),
            ).fetchone()
            counts = dict(
                db.execute("SELECT kind, count(*) FROM problems WHERE table_id = $1 GROUP BY kind", (table,)).fetchall()
            )
            refused = (
                db.execute("SELECT count, last_reason FROM refused_counts WHERE table_id = $1", (table,)).fetchone()
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
            row = db.execute("SELECT count FROM refused_counts WHERE table_id = $1", (UNKNOWN_TABLE,)).fetchone()
        return int(row[0]) if row else 0

    def refusals(self, table: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """The refusals kept (of one table; ``""``: unknown tables), newest first: each a dict of
        ``table, topic, seq, reason, excerpt, size, at``."""
        if not self._refusals:
            return []
        where, args = ("WHERE table_id = $1", (table, limit)) if table is not None else ("", (limit,))
        with self._db() as db:
            rows = db.execute(
                f"SELECT table_id, topic, seq, reason, excerpt, size, at FROM refused {where} ORDER BY id DESC LIMIT ${len(args)}",
                args,
            ).fetchall()
        return [dict(zip(_REFUSAL, row)) for row in rows]

    def contiguous(self, table: str, start: int | None = None) -> tuple[int, str]:
        """``(seq, hash)``: the highest seq up to which every seq of ``table`` is stored, or settled
        (refused as malformed though its table signed it), as one chain, and its hash (``(0,
        genesis)``: seq 1 is neither). What the floor acknowledges to the table.

        One chain: the prefix passes from a seq to the next only if the next's stored
        ``prev_hash`` is the seq's stored hash (a settled seq's hash is its message's, so the chain
        goes on through it; its own ``prev_hash`` is not kept, so entering it is not checked). It
        stops at a break, and at a conflict (a seq held twice, by two different hashes), so a
        second journal of the table stored over the first is never acknowledged as held.

        :param start: a seq up to which the chain is proven (where an earlier answer ended): the
            search starts there, so it costs the messages since, not the table's whole history.
            None: where the store last remembered it
            (:meth:`~firmware_host.floor.store_sql.SqlStore.remember_ack`). Stored rows never change,
            so a proven prefix stays proven; a start no longer held restarts from seq 1.
        """
        with self._db() as db:
            if start is None:
                row = db.execute("SELECT ack_hint FROM tables WHERE table_id = $1", (table,)).fetchone()
                start = max(1, int(row[0])) if row and isinstance(row[0], int) else 1
            if not db.execute(
                "SELECT 1 FROM messages WHERE table_id = $1 AND seq = $2 UNION ALL "
                "SELECT 1 FROM settled WHERE table_id = $1 AND seq = $2",
                (table, start),
            ).fetchone():
                return (0, schema.GENESIS_HASH) if start == 1 else self.contiguous(table, 1)
            # The first held seq from ``start`` whose next does not chain to it (no message there
            # whose prev_hash is its hash, and not settled): each side an index scan in seq order,
            # merged, that stops at the first such seq. A seq held twice (a message and a
            # settled one of another hash) ends the prefix there unless both chain on.
            ends = " ".join(
                f"SELECT h.seq, h.hash FROM {side} AS h WHERE h.table_id = $1 AND h.seq >= $2 "
                "AND NOT EXISTS (SELECT 1 FROM messages AS n WHERE n.table_id = h.table_id AND n.seq = h.seq + 1 "
                "AND n.prev_hash = h.hash) "
                "AND NOT EXISTS (SELECT 1 FROM settled AS n WHERE n.table_id = h.table_id AND n.seq = h.seq + 1)"
                for side in ("messages", "settled")
            ).replace(" SELECT h.seq", " UNION ALL SELECT h.seq", 1)
            end = db.execute(f"{ends} ORDER BY 1 LIMIT 1", (table, start)).fetchone()
        return int(end[0]), str(end[1])

    def gaps(self, table: str) -> list[tuple[int, int]]:
        """The missing seq ranges ``(first, last)`` below the highest stored seq."""
        with self._db() as db:
            return self._gaps(db, table)

    def _gaps(self, db: Any, table: str) -> list[tuple[int, int]]:
        rows = db.execute(
            "SELECT seq, prev FROM (SELECT seq, lag(seq, 1, CAST(0 AS BIGINT)) OVER (ORDER BY seq) AS prev FROM "
            f"messages WHERE table_id = $1 {self._INTEGER_SEQ}) AS s WHERE seq > prev + 1",
            (table,),
        ).fetchall()
        return [(int(prev) + 1, int(seq) - 1) for seq, prev in rows]

    def problems(self, table: str | None = None) -> list[dict[str, Any]]:
        """The breaks and repairs recorded (of one table, or all), oldest first: each a dict of
        ``table, seq, kind, detail, topic, at``."""
        where, args = ("WHERE table_id = $1", (table,)) if table is not None else ("", ())
        with self._db() as db:
            rows = db.execute(
                f"SELECT table_id, seq, kind, detail, topic, at FROM problems {where} ORDER BY id", args
            ).fetchall()
        return [dict(zip(_PROBLEM, row)) for row in rows]

    def _unreadable(self, db: Any, table: str) -> Iterator[Unreadable]:
        """The table's messages :meth:`read` cannot give back, found by the database alone."""
        rows = db.execute(
            f"SELECT {', '.join(self._columns())} FROM messages WHERE table_id = $1 AND "
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
        yield from self.newer(table, after, type=type, limit=limit)

    def newer(
        self, table: str, after: int, *, type: str | None = None, limit: int | None = None
    ) -> Iterator[dict[str, Any] | Unreadable]:
        """:meth:`read` without its status check: the messages above ``after`` by the primary key's
        index alone, so following a busy table costs what is new, not its history (an unknown
        table has none)."""
        where, args = ("AND type = $3", [table, after, type]) if type is not None else ("", [table, after])
        cap = f"LIMIT ${len(args) + 1}" if limit is not None else ""
        query = (
            f"SELECT {', '.join(self._columns())} FROM messages WHERE table_id = $1 AND seq > $2 {where} "
            f"ORDER BY seq {cap}"
        )
        with self._db() as db:
            for row in db.execute(query, (*args, *([limit] if limit is not None else []))):
                yield _message(table, dict(zip(self._columns(), row)))

    def newer_of(self, afters: dict[str, int], span: int) -> dict[str, list[dict[str, Any] | Unreadable]]:
        """:meth:`newer` of many tables in one query (one round trip, whatever their number): of each
        table of ``afters``, the first ``span`` of its messages with a seq above its ``after``, in seq
        order (a table that has ``span`` of them may have more: read the rest another way)."""
        if not afters:
            return {}
        columns = ", ".join(self._columns())
        with self._db() as db:
            rows = db.execute(
                f"WITH w (table_id, seq) AS ({self._PAIRS}) SELECT table_id, {columns} FROM (SELECT m.*, "
                "row_number() OVER (PARTITION BY m.table_id ORDER BY m.seq) AS n FROM messages AS m "
                "JOIN w ON m.table_id = w.table_id AND m.seq > w.seq) AS x WHERE n <= $2 ORDER BY table_id, seq",
                (json.dumps(sorted(afters.items())), span),
            ).fetchall()
        found: dict[str, list[dict[str, Any] | Unreadable]] = {}
        for table, *row in rows:
            found.setdefault(str(table), []).append(_message(str(table), dict(zip(self._columns(), row))))
        return found

    def changes(self) -> dict[str, tuple[Any, Any]]:
        """Every table's mark of change, in one query: ``(last_seen, highest seq)``. A collector's
        write of a table sets its ``last_seen`` (a status or a refusal too) and a stored message
        raises its highest seq, so a mark that differs from the one read before says the table
        changed (compared for equality only: no clock is trusted to order them). The highest seq is
        read through the primary key's index, a seek per table."""
        with self._db() as db:
            rows = db.execute(
                "SELECT t.table_id, t.last_seen, (SELECT max(m.seq) FROM messages AS m WHERE m.table_id = t.table_id) "
                "FROM tables AS t"
            ).fetchall()
        return {str(table): (seen, high) for table, seen, high in rows}

    def last_messages(self, table: str, count: int = 50, type: str | None = None) -> list[dict[str, Any] | Unreadable]:
        """The table's last ``count`` stored messages (of one ``type``, or all), oldest first."""
        self.status(table)
        where, args = ("AND type = $2", (table, type, count)) if type is not None else ("", (table, count))
        with self._db() as db:
            rows = db.execute(
                f"SELECT {', '.join(self._columns())} FROM messages WHERE table_id = $1 {where} "
                f"ORDER BY seq DESC LIMIT ${len(args)}",
                args,
            ).fetchall()
        return [_message(table, dict(zip(self._columns(), row))) for row in reversed(rows)]

    def round_messages(self, table: str, round_number: int) -> list[dict[str, Any]]:
        """The readable messages of one round of ``table`` (the ``round`` they carry), in seq order:
        read through the ``messages_round`` index, so a round costs the same whatever the table's
        history (issue 29, N9). An unknown table has none."""
        with self._db() as db:
            rows = db.execute(
                f"SELECT {', '.join(self._columns())} FROM messages WHERE table_id = $1 AND round = $2 ORDER BY seq",
                (table, round_number),
            ).fetchall()
        found = (_message(table, dict(zip(self._columns(), row))) for row in rows)
        return [m for m in found if not isinstance(m, Unreadable)]

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
    return round(float(last[1]) - float(last[0]), 3)
