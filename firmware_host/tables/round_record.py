"""The ``round_result`` record of each game: its fields, and which of them each face may show.

Each game builds its record in one place, completed or void: Baccarat's
:func:`firmware_host.tables.baccarat.records.round_result`, Pai Gow's
:meth:`firmware_host.tables.paigow.round.RoundState.result`. Both begin with :func:`head`, and the
table's clock adds ``gaming_day`` (and ``clock``, when the round was dealt unsynchronised) to
every one (:meth:`firmware_host.tables.clock.TableClock.dated`). A field every round result
carries is one line in :func:`head` and one in the journal's upgrade table
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
from typing import Any

__all__ = ["RecordFields", "BACCARAT", "PAIGOW", "RECORDS", "head", "HEAD", "STAMPED"]


def head(number: int, game: str, status: str) -> dict[str, Any]:
    """What every game's ``round_result`` begins with: the round's number, the game and its
    ``status`` (``completed`` or ``void``)."""
    return {"round": number, "game": game, "status": status}


#: The fields :func:`head` writes.
HEAD = tuple(head(0, "", ""))
#: The fields the table's clock adds to every record
#: (:meth:`~firmware_host.tables.clock.TableClock.dated`; ``clock`` only when unsynchronised).
STAMPED = ("gaming_day", "clock")


@dataclasses.dataclass(frozen=True)
class RecordFields:
    """One game's ``round_result`` fields.

    :param fields: every field its builder writes (after :data:`HEAD`), in order.
    :param public: fields any face may show of any round, void or not.
    :param shown: fields the display and the player board show of a completed round only.
    :param outcome: the fields of a completed round's outcome that the roads read.
    """

    fields: tuple[str, ...]
    public: tuple[str, ...] = ("round", "status")
    shown: tuple[str, ...] = ()
    outcome: tuple[str, ...] = ()

    @property
    def all(self) -> tuple[str, ...]:
        """Every field of a record as its builder writes it: :data:`HEAD`, then :attr:`fields`."""
        return HEAD + self.fields

    def public_of(self, record: dict[str, Any]) -> dict[str, Any]:
        """What any face may show of ``record``: its public fields, and its shown fields once completed."""
        names = self.public + (self.shown if record.get("status") == "completed" else ())
        return {name: record.get(name) for name in names}


#: A Baccarat round (§ 541.12): its cards as dealt, its hands and outcome (a void round's
#: winner null), its settlement lines and irregularities (§ 541.14).
BACCARAT = RecordFields(
    fields=(
        "shoe",
        "cards",
        "player",
        "banker",
        "player_total",
        "banker_total",
        "winner",
        "natural",
        "player_pair",
        "banker_pair",
        "lucky_six",
        "cards_used",
        "settlement",
        "irregularities",
    ),
    shown=("player", "banker", "winner", "player_total", "banker_total", "natural", "player_pair", "banker_pair"),
    outcome=("winner", "player_pair", "banker_pair", "natural"),
)
#: A Pai Gow round: the dice (rolled in the open, § 535.8), the bank, the delivery and the
#: settlement; the export fields of ``journal export --rounds`` first.
PAIGOW = RecordFields(
    fields=("dice", "total", "bank_seat", "start", "style", "rolls", "cut", "plan", "settlement"),
    public=("round", "status", "dice", "total", "start", "bank_seat"),
)
#: Each game's record, by the ``game`` its records name.
RECORDS = {"baccarat": BACCARAT, "paigow": PAIGOW}
