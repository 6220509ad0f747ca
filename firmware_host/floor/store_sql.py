"""What the floor's two stores share (:class:`SqlStore`): storing feed messages idempotently by
``(table, seq)``, their continuity and the bounded refusals, in SQL both SQLite and PostgreSQL
run (the read API: :mod:`~firmware_host.floor.store_reads`).

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
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from firmware_host.feed import schema
from firmware_host.floor import continuity, migrations
from firmware_host.floor.admission import Admitted, Refusal
from firmware_host.floor.model import UNKNOWN_TABLE, FloorError, Outcome
from firmware_host.floor.store_epochs import EpochRows
from firmware_host.floor.store_reads import _COLUMNS, StoreReads
from firmware_host.floor.store_views import ViewRows

__all__ = ["SqlStore", "REFUSED_KEPT_PER_TABLE", "REFUSED_KEPT_TOTAL", "BREAK", "REPAIR"]

log = logging.getLogger("tablehost.floor")

#: The kinds of problem recorded.
BREAK, REPAIR = continuity.BREAK, continuity.REPAIR
#: Refusals kept with their excerpt, per table (and for unknown tables together), and in all.
REFUSED_KEPT_PER_TABLE = 1000
REFUSED_KEPT_TOTAL = 10_000
#: The columns of an inserted message row (:meth:`SqlStore._row`).
MESSAGE_ROW = ("table_id", *_COLUMNS, "received_at")


class _OneMessage(Exception):
    """A message of the batch the database will not take: write the batch again, isolating each."""


class _Raced(_OneMessage):
    """A message of the batch was stored meanwhile by a writer the engine did not hold off: the
    batch's outcomes no longer hold, so it is written again a message at a time."""


class SqlStore(StoreReads, ViewRows, EpochRows):
    """The floor's store on one SQL engine, with its writes; a subclass says how to connect
    (:meth:`_db`), how a write transaction begins (:meth:`_begin`) and what the engine's errors
    are. The read API is :class:`~firmware_host.floor.store_reads.StoreReads`'.
    """

    #: The engine's base error (a database that cannot be reached or written).
    _ERROR: ClassVar[tuple[type[BaseException], ...]]
    #: The engine's errors caused by one message's values: that message is refused alone.
    _VALUE_ERRORS: ClassVar[tuple[type[BaseException], ...]]
    #: SQL of rows ``value`` from parameter ``$2``: a JSON array of text.
    _TEXTS: ClassVar[str]
    #: The engine's statements of each step of the schema (:data:`~firmware_host.floor.migrations.MIGRATIONS`).
    _STEPS: ClassVar[Mapping[int, tuple[str, ...]]]

    def __init__(self, name: str) -> None:
        super().__init__(name)
        #: Errors caused by one message's values: it is refused alone.
        self._one_message_errors: tuple[type[BaseException], ...] = (
            *self._VALUE_ERRORS,
            OverflowError,
            TypeError,
            ValueError,
        )

    # ------------------------------------------------------------------ engine

    @classmethod
    def open(
        cls, db: str | os.PathLike[str], *, password_file: Path | None = None, read_only: bool = False
    ) -> SqlStore:
        """The store ``db`` names on this engine (:func:`~firmware_host.floor.store.open_store`).

        :raises FloorError: it cannot be opened.
        """
        raise NotImplementedError

    def _begin(self, db: Any, tables: list[str]) -> None:
        """Begin a write transaction that holds the store for the batch's ``tables``."""
        raise NotImplementedError

    def _migrate(self, db: Any, current: int) -> None:
        """Apply the schema's steps above version ``current`` (:func:`~firmware_host.floor.migrations.migrate`)."""
        migrations.migrate(db, self._STEPS, current, lambda: self._begin(db, []), lambda: self._rollback(db), self.name)

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

    def remember_ack(self, table: str, seq: int) -> None:
        """Remember that every seq of ``table`` up to ``seq`` is held: where :meth:`contiguous`
        starts next time (after a collector's restart, not from seq 1). A hint: losing it costs
        only a longer search.

        :raises FloorError: the database cannot be written.
        """
        try:
            with self._db() as db:
                db.execute("UPDATE tables SET ack_hint = $1 WHERE table_id = $2 AND ack_hint < $1", (seq, table))
        except self._ERROR as exc:
            raise FloorError(f"floor database {self.name}: cannot remember an acknowledgement: {exc}") from exc

    def _write(
        self, batch: Sequence[Admitted | Refusal], tables: list[str], now: float, isolate: bool
    ) -> list[Outcome]:
        with self._db() as db:
            self._begin(db, tables)
            try:
                self._seen(db, sorted({item.table for item in batch if isinstance(item, Admitted)}), now)
                outcomes = self._isolated(db, batch, now) if isolate else self._together(db, batch, now)
                self._announce(db, tables)
                db.execute("COMMIT")
            except BaseException:
                self._rollback(db)
                raise
        return outcomes

    def _announce(self, db: Any, tables: list[str]) -> None:
        """Tell the store's followers (the dashboard) which ``tables`` this write changes, inside its
        transaction, so they hear of it when it commits and only then. Nothing by default: a
        follower polls :meth:`~firmware_host.floor.store_reads.StoreReads.changes`."""

    def _in_transaction(self, db: Any) -> bool:
        """Whether ``db`` still has a transaction open (an engine may have rolled it back itself)."""
        raise NotImplementedError

    def _rollback(self, db: Any) -> None:
        """Roll back the transaction open on ``db``, if the engine has not already (SQLite does on a
        full disk or an I/O error). Called while an error is being raised: a failure here is
        logged, never raised in its place, so the error that stopped the write is the one reported."""
        try:
            if self._in_transaction(db):
                db.execute("ROLLBACK")
        except self._ERROR as exc:
            log.warning("floor database %s: cannot roll back either: %s", self.name, exc)

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
        if batch.new and self._insert(db, [message_row(item, now) for item in batch.new]) < len(batch.new):
            if len(items) > 1:
                raise _Raced()
            # Alone, as it always was: what the other writer stored decides (a duplicate, or a conflict).
            (item,) = items
            seq = item.message["seq"]
            held = db.execute(
                "SELECT hash, prev_hash FROM messages WHERE table_id = $1 AND seq = $2", (item.table, seq)
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
                f"INSERT INTO messages ({', '.join(MESSAGE_ROW)}) VALUES ({', '.join(f'${n}' for n in range(1, len(MESSAGE_ROW) + 1))}) ON CONFLICT DO NOTHING",
                rows,
            ).rowcount
        )

    def _record(self, db: Any, batch: continuity.Batch, statuses: dict[str, str], now: float) -> None:
        """The batch's problems, duplicate counts and statuses: a statement each."""
        if batch.problems:
            db.executemany(
                "INSERT INTO problems (table_id, seq, kind, detail, topic, at) VALUES ($1, $2, $3, $4, $5, $6)",
                [(p.table, p.seq, p.kind, p.detail, _text_only(p.topic), now) for p in batch.problems],
            )
        if batch.duplicates:
            db.executemany(
                "UPDATE tables SET duplicates = duplicates + $1 WHERE table_id = $2",
                [(count, table) for table, count in sorted(batch.duplicates.items())],
            )
        if statuses:
            db.executemany(
                "UPDATE tables SET status = $1 WHERE table_id = $2",
                [(s, table) for table, s in sorted(statuses.items())],
            )

    def _seen(self, db: Any, tables: list[str], now: float) -> None:
        """Each of ``tables`` (distinct) has its row, seen ``now``: one statement."""
        if tables:
            db.execute(
                f"INSERT INTO tables (table_id, last_seen) SELECT value, $1 FROM ({self._TEXTS}) AS t WHERE true "
                "ON CONFLICT (table_id) DO UPDATE SET last_seen = excluded.last_seen",
                (now, json.dumps(tables)),
            )

    def _refuse(self, db: Any, refusal: Refusal, now: float) -> Outcome:
        """Count the refusal under its table (or unknown), and keep it while within the bounds."""
        table = refusal.table
        if (
            table is not None
            and not refusal.known
            and not db.execute("SELECT 1 FROM tables WHERE table_id = $1", (table,)).fetchone()
        ):
            table = None
        bucket = UNKNOWN_TABLE if table is None else table
        if table is not None:
            self._seen(db, [table], now)  # its status shows what was refused on its topic
        reason = _text_only(refusal.reason)
        (total,) = db.execute("SELECT coalesce(sum(kept), 0) FROM refused_counts").fetchone()
        (kept,) = db.execute(
            "INSERT INTO refused_counts (table_id, count, kept, last_reason, last_at) VALUES ($1, 1, 0, $2, $3) "
            "ON CONFLICT (table_id) DO UPDATE SET count = refused_counts.count + 1, "
            "last_reason = excluded.last_reason, last_at = excluded.last_at RETURNING kept",
            (bucket, reason, now),
        ).fetchone()
        if total < REFUSED_KEPT_TOTAL and kept < REFUSED_KEPT_PER_TABLE:
            db.execute(
                "INSERT INTO refused (table_id, topic, seq, reason, excerpt, size, at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
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
            db.execute("UPDATE refused_counts SET kept = kept + 1 WHERE table_id = $1", (bucket,))
        if refusal.settles is not None and table is not None:
            db.execute(
                "INSERT INTO settled (table_id, seq, hash, reason, at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                (table, *refusal.settles, reason, now),
            )
        return Outcome("refused", refusal.table, refusal.seq, refusal.reason)


def message_row(item: Admitted, now: float) -> tuple[Any, ...]:
    """The ``messages`` row of an admitted message (:data:`MESSAGE_ROW` and ``received_at``)."""
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


def _text_only(text: str) -> str:
    """``text`` without NUL characters, which PostgreSQL's text refuses (shown escaped)."""
    return text.replace("\x00", "\\x00")
