"""The end of a Pai Gow round: the tiles entered and settled, exposed tiles, a void round.

:class:`Settlement` is the table's collaborator for the round's end: the ``tiles`` the dealer
enters after the hands are set are set the house way, compared and settled by
:func:`~.tiles_entry.settle_entered_tiles` (§ 535.10, § 535.11(n)-(r)), or the round is
settled by hand (``round_complete``); a dealt tile exposed is ruled by
:func:`~firmware_host.rules.paigow_tiles.exposed_tile` (§ 535.12(d), (e)), and the dealer may
void the round (e.g. § 535.12(c)). Whichever way it ends, the ``round_result`` is decided (see
:meth:`~.round.RoundState.result`), the player bank's rotation moves on and the next round opens.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.position import check_seat
from firmware_host.rules.paigow_tiles import TileHolder, exposed_tile
from firmware_host.tables.paigow.commands import flag
from firmware_host.tables.paigow.tiles_entry import settle_entered_tiles

if TYPE_CHECKING:
    from firmware_host.tables.paigow.controller import PaiGowTable

__all__ = ["Settlement"]

#: States after a valid roll in which a dealt tile can be exposed.
_DEALT = ["delivering", "closing", "hands"]


class Settlement:
    """The end of each round at ``table``: settled, completed by hand, or void.

    :param table: the table whose :attr:`~.controller.PaiGowTable.round` ends.
    """

    #: Not the table's state (:mod:`firmware_host.tables.state_tree`): the table it works for.
    NOT_STATE = ("table",)

    def __init__(self, table: PaiGowTable) -> None:
        self.table = table

    def tiles(self, args: Mapping[str, Any]) -> None:
        """``tiles``: the tiles at the table; house way, compare, settle (§ 535.10, § 535.11(n)-(r))."""
        table = self.table
        table.require_state("tiles", "hands")
        round_ = table.round
        entered = settle_entered_tiles(
            args,
            round_.playing,
            table.rules.tiles,
            bank=round_.bank,
            dealer_wager=round_.dealer_wager,
            void_seats=round_.void_seats,
        )
        for reset in entered.resets:
            table.alert_in_round("house-way-reset", f"{reset.text} (§ {reset.section})", "attention")
        if entered.dealer is not None:
            table.announce(
                "house_way", f"dealer's hands: {entered.dealer.setting.text}", setting=entered.dealer.setting.text
            )
        results = entered.settlement["results"]
        table.announce(
            "results",
            "; ".join(f"position {r['position']}: {r['outcome']}" for r in results),
            results=[{"position": r["position"], "outcome": r["outcome"]} for r in results],
        )
        self.finish("completed", entered.to_json())

    def round_complete(self, args: Mapping[str, Any]) -> None:
        """``round_complete``: the round is settled by hand without entering the tiles."""
        self.table.require_state("round_complete", "hands")
        self.finish("completed", None)

    def tile_exposed(self, args: Mapping[str, Any]) -> None:
        """§ 535.12(d), (e): a dealt tile was exposed."""
        table = self.table
        table.require_state("tile_exposed", *_DEALT)
        try:
            holder = TileHolder(str(args.get("holder")))
        except ValueError:
            holders = ", ".join(holder.value for holder in TileHolder)
            raise RulesError(f"holder {args.get('holder')!r}: one of {holders}") from None
        seat = args.get("seat")
        if holder is TileHolder.PLAYER:
            seat = check_seat(seat, "exposed tile seat")
            if seat == table.round.bank_seat:
                holder = TileHolder.BANK
            elif seat not in table.round.wagers:
                holder = TileHolder.UNWAGERED  # § 535.12(e): a position without a wager
        ruling = exposed_tile(
            holder,
            table.rules.tiles,
            position=seat if holder is TileHolder.PLAYER else None,
            elects_void=flag(args, "void"),
        )
        table.alert_in_round("tile-exposed", f"{ruling.text} (§ {ruling.section})", "attention")
        if ruling.void_round:
            self.finish("void", None)
        else:
            table.round.void_seats.update(ruling.void_positions)

    def void_round(self, args: Mapping[str, Any]) -> None:
        """``void_round``: the dealer voids the round; every wager is returned."""
        table = self.table
        table.require_state("void_round", *table.ROUND_STATES)
        reason = str(args.get("reason", "voided by the dealer"))
        table.alert_in_round(
            "round-void", f"round {table.current_round} void: {reason}; all wagers are returned", "attention"
        )
        self.finish("void", None)

    def finish(self, status: str, settlement: dict[str, Any] | None) -> None:
        """Decide the ``round_result``, move the bank rotation on, open the next round."""
        table = self.table
        round_ = table.round
        number = table.current_round
        data = round_.result(table, status, settlement)
        table.decide("round_result", data, number)
        table.rounds_finished += 1
        table.player_bank.round_finished(round_)
        table.last_result = {
            "round": number,
            "status": status,
            "total": data["total"],
            "start": data["start"],
            "bank_seat": data["bank_seat"],
        }
        table.round_over()
