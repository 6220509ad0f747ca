"""The floor's store on PostgreSQL (``tablehost floor --db postgresql://user@host:port/db``), for
a floor that outgrows one machine and for redundant collectors.

Imported only when a ``postgresql://`` DSN is given: it needs psycopg 3 and psycopg_pool (the
``postgresql`` extra). Connections come from a :class:`psycopg_pool.ConnectionPool`, shared by
the collector's writes and the readers of the same process (the floor dashboard). The password
never appears in the DSN or on a command line: it comes from a file readable by its owner only
(:func:`~firmware_host.feed.broker.read_secret`), or from libpq's own ``passfile``; a DSN holding
a password is refused.

Several collectors may write one database. Each batch is one transaction that first takes a
transaction-scoped advisory lock per table it touches (in one order, so two collectors never
deadlock), so the continuity checks of :class:`~firmware_host.floor.store_sql.SqlStore` see
every message another collector committed; ``ON CONFLICT DO NOTHING`` on ``(table_id, seq)``
keeps a message stored twice once. The schema is migrated under a session-level advisory lock
held from before ``schema_version`` is made to after the last step (:meth:`PostgresStore._migrate`):
any number of collectors starting together on a new database wait for one another, and each reads
the schema's version again once it holds the lock, so one migrates and the others find it done
(``CREATE TABLE IF NOT EXISTS`` alone is not safe against a concurrent one: both may pass the check
and one fails on ``pg_type``'s unique index).

Every session runs with ``synchronous_commit = on`` (a libpq startup option, which outranks a
server's, database's or role's default): a batch is acknowledged to the broker only after its
commit is on the server's disk, so a server configured for speed (``synchronous_commit = off``)
cannot lose messages the broker was told are stored.

A batch costs a fixed number of round trips, not one or two per message: ``BEGIN``, the locks,
the tables' upsert, the one read, the one insert, the problems and duplicate counts when there
are any, ``COMMIT``. The read's pairs and the insert's rows each go as **one JSON parameter**
(``json_array_elements``, ``json_to_recordset``), not as psycopg's ``executemany`` nor as
arrays: ``executemany`` runs in pipeline mode (psycopg >= 3.1: one round trip for the lot) but
the server still binds and executes the statement once per row, and the read needs its
result before the outcomes can be worked out, so pipelining the whole batch would save little
and make a refused value surface at a sync point far from its statement; typed arrays
(``unnest(%s::text[], ...)``) are one statement too, but psycopg adapts their elements one by
one: on the bench (load average 5 to 9) the insert of a batch of 100 took 15 ms with arrays and
3 ms with one JSON document (``json.dumps`` of the rows, under 1 ms). ``executemany`` (pipelined) is kept for the few rows of problems, duplicate counts
(a row per table) and statuses.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import psycopg
import psycopg_pool
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.types.string import TextLoader

from firmware_host.feed.broker import BrokerError, read_secret
from firmware_host.floor import migrations, sql_postgres
from firmware_host.floor.model import FloorError
from firmware_host.floor.store_sql import MESSAGE_ROW, SqlStore

__all__ = ["PostgresStore", "safe_dsn"]

log = logging.getLogger("tablehost.floor")

#: Connections in the pool: the collector's writer, and readers.
POOL_SIZE = 4
#: Seconds to wait for a connection (the server down: the batch is not acknowledged, and retried).
CONNECT_TIMEOUT_S = 10.0
#: The advisory lock key of the schema's migration (any constant of this application).
MIGRATION_LOCK = 0x7461626C65  # "table"
#: The channel a collector's commit notifies (the tables it wrote) and the dashboard listens on.
CHANNEL = "tablehost_floor"
#: The longest payload sent (PostgreSQL's limit is 8,000 bytes); beyond, an empty one: "every table".
MAX_PAYLOAD = 7000
#: Seconds a listener waits for a notification before it looks at its stop flag again.
LISTEN_WAKE_S = 0.5
#: Seconds before a listener whose connection failed connects again.
RELISTEN_S = 2.0
#: A batch's new messages in one statement, from one JSON parameter: an object per row.
_INSERT = sql_postgres.insert(MESSAGE_ROW)


def safe_dsn(dsn: str) -> str:
    """The DSN as it may be shown: never a password."""
    try:
        parts = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "postgresql://(a DSN libpq cannot read)"
    parts.pop("password", None)
    user = f"{parts['user']}@" if parts.get("user") else ""
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{user}{parts.get('host', '')}{port}/{parts.get('dbname', '')}"


class _Db:
    """One pooled connection, whose cursors send the SQL's ``$1``, ``$2``... to the server as they are
    (psycopg's :class:`~psycopg.RawCursor`: PostgreSQL's own placeholders)."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def execute(self, sql: str, args: Sequence[Any] = ()) -> psycopg.RawCursor[Any]:
        return self.conn.cursor().execute(sql, args)  # type: ignore[return-value]

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> psycopg.RawCursor[Any]:
        """``sql`` once per row, in one pipeline (psycopg 3's ``executemany``): one round trip."""
        if len(rows) == 1:  # no pipeline to enter and leave
            return self.execute(sql, rows[0])
        cursor = self.conn.cursor()
        cursor.executemany(sql, rows)
        return cursor  # type: ignore[return-value]


class PostgresStore(SqlStore):
    """The floor's database at ``dsn`` (libpq URL, without a password).

    :param password_file: the password (mode 0400/0600); None: libpq's own (``passfile``,
        ``PGPASSFILE``, or none).
    :param read_only: never write (``floor status``, ``floor export``, ``journal verify --floor``).
    :raises FloorError: a DSN with a password, an unusable password file, a database that
        cannot be reached, or a schema newer than this tablehost's.
    """

    engine = "postgresql"
    notifies = True
    _ERROR = (psycopg.Error, psycopg_pool.PoolTimeout)
    _VALUE_ERRORS = (psycopg.DataError, psycopg.IntegrityError)
    _UNREADABLE = sql_postgres.UNREADABLE
    _TEXTS = sql_postgres.TEXTS
    _PAIRS = sql_postgres.PAIRS
    _STEPS = sql_postgres.STEPS

    def __init__(
        self, dsn: str, *, password_file: Path | None = None, read_only: bool = False, pool_size: int = POOL_SIZE
    ) -> None:
        super().__init__(safe_dsn(dsn))
        try:
            parts = conninfo_to_dict(dsn)
        except psycopg.ProgrammingError as exc:
            raise FloorError(f"floor database {self.name}: not a DSN libpq can read: {exc}") from exc
        if "password" in parts:
            raise FloorError(
                "floor database DSN: it holds a password; give it in a file (--db-password-file F, "
                "mode 0600) or libpq's passfile, never on the command line"
            )
        options: dict[str, str | int] = {
            "connect_timeout": int(CONNECT_TIMEOUT_S),
            "application_name": "tablehost-floor",
        }
        if password_file is not None:
            try:
                options["password"] = read_secret(password_file, "floor database password file")
            except BrokerError as exc:
                raise FloorError(str(exc)) from exc
        # Set per session, outranking the server's, the database's and the role's defaults: a
        # commit the collector acknowledges is on the server's disk (docs/feed.md, "PostgreSQL").
        # The DSN's own options (a search_path...) are kept; ours come after them, so they win.
        settings = [str(parts.get("options") or ""), "-c synchronous_commit=on"]
        if read_only:
            settings.append("-c default_transaction_read_only=on")
        options["options"] = " ".join(setting for setting in settings if setting)
        conninfo = self._conninfo = make_conninfo(dsn, **options)
        try:  # one connection first: a refused login is one clear line now, not a pool's retries
            psycopg.connect(conninfo).close()
        except psycopg.Error as exc:
            raise FloorError(f"floor database {self.name}: cannot connect: {_first_line(exc)}") from exc
        self._pool = psycopg_pool.ConnectionPool(
            conninfo,
            min_size=1,
            max_size=pool_size,
            open=False,
            name="tablehost-floor",
            kwargs={"autocommit": True, "cursor_factory": psycopg.RawCursor},
            configure=_configure,
            timeout=CONNECT_TIMEOUT_S,
        )
        try:
            self._pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
            with self._db() as db:
                if not read_only:
                    self._migrate(db, 0)
                elif (db.execute("SELECT to_regclass('schema_version')").fetchone() or (None,))[0] is None:
                    raise FloorError(f"floor database {self.name}: holds no floor (no schema_version)")
                migrations.check_version(migrations.version(db), self.name)
        except (psycopg.Error, psycopg_pool.PoolTimeout) as exc:
            self._pool.close()
            raise FloorError(f"floor database {self.name}: cannot open: {_first_line(exc)}") from exc
        except FloorError:
            self._pool.close()
            raise

    @classmethod
    def open(
        cls, db: str | os.PathLike[str], *, password_file: Path | None = None, read_only: bool = False
    ) -> PostgresStore:
        """The database the DSN ``db`` names."""
        return cls(str(db), password_file=password_file, read_only=read_only)

    @contextlib.contextmanager
    def _db(self) -> Iterator[_Db]:
        try:
            with self._pool.connection() as conn:
                yield _Db(conn)
        except (psycopg.OperationalError, psycopg_pool.PoolTimeout) as exc:
            raise FloorError(f"floor database {self.name}: {_first_line(exc)}") from exc

    def _migrate(self, db: Any, current: int) -> None:
        """Make ``schema_version`` and apply the steps above the version found, all under the
        session's advisory lock :data:`MIGRATION_LOCK` (``current`` is not trusted: the version is
        read again once the lock is held, as another collector may have migrated meanwhile)."""
        db.execute("SELECT pg_advisory_lock($1)", (MIGRATION_LOCK,))
        try:
            db.execute(sql_postgres.VERSION_TABLE)
            super()._migrate(db, migrations.version(db))
        finally:
            if not db.conn.broken:  # a lost connection took its lock along (and its error stands)
                db.execute("SELECT pg_advisory_unlock($1)", (MIGRATION_LOCK,))

    def _begin(self, db: Any, tables: list[str]) -> None:
        db.execute("BEGIN")
        if not tables:  # a step of the schema's migration: :meth:`_migrate` holds the lock
            return
        db.execute(
            "SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT hashtextextended(t, 0) AS k "
            "FROM unnest($1::text[]) AS t) AS keys ORDER BY k",
            (tables,),
        )

    def _in_transaction(self, db: Any) -> bool:
        return not db.conn.broken and db.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    def _insert(self, db: Any, rows: list[tuple[Any, ...]]) -> int:
        document = json.dumps([dict(zip(MESSAGE_ROW, row)) for row in rows], ensure_ascii=False, allow_nan=False)
        return int(db.execute(_INSERT, (document,)).rowcount)

    def _announce(self, db: Any, tables: list[str]) -> None:
        """``NOTIFY`` the tables written on :data:`CHANNEL`, in the write's transaction: listeners hear
        of it when it commits, never of a write rolled back."""
        payload = json.dumps(tables, ensure_ascii=False, separators=(",", ":"))
        db.execute("SELECT pg_notify($1, $2)", (CHANNEL, payload if len(payload.encode()) <= MAX_PAYLOAD else ""))

    def listen(self, heard: Callable[[list[str] | None], None], stop: threading.Event) -> None:
        """Until ``stop`` is set, ``LISTEN`` on :data:`CHANNEL` on a connection of its own (not the
        pool's) and call ``heard`` with each commit's tables (None: look at every table, as after a
        payload it cannot read, and after each (re)connection, for what was committed meanwhile). A
        lost connection is logged and made again after :data:`RELISTEN_S`."""
        while not stop.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    heard(None)
                    while not stop.is_set():
                        for notify in conn.notifies(timeout=LISTEN_WAKE_S):
                            heard(_announced(notify.payload))
            except psycopg.Error as exc:
                log.warning("floor database %s: listening for commits: %s", self.name, _first_line(exc))
                stop.wait(RELISTEN_S)

    def close(self) -> None:
        """Close the pool's connections."""
        self._pool.close()


def _announced(payload: str) -> list[str] | None:
    """The tables a notification names, or None (every table) for a payload that is not a short
    JSON array of table ids (any user of the database may ``NOTIFY``)."""
    try:
        tables = json.loads(payload) if payload else None
    except ValueError:
        return None
    if not isinstance(tables, list) or len(tables) > MAX_PAYLOAD // 2:
        return None
    if not all(isinstance(table, str) and len(table) <= 256 for table in tables):
        return None
    return tables


def _configure(conn: psycopg.Connection[Any]) -> None:
    """Each pooled connection reads ``json`` as the text stored (exactly as the collector wrote it)."""
    conn.adapters.register_loader("json", TextLoader)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
