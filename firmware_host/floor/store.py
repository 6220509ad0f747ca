"""The floor's store: each table's feed messages, idempotent by ``(table, seq)``, on SQLite (the
embedded default) or PostgreSQL.

:func:`open_store` finds the engine by name, as the wiring finds device backends: the scheme of
``--db`` (:data:`ENGINES`; a path without one is a SQLite file,
:class:`~firmware_host.floor.store_sqlite.SqliteStore`, also :class:`FloorStore`; a
``postgresql://`` DSN is a PostgreSQL database,
:class:`~firmware_host.floor.store_postgres.PostgresStore`, imported only then, so a plain run
never imports psycopg); an unknown scheme is an error naming it. Both run the same SQL
(:mod:`~firmware_host.floor.store_sql`, placeholders ``$1``, ``$2``...) with each engine's own
fragments and schema (:mod:`~firmware_host.floor.sql_sqlite`, :mod:`~firmware_host.floor.sql_postgres`),
migrated by version number (:mod:`~firmware_host.floor.migrations`), and give the same
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

import importlib
import os
import re
from pathlib import Path

from firmware_host.floor.model import FloorError, Outcome, TableStatus, Unreadable
from firmware_host.floor.store_sql import BREAK, REFUSED_KEPT_PER_TABLE, REFUSED_KEPT_TOTAL, REPAIR, SqlStore
from firmware_host.floor.store_sqlite import SqliteStore

__all__ = [
    "open_store",
    "engine",
    "engine_name",
    "ENGINES",
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
#: Every store engine by the scheme of the ``--db`` that names it: ``"module:class"``, imported when
#: first used (so a floor on SQLite never imports psycopg). ``--db`` without a scheme is a SQLite file.
ENGINES: dict[str, str] = {
    "sqlite": "firmware_host.floor.store_sqlite:SqliteStore",
    "postgresql": "firmware_host.floor.store_postgres:PostgresStore",
    "postgres": "firmware_host.floor.store_postgres:PostgresStore",  # libpq's other name
}
#: A URL's scheme: ``name://`` at the start.
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")


def engine_name(db: str | os.PathLike[str]) -> str:
    """The scheme ``--db`` names its engine by (``postgresql://...``: ``postgresql``); a path: ``sqlite``."""
    found = _SCHEME.match(db) if isinstance(db, str) else None
    return found.group(1).lower() if found else "sqlite"


def is_dsn(db: str | os.PathLike[str]) -> bool:
    """Whether ``--db`` names a database server by a URL rather than a SQLite file."""
    return engine_name(db) != "sqlite"


def engine(name: str) -> type[SqlStore]:
    """The store class registered as ``name`` in :data:`ENGINES`, its module imported now.

    :raises FloorError: for a name no engine is registered under.
    """
    spec = ENGINES.get(name)
    if spec is None:
        known = ", ".join(f"{scheme}://" for scheme in ENGINES if scheme != "sqlite")
        raise FloorError(f"floor database: no store engine {name!r} (known: {known}, or a SQLite file's path)")
    module, _, cls = spec.partition(":")
    return getattr(importlib.import_module(module), cls)  # type: ignore[no-any-return]


def open_store(db: str | os.PathLike[str], *, password_file: Path | None = None, read_only: bool = False) -> SqlStore:
    """The store ``db`` names: a URL whose scheme names an engine (:data:`ENGINES`; PostgreSQL's
    password in ``password_file``), or a SQLite path.

    :raises FloorError: an unknown engine; it cannot be opened (a password in the DSN, a password
        file for a SQLite path, an unreachable server, a missing file...).
    """
    return engine(engine_name(db)).open(db, password_file=password_file, read_only=read_only)
