"""What a Baccarat table shows: the dealer's view, open alerts and the lamp.

:func:`dealer_view` is the view (cards dealt face down show as ``None`` until the reveal,
§ 541.9(c)(2)); :class:`OpenAlerts` keeps the alerts that stay on the view until something
closes them, and records every alert in the shoe's result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from drivers.events.lifecycle import DeviceFault
from firmware_host.rules.baccarat.deal import INITIAL_ORDER
from firmware_host.tables.baccarat.records import texts

if TYPE_CHECKING:
    from firmware_host.tables.baccarat.controller import BaccaratTable

__all__ = ["OpenAlerts", "dealer_view"]


class OpenAlerts:
    """The alerts that stay on the dealer's view (amber or red lamp) until what they await happens.

    :param table: the table whose shoe result records the alerts.
    """

    #: Not the table's state (:mod:`firmware_host.tables.state_tree`): the table it works for, its settings.
    NOT_STATE = ("table",)

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
        self.table.alert_in_round(code, text, severity, record=False)
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
            self.table.refuse("wrong-state", "acknowledge: no alert is waiting for acknowledgement")
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
