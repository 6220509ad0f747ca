"""What the dealer at a Pai Gow table does next: the prompt (ch. 535).

A prompt is the data of a ``prompt`` decision: a JSON-plain ``dict`` whose ``action`` says
what to do and whose ``text`` is for people; the other keys depend on the action (see
:meth:`~.controller.PaiGowTable.prompt`). It follows the round: the bets, the bank's offer
(§ 535.11(c), (d)), the shakes and the reveal (§ 535.8(a), (b), § 535.11(i)), a reshake after a
no roll, the delivery (§ 535.8(d)), the Dead Hand and the closing shake (§ 535.8(e), (f)), and
the hands; before a round, a new dice set when the clock says so (§ 535.5(c)).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware_host.rules.paigow_dice.position import label
from firmware_host.tables.paigow.dice_set import clock_text
from firmware_host.tables.paigow.round import SHAKES_REQUIRED

if TYPE_CHECKING:
    from firmware_host.tables.paigow.controller import PaiGowTable

__all__ = ["prompt"]


def prompt(table: PaiGowTable) -> dict[str, Any]:
    """What the dealer at ``table`` must do next; see :meth:`~.controller.PaiGowTable.prompt`."""
    round_, state = table.round, table.state
    if (waiting := table.paused_prompt()) is not None:
        return waiting
    if state == "betting":
        clock = table.dice_clock()
        if not clock.may_start_round:
            return {
                "action": "replace_dice",
                "clock": clock.state,
                "text": f"{clock_text(clock)}: put a new dice set in the shaker and press new dice",
            }
        return {"action": "place_bets", "round": table.current_round, "text": "place your bets, then no more bets"}
    if state == "bank":
        order = list(round_.offer)
        return {
            "action": "offer_bank",
            "order": order,
            "text": "offer the bank to seats " + ", ".join(map(str, order)) + " in turn; confirm the chips "
            "of the player who accepts (§ 535.11(c), (d)), or no bank",
        }
    if state == "shaking" and round_.shakes >= SHAKES_REQUIRED:
        return {"action": "reveal", "text": "the dealer removes the lid (§ 535.8(b), § 535.11(i))"}
    if state == "shaking" or (state == "reading" and round_.reveal_fault is not None):
        who = "the bank" if round_.bank is not None else "the dealer"
        if round_.reshake_reason is not None:
            return {
                "action": "reshake",
                "by": round_.shaken_by,
                "at_least": SHAKES_REQUIRED,
                "reason": round_.reshake_reason,
                "text": f"no roll ({round_.reshake_reason.replace('_', ' ')}): cover the shaker; {who} "
                f"shakes it at least {SHAKES_REQUIRED} times",
            }
        return {
            "action": "shake",
            "by": round_.shaken_by,
            "at_least": SHAKES_REQUIRED,
            "text": f"{who} shakes the shaker at least {SHAKES_REQUIRED} times (§ 535.8(a), § 535.11(i))",
        }
    if state == "reading":
        return {"action": "read_dice", "text": "the dice sensor reads the dice"}
    if state == "delivering":
        return _deliver_prompt(table)
    if state == "closing":
        dead = round_.to_dead_hand()
        collect = (
            f"collect the stacks of {', '.join(dead)} to the Dead Hand without exposing them (§ 535.8(e)); then "
            if dead
            else ""
        )
        return {
            "action": "collect_and_cover",
            "to_dead_hand": dead,
            "text": collect + "cover the shaker and shake it once (§ 535.8(f))",
        }
    positions = [str(seat) for seat in round_.playing]
    dealer = round_.bank is None or round_.dealer_wager > 0
    return {
        "action": "set_hands",
        "positions": positions,
        "dealer": dealer,
        "bank": round_.bank_seat,
        "text": "players set their hands; enter the tiles to settle, or round complete",
    }


def _deliver_prompt(table: PaiGowTable) -> dict[str, Any]:
    """``deliver``: the delivery plan, stack by stack (§ 535.8(d), § 535.11(k))."""
    round_ = table.round
    plan = round_.plan
    assert plan is not None
    hands = round_.plan_summary()
    assert hands is not None
    steps = "; ".join(f"{hand['position']} <- {' '.join(hand['tiles'])}" for hand in hands)
    return {
        "action": "deliver",
        "start": label(plan.start),
        "style": plan.style,
        "cut": None if plan.cut is None else plan.cut.to_json_dict(),
        "hands": hands,
        "text": f"deliver {plan.style} from {label(plan.start)} (stack.level, stacks from the dealer's right "
        f"as stacked, level 1 on top): {steps}",
    }
