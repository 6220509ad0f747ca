"""Round numbers after a salvage: a round number names one round (§ 541.12(c), § 535.10(l)), so the
rounds a salvage restored or lost keep theirs, and the table goes on past them
(:class:`~firmware_host.tables.events.RoundsLost`; docs/recovery.md, "Salvage").

A ``rounds_lost`` decision says which numbers the journal holds no round of, so a report shows
the gap, and an alert tells the dealer and the floor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware_host.tables.decisions import ROUNDS_LOST, ROUNDS_LOST_ALERT
from firmware_host.tables.events import RoundsLost

if TYPE_CHECKING:
    from firmware_host.tables.base import TableController

__all__ = ["rounds_lost"]


def rounds_lost(table: TableController, event: RoundsLost) -> None:
    """Number the table's next round after ``event.highest``, when that is ahead of it: decide
    ``rounds_lost`` and an alert naming the numbers skipped. Only between rounds (a salvage keeps
    the journal up to such a moment): an open round would change its number half-way, so it keeps
    it, and the alert says so."""
    first = table.current_round
    if event.highest < first:
        return
    if not table.quiet:
        table.alert(
            ROUNDS_LOST_ALERT,
            f"rounds up to {event.highest} were played but are not in this journal, and round {first} is "
            "open: it keeps its number; void it and close the shoe",
            "warning",
        )
        return
    table.rounds_finished = event.highest
    table.decide(ROUNDS_LOST, {"first": first, "last": event.highest, "next": table.current_round})
    table.alert(
        ROUNDS_LOST_ALERT,
        f"rounds {first} to {event.highest} are not in this journal as played (a salvage restored or lost "
        f"them): the next round is round {table.current_round}",
    )
