"""What the dealer at a Baccarat table does next: the prompt, and its public type.

A prompt is the data of a ``prompt`` decision: a JSON-plain ``dict`` whose ``action`` is an
:class:`Action` and whose ``text`` is for people; the other keys depend on the action (see
:meth:`~.controller.BaccaratTable.prompt`). :class:`Action` is a :class:`~enum.StrEnum`, so a
prompt journals, compares and replays exactly as the plain text (``Action.DEAL == "deal"``);
whoever acts on prompts — the simulated dealer, a display — matches its members, not strings.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

from firmware_host.tables.baccarat.records import settled_line, texts

if TYPE_CHECKING:
    from firmware_host.tables.baccarat.controller import BaccaratTable

__all__ = ["Action", "Prompt", "exposed_hands", "prompt"]

#: A prompt: ``{"action": Action, "text": str, ...}`` (JSON-plain).
Prompt = dict[str, Any]

_ORDINALS = {1: "first", 2: "second", 3: "third"}


class Action(enum.StrEnum):
    """What a prompt asks of the dealer (its ``action``)."""

    #: The table is paused (``problems``), or with a shuffler waits for a batch (``reason`` "shuffler", ``batch``).
    WAIT = "wait"
    #: Draw the rest of the shoe through the reader (``read``: cards read out so far; § 541.3(b)(1)).
    READ_OUT = "read_out"
    #: Key in card ``card`` of the shoe, which the shoe could not read.
    ENTER_CARD = "enter_card"
    #: Draw ``count`` cards to the discard rack, ``face`` "down" (§ 541.14(c)) or "up" (§ 541.14(d)).
    DISCARD = "discard"
    #: Put ``batch`` back into the shuffler (``replace``: new decks instead, § 541.3(b)(6), (c)).
    RETURN_BATCH = "return_batch"
    #: Load a shuffled shoe (with a shuffler: ``batch``, ``decks``, ``back_colour``).
    LOAD_SHOE = "load_shoe"
    #: Burn (``remaining``: None before the first card is shown, § 541.5(g)).
    BURN = "burn"
    #: Take the wagers, then no more bets (``last_hand``, ``held``: cards held from § 541.14(a)).
    PLACE_BETS = "place_bets"
    #: Deal the next card (``to`` "player"/"banker", ``card`` 1-3: its place in that hand; ``exposed``:
    #: the hands as they lie face up, see :func:`exposed_hands`).
    DEAL = "deal"
    #: Turn up the initial cards dealt face down (§ 541.9(c)(2), § 541.10(a)).
    REVEAL = "reveal"
    #: Settle the pair wagers (``settlement``) before third cards (§ 631c.5(d)).
    SETTLE_PAIRS = "settle_pairs"
    #: Collect marked commission (``seats``; § 541.13(e)); only ever a decision, never the standing prompt.
    COLLECT_COMMISSION = "collect_commission"


def prompt(table: BaccaratTable) -> Prompt:
    """What the dealer at ``table`` must do next; see :meth:`~.controller.BaccaratTable.prompt`."""
    shoe, state = table.shoe, table.state
    if (waiting := table.paused_prompt()) is not None:
        return waiting
    if state == "reading_out" and shoe is not None:
        text = (f"draw the rest of the shoe through the reader to the discard rack ({shoe.read_out} read; "
                "composition audit, § 541.3(b)(1))")  # fmt: skip
        return {"action": Action.READ_OUT, "read": shoe.read_out, "text": text}
    if table.irregular.awaiting is not None:
        # Which card: more than one may be out unread (a card drawn in error behind it).
        number = table.irregular.awaiting_card
        return {"action": Action.ENTER_CARD, "card": number,
                "text": f"key in card {number} of the shoe, which the shoe could not read"}  # fmt: skip
    if shoe is not None and shoe.discards_down:
        text = f"draw {shoe.discards_down} card(s) face down to the discard rack, unseen (§ 541.14(c))"
        return {"action": Action.DISCARD, "count": shoe.discards_down, "face": "down", "text": text}
    if shoe is not None and shoe.discards_up:
        text = f"draw {shoe.discards_up} card(s) face up to the discard rack (§ 541.14(d))"
        return {"action": Action.DISCARD, "count": shoe.discards_up, "face": "up", "text": text}
    if state == "awaiting_shoe" or shoe is None:
        return table.supply.load_prompt()
    if state == "burning":
        remaining = shoe.burn_remaining
        text = "burn: draw the first card and show it" if remaining is None else f"burn {remaining} more card(s)"
        return {"action": Action.BURN, "remaining": remaining, "text": text}
    if state == "betting":
        last = shoe.cover == "last_hand"
        return {"action": Action.PLACE_BETS, "last_hand": last, "held": len(shoe.held),
                "text": ("last hand: " if last else "") + "place your bets, then no more bets"}  # fmt: skip
    if state == "revealing":
        return {"action": Action.REVEAL, "text": "turn up the player's hand, then the banker's"}
    if state == "settling_pairs":
        return {"action": Action.SETTLE_PAIRS, "settlement": [settled_line(line) for line in table.round.pair_lines],
                "text": "settle the pair wagers, then press pairs settled"}  # fmt: skip
    slot = table.round.deal.next_slot()
    assert slot is not None  # a complete deal has already left the dealing state
    return {"action": Action.DEAL, "to": slot.hand, "card": slot.position, "exposed": exposed_hands(table),
            "text": f"deal the {slot.hand}'s {_ORDINALS[slot.position]} card"}  # fmt: skip


def exposed_hands(table: BaccaratTable) -> dict[str, Any] | None:
    """The open round's hands as they lie face up at the table, or None while any card is face down.

    Cards dealt per § 541.9(c)(1) are turned face up as they are placed, and third cards are
    dealt face up (§ 541.10(c)); cards dealt face down per § 541.9(c)(2) are exposed only at the
    reveal (§ 541.10(a)). Totals are the point counts (§ 541.6), once the initial four cards are out.
    """
    round_ = table.round
    if not round_.revealed:
        return None
    deal = round_.deal
    counted = deal.after_initial
    return {"player": texts(deal.player), "banker": texts(deal.banker),
            "player_total": deal.player_total if counted else None,
            "banker_total": deal.banker_total if counted else None}  # fmt: skip
