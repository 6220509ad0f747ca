"""The dice set at a Pai Gow table and its clock (§ 535.5(c)).

:class:`DiceSet` is the table's collaborator that runs across the states: ``new_dice``
registers a set at the event's time; after every event the clock is checked, warning once
inside the Rules Submission's lead and once at the limit. ``no_more_bets`` is refused, and
the prompt asks for new dice, while no set is registered or the limit is reached
(:attr:`~firmware_host.rules.paigow_dice.dice.DiceClock.may_start_round`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from firmware_host.errors import RulesError
from firmware_host.rules.clock import Instant
from firmware_host.rules.paigow_dice.dice import DiceClock
from firmware_host.tables.events import ClockTick

if TYPE_CHECKING:
    from firmware_host.tables.paigow.controller import PaiGowTable

__all__ = ["DiceSet", "clock_text"]

#: Seconds in an hour and a minute, for the dice clock's messages.
_HOUR, _MINUTE = 3600, 60


class DiceSet:
    """The dice set in the shaker of ``table``, against the 24-hour limit (§ 535.5(c)).

    :param table: the table whose events' times the clock runs on.
    """

    #: Not the table's state (:mod:`firmware_host.tables.state_tree`): the table it works for.
    NOT_STATE = ("table",)

    def __init__(self, table: PaiGowTable) -> None:
        self.table = table
        #: When the set in the shaker was registered, on both clocks (None: no set is); the
        #: limit is measured from it (§ 535.5(c)).
        self.registered: Instant | None = None
        #: The clock's state last alerted (each is alerted once).
        self.alerted = "unregistered"
        table.register(ClockTick, self.on_tick)

    @property
    def registered_at(self) -> float | None:
        """When the set in the shaker was registered, on the wall clock as read (None: no set is)."""
        return None if self.registered is None else self.registered.wall

    def clock(self) -> DiceClock:
        """The dice set against the 24-hour limit (§ 535.5(c)) at the latest event's time."""
        return self.table.rules.dice.dice_clock(self.registered, self.table.clock.now)

    def on_tick(self, event: ClockTick) -> None:
        """Time passed: the dice clock is checked after every event (see :meth:`check`)."""

    def new_dice(self, args: Mapping[str, Any]) -> None:
        """§ 535.5(c): a new dice set; the clock restarts at this event's time."""
        table = self.table
        if table.state != "betting":
            raise RulesError("change the dice between rounds (no more bets has been called)")
        self.registered = table.clock.now
        self.alerted = "ok"
        expires = table.now + table.rules.dice.dice_max_hours * _HOUR
        table.announce(
            "new_dice",
            f"new dice registered; they leave the table within {table.rules.dice.dice_max_hours:g} hours (§ 535.5(c))",
            registered_at=table.now,
            expires_at=expires,
        )

    def check(self) -> None:
        """Warn once inside the lead and once at the limit (§ 535.5(c))."""
        clock = self.clock()
        if clock.state == self.alerted or clock.state == "ok":
            return
        self.alerted = clock.state
        severity = "warning" if clock.state == "warn" else "attention"
        self.table.alert_in_round("dice-" + clock.state, f"{clock_text(clock)} (§ 535.5(c))", severity)
        if clock.reason is not None:  # the limit taken as reached: why, on the record
            self.table.alert_in_round(
                "clock-unknown", f"dice: {clock.reason}; taken as expired (§ 535.5(c))", "attention"
            )
        self.table.prompt_again()


def clock_text(clock: DiceClock) -> str:
    """The dice clock for people: no set, expired, or the time left (§ 535.5(c))."""
    if clock.state == "unregistered":
        return "no dice set is registered"
    if clock.state == "expired":
        return "the dice have been on the table for the longest time allowed"
    left = clock.seconds_left or 0.0
    return f"the dice must leave the table in {int(left // _HOUR)} h {int(left % _HOUR // _MINUTE)} min"
