"""What a Baccarat table shows: the dealer's prompt, the dealer's view, open alerts and the lamp.

:func:`prompt` is what the dealer does next (the data of a ``prompt`` decision);
:func:`dealer_view` is the view (cards dealt face down show as ``None`` until the reveal,
§ 541.9(c)(2)); :class:`OpenAlerts` keeps the alerts that stay on the view until something
closes them, and records every alert in the shoe's result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from drivers.events.lifecycle import DeviceFault
from firmware_host.rules.baccarat.deal import INITIAL_ORDER
from firmware_host.tables.baccarat.round import settled_line, texts

if TYPE_CHECKING:
    from firmware_host.tables.baccarat.controller import BaccaratTable

__all__ = ["OpenAlerts", "dealer_view", "prompt"]

_ORDINALS = {1: "first", 2: "second", 3: "third"}


class OpenAlerts:
    """The alerts that stay on the dealer's view (amber or red lamp) until what they await happens.

    :param table: the table whose shoe result records the alerts.
    """

    def __init__(self, table: BaccaratTable) -> None:
        self.table = table
        self._open: dict[str, dict[str, str]] = {}
        table.register(DeviceFault, self.on_fault)

    def on_fault(self, event: DeviceFault) -> None:
        """A device fault: the base class has already decided the alert; it stays open (red) until acknowledged."""
        text = f"{event.device}: fault {event.code}: {event.text}"
        self.track(f"{event.device}-fault", text, "fault", "acknowledge")

    def record(self, code: str, text: str) -> None:
        """Record an alert in the shoe's result (``shoe_result`` lists them); between shoes the
        table's shoe supply keeps it (a shuffler table: for the next shoe's result)."""
        alert = {"code": code, "text": text}
        if self.table.shoe is not None:
            self.table.shoe.alerts.append(alert)
        else:
            self.table.supply.record_between_shoes(alert)

    def open(self, code: str, text: str, severity: str, awaiting: str, record: bool = True) -> None:
        """An alert that stays on the dealer's view until ``awaiting`` happens."""
        self.table._alert(code, text, severity, record=False)
        self.track(code, text, severity, awaiting, record)

    def track(self, code: str, text: str, severity: str, awaiting: str, record: bool = True) -> None:
        """Keep an alert open on the dealer's view and record it in the shoe's result."""
        self._open[code] = {"code": code, "text": text, "severity": severity, "awaiting": awaiting}
        if record:
            self.record(code, text)

    def close(self, code: str) -> None:
        """The alert ``code`` is over (if it was open)."""
        self._open.pop(code, None)

    def acknowledge(self, args: Mapping[str, Any]) -> None:
        """``acknowledge``: close the alerts that only needed acknowledging (impossible card, device fault)."""
        codes = [code for code, alert in self._open.items() if alert["awaiting"] == "acknowledge"]
        if not codes:
            self.table._alert("wrong-state", "acknowledge: no alert is waiting for acknowledgement", "warning")
        for code in codes:
            self.close(code)

    def shown(self) -> list[dict[str, str]]:
        """The open alerts, oldest first."""
        return [dict(alert) for alert in self._open.values()]

    def lamp_colour(self) -> str:
        """Red while paused or a fault is open, amber while an irregularity or a card entry waits, else green."""
        table = self.table
        if table.paused or any(alert["severity"] == "fault" for alert in self._open.values()):
            return "red"
        if self._open or table.irregular.awaiting is not None or table.shoe_life.discards_due():
            return "amber"
        return "green"


def prompt(table: BaccaratTable) -> dict[str, Any]:
    """What the dealer at ``table`` must do next; see :meth:`~.controller.BaccaratTable.prompt`."""
    shoe, state = table.shoe, table.state
    if (waiting := table.paused_prompt()) is not None:
        return waiting
    if state == "reading_out" and shoe is not None:
        text = (f"draw the rest of the shoe through the reader to the discard rack ({shoe.read_out} read; "
                "composition audit, § 541.3(b)(1))")  # fmt: skip
        return {"action": "read_out", "read": shoe.read_out, "text": text}
    if table.irregular.awaiting is not None:
        # Which card: more than one may be out unread (a card drawn in error behind it).
        number = table.irregular.awaiting_card
        return {"action": "enter_card", "card": number,
                "text": f"key in card {number} of the shoe, which the shoe could not read"}  # fmt: skip
    if shoe is not None and shoe.discards_down:
        text = f"draw {shoe.discards_down} card(s) face down to the discard rack, unseen (§ 541.14(c))"
        return {"action": "discard", "count": shoe.discards_down, "face": "down", "text": text}
    if shoe is not None and shoe.discards_up:
        text = f"draw {shoe.discards_up} card(s) face up to the discard rack (§ 541.14(d))"
        return {"action": "discard", "count": shoe.discards_up, "face": "up", "text": text}
    if state == "awaiting_shoe" or shoe is None:
        return table.supply.load_prompt()
    if state == "burning":
        remaining = shoe.burn_remaining
        text = "burn: draw the first card and show it" if remaining is None else f"burn {remaining} more card(s)"
        return {"action": "burn", "remaining": remaining, "text": text}
    if state == "betting":
        last = shoe.cover == "last_hand"
        return {"action": "place_bets", "last_hand": last, "held": len(shoe.held),
                "text": ("last hand: " if last else "") + "place your bets, then no more bets"}  # fmt: skip
    if state == "revealing":
        return {"action": "reveal", "text": "turn up the player's hand, then the banker's"}
    if state == "settling_pairs":
        return {"action": "settle_pairs", "settlement": [settled_line(line) for line in table.round.pair_lines],
                "text": "settle the pair wagers, then press pairs settled"}  # fmt: skip
    slot = table.round.deal.next_slot()
    assert slot is not None  # a complete deal has already left the dealing state
    return {"action": "deal", "to": slot.hand, "card": slot.position,
            "text": f"deal the {slot.hand}'s {_ORDINALS[slot.position]} card"}  # fmt: skip


def dealer_view(table: BaccaratTable) -> dict[str, Any]:
    """The dealer's view of ``table``; see :meth:`~.controller.BaccaratTable.view`."""
    deal, shoe = table.round.deal, table.shoe
    shown = table.round.revealed or deal.cards_used > len(INITIAL_ORDER)
    slot = deal.next_slot() if table.state == "dealing" else None
    return {
        "table": table.table_id,
        "state": table.state,
        "paused": table.paused,
        "shoe": shoe.number if shoe else None,
        "round": table.current_round,
        "prompt": table.prompt(),
        "next": {"to": slot.hand, "card": slot.position} if slot else None,
        "player": texts(deal.player) if shown else [None] * len(deal.player),
        "banker": texts(deal.banker) if shown else [None] * len(deal.banker),
        "player_total": deal.player_total if shown and deal.player else None,
        "banker_total": deal.banker_total if shown and deal.banker else None,
        "wagers": [{"seat": w.seat, "kind": w.kind, "amount": w.amount} for w in table.round.wagers.values()],
        "last_outcome": table.last_outcome,
        "last_hand": shoe is not None and shoe.cover == "last_hand",
        "commission_owed": [{"seat": seat, "amount": cents} for seat, cents in table.ledger.owed],
        "alerts": table.open_alerts.shown(),
        "lamp": table.lamp_colour(),
        **table.supply.view(),
    }
