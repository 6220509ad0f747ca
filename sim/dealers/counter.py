"""A simulated card counter: a player who bets only the wagers the exposed cards favour.

:class:`CardCounter` watches what anyone at the table sees, from the decisions the table
announces — the burn card shown (§ 541.5(g)) and the cards of every completed round — and
never the simulated shoe's order. Before each round it works out the exact EV of every
offered wager from the shoe less those cards
(:func:`firmware_host.rules.baccarat.exposure.expected_values`), and
:meth:`CardCounter.positive` names the kinds whose EV is above 0. It counts fewer cards
than the table's ``odds`` do (a card disclosed or found face up, § 541.14(c), (d), is not
counted), so it knows no more than a player could.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from fractions import Fraction

from firmware_host.errors import RulesError
from firmware_host.rules.baccarat.cards import Card, parse_card
from firmware_host.rules.baccarat.exposure import expected_values, remaining_ranks
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.tables.decisions import Decision

__all__ = ["CardCounter"]


class CardCounter:
    """The exposed cards of the shoe in play, and the wagers they favour.

    :param rules: the table's Rules Submission (its pay table, commission and wagers).
    :param decks: decks in a shoe.
    """

    def __init__(self, rules: RulesSubmission, decks: int) -> None:
        self.rules = rules
        self.decks = decks
        #: The cards seen in the shoe in play (replaced whole, so the dealer's thread reads a snapshot).
        self.seen: tuple[Card, ...] = ()
        self._lock = threading.Lock()

    def resume(self, exposed: Iterable[Card]) -> None:
        """Continue the shoe in play after a restart, knowing the cards the table had shown in it
        (the table's own count, which a card disclosed or found face up is also in)."""
        with self._lock:
            self.seen = tuple(exposed)

    def on_decisions(self, decisions: Iterable[Decision]) -> None:
        """Count what the step showed the table: a new shoe, the burn card, a completed round's cards."""
        with self._lock:
            for decision in decisions:
                data = decision.data
                if decision.type == "announce" and data.get("announce") == "shoe":
                    self.seen = ()
                elif decision.type == "announce" and data.get("announce") == "burn_card":
                    self.seen += (parse_card(str(data["card"])),)
                elif decision.type == "round_result" and data.get("status") == "completed":
                    self.seen += tuple(parse_card(str(text)) for text in data.get("cards", ()))

    def evs(self) -> dict[str, Fraction]:
        """The exact EV of each offered wager from the cards seen (empty: too few cards left,
        or a card the shoe cannot hold was seen)."""
        with self._lock:
            seen = self.seen
        try:
            return expected_values(self.rules, remaining_ranks(self.decks, seen))
        except RulesError:
            return {}

    def positive(self) -> Sequence[str]:
        """The offered wagers whose EV from the cards seen is above 0, in wager order."""
        return [kind for kind, ev in self.evs().items() if ev > 0]
