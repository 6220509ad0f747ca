"""The JSON-plain forms of cards and settled wagers that a Baccarat table's decisions carry."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from firmware_host.rules.baccarat.cards import Card
from firmware_host.rules.baccarat.settlement import SettledWager

__all__ = ["settled_line", "texts"]


def texts(cards: Iterable[Card]) -> list[str]:
    """Cards as their texts (``"9S"``)."""
    return [str(card) for card in cards]


def settled_line(line: SettledWager) -> dict[str, Any]:
    """One settled wager as JSON-plain data."""
    return {
        "seat": line.wager.seat,
        "kind": line.wager.kind,
        "amount": line.wager.amount,
        "outcome": line.outcome.value,
        "payout": line.payout,
        "commission": line.commission,
        "commission_deferred": line.commission_deferred,
        "section": line.section,
    }
