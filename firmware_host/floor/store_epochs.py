"""The floor store's epoch (docs/feed.md, "The store's epoch"): which life of the store the
floor's acknowledgements speak for.

The store takes an epoch when it is made (schema step 7), and a newer one each time a collector
finds it holds less than an acknowledgement of its current epoch said (it was restored from an
older backup, or lost rows), or finds an acknowledgement of an epoch newer than its own (it was
restored from before an epoch began). An epoch is the wall-clock time it began, in microseconds
since the Unix epoch, and never less than one above the epoch it replaces: a store restored from a
backup is always restored after the backup was made, so the epoch it then begins is newer than any
a table may hold. Every epoch begun is kept in ``epochs`` with why (the store's own history of its
restores). The floor's acknowledgement carries the epoch, signed; a table moves its cursor back
only to a newer epoch's, and refuses an older one's (:mod:`firmware_host.feed.inflight`).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from firmware_host.floor.model import FloorError
from firmware_host.floor.store_views import EngineParts

__all__ = ["EpochRows", "EPOCH_LOCK"]

log = logging.getLogger("tablehost.floor")

#: The name the writers of ``epochs`` serialise on (no table id can be it: ids have no ``#``).
EPOCH_LOCK = "#epoch"
_CURRENT = "SELECT coalesce(max(epoch), 0) FROM epochs"


class EpochRows(EngineParts):
    """The store's epoch, read and begun, on either engine (a mix-in of the stores)."""

    def _rollback(self, db: Any) -> None:
        raise NotImplementedError

    def epoch(self) -> int:
        """The store's current epoch (the newest begun).

        :raises FloorError: the database cannot be read.
        """
        try:
            with self._db() as db:
                (found,) = db.execute(_CURRENT).fetchone()
        except self._ERROR as exc:
            raise FloorError(f"floor database {self.name}: cannot read its epoch: {exc}") from exc
        return int(found)

    def new_epoch(self, above: int, why: str) -> int:
        """Begin an epoch newer than ``above``, unless the store's is already newer (another
        collector began it first): the store's epoch after.

        :raises FloorError: the database cannot be written.
        """
        now = time.time()
        try:
            with self._db() as db:
                self._begin(db, [EPOCH_LOCK])
                try:
                    current = int(db.execute(_CURRENT).fetchone()[0])
                    made = current if current > above else max(int(now * 1_000_000), above + 1, current + 1)
                    if made != current:
                        db.execute("INSERT INTO epochs (epoch, made_at, why) VALUES ($1, $2, $3)", (made, now, why))
                    db.execute("COMMIT")
                except BaseException:
                    self._rollback(db)
                    raise
        except self._ERROR as exc:
            raise FloorError(f"floor database {self.name}: cannot begin an epoch: {exc}") from exc
        if made != current:
            log.warning("floor: database %s begins epoch %d (was %d): %s", self.name, made, current, why)
        return made

    def holds(self, table: str, seq: int, hash: str) -> bool:
        """Whether the store holds message ``seq`` of ``table`` with ``hash`` (stored, or settled).

        :raises FloorError: the database cannot be read.
        """
        try:
            with self._db() as db:
                found = db.execute(
                    "SELECT 1 FROM messages WHERE table_id = $1 AND seq = $2 AND hash = $3 UNION ALL "
                    "SELECT 1 FROM settled WHERE table_id = $1 AND seq = $2 AND hash = $3",
                    (table, seq, hash),
                ).fetchone()
        except self._ERROR as exc:
            raise FloorError(f"floor database {self.name}: cannot read: {exc}") from exc
        return found is not None

    def epochs(self) -> list[dict[str, Any]]:
        """Every epoch begun, oldest first: ``epoch, made_at, why``."""
        try:
            with self._db() as db:
                rows = db.execute("SELECT epoch, made_at, why FROM epochs ORDER BY epoch").fetchall()
        except self._ERROR as exc:
            raise FloorError(f"floor database {self.name}: cannot read its epochs: {exc}") from exc
        return [{"epoch": int(e), "made_at": float(m), "why": str(w)} for e, m, w in rows]
