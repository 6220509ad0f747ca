"""The wagers and the player bank at a Pai Gow table (§ 535.7, § 535.11).

:class:`PlayerBank` is the table's collaborator that takes the wagers before no more bets
(§ 535.7), offers the bank in turn after it (§ 535.11(b)-(d)), applies the player who accepts
it (or the dealer banking, § 535.11(c)-(h)), and moves the bank's rotation on after every round
and back to its start at a new game (§ 535.6, § 535.11(b)). The rotation is a
:class:`~firmware_host.rules.paigow_dice.bank.BankState`, rebuilt (like everything at the table)
by replaying the journal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from firmware_host.errors import RulesError
from firmware_host.rules.paigow_dice.bank import (
    BankState,
    after_round,
    bank_offer_order,
    check_bank_areas,
    new_game,
    take_bank,
)
from firmware_host.rules.paigow_dice.position import SEATS, check_seat
from firmware_host.rules.paigow_tiles.bank_settlement import dealer_wager_against_bank
from firmware_host.tables.events import WagerPlaced
from firmware_host.tables.paigow.commands import flag, seats
from firmware_host.tables.paigow.dice_set import clock_text
from firmware_host.tables.paigow.round import RoundState

if TYPE_CHECKING:
    from firmware_host.tables.paigow.controller import PaiGowTable

__all__ = ["PlayerBank", "WAGER_KIND"]

#: The one wager of the game (``WagerPlaced.kind``): the betting area's wager against the
#: dealer or the player bank (§ 535.7, § 535.10).
WAGER_KIND = "paigow"


class PlayerBank:
    """The wagers at ``table`` and who banks each round (§ 535.7, § 535.11).

    :param table: the table whose :attr:`~.controller.PaiGowTable.round` takes the wagers and the bank.
    """

    #: Not the table's state (:mod:`firmware_host.tables.state_tree`): the table it works for.
    NOT_STATE = ("table",)

    def __init__(self, table: PaiGowTable) -> None:
        self.table = table
        #: Who may be offered the bank next, and in what order (§ 535.11(b)-(d)).
        self.rotation: BankState = new_game()
        #: Each seat's wager in the last round without a player bank (§ 535.11(h)).
        self.last_wagers_against_dealer: dict[int, int] = {}
        table.register(WagerPlaced, self.on_wager)

    # -- the wagers ---------------------------------------------------------------------
    def on_wager(self, event: WagerPlaced) -> None:
        """§ 535.7: a wager is made or increased on a betting area before no more bets."""
        table = self.table
        seat = check_seat(event.seat, "wager seat")
        if event.kind != WAGER_KIND:
            raise RulesError(f"wager kind {event.kind!r}: Pai Gow has one wager, {WAGER_KIND!r}")
        if isinstance(event.amount, bool) or not isinstance(event.amount, int) or event.amount <= 0:
            raise RulesError(f"wager amount {event.amount!r}: a whole number of cents over 0")
        if table.state != "betting":
            raise RulesError("no wager may be made or increased after no more bets (§ 535.7(c))")
        if table.paused:
            raise RulesError("the table is paused")
        table.round.wagers[seat] = table.round.wagers.get(seat, 0) + event.amount

    def withdraw_wager(self, args: Mapping[str, Any]) -> None:
        """``withdraw_wager``: § 535.7(c), a wager taken back before no more bets."""
        table = self.table
        if table.state != "betting":
            raise RulesError("no wager may be withdrawn after no more bets (§ 535.7(c))")
        seat = check_seat(args.get("seat"), "withdraw seat")
        if table.round.wagers.pop(seat, None) is None:
            raise RulesError(f"no wager at seat {seat}")

    # -- the bank -----------------------------------------------------------------------
    def no_more_bets(self, args: Mapping[str, Any]) -> None:
        """``no_more_bets`` (§ 535.7(c), § 535.8(a)), refused by the dice clock (§ 535.5(c)); the
        bank is offered in turn if any player may bank (§ 535.11(b)-(d))."""
        table = self.table
        table.require_state("no_more_bets", "betting")
        clock = table.dice.clock()
        if not clock.may_start_round:
            table.prompt_again()  # say again what to do
            table.refuse("dice-" + clock.state, f"no more bets refused: {clock_text(clock)} (§ 535.5(c))", "attention")
        table.round.offer = bank_offer_order(self.rotation, SEATS, table.rules.dice)
        table.no_more_bets()
        if table.state == "bank":
            table.announce(
                "bank_offer",
                "offer the bank in this order: " + ", ".join(map(str, table.round.offer)),
                order=list(table.round.offer),
            )

    def take_bank(self, args: Mapping[str, Any]) -> None:
        """§ 535.11(c)-(f), (h): the player at ``seat`` accepts the bank."""
        table = self.table
        table.require_state("bank", "bank")
        seat = check_seat(args.get("seat"))
        co_bank = flag(args, "co_bank")
        bank = take_bank(
            self.rotation, seat, table.rules.dice, covers_wagers=flag(args, "chips_confirmed"), co_bank=co_bank
        )
        check_bank_areas(bank, seats(args.get("areas", [seat]), "bank areas"))
        directs = args.get("dealer_wager")
        table.round.dealer_wager = dealer_wager_against_bank(
            table.rules.tiles,
            last_wager_against_dealer=self.last_wagers_against_dealer.get(seat, 0),
            bank_directs=directs,
            co_banking=co_bank,
        )
        table.round.bank = bank
        own = table.round.wagers.get(seat)
        chips = f"; the {own} cents on area {seat} are the bank's, not a wager" if own else ""
        table.announce(
            "bank",
            f"seat {seat} {'co-banks with the house' if co_bank else 'banks'}; the dealer "
            f"wagers {table.round.dealer_wager} cents against the bank{chips}",
            seat=seat,
            co_bank=co_bank,
            dealer_wager=table.round.dealer_wager,
        )
        table.bank_settled()

    def no_bank(self, args: Mapping[str, Any]) -> None:
        """``no_bank``: no player accepts the bank; the dealer banks the round (§ 535.11(c))."""
        table = self.table
        table.require_state("no_bank", "bank")
        table.announce("bank", "no player banks: the dealer banks the round", seat=None, co_bank=False, dealer_wager=0)
        table.bank_settled()

    # -- from round to round --------------------------------------------------------------
    def round_finished(self, round_: RoundState) -> None:
        """Move the rotation on after ``round_`` (§ 535.11(b)-(d)); remember its wagers against
        the dealer if no player banked it (§ 535.11(h))."""
        if round_.bank is None:
            self.last_wagers_against_dealer = dict(round_.wagers)
        self.rotation = after_round(self.rotation, round_.bank, round_.playing, self.table.rules.dice)

    def new_game(self, args: Mapping[str, Any]) -> None:
        """§ 535.6, § 535.11(b): the tiles were restacked; the first round has no player bank."""
        table = self.table
        if table.state != "betting":
            raise RulesError("a new game starts between rounds")
        self.rotation = new_game()
        table.announce("new_game", "new game: no player may bank the first round (§ 535.11(b))")
