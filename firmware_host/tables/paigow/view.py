"""What a Pai Gow table shows the dealer: the terminal view (ch. 535).

:func:`dealer_view` is the data of :meth:`~.controller.PaiGowTable.view`: the state and the
round, its wagers and bank (§ 535.7, § 535.11), the style and cut (§ 535.9, § 535.11(g)), the
shakes, the lid and every reading (§ 535.8, § 535.12(a),(b)), the total and the delivery plan
(§ 535.8(c)), the dice clock (§ 535.5(c)), the last round's result and the lamp.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware_host.rules.paigow_dice.position import label

if TYPE_CHECKING:
    from firmware_host.tables.paigow.controller import PaiGowTable

__all__ = ["dealer_view"]


def dealer_view(table: PaiGowTable) -> dict[str, Any]:
    """The dealer's view of ``table``; see :meth:`~.controller.PaiGowTable.view`."""
    round_, clock = table.round, table.dice_clock()
    return {
        "table": table.table_id,
        "state": table.state,
        "paused": table.paused,
        "round": table.current_round,
        "prompt": table.prompt(),
        "wagers": [{"seat": seat, "amount": amount} for seat, amount in sorted(round_.wagers.items())],
        "bank": None
        if round_.bank is None
        else {"seat": round_.bank.seat, "co_bank": round_.bank.co_bank, "dealer_wager": round_.dealer_wager},
        "bank_offer": list(round_.offer),
        "style": round_.style,
        "cut": None if round_.cut is None else round_.cut.to_json_dict(),
        "shakes": round_.shakes,
        "lid_open": table.lid_open,
        "rolls": [roll.to_json() for roll in round_.rolls],
        "total": round_.total,
        "start": None if round_.plan is None else label(round_.plan.start),
        "plan": round_.plan_summary(),
        "dice_clock": {
            "state": clock.state,
            "seconds_left": clock.seconds_left,
            "registered_at": table.dice.registered_at,
        },
        "last_result": table.last_result,
        "lamp": table.lamp_colour(),
    }
