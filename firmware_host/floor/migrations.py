"""The floor store's schema, migrated by version number, the same on SQLite and PostgreSQL.

:data:`MIGRATIONS` is the ordered list of steps; each step is a version number, what it does,
and its SQL for each engine (``sqlite``, ``postgresql``). A store records every applied step
in ``schema_version`` and, when opened to write, applies the steps above the newest recorded
one, each in its own transaction (:func:`pending`). A database older than ``schema_version``
(SQLite files of the first two formats) is recognised by its tables
(:meth:`~firmware_host.floor.store_sqlite.SqliteStore` does that) and migrated from there.

PostgreSQL's columns are typed (``BIGINT``, ``DOUBLE PRECISION``, ``json`` checked to be an
object), so a value of the wrong type cannot be stored there at all; SQLite's are not, and its
reader checks each value (:class:`~firmware_host.floor.model.Unreadable`).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any

from firmware_host.floor.model import FloorError

__all__ = ["Migration", "MIGRATIONS", "LATEST", "pending", "migrate", "version", "check_version", "VERSION_TABLE"]

log = logging.getLogger("tablehost.floor")

#: The table of applied steps: one row per version.
VERSION_TABLE = {
    "sqlite": "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL, "
    "description TEXT NOT NULL)",
    "postgresql": "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at DOUBLE "
    "PRECISION NOT NULL, description TEXT NOT NULL)",
}


@dataclasses.dataclass(frozen=True)
class Migration:
    """One step: ``version`` (1, 2, ...), what it does, and its statements per engine."""

    version: int
    description: str
    sqlite: tuple[str, ...]
    postgresql: tuple[str, ...]

    def statements(self, engine: str) -> tuple[str, ...]:
        """The step's SQL for ``engine`` (``sqlite`` or ``postgresql``)."""
        return self.sqlite if engine == "sqlite" else self.postgresql


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "messages, tables, problems",
        sqlite=(
            """CREATE TABLE IF NOT EXISTS messages (
                table_id TEXT NOT NULL, seq INTEGER NOT NULL, journal_seq INTEGER NOT NULL,
                journal_hash TEXT NOT NULL, at REAL, round INTEGER, type TEXT NOT NULL, data TEXT NOT NULL,
                prev_hash TEXT NOT NULL, hash TEXT NOT NULL, received_at REAL NOT NULL,
                PRIMARY KEY (table_id, seq)) WITHOUT ROWID""",
            """CREATE TABLE IF NOT EXISTS tables (
                table_id TEXT PRIMARY KEY, status TEXT, last_seen REAL, duplicates INTEGER NOT NULL DEFAULT 0)""",
            """CREATE TABLE IF NOT EXISTS problems (
                id INTEGER PRIMARY KEY, table_id TEXT, seq INTEGER, kind TEXT NOT NULL, detail TEXT NOT NULL,
                topic TEXT, at REAL NOT NULL)""",
        ),
        postgresql=(
            """CREATE TABLE messages (
                table_id TEXT NOT NULL, seq BIGINT NOT NULL CHECK (seq > 0), journal_seq BIGINT NOT NULL,
                journal_hash TEXT NOT NULL, at DOUBLE PRECISION, round BIGINT, type TEXT NOT NULL,
                data JSON NOT NULL CHECK (json_typeof(data) = 'object'),
                prev_hash TEXT NOT NULL, hash TEXT NOT NULL, received_at DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (table_id, seq))""",
            """CREATE TABLE tables (
                table_id TEXT PRIMARY KEY, status TEXT, last_seen DOUBLE PRECISION,
                duplicates BIGINT NOT NULL DEFAULT 0)""",
            """CREATE TABLE problems (
                id BIGSERIAL PRIMARY KEY, table_id TEXT, seq BIGINT, kind TEXT NOT NULL, detail TEXT NOT NULL,
                topic TEXT, at DOUBLE PRECISION NOT NULL)""",
            "CREATE INDEX problems_table ON problems (table_id)",
        ),
    ),
    Migration(
        2,
        "refusals (bounded) and signatures",
        sqlite=(
            """CREATE TABLE IF NOT EXISTS refused (
                id INTEGER PRIMARY KEY, table_id TEXT NOT NULL, topic TEXT NOT NULL, seq INTEGER,
                reason TEXT NOT NULL, excerpt TEXT NOT NULL, size INTEGER NOT NULL, at REAL NOT NULL)""",
            """CREATE TABLE IF NOT EXISTS refused_counts (
                table_id TEXT PRIMARY KEY, count INTEGER NOT NULL, last_reason TEXT, last_at REAL)""",
            "ALTER TABLE messages ADD COLUMN key_id TEXT",
            "ALTER TABLE messages ADD COLUMN sig TEXT",
        ),
        postgresql=(
            """CREATE TABLE refused (
                id BIGSERIAL PRIMARY KEY, table_id TEXT NOT NULL, topic TEXT NOT NULL, seq BIGINT,
                reason TEXT NOT NULL, excerpt TEXT NOT NULL, size BIGINT NOT NULL, at DOUBLE PRECISION NOT NULL)""",
            """CREATE TABLE refused_counts (
                table_id TEXT PRIMARY KEY, count BIGINT NOT NULL, last_reason TEXT, last_at DOUBLE PRECISION)""",
            "ALTER TABLE messages ADD COLUMN key_id TEXT",
            "ALTER TABLE messages ADD COLUMN sig TEXT",
        ),
    ),
    Migration(
        3,
        "refusals kept, counted per table in the store (several collectors share the bound)",
        sqlite=(
            "ALTER TABLE refused_counts ADD COLUMN kept INTEGER NOT NULL DEFAULT 0",
            "UPDATE refused_counts SET kept = (SELECT count(*) FROM refused WHERE refused.table_id = "
            "refused_counts.table_id)",
            "CREATE INDEX IF NOT EXISTS refused_table ON refused (table_id, id)",
        ),
        postgresql=(
            "ALTER TABLE refused_counts ADD COLUMN kept BIGINT NOT NULL DEFAULT 0",
            "CREATE INDEX refused_table ON refused (table_id, id)",
        ),
    ),
    Migration(
        4,
        "the floor's acknowledgement: seqs settled (refused as malformed though signed by their "
        "table), and where each table's acknowledged prefix was last seen to reach",
        sqlite=(
            """CREATE TABLE IF NOT EXISTS settled (
                table_id TEXT NOT NULL, seq INTEGER NOT NULL, hash TEXT NOT NULL, reason TEXT NOT NULL,
                at REAL NOT NULL, PRIMARY KEY (table_id, seq)) WITHOUT ROWID""",
            "ALTER TABLE tables ADD COLUMN ack_hint INTEGER NOT NULL DEFAULT 0",
        ),
        postgresql=(
            """CREATE TABLE settled (
                table_id TEXT NOT NULL, seq BIGINT NOT NULL, hash TEXT NOT NULL, reason TEXT NOT NULL,
                at DOUBLE PRECISION NOT NULL, PRIMARY KEY (table_id, seq))""",
            "ALTER TABLE tables ADD COLUMN ack_hint BIGINT NOT NULL DEFAULT 0",
        ),
    ),
    Migration(
        5,
        "a round's messages by index; the dashboard's views, one row per user, view and minute",
        sqlite=(
            "CREATE INDEX IF NOT EXISTS messages_round ON messages (table_id, round)",
            """CREATE TABLE IF NOT EXISTS views (
                minute INTEGER NOT NULL, user_name TEXT NOT NULL, role TEXT NOT NULL, what TEXT NOT NULL,
                count INTEGER NOT NULL, PRIMARY KEY (minute, user_name, what))""",
            "CREATE INDEX IF NOT EXISTS views_user ON views (user_name, minute)",
        ),
        postgresql=(
            "CREATE INDEX messages_round ON messages (table_id, round)",
            """CREATE TABLE views (
                minute BIGINT NOT NULL, user_name TEXT NOT NULL, role TEXT NOT NULL, what TEXT NOT NULL,
                count BIGINT NOT NULL CHECK (count > 0), PRIMARY KEY (minute, user_name, what))""",
            "CREATE INDEX views_user ON views (user_name, minute)",
        ),
    ),
    Migration(
        6,
        "the acknowledged prefix is one chain (each prev_hash the hash before it): the hints "
        "remembered by the earlier rule, which counted any stored seq, are forgotten",
        sqlite=("UPDATE tables SET ack_hint = 0",),
        postgresql=("UPDATE tables SET ack_hint = 0",),
    ),
)
#: The schema's newest version.
LATEST = MIGRATIONS[-1].version


def pending(current: int) -> list[Migration]:
    """The steps above version ``current``, in order."""
    return [step for step in MIGRATIONS if step.version > current]


def version(db: Any) -> int:
    """The newest version recorded in ``schema_version`` (0: none)."""
    (found,) = db.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
    return int(found)


def migrate(
    db: Any, engine: str, current: int, begin: Callable[[], None], rollback: Callable[[], None], name: str
) -> None:
    """Apply the steps above version ``current`` on ``db`` (``execute`` with ``?`` placeholders),
    each in a transaction that ``begin`` opens and that records it in ``schema_version``; a step
    another process applied meanwhile is skipped. ``rollback`` ends a transaction that fails
    (without raising over the error that failed it)."""
    for step in pending(current):
        begin()
        try:
            if version(db) >= step.version:
                db.execute("ROLLBACK")
                continue
            for statement in step.statements(engine):
                db.execute(statement)
            db.execute(
                "INSERT INTO schema_version (version, applied_at, description) VALUES (?, ?, ?)",
                (step.version, time.time(), step.description),
            )
            db.execute("COMMIT")
        except BaseException:
            rollback()
            raise
        log.info("floor: database %s migrated to schema version %d (%s)", name, step.version, step.description)


def check_version(found: int, name: str) -> None:
    """Refuse a database of no floor schema, or one newer than this software's."""
    if found > LATEST:
        raise FloorError(
            f"floor database {name}: schema version {found} is newer than this tablehost's "
            f"({LATEST}): upgrade tablehost"
        )
    if found == 0:
        raise FloorError(f"floor database {name}: holds no floor (no schema_version)")
