"""The floor dashboard's view log in the floor's store: one row per user, view and minute.

Every view of the dashboard is kept here, durably (issue 29, N8): not in a log line, which a
log level can silence, nor in memory, which a restart loses. A row is ``(minute, user_name,
role, what, count)``: the minute (Unix seconds // 60), the named user, their role, what they
viewed (``map``, ``table BAC-01``, ``record BAC-01 7``) and how many times in that minute, so
the table grows by at most one row per user, view and minute however many requests come
(:class:`~firmware_host.floor.dashboard.views.ViewLog` also bounds the kinds per user and
minute). Rows are added in batches by an upsert that sums the counts, on SQLite and
PostgreSQL alike (``ON CONFLICT ... DO UPDATE``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any, ClassVar

from firmware_host.floor.model import FloorError

__all__ = ["ViewRows", "VIEW_COLUMNS", "EngineParts"]

#: A view row's columns, as :meth:`ViewRows.views` gives them.
VIEW_COLUMNS = ("minute", "user", "role", "what", "count")
_UPSERT = (
    "INSERT INTO views (minute, user_name, role, what, count) VALUES ($1, $2, $3, $4, $5) "
    "ON CONFLICT (minute, user_name, what) DO UPDATE SET count = views.count + excluded.count"
)


class EngineParts:
    """What a mix-in of the stores uses of its store: its name, the engine's error, a connection
    and a write transaction's beginning (:class:`~firmware_host.floor.store_sql.SqlStore` has them)."""

    name: str
    _ERROR: ClassVar[tuple[type[BaseException], ...]]

    def _db(self) -> contextlib.AbstractContextManager[Any]:
        raise NotImplementedError

    def _begin(self, db: Any, tables: list[str]) -> None:
        raise NotImplementedError


class ViewRows(EngineParts):
    """The view log's writes and reads, for a store on either engine (a mix-in of the stores)."""

    def add_views(self, rows: Iterable[tuple[int, str, str, str, int]]) -> None:
        """Add ``(minute, user, role, what, count)`` rows in one transaction (counts summed).

        :raises FloorError: the database cannot be written (nothing of the batch is kept).
        """
        rows = list(rows)
        if not rows:
            return
        try:
            with self._db() as db:
                db.execute("BEGIN")
                try:
                    db.executemany(_UPSERT, rows)
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
        except self._ERROR as exc:
            raise FloorError(f"floor database {self.name}: cannot keep the views: {exc}") from exc

    def views(self, user: str | None = None, since: int = 0, limit: int = 1000) -> list[dict[str, Any]]:
        """The view rows from minute ``since`` on (of one ``user``, or all), newest first, at most ``limit``."""
        where, args = ("AND user_name = $2", [since, user]) if user is not None else ("", [since])
        try:
            with self._db() as db:
                rows = db.execute(
                    "SELECT minute, user_name, role, what, count FROM views WHERE minute >= $1 "
                    f"{where} ORDER BY minute DESC, user_name, what LIMIT ${len(args) + 1}",
                    (*args, limit),
                ).fetchall()
        except self._ERROR as exc:
            raise FloorError(f"floor database {self.name}: cannot read the views: {exc}") from exc
        return [dict(zip(VIEW_COLUMNS, row)) for row in rows]
