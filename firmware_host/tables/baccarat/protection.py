"""Game protection at a Baccarat table: the exact odds before every round, and advantage windows.

:class:`Protection` is the table's collaborator that counts the cards *exposed* in the shoe
in play (docs/protection.md) and, while a round is open for betting, journals the ``odds``
decision: the player's exact EV of every offered wager from the shoe less those cards
(:func:`~firmware_host.rules.baccarat.exposure.expected_values`). A card counts as exposed
when the table shows it: the burn card shown (§ 541.5(g)), a card found face up and the
cards discarded face up after it (§ 541.14(d)), a card drawn in error and disclosed
(§ 541.14(c)), and every card of a finished round (its ``round_result`` lists them). Cards
burned or discarded face down, held face down for the next hand (§ 541.14(a)), or not yet
dealt count as remaining, so no EV ever derives from a card not yet exposed.

The decision is made when betting opens (before the round's first card) and again if a card
is exposed while the round still takes wagers, so the last ``odds`` of a round is what a
player knew at no more bets. Each offered wager whose EV is above the ``[protection]``
threshold gets one ``advantage-window`` alert per round: for the floor feed (surveillance),
never for the player board or the dealer's display (:data:`PROTECTION_ALERTS`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from firmware_host.rules.baccarat.cards import Card
from firmware_host.rules.baccarat.drawing import CARDS_PER_ROUND_MAX
from firmware_host.rules.baccarat.exposure import ev_text, evs_text, expected_values, remaining_ranks
from firmware_host.tables.decisions import ADVANTAGE_WINDOW

if TYPE_CHECKING:
    from firmware_host.tables.baccarat.controller import BaccaratTable

__all__ = ["ODDS_DECISION", "Protection"]

#: The decision type of the odds before a round.
ODDS_DECISION = "odds"


class Protection:
    """The exposed cards of the shoe in play, the ``odds`` of each round and its advantage windows.

    :param table: the table whose shoe and rounds it watches.
    :param threshold: an offered wager whose EV per unit wagered is above this opens an
        advantage window (``[protection] advantage_threshold``, default 0).
    """

    #: Not the table's state (:mod:`firmware_host.tables.state_tree`): the table it works for, its settings.
    NOT_STATE = ("table", "threshold")

    def __init__(self, table: BaccaratTable, threshold: Fraction = Fraction(0)) -> None:
        self.table = table
        self.threshold = threshold
        #: ``[round, cards seen]`` of the last ``odds`` decided (None: none yet).
        self.decided: list[int] | None = None
        #: ``[round, kind...]``: the wagers whose window that round has alerted.
        self.windows: list[Any] = []

    def expose(self, *cards: Card) -> None:
        """The table shows ``cards`` of the shoe in play; a card beyond what the decks hold (an
        impossible card, flagged by the composition audit) is not one of the shoe's and is not counted."""
        shoe = self.table.shoe
        if shoe is None:
            return
        for card in cards:
            if shoe.exposed[card] < shoe.decks:
                shoe.exposed[card] += 1

    def after_event(self) -> None:
        """While a round takes wagers: decide its ``odds`` if the cards exposed changed since."""
        table, shoe = self.table, self.table.shoe
        if table.state != "betting" or shoe is None:
            return
        number, seen = table.current_round, sum(shoe.exposed.values())
        if self.decided == [number, seen]:
            return
        self.decided = [number, seen]
        ranks = remaining_ranks(shoe.decks, shoe.exposed.elements())
        if sum(ranks) < CARDS_PER_ROUND_MAX:
            return  # too few cards for a round (§ 541.14(e)): the shoe ends before one is dealt
        evs = expected_values(table.rules, ranks)
        table.decide(ODDS_DECISION, {"round": number, "seen": seen, "ev": evs_text(evs)}, number)
        if not self.windows or self.windows[0] != number:
            self.windows = [number]
        for kind, ev in evs.items():
            if ev > self.threshold and kind not in self.windows:
                self.windows.append(kind)
                percent = round(float(ev) * 100, 4)
                text = f"advantage window: {kind} EV {percent:+.4f}% after {seen} cards seen"
                table.decide("alert", {"code": ADVANTAGE_WINDOW, "text": text, "severity": "attention",
                                       "wager": kind, "ev": ev_text(ev), "ev_percent": percent, "seen": seen},
                             number)  # fmt: skip
