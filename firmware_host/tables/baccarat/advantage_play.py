"""Advantage-play detection at a Baccarat table: each seat's wagers against the advantage windows.

:class:`AdvantagePlayWatch` is the table's collaborator that keeps, per table-day, every
seat's record (:class:`~firmware_host.rules.baccarat.advantage_play.Watch`) and raises the
``advantage-play`` alert when a seat's wagers on a kind follow the cards
(docs/protection.md, "Detection"). It reads what the table decided, never a card:

- the last ``odds`` decision of a round (:mod:`.protection`, made from the exposed cards
  only while the round takes wagers) says the round was observed, and its EVs above the
  ``[protection]`` threshold name the kinds the round was an advantage window for;
- the wagers standing when the round leaves ``betting`` (no more bets, § 541.8(c)) are the
  seats' bets; a round void before any card is not observed.

The alert is a journaled decision of the round, with the evidence as data (seat, wager,
bets in and out of windows, windows, the e-value and its threshold, wonging). It is one of
:data:`~firmware_host.tables.decisions.PROTECTION_ALERTS`: the floor feed carries it, the
dealer's display and the player board never show it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from firmware_host.rules.baccarat.advantage_play import DetectionPolicy, Evidence, Watch, table_day
from firmware_host.rules.baccarat.cards import CARDS_PER_DECK
from firmware_host.rules.baccarat.exposure import parse_ev
from firmware_host.tables.decisions import ADVANTAGE_PLAY

if TYPE_CHECKING:
    from firmware_host.tables.baccarat.controller import BaccaratTable

__all__ = ["AdvantagePlayWatch"]


class AdvantagePlayWatch:
    """Every seat's wagers against the advantage windows at ``table``.

    :param table: the table whose decisions and wagers it reads.
    :param policy: the detection policy (the profile's ``[protection]``).
    """

    #: Not the table's state (:mod:`firmware_host.tables.state_tree`): the table, the profile's policy.
    NOT_STATE = ("table", "policy")

    def __init__(self, table: BaccaratTable, policy: DetectionPolicy | None = None) -> None:
        self.table = table
        self.policy = policy or DetectionPolicy()
        self.watch = Watch.for_kinds(table.rules.offered_wagers)
        #: The round whose ``odds`` were decided, the kinds it is a window for, and the shoe's
        #: cards dealt before it and its size; None: no round awaits no more bets.
        self.pending: tuple[int, frozenset[str], int, int] | None = None
        #: The wagers of the pending round, as they stood at the end of the latest step in betting.
        self.wagers: dict[tuple[int, str], int] = {}

    def after_step(self) -> None:
        """After each game event (and after the odds): note the round's latest ``odds``, observe
        a round that has just left betting, and at a shoe's end review every seat's record."""
        table = self.table
        for decision in table.step_decisions:
            if decision.type == "odds" and decision.round is not None:
                self._odds(decision.round, decision.data.get("ev", {}))
        if self.pending is not None:
            number = self.pending[0]
            if table.state == "betting" and table.current_round == number:
                self.wagers = {key: wager.amount for key, wager in table.round.wagers.items()}
            elif self._dealt(number):
                self._observe()
            else:  # void, or the shoe over, before no more bets
                self.pending, self.wagers = None, {}
        if any(decision.type == "shoe_result" for decision in table.step_decisions):
            self.watch, found = self.watch.review(self.policy)
            self._raise(found, None)

    def _odds(self, number: int, evs: dict[str, str]) -> None:
        """Round ``number``'s latest EVs: the kinds above the table's threshold are its windows."""
        threshold = self.table.protection.threshold
        windows = frozenset(kind for kind, text in evs.items() if parse_ev(text) > threshold)
        shoe = self.table.shoe
        dealt, cards = (0, 1) if shoe is None else (shoe.cards_read, shoe.decks * CARDS_PER_DECK)
        if self.pending is None or self.pending[0] != number:
            self.wagers = {}
        self.pending = (number, windows, dealt, cards)

    def _dealt(self, number: int) -> bool:
        """Round ``number`` closed for betting: it is being dealt, or it ended in this step with cards."""
        table = self.table
        if table.current_round == number and table.state in ("dealing", "revealing", "settling_pairs"):
            return True
        return any(decision.type == "round_result" and decision.data.get("round") == number
                   and decision.data.get("cards") for decision in table.step_decisions)  # fmt: skip

    def _observe(self) -> None:
        """The pending round has closed for betting: record it, raise the alarms it makes."""
        assert self.pending is not None
        table = self.table
        number, windows, dealt, cards = self.pending
        if table.state == "dealing" and table.current_round == number:
            self.wagers = {key: wager.amount for key, wager in table.round.wagers.items()}
        shoe = 0 if table.shoe is None else table.shoe.number
        day = table_day(table.clock.corrected(), self.policy.gaming_day)
        self.watch, found = self.watch.observe(self.policy, day, shoe, Fraction(dealt, cards), windows, self.wagers)
        self.pending, self.wagers = None, {}
        self._raise(found, number)

    def _raise(self, found: list[Evidence], number: int | None) -> None:
        """An ``advantage-play`` alert for each alarm, with its evidence."""
        for evidence in found:
            data: dict[str, Any] = {"code": ADVANTAGE_PLAY, "text": evidence.text(), "severity": "attention",
                                    **evidence.to_json()}  # fmt: skip
            self.table.decide("alert", data, number)
