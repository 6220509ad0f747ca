"""Irregularities at a Baccarat table (§ 541.14) and cards the dealer keys in.

:class:`Irregularities` is the table's collaborator for what interrupts any state and then
hands back to where the table was:

- **a card awaiting the dealer's entry** (unreadable, or face up and unread): every later
  shoe event waits in a backlog and is applied in order once ``card_entered`` names the
  card, so no card is ever lost or reordered;
- **cards drawn in error** (§ 541.14(a)): held aside and dealt as the first cards of the
  next round; disclosed (§ 541.14(c)), discarded with one more card face down;
- **a card found face up** (§ 541.14(d)): discarded with as many cards as its value.

The rulings come from :func:`~firmware_host.rules.baccarat.irregularities.card_out_of_turn`;
each is recorded in the open round's ``irregularities`` and alerted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from drivers.events import DeviceEvent
from firmware_host.rules.baccarat.cards import RANK_VALUES, Card, parse_card
from firmware_host.rules.baccarat.deal import Deal
from firmware_host.rules.baccarat.irregularities import IrregularityAction, IrregularityOutcome, card_out_of_turn
from firmware_host.tables.baccarat.shoe import BURN_COUNT, Shoe

if TYPE_CHECKING:
    from firmware_host.tables.baccarat.controller import BaccaratTable

__all__ = ["FACE_UP_DISCARD_COUNTS", "Irregularities"]

#: § 541.14(d) "the value of the card found face up": our reading is the § 541.6(a) value
#: (tens and faces 0); ``"face_value"`` counts as the burn does (tens and faces 10).
FACE_UP_DISCARD_COUNTS: dict[str, dict[str, int]] = {"point_value": dict(RANK_VALUES), "face_value": BURN_COUNT}


class Irregularities:
    """§ 541.14 at ``table``, and the card awaiting the dealer's entry.

    :param table: the table whose shoe and open round the rulings apply to.
    :param face_up_counts: cards discarded after a card found face up, by its rank (§ 541.14(d)).
    """

    #: Not the table's state (:mod:`firmware_host.tables.state_tree`): the table it works for, its settings.
    NOT_STATE = ("table", "face_up_counts")

    def __init__(self, table: BaccaratTable, face_up_counts: Mapping[str, int]) -> None:
        self.table = table
        self.face_up_counts = face_up_counts
        #: ``"unreadable"`` or ``"face_up"`` while a card waits for ``card_entered``.
        self.awaiting: str | None = None
        #: The card awaiting entry: its number in the shoe (1 for the first card out; the cover card is not one).
        self.awaiting_card: int | None = None
        #: Shoe events that came while a card awaits entry, with their card numbers, applied in shoe order after it.
        self._backlog: list[tuple[DeviceEvent, int | None]] = []

    # -- a card awaiting the dealer's entry ---------------------------------------------------
    def defer(self, event: DeviceEvent, number: int | None) -> bool:
        """Keep a shoe event (card ``number``) for after the card awaiting entry; False if none awaits."""
        if self.awaiting is None:
            return False
        self._backlog.append((event, number))
        return True

    def await_entry(self, kind: str, number: int | None) -> None:
        """Card ``number`` came out unread (``kind`` "unreadable" or "face_up"): the dealer keys it in."""
        self.awaiting, self.awaiting_card = kind, number
        what = "a card came out face up but the shoe could not read it" if kind == "face_up" else \
            "the shoe could not read a card"  # fmt: skip
        self.table.open_alerts.open("card-unreadable", f"{what}: key it in (card entered)", "attention",
                                    "card_entered")  # fmt: skip

    def card_entered(self, args: Mapping[str, Any]) -> None:
        """``card_entered``: the card awaiting entry is the one named; the backlog follows in order."""
        awaiting = self.awaiting
        if awaiting is None:
            self.table.refuse("wrong-state", "card entered: no card is waiting to be keyed in")
        card = parse_card(str(args.get("card", "")))
        self.awaiting = None
        self.table.open_alerts.close("card-unreadable")
        if awaiting == "face_up":
            self.face_up(card)
        else:
            self.table.shoe_life.apply_card(card)
        self.drain()

    def drop_unread(self) -> None:
        """The round is voided: the unread card goes to the discard rack with the round's cards."""
        if self.awaiting == "unreadable":
            self.awaiting = None
            self.table.open_alerts.close("card-unreadable")

    def drain(self) -> None:
        """Apply the shoe events kept while a card awaited entry, until another one awaits."""
        while self._backlog and self.awaiting is None:
            self.table.shoe_life.apply(*self._backlog.pop(0))

    # -- § 541.14 -------------------------------------------------------------------------
    def hold_drawn_in_error(self, shoe: Shoe, card: Card) -> None:
        """§ 541.14(a): a card drawn when none is due is dealt first in the next round."""
        outcome = self._out_of_turn(shoe, card, disclosed=False)
        shoe.held.append(outcome.card)
        self.record(outcome.section, "card-drawn-in-error",
                    "a card was drawn when none was due: it is the first card of the next hand")  # fmt: skip

    def _out_of_turn(self, shoe: Shoe, card: Card, *, disclosed: bool) -> IrregularityOutcome:
        if shoe.last_deal is None:
            # No round finished yet in this shoe, so no deal to hand card_out_of_turn; § 541.14
            # applies the same way between the burn and the first round.
            action = IrregularityAction.DISCARD_WITH_ONE_MORE if disclosed else IrregularityAction.NEXT_HAND_FIRST_CARD
            return IrregularityOutcome(action, card, Deal(), int(disclosed), "541.14(c)" if disclosed else "541.14(a)")
        return card_out_of_turn(shoe.last_deal, card, to_player_third_in_error=False, disclosed=disclosed)

    def card_disclosed(self, args: Mapping[str, Any]) -> None:
        """§ 541.14(c): the card drawn in error was disclosed: it and one more card, face down, are discarded."""
        shoe = self.table.shoe
        if shoe is None or not shoe.held:
            self.table.refuse("wrong-state", "card disclosed: no card drawn in error is waiting for the next hand")
        outcome = self._out_of_turn(shoe, shoe.held.pop(), disclosed=True)
        self.table.protection.expose(outcome.card)
        shoe.discards_down += outcome.extra_discards
        text = (
            f"card {outcome.card} drawn in error was disclosed: discard it and {outcome.extra_discards} more face down"
        )
        self.record(outcome.section, "card-disclosed", text, open_until="discard")

    def face_up(self, card: Card) -> None:
        """§ 541.14(d): the card is not used; it and as many cards as its value, drawn face up, are discarded."""
        shoe = self.table.shoe
        if shoe is None:
            self.table.shoe_life.no_shoe(f"card {card} came out face up")
            return
        self.table.shoe_life.audit(shoe, card, exposed=True)
        self.table.protection.expose(card)
        more = self.face_up_counts[card.rank]
        shoe.discards_up += more
        text = f"card {card} was face up in the shoe: discard it and {more} more drawn face up"
        self.record("541.14(d)", "card-face-up", text, open_until="discard" if more else None)

    def record(
        self, section: str | None, code: str, text: str, open_until: str | None = None, alert: str | None = None
    ) -> None:
        """Record an irregularity of the open round (§ 541.14) and alert the dealer.

        :param open_until: what closes the alert (it stays on the view, amber, until then).
        :param alert: the alert's text when it is not ``text``.
        """
        self.table.round.irregularities.append({"section": section, "code": code, "text": text})
        shown = f"{alert or text} (§ {section})" if section else alert or text
        if open_until is None:
            self.table.alert_in_round(code, shown, "attention" if code != "card-drawn-in-error" else "warning")
        else:
            self.table.open_alerts.open(code, shown, "attention", open_until)
