"""The JSON-plain forms of cards and settled wagers that a Baccarat table's decisions carry, and
the one builder of its ``round_result`` (:func:`round_result`, its fields declared in
:data:`firmware_host.tables.round_record.BACCARAT`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from firmware_host.rules.baccarat.cards import Card
from firmware_host.rules.baccarat.deal import Deal, RoundResult
from firmware_host.rules.baccarat.settlement import SettledWager
from firmware_host.tables.round_record import RoundTable, head

__all__ = ["round_result", "settled_line", "texts"]


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


def round_result(
    table: RoundTable,
    shoe: int | None,
    deal: Deal,
    result: RoundResult | None,
    lines: Iterable[SettledWager],
    irregularities: Iterable[dict[str, Any]],
) -> dict[str, Any]:
    """The ``round_result`` data of ``table``'s round, of ``shoe``: completed with its ``result``
    (§ 541.12), or void when ``result`` is None (§ 541.14(e)): the hands as dealt so far, no
    winner, no Lucky Six, and the naturals and pairs only once the initial cards are out."""
    if result is not None:
        outcome = result.to_json_dict()
    else:
        initial = deal.after_initial
        outcome = {
            "player": texts(deal.player), "banker": texts(deal.banker),
            "player_total": deal.player_total, "banker_total": deal.banker_total, "winner": None,
            "natural": deal.natural if initial else None,
            "player_pair": deal.player_pair if initial else None,
            "banker_pair": deal.banker_pair if initial else None,
            "lucky_six": None, "cards_used": deal.cards_used,
        }  # fmt: skip
    return {
        "round": table.current_round,
        "shoe": shoe,  # in the order the journal's first version wrote them
        **head(table, "void" if result is None else "completed"),
        "cards": texts(deal.cards),
        **outcome,
        "settlement": [settled_line(line) for line in lines],
        "irregularities": list(irregularities),
    }
