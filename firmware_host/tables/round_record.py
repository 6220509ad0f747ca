"""The ``round_result`` record of each game: its fields, and which of them each face may show.

Each game builds its record in one place, completed or void: Baccarat's
:func:`firmware_host.tables.baccarat.records.round_result`, Pai Gow's
:meth:`firmware_host.tables.paigow.round.RoundState.result`. Both begin with :func:`head`, and the
table's clock adds ``gaming_day`` (and ``clock``, when the round was dealt unsynchronised) to
every one (:meth:`firmware_host.tables.clock.TableClock.dated`). A field every round result
carries is one line in :func:`head` (which reads the table) and one in the journal's upgrade table
(:data:`firmware_host.host.upgrades.ADDED`), which lets the journals of earlier versions replay.

The faces read the fields by the names declared here (:data:`RECORDS`), never by a list of
their own: the dealer display and the player board (:mod:`firmware_host.display.view`) show a
round's :attr:`RecordFields.public` fields whatever its status, and its
:attr:`RecordFields.shown` fields only once it is completed (nothing early: a void Baccarat
round's record may list cards still face down, § 541.14(e)); the roads and the floor
dashboard's outcomes read :attr:`RecordFields.outcome`. This module imports no game, so the
faces read it without importing a controller.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol

__all__ = ["RecordFields", "RoundTable", "BACCARAT", "PAIGOW", "RECORDS", "head"]


class RoundTable(Protocol):
    """What :func:`head` reads of a table controller (:class:`~firmware_host.tables.base.TableController`)."""

    game: str
    table_id: str

    @property
    def current_round(self) -> int: ...


def head(table: RoundTable, status: str) -> dict[str, Any]:
    """What every game's ``round_result`` begins with: the number of ``table``'s round, its game
    and its ``status`` (``completed`` or ``void``)."""
    return {"round": table.current_round, "game": table.game, "status": status}


@dataclasses.dataclass(frozen=True)
class RecordFields:
    """One game's ``round_result`` fields.

    :param fields: every field its builder writes after :func:`head`'s.
    :param public: fields any face may show of any round, void or not.
    :param shown: fields the display and the player board show of a completed round only.
    :param outcome: the fields of a completed round's outcome that the roads read.
    """

    fields: tuple[str, ...]
    public: tuple[str, ...] = ("round", "status")
    shown: tuple[str, ...] = ()
    outcome: tuple[str, ...] = ()

    def public_of(self, record: dict[str, Any]) -> dict[str, Any]:
        """What any face may show of ``record``: its public fields, and its shown fields once completed."""
        names = self.public + (self.shown if record.get("status") == "completed" else ())
        return {name: record.get(name) for name in names}


#: A Baccarat round's hands, and its outcome as the roads read it (§ 541.12(a), § 631c.5(c)).
_HANDS = ("player", "banker", "player_total", "banker_total")
_OUTCOME = ("winner", "player_pair", "banker_pair", "natural")
#: A Baccarat round (§ 541.12): its cards as dealt, its hands and outcome (a void round's winner
#: null), its settlement lines and irregularities (§ 541.14).
BACCARAT = RecordFields(
    fields=("shoe", "cards", *_HANDS, *_OUTCOME, "lucky_six", "cards_used", "settlement", "irregularities"),
    shown=_HANDS + _OUTCOME,
    outcome=_OUTCOME,
)
#: A Pai Gow round: the dice (rolled in the open, § 535.8), the bank, the delivery and the
#: settlement; the export fields of ``journal export --rounds`` first.
PAIGOW = RecordFields(
    fields=("dice", "total", "bank_seat", "start", "style", "rolls", "cut", "plan", "settlement"),
    public=("round", "status", "dice", "total", "start", "bank_seat"),
)
#: Each game's record, by the ``game`` its records name.
RECORDS = {"baccarat": BACCARAT, "paigow": PAIGOW}
