"""One Baccarat round: its wagers, its deal card by card, its settlement and ``round_result``.

:class:`Round` is the open round's cards, wagers and irregularities; :class:`RoundPlay` is the
table's collaborator that takes wagers (§ 541.8), places each card where
:meth:`~firmware_host.rules.baccarat.deal.Deal.next_slot` says (§ 541.9(c), § 541.10, § 541.11),
settles pairs before third cards (§ 631c.5(d)) and the rest at the end (§ 541.12,
:mod:`~firmware_host.rules.baccarat.settlement`), and records the round: completed or void
(§ 541.14(e)).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import Card
from firmware_host.rules.baccarat.deal import INITIAL_ORDER, Deal, RoundResult
from firmware_host.rules.baccarat.settlement import SEATS, SettledWager, Wager, WagerOutcome, settle, settle_pairs
from firmware_host.rules.baccarat.wagers import PAIR_WAGERS, WAGER_KINDS
from firmware_host.tables.baccarat.prompts import Action
from firmware_host.tables.baccarat.records import round_result, texts
from firmware_host.tables.baccarat.shoe import IN_ROUND
from firmware_host.tables.events import WagerPlaced

if TYPE_CHECKING:
    from firmware_host.tables.baccarat.controller import BaccaratTable

__all__ = ["Round", "RoundPlay"]


@dataclasses.dataclass
class Round:
    """The open round's cards, wagers and irregularities."""

    deal: Deal = Deal()
    wagers: dict[tuple[int, str], Wager] = dataclasses.field(default_factory=dict)
    #: Pair wagers settled after the initial four cards (§ 631c.5(d)).
    pair_lines: tuple[SettledWager, ...] = ()
    irregularities: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    #: Whether the initial cards are face up (always, unless dealt per § 541.9(c)(2)).
    revealed: bool = True

    def unsettled_wagers(self) -> list[Wager]:
        """The round's wagers, less pair wagers already settled (§ 631c.5(d))."""
        settled = bool(self.pair_lines)
        return [wager for (_, kind), wager in self.wagers.items() if not (settled and kind in PAIR_WAGERS)]


def _seat_of(args: Mapping[str, Any]) -> int:
    """The ``seat`` argument of a dealer command.

    :raises RulesError: unless it is a seat number 1-7 (§ 541.2(a)).
    """
    seat = args.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in SEATS:
        raise RulesError(f"seat {seat!r}: seats are numbered 1 to 7 (§ 541.2(a))")
    return seat


class RoundPlay:
    """The rounds at ``table``: wagers, the deal, settlement, the ``round_result``.

    :param table: the table whose :attr:`~.controller.BaccaratTable.round` this plays.
    """

    #: Not the table's state (:mod:`firmware_host.tables.state_tree`): the table it works for, its settings.
    NOT_STATE = ("table",)

    def __init__(self, table: BaccaratTable) -> None:
        self.table = table
        table.register(WagerPlaced, self.on_wager)

    def open_round(self) -> None:
        """A new round (its initial cards face down per § 541.9(c)(2) if the table deals so)."""
        self.table.round = Round(revealed=not self.table.initial_cards_face_down)

    # -- the deal -------------------------------------------------------------------------
    def deal_held_cards(self) -> None:
        """After no more bets: cards drawn in error are dealt first (§ 541.14(a))."""
        shoe = self.table.shoe
        if shoe is None:
            return
        held, shoe.held = shoe.held, []
        for card in held:
            if self.table.state == "dealing":
                self.deal_card(card)

    def skip_to_third_cards(self) -> None:
        """A card came out before the reveal or the pair settlement: that step is taken as done."""
        table = self.table
        if table.state == "revealing":
            table.alert_in_round("procedure", "a card was drawn before the reveal: hands taken as revealed (§ 541.10(a))",
                         "warning")  # fmt: skip
            table.reveal()
        if table.state == "settling_pairs":
            table.alert_in_round(
                "procedure", "a card was drawn before the pair wagers were settled (§ 631c.5(d))", "warning"
            )
            table.pairs_settled()

    def deal_card(self, card: Card) -> None:
        """Place ``card`` where the rules say (§ 541.9(c), § 541.10(c), § 541.11)."""
        round_ = self.table.round
        round_.deal = round_.deal.add(card)
        if round_.deal.cards_used == len(INITIAL_ORDER):
            if round_.revealed:
                self.initial_cards_exposed()
            else:
                self.table.hold_for_reveal()
        elif round_.deal.after_initial:
            self._complete()  # a third card was the last due, or the banker's follows

    def initial_cards_exposed(self) -> None:
        """§ 541.10(a): announce the player's then the banker's count; then pairs or third cards."""
        table = self.table
        table.round.revealed = True
        deal = table.round.deal
        table.announce("point_counts", f"player {deal.player_total}, banker {deal.banker_total}",
                        player=texts(deal.player), banker=texts(deal.banker),
                        player_total=deal.player_total, banker_total=deal.banker_total)  # fmt: skip
        if not deal.is_complete and any(kind in PAIR_WAGERS for _, kind in table.round.wagers):
            table.settle_pairs()
        else:
            self._complete()

    def settle_pairs(self) -> None:
        """§ 631c.5(d): pair wagers are settled before any third card."""
        round_ = self.table.round
        pairs = [wager for (_, kind), wager in round_.wagers.items() if kind in PAIR_WAGERS]
        round_.pair_lines = settle_pairs(round_.deal, pairs, self.table.rules).wagers

    def _complete(self) -> None:
        """If every card is out: announce (§ 541.12(a), § 631c.5(e)), settle (§ 541.12(b)), record."""
        table = self.table
        deal = table.round.deal
        if not deal.is_complete:
            return
        result = deal.result(table.rules.variant)
        verdict = "Tie Hand" if result.winner == "tie" else f"{result.winner} wins"
        table.announce("outcome", f"player {result.player_total}, banker {result.banker_total}: {verdict}",
                        winner=result.winner, player_total=result.player_total, banker_total=result.banker_total)  # fmt: skip
        if result.lucky_six is not None:
            table.announce("lucky_six", "Lucky Six", cards=result.lucky_six)
        settlement = settle(result, table.round.unsettled_wagers(), table.rules, table.ledger)
        table.ledger = settlement.ledger
        lines = table.round.pair_lines + settlement.wagers
        table.last_outcome = {"round": table.current_round, "winner": result.winner,
                              "player_total": result.player_total, "banker_total": result.banker_total,
                              "lucky_six": result.lucky_six}  # fmt: skip
        self._finish(result, lines)

    # -- the end of a round ----------------------------------------------------------------
    def void_by_dealer(self, reason: str = "voided by the dealer") -> None:
        """``void_round``: the dealer or supervisor voids the round; wagers are returned."""
        self.table.irregular.drop_unread()
        self.end_void(None, "round-void", reason)  # no section: the dealer's or supervisor's call
        self.table.irregular.drain()

    def end_void(self, section: str | None, code: str, reason: str) -> None:
        """A void round: every wager not yet settled is returned (§ 541.14(e))."""
        table = self.table
        returned = tuple(
            SettledWager(wager, WagerOutcome.PUSH, 0, 0, False, section or "void round")
            for wager in sorted(table.round.unsettled_wagers(), key=lambda w: (-w.seat, WAGER_KINDS.index(w.kind)))
        )  # § 541.12(b): from the highest-numbered seat down
        alert = f"round {table.current_round} is void: {reason}; wagers are returned"
        table.irregular.record(section, code, reason, alert=alert)
        self._finish(None, table.round.pair_lines + returned)

    def _finish(self, result: RoundResult | None, lines: tuple[SettledWager, ...]) -> None:
        """Journal the ``round_result`` (completed with its ``result``, or void when None), move the
        cover card on (§ 541.10(e)), open the next round."""
        table, shoe = self.table, self.table.shoe
        number = table.current_round
        status = "void" if result is None else "completed"
        shoe_number = None if shoe is None else shoe.number
        data = round_result(table, shoe_number, table.round.deal, result, lines, table.round.irregularities)
        table.decide("round_result", data, number)
        table.protection.expose(*table.round.deal.cards)  # every card of it is listed now
        table.rounds_finished += 1
        if shoe is not None:
            shoe.rounds += 1
            if status == "completed":
                shoe.last_deal = table.round.deal
            if status == "completed" and shoe.cover == "out":
                shoe.cover = "last_hand"
                table.announce("last_hand", "last hand")
            elif status == "completed" and shoe.cover == "last_hand":
                shoe.cover = "reshuffle"
            table.supply.round_finished(shoe)
        table.round_over()

    # -- wagers and commission --------------------------------------------------------------
    def on_wager(self, event: WagerPlaced) -> None:
        """§ 541.8: a wager is made or increased before no more bets."""
        table = self.table
        placed = Wager(event.seat, event.kind, event.amount)
        table.rules.require_offered(placed.kind)
        if table.state != "betting":
            reason = "no more bets was announced (§ 541.8(c))" if table.state in IN_ROUND else \
                "no round is open for betting"  # fmt: skip
            table.alert_in_round(
                "wager-refused", f"wager at seat {placed.seat} on {placed.kind}: refused, {reason}", "warning"
            )
        elif table.paused:
            table.alert_in_round(
                "wager-refused", f"wager at seat {placed.seat}: refused, the table is paused", "warning"
            )
        else:
            key = (placed.seat, placed.kind)
            before = table.round.wagers.get(key)
            table.round.wagers[key] = Wager(placed.seat, placed.kind, placed.amount + (before.amount if before else 0))

    def withdraw_wager(self, args: Mapping[str, Any]) -> None:
        """``withdraw_wager``: a wager taken back before no more bets (§ 541.8(c))."""
        table = self.table
        if table.state != "betting":
            table.refuse("wager-refused", "a wager may not be withdrawn after no more bets (§ 541.8(c))")
        seat, kind = _seat_of(args), str(args.get("kind"))
        if table.round.wagers.pop((seat, kind), None) is None:
            table.refuse("wager-refused", f"withdraw: no {kind} wager at seat {seat}")

    def seat_left(self, args: Mapping[str, Any]) -> None:
        """§ 541.13(e): marked commission is collected when the player leaves."""
        seat = _seat_of(args)
        owed, self.table.ledger = self.table.ledger.collect(seat)
        if owed:
            self.collect_commission(((seat, owed),))

    def collect_commission(self, owed: tuple[tuple[int, int], ...]) -> None:
        """Prompt the dealer to collect marked commission (§ 541.13(e))."""
        seats = [{"seat": seat, "amount": cents} for seat, cents in owed]
        text = "collect marked commission: " + ", ".join(f"seat {seat} {cents} cents" for seat, cents in owed)
        # The state's own prompt follows it again at the end of this step.
        self.table.say_prompt({"action": Action.COLLECT_COMMISSION, "seats": seats, "text": text})
