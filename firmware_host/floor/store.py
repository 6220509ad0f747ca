"""The floor's store: each table's feed messages, idempotent by ``(table, seq)``, on SQLite (the
embedded default) or PostgreSQL.

:func:`open_store` chooses by ``--db``: a path is a SQLite file
(:class:`~firmware_host.floor.store_sqlite.SqliteStore`, also :class:`FloorStore`), a
``postgresql://`` DSN is a PostgreSQL database
(:class:`~firmware_host.floor.store_postgres.PostgresStore`, imported only then, so a plain run
never imports psycopg). Both run the same SQL (:mod:`~firmware_host.floor.store_sql`) on one
schema migrated by version number (:mod:`~firmware_host.floor.migrations`), and give the same
answers to every read: ``floor status``, ``floor export`` and ``journal verify --floor`` print
the same on either.

The read API (what the floor dashboard uses; see docs/feed.md, "The store's read API"):
:meth:`~SqlStore.tables`, :meth:`~SqlStore.status` (a
:class:`~firmware_host.floor.model.TableStatus`), :meth:`~SqlStore.read` and
:meth:`~SqlStore.last_messages` (messages as published, or
:class:`~firmware_host.floor.model.Unreadable`), :meth:`~SqlStore.export` (a table's rounds or
shoes as ``journal export`` prints them), :meth:`~SqlStore.refusals`,
:meth:`~SqlStore.refused_unknown` and :meth:`~SqlStore.problems`.
"""

from __future__ import annotations

import os
from pathlib import Path

from firmware_host.floor.model import FloorError, Outcome, TableStatus, Unreadable
from firmware_host.floor.store_sql import BREAK, REFUSED_KEPT_PER_TABLE, REFUSED_KEPT_TOTAL, REPAIR, SqlStore
from firmware_host.floor.store_sqlite import SqliteStore

__all__ = [
    "open_store",
    "is_dsn",
    "SqlStore",
    "SqliteStore",
    "FloorStore",
    "FloorError",
    "TableStatus",
    "Outcome",
    "Unreadable",
    "REFUSED_KEPT_PER_TABLE",
    "REFUSED_KEPT_TOTAL",
    "BREAK",
    "REPAIR",
]

#: The embedded store, by its first name.
FloorStore = SqliteStore
#: The DSN schemes of PostgreSQL (libpq URLs).
DSN_SCHEMES = ("postgresql://", "postgres://")


def is_dsn(db: str | os.PathLike[str]) -> bool:
    """Whether ``--db`` names a PostgreSQL database (a libpq URL) rather than a SQLite file."""
    return isinstance(db, str) and db.startswith(DSN_SCHEMES)


def open_store(db: str | os.PathLike[str], *, password_file: Path | None = None, read_only: bool = False) -> SqlStore:
    """The store ``db`` names: a ``postgresql://`` DSN (its password in ``password_file``), or a SQLite path.

    :raises FloorError: it cannot be opened (a password in the DSN, a password file for a
        SQLite path, an unreachable server, a missing file...).
    """
    if is_dsn(db):
        from firmware_host.floor.store_postgres import PostgresStore

        return PostgresStore(str(db), password_file=password_file, read_only=read_only)
    if password_file is not None:
        raise FloorError(f"floor database {db}: a password file is for a postgresql:// DSN, not a SQLite file")
    return SqliteStore(db, read_only=read_only)
