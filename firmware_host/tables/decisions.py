"""What a controller decides, in a form the journal stores and the outputs act on.

A controller's ``handle(event, at)`` returns a list of :class:`Decision`. The service
journals the input event and all its decisions in one durable transaction *before* any
output (dealer display, tower lamp, simulated dealer, event feed) sees them.

Decision types the outputs and ``journal export`` rely on:

``round_result``
    One per finished (completed or void) round; ``data`` holds exactly the fields of
    ``tablehost journal export --rounds`` (see README).
``shoe_result``
    One per finished shoe; ``data`` holds the fields of ``journal export --shoes``.
``prompt``
    What the dealer must do next (e.g. ``{"action": "deal", "to": "player"}``).
``announce``
    What the dealer announces (totals, outcome, "last hand").
``alert``
    An irregularity or fault that needs attention: ``{"code": ..., "text": ..., "severity": ...}``.
``lamp``
    Tower lamp colour: ``{"colour": "green"|"amber"|"red"}``.
``device``
    A device's health as the controller sees it (online, identity, why it is refused).
``odds``
    Baccarat, before each round's first card: ``{"round", "seen", "ev": {kind: "n/d"}}``, the
    player's exact EV of each offered wager from the cards exposed so far (docs/protection.md).
``device_command``
    A command for a device, carried out by an output once the step is durable, e.g.
    ``{"device": "shuffler", "command": "start_shuffle", "batch": "A", "expected_cards": 416}``.
"""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class Decision:
    """One decision.

    :param type: the decision type (see the module docstring).
    :param data: JSON-ready payload.
    :param round: the round it belongs to, if any.
    """

    type: str
    data: dict[str, Any]
    round: int | None = None


#: Alert codes whose ``text`` quotes what a device sent that could not be read. A garbled card
#: frame can hold a card not yet exposed at the table (the face-down deal of § 541.9(c)(2), the
#: cards still in the shoe), so no output shows that text; the journal keeps it for an inquiry.
DEVICE_BYTES_ALERTS = frozenset({"protocol-error"})

#: Game protection (docs/protection.md): an offered wager's EV from the exposed cards is above
#: the threshold. With :data:`ADVANTAGE_PLAY` these alerts are for surveillance and the floor
#: (the event feed) only: neither the player board nor the dealer's display shows them.
ADVANTAGE_WINDOW = "advantage-window"
#: Game protection: a seat's wagers follow the advantage windows (docs/protection.md).
ADVANTAGE_PLAY = "advantage-play"
#: Alerts for surveillance only (see :data:`ADVANTAGE_WINDOW`).
PROTECTION_ALERTS = frozenset({ADVANTAGE_WINDOW, ADVANTAGE_PLAY})
#: Decision types for surveillance only: the exact odds of each round (``odds``).
PROTECTION_DECISIONS = frozenset({"odds"})


def for_surveillance_only(decision: Decision) -> bool:
    """Whether ``decision`` is game protection's (the odds, an advantage alert): the event feed
    carries it to surveillance; no display at the table shows it."""
    return decision.type in PROTECTION_DECISIONS or (
        decision.type == "alert" and decision.data.get("code") in PROTECTION_ALERTS
    )


#: Not a controller's decision: the service's own, given to the outputs once when it stops on a
#: journal it cannot write (``host/service.py``), never journaled: the red lamp, the buzzer held
#: on, the display's banner, the dealer view's line. ``data``: ``reason``, ``text`` for people.
HALTED = "halted"
#: The round numbers a salvage found issued but the journal holds no round of, skipped
#: (``tables/rounds_lost.py``): ``data`` ``first``, ``last``, ``next``; beside it an alert of code
#: :data:`ROUNDS_LOST_ALERT`.
ROUNDS_LOST = "rounds_lost"
ROUNDS_LOST_ALERT = "rounds-lost"

#: What an output shows in place of a withheld alert text.
WITHHELD_TEXT = "the device sent bytes that could not be read; they were skipped (the journal holds them)"


def for_outputs(decision: Decision) -> Decision:
    """``decision`` as an output (dealer view, event feed, display) may show it: the text of an
    alert that may quote a device's unreadable bytes replaced by :data:`WITHHELD_TEXT`."""
    if decision.type != "alert" or decision.data.get("code") not in DEVICE_BYTES_ALERTS:
        return decision
    return dataclasses.replace(decision, data={**decision.data, "text": WITHHELD_TEXT})
