"""The shoe's life at a Baccarat table: loaded, burned, dealt from, read out, reported.

:class:`Shoe` is one shoe from ``shoe_loaded`` to the reshuffle; :class:`ShoeLife` is the
table's collaborator that takes each shoe event (a card, the cover card, the shoe running
out) and sends the card where the table's state says: the burn (§ 541.5(g)), the discard
rack (§ 541.14(c), (d)), the deal (:mod:`.round`), the next hand (§ 541.14(a), :mod:`.irregularities`)
or, after the last hand at a shuffler table, the read-out for the composition audit.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import TYPE_CHECKING, Any

from drivers.events import DeviceEvent
from drivers.events.shoe import (
    CardFaceUp,
    CardRead,
    CardUnreadable,
    CutCard,
    IdentityUnverified,
    ShoeEmpty,
    ShoeWarning,
)
from firmware_host.rules.baccarat.cards import RANK_VALUES, RANKS, Card, parse_card, shoe_composition
from firmware_host.rules.baccarat.deal import INITIAL_ORDER, Deal

if TYPE_CHECKING:
    from firmware_host.tables.baccarat.controller import BaccaratTable

__all__ = ["BURN_COUNT", "IN_ROUND", "Shoe", "ShoeLife", "card_of"]

#: § 541.5(g): the first card burned counts its face value, a ten or a face card ten, an ace one.
BURN_COUNT: dict[str, int] = {rank: RANK_VALUES[rank] or 10 for rank in RANKS}
#: States in which a round (the one being bet on or dealt) is open.
IN_ROUND = ["betting", "dealing", "revealing", "settling_pairs"]
#: The shoe events (cards, the cover card, the shoe running out) that keep shoe order.
SHOE_EVENTS = (CardRead, CardUnreadable, CardFaceUp, CutCard, ShoeEmpty)


@dataclasses.dataclass
class Shoe:
    """One shoe's life, from ``shoe_loaded`` to the reshuffle."""

    number: int
    decks: int
    remaining: Counter[Card]
    burned: int = 0
    cards_read: int = 0
    rounds: int = 0
    composition_ok: bool = True
    alerts: list[dict[str, str]] = dataclasses.field(default_factory=list)
    #: None until the first burn card is shown (§ 541.5(g)), then cards still to burn.
    burn_remaining: int | None = None
    #: § 541.10(e): "in_shoe" -> "out" (finish this hand) -> "last_hand" -> "reshuffle".
    cover: str = "in_shoe"
    #: The shoe ran out (§ 541.14(e)).
    emptied: bool = False
    #: The last completed or voided deal of this shoe (what a card drawn in error follows).
    last_deal: Deal | None = None
    #: Cards drawn in error, to be dealt first in the next round (§ 541.14(a)).
    held: list[Card] = dataclasses.field(default_factory=list)
    #: Undisclosed (face-down) and face-up cards still to go to the discard rack.
    discards_down: int = 0
    discards_up: int = 0
    #: The shuffler batch the shoe was loaded from (None without a shuffler).
    batch: str | None = None
    #: Every card identified (read, keyed in), for the composition audit.
    identified: list[Card] = dataclasses.field(default_factory=list)
    #: Every card in the order the shoe read it (None: unreadable), for the shuffle-quality watch.
    seen: list[Card | None] = dataclasses.field(default_factory=list)
    #: Cards read out after the last hand (``reading_out``).
    read_out: int = 0
    #: Why the batch needs new decks before it is dealt again (composition, § 541.3(c)), if it does.
    new_decks: str | None = None
    #: Every card shown at the table so far (game protection, :mod:`.protection`).
    exposed: Counter[Card] = dataclasses.field(default_factory=Counter)

    @property
    def discards_due(self) -> int:
        """Cards still to go to the discard rack (§ 541.14(c), (d))."""
        return self.discards_down + self.discards_up


def card_of(event: DeviceEvent) -> Card | None:
    """The card a shoe event names (None for an unread card or a non-card event)."""
    if isinstance(event, (CardRead, CardFaceUp)) and event.rank is not None and event.suit is not None:
        return parse_card(event.rank + event.suit)
    return None


class ShoeLife:
    """The shoe's life at ``table``: its events, where each card goes, its start and its end.

    :param table: the table whose :attr:`~.controller.BaccaratTable.shoe` this keeps.
    """

    #: Not the table's state (:mod:`firmware_host.tables.state_tree`): the table it works for, its settings.
    NOT_STATE = ("table",)

    def __init__(self, table: BaccaratTable) -> None:
        self.table = table
        for kind in SHOE_EVENTS:
            table.register(kind, self.on_shoe_event)
        table.register(ShoeWarning, self.on_shoe_warning)
        table.register(IdentityUnverified, self.on_identity_unverified)

    def discards_due(self) -> int:
        """Cards still to go to the discard rack in the shoe in play (0 without one)."""
        shoe = self.table.shoe
        return 0 if shoe is None else shoe.discards_due

    # -- shoe events ----------------------------------------------------------------------
    def on_shoe_event(self, event: DeviceEvent) -> None:
        """A card, the cover card or the shoe running out: applied now, or after the card
        awaiting the dealer's entry so that shoe order is kept."""
        table, shoe = self.table, self.table.shoe
        card = card_of(event)  # RulesError for a card that cannot be, before anything is counted
        number = None
        if isinstance(event, (CardRead, CardUnreadable, CardFaceUp)) and shoe is not None:
            shoe.cards_read += 1
            shoe.seen.append(card)
            number = shoe.cards_read
        if isinstance(event, CardRead) and event.burn and table.state != "burning" and not self.discards_due():
            text = "the shoe flagged a burn card outside the burn; it is dealt as the table's state says"
            table.alert_in_round("burn-flag", text, "warning")
        if not table.irregular.defer(event, number):
            self.apply(event, number)

    def apply(self, event: DeviceEvent, number: int | None) -> None:
        """Apply a shoe event (card ``number`` of the shoe) in shoe order."""
        card, shoe = card_of(event), self.table.shoe
        if self.table.state == "reading_out" and shoe is not None:
            self._read_out(shoe, event, card)
        elif isinstance(event, (CardUnreadable, CardFaceUp)) and card is None:
            self._apply_unknown(isinstance(event, CardFaceUp), number)
        elif isinstance(event, CardFaceUp) and card is not None:
            self.table.irregular.face_up(card)
        elif card is not None:  # a card read
            self.apply_card(card)
        elif isinstance(event, CutCard):
            self._apply_cut_card()
        else:
            self._apply_shoe_empty()

    def on_shoe_warning(self, event: ShoeWarning) -> None:
        self.table.alert_in_round("shoe-warning", f"{event.device}: warning code 0x{event.code:02X}", "warning")

    def on_identity_unverified(self, event: IdentityUnverified) -> None:
        text = f"{event.device}: identity not read from the device: {event.why}"
        self.table.alert_in_round("identity-unverified", text, "warning")

    # -- where a card goes ----------------------------------------------------------------
    def _apply_unknown(self, face_up: bool, number: int | None) -> None:
        """A card the shoe could not read (card ``number`` of the shoe): count it where its
        identity does not matter, otherwise wait for the dealer to key it in."""
        table, shoe = self.table, self.table.shoe
        if shoe is None:
            self.no_shoe("a card came out")
        elif not face_up and (shoe.discards_due or (table.state == "burning" and shoe.burn_remaining is not None)):
            self._discard_or_burn(shoe, None)
        else:
            table.irregular.await_entry("face_up" if face_up else "unreadable", number)

    def apply_card(self, card: Card) -> None:
        """An identified card out of the shoe: burned, discarded, held for the next hand or dealt."""
        table = self.table
        if table.shoe is not None and not table.shoe.discards_due and table.state in ("revealing", "settling_pairs"):
            table.round_play.skip_to_third_cards()  # may finish the round, or the shoe
        shoe = table.shoe
        if shoe is None:
            self.no_shoe("a card came out")
            return
        self.audit(shoe, card, self._exposed_if_drawn_now(shoe))
        if shoe.discards_due or table.state == "burning":
            self._discard_or_burn(shoe, card)
        elif table.state == "betting":
            table.irregular.hold_drawn_in_error(shoe, card)
        else:
            table.round_play.deal_card(card)

    def _exposed_if_drawn_now(self, shoe: Shoe) -> bool:
        """Whether the next card out of the shoe is seen at the table."""
        table = self.table
        if shoe.discards_down:
            return False  # § 541.14(c): drawn face down and not disclosed
        if shoe.discards_up:
            return True  # § 541.14(d): drawn face up
        if table.state == "burning":
            return shoe.burn_remaining is None  # § 541.5(g): the first card is shown
        if table.state == "betting":
            return False  # held face down for the next hand (§ 541.14(a))
        return table.round.revealed or table.state != "dealing" or table.round.deal.cards_used >= len(INITIAL_ORDER)

    def audit(self, shoe: Shoe, card: Card, exposed: bool) -> None:
        """Count the card out of the shoe's composition; flag a card the shoe cannot hold."""
        shoe.identified.append(card)
        if shoe.remaining[card] > 0:
            shoe.remaining[card] -= 1
            return
        shoe.composition_ok = False
        named = f"{card} is one more than {shoe.decks} decks hold"
        shoe.alerts.append({"code": "impossible-card", "text": f"impossible card: {named} (§ 541.3)"})
        if not exposed:  # face down at the table: named in the shoe's result only
            named = f"card {shoe.cards_read} of the shoe is one more than the decks hold (named in the shoe result)"
        text = f"impossible card: {named}; shoe composition flagged (§ 541.3)"
        self.table.open_alerts.open("impossible-card", text, "attention", "acknowledge", record=False)

    def no_shoe(self, what: str) -> None:
        """Refuse a shoe event that needs a shoe in play."""
        text = f"{what} but no shoe is in play: load a shuffled shoe and press shoe loaded"
        self.table.alert_in_round("no-shoe", text, "warning")

    def _discard_or_burn(self, shoe: Shoe, card: Card | None) -> None:
        """The card goes to the discard rack: a § 541.14(c)/(d) discard or a § 541.5(g) burn card."""
        table = self.table
        if shoe.discards_down:
            shoe.discards_down -= 1
        elif shoe.discards_up:
            shoe.discards_up -= 1
            if card is not None:
                table.protection.expose(card)  # § 541.14(d): drawn face up
        elif shoe.burn_remaining is None and card is not None:  # the first burn card is always identified
            table.protection.expose(card)  # § 541.5(g): shown
            shoe.burn_remaining = BURN_COUNT[card.rank]
            shoe.burned += 1
            text = f"burn card {card}: burn {shoe.burn_remaining} more"
            table.announce("burn_card", text, card=str(card), burn=shoe.burn_remaining)
        elif shoe.burn_remaining is not None:
            shoe.burn_remaining -= 1
            shoe.burned += 1
        if not shoe.discards_due:
            self.close_discard_alerts()
        if table.state == "burning" and not shoe.discards_due and shoe.burn_remaining == 0:
            table.burn_done()

    def _apply_cut_card(self) -> None:
        """§ 541.10(e): the cover card is out: this hand is completed, then one more is played."""
        shoe = self.table.shoe
        if shoe is None:
            self.no_shoe("the cover card came out")
        elif shoe.cover != "in_shoe":
            self.table.alert_in_round("cover-card", "a second cover card came out; the first already set the last hand",
                              "warning")  # fmt: skip
        else:
            shoe.cover = "out"
            self.table.announce("cover_card", "cover card: this hand is completed, then one more hand")

    def _apply_shoe_empty(self) -> None:
        """§ 541.14(e): too few cards to complete a round: it is void, wagers returned, reshuffle."""
        table, shoe = self.table, self.table.shoe
        if shoe is None:
            self.no_shoe("the shoe reports empty")
            return
        shoe.emptied = True
        if table.state in IN_ROUND and (table.state != "betting" or table.round.wagers):
            reason = "too few cards remaining in the shoe to complete the round"
            table.round_play.end_void("541.14(e)", "shoe-empty", reason)
        else:
            table.alert_in_round("shoe-empty", "the shoe is empty: reshuffle", "warning")
            table.shoe_over()

    # -- the shoe's start and end -----------------------------------------------------------
    def open(self, decks: int, batch: str | None) -> None:
        """A shuffled shoe is in (``shoe_loaded``): announce it; the burn follows (§ 541.5(g))."""
        table = self.table
        table.shoes_started += 1
        shoe = table.shoe = Shoe(number=table.shoes_started, decks=decks, remaining=shoe_composition(decks),
                                 batch=batch)  # fmt: skip
        fields: dict[str, Any] = {"shoe": shoe.number, "decks": decks}
        where = table.supply.shoe_opened(shoe, fields)
        table.announce("shoe", f"shoe {shoe.number} ({where}): burn (§ 541.5(g))", **fields)

    def close(self) -> None:
        """The shoe is done: collect marked commission (§ 541.13(e)), report the shoe, await the next."""
        table, shoe = self.table, self.table.shoe
        if shoe is None:
            return  # the table starts awaiting a shoe: none to close
        collected, table.ledger = table.ledger.collect_all()
        if collected:
            table.round_play.collect_commission(collected)
        data: dict[str, Any] = {"shoe": shoe.number}
        table.supply.shoe_closing(shoe, data)
        data.update(decks=shoe.decks, burned=shoe.burned, cards_read=shoe.cards_read, rounds=shoe.rounds,
                    composition_ok=shoe.composition_ok, alerts=shoe.alerts)  # fmt: skip
        table.decide("shoe_result", data)
        table.shoe = None  # held cards and pending discards go with the shoe's cards
        self.close_discard_alerts()
        table.round_play.open_round()

    def close_discard_alerts(self) -> None:
        """Discards still due go with the shoe's cards: their alerts are over."""
        self.table.open_alerts.close("card-disclosed")
        self.table.open_alerts.close("card-face-up")

    # -- the end of a shoe from a shuffler batch: the read-out --------------------------------
    def start_read_out(self) -> None:
        """The shoe is over: discards still due go with its cards; the rest of it is read out."""
        shoe = self.table.shoe
        if shoe is not None:
            shoe.discards_down = shoe.discards_up = 0
        self.close_discard_alerts()

    def _read_out(self, shoe: Shoe, event: DeviceEvent, card: Card | None) -> None:
        """A card read out after the shoe ended: counted for the audit, dealt to no one."""
        if isinstance(event, ShoeEmpty):
            shoe.emptied = True  # every card has passed the reader
            self.table.read_out_done()
        elif not isinstance(event, CutCard):  # the cover card comes out with the rest
            if card is not None:
                self.audit(shoe, card, exposed=False)
            shoe.read_out += 1
