"""The floor's embedded store: one SQLite file (WAL, ``synchronous=FULL``), the default.

One process writes it (the collector; a second collector would wait on SQLite's lock, so
redundant collectors use PostgreSQL: :mod:`~firmware_host.floor.store_postgres`); any number
read it, read-only. A file of the formats before ``schema_version`` (the first, without the
refusal tables; the second, with them) is recognised by its tables and migrated when opened
to write; opened read-only it is read as it is.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from firmware_host.floor import migrations, sql_sqlite
from firmware_host.floor.model import FloorError
from firmware_host.floor.store_sql import SqlStore

__all__ = ["SqliteStore"]


class SqliteStore(SqlStore):
    """The floor's database at ``path`` (created if missing, unless ``read_only``)."""

    engine = "sqlite"
    _ERROR = (sqlite3.Error,)
    _VALUE_ERRORS = (sqlite3.IntegrityError, sqlite3.InterfaceError, sqlite3.DataError)
    _INTEGER_SEQ = sql_sqlite.INTEGER_SEQ
    _UNREADABLE = sql_sqlite.UNREADABLE
    _TEXTS = sql_sqlite.TEXTS
    _PAIRS = sql_sqlite.PAIRS
    _STEPS = sql_sqlite.STEPS

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        super().__init__(str(path))
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
                self._conn.execute(sql_sqlite.VERSION_TABLE)
                self._migrate(_Db(self._conn), self._current())
            version = self._current()
            if version == 0:
                raise FloorError(f"floor database {path}: not a floor database (no messages table)")
            migrations.check_version(version, self.name)
            self._conn.execute("SELECT count(*) FROM messages").fetchone()
            self._signed = "key_id" in self._columns_of("messages")
            # A database of the first format, opened read-only, has no refusal tables: none refused then.
            self._refusals = bool(self._columns_of("refused_counts"))
        except sqlite3.Error as exc:
            raise FloorError(f"floor database {path}: cannot open: {exc}") from exc

    @classmethod
    def open(
        cls, db: str | os.PathLike[str], *, password_file: Path | None = None, read_only: bool = False
    ) -> SqliteStore:
        """The SQLite file at ``db`` (a password file is refused: it is for a database server)."""
        if password_file is not None:
            raise FloorError(f"floor database {db}: a password file is for a postgresql:// DSN, not a SQLite file")
        return cls(db, read_only=read_only)

    def _columns_of(self, table: str) -> set[str]:
        return {row[1] for row in self._conn.execute(f"PRAGMA table_info({table})")}

    def _current(self) -> int:
        """The schema's version: recorded, or recognised by the tables of a file older than that."""
        if self._columns_of("schema_version"):
            recorded = migrations.version(self._conn)
            if recorded:
                return recorded
        if not self._columns_of("messages"):
            return 0
        return 2 if self._columns_of("refused_counts") else 1

    @contextlib.contextmanager
    def _db(self) -> Iterator[_Db]:
        yield _Db(self._conn)

    def _begin(self, db: Any, tables: list[str]) -> None:
        db.execute("BEGIN IMMEDIATE")  # SQLite's one writer at a time

    def _in_transaction(self, db: Any) -> bool:
        return bool(db.conn.in_transaction)

    def close(self) -> None:
        """Close the database."""
        self._conn.close()


class _Db:
    """The connection, binding the shared SQL's ``$1``, ``$2``... (SQLite's named parameters) by number."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, _numbered(args))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> sqlite3.Cursor:
        return self.conn.executemany(sql, [_numbered(row) for row in rows])


def _numbered(args: Sequence[Any]) -> dict[str, Any]:
    """``args`` by the names SQLite gives ``$1``, ``$2``...: ``"1"``, ``"2"``..."""
    return {str(n): value for n, value in enumerate(args, 1)}
