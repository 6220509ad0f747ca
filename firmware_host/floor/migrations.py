"""The floor store's schema, migrated by version number, the same on every engine.

:data:`MIGRATIONS` is the ordered list of steps; each step is a version number and what it does;
each engine's module holds its SQL for every step (``STEPS`` of
:mod:`~firmware_host.floor.sql_sqlite` and :mod:`~firmware_host.floor.sql_postgres`; a test checks
that each has every step). A store records every applied step
in ``schema_version`` and, when opened to write, applies the steps above the newest recorded
one, each in its own transaction (:func:`pending`). A database older than ``schema_version``
(SQLite files of the first two formats) is recognised by its tables
(:meth:`~firmware_host.floor.store_sqlite.SqliteStore` does that) and migrated from there.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from firmware_host.floor.model import FloorError

__all__ = ["Migration", "MIGRATIONS", "LATEST", "pending", "migrate", "version", "check_version"]

log = logging.getLogger("tablehost.floor")


@dataclasses.dataclass(frozen=True)
class Migration:
    """One step: ``version`` (1, 2, ...) and what it does; its statements are each engine's
    (``STEPS`` of :mod:`~firmware_host.floor.sql_sqlite`, :mod:`~firmware_host.floor.sql_postgres`)."""

    version: int
    description: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "messages, tables, problems"),
    Migration(2, "refusals (bounded) and signatures"),
    Migration(3, "refusals kept, counted per table in the store (several collectors share the bound)"),
    Migration(
        4,
        "the floor's acknowledgement: seqs settled (refused as malformed though signed by their table), and where each table's acknowledged prefix was last seen to reach",
    ),
    Migration(5, "a round's messages by index; the dashboard's views, one row per user, view and minute"),
    Migration(
        6,
        "the acknowledged prefix is one chain (each prev_hash the hash before it): the hints remembered by the earlier rule, which counted any stored seq, are forgotten",
    ),
    Migration(
        7, "the store's epoch, signed into the floor's acknowledgement (a store restored behind begins a new one)"
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
    db: Any,
    steps: Mapping[int, tuple[str, ...]],
    current: int,
    begin: Callable[[], None],
    rollback: Callable[[], None],
    name: str,
) -> None:
    """Apply the steps above version ``current`` on ``db``, each step's statements from the engine's
    ``steps``, each in a transaction that ``begin`` opens and that records it in ``schema_version``;
    a step another process applied meanwhile is skipped. ``rollback`` ends a transaction that fails
    (without raising over the error that failed it)."""
    for step in pending(current):
        begin()
        try:
            if version(db) >= step.version:
                db.execute("ROLLBACK")
                continue
            for statement in steps[step.version]:
                db.execute(statement)
            db.execute(
                "INSERT INTO schema_version (version, applied_at, description) VALUES ($1, $2, $3)",
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
