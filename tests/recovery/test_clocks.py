"""Issue 6 item 5: the compliance clocks survive restarts (dice 24 h, § 535.5(c); decks 4 h,
§ 541.3(c); an idle table, § 541.5(h)(2)).

Time reaches a controller only as the receive times of its events, so the clocks are
rebuilt by replaying the journal. Each test runs a controller behind a :class:`Service`
with a journal and a hand-set clock, "kills" it (the journal is all that is left), replays
the journal into a fresh controller, lets time pass while the table is down, and then
gives the restarted table and the one that was never stopped the same next events: they
must decide the same and show the same clocks.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from drivers.events import DeviceEvent
from firmware_host.host.journal import Journal
from firmware_host.host.service import Service
from firmware_host.rules import shuffler as shuffling
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.shuffler import ShufflerConfig
from firmware_host.tables.baccarat.controller import BaccaratTable
from firmware_host.tables.base import TableController
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import ClockTick
from firmware_host.tables.paigow import PaiGowTable, PaiGowTableRules
from tests.support.table_driver import command
from tests.tables.baccarat.shuffler_table import (
    APPROVED_WITH_SHUFFLER,
    DECKS,
    SHUFFLER,
    SHUFFLER_UP,
    released,
    shuffled,
    status,
)
from tests.tables.baccarat.table import SHOE_UP, cards
from tests.tables.paigow.table import APPROVED, SHAKER_UP, lid, roll, shakes, wager

HOUR = 3600.0
MINUTE = 60.0
TICK = ClockTick(device="clock")
#: When the tests' tables open (seconds): any wall-clock time.
OPENED = 1.75e9


@dataclasses.dataclass
class Clock:
    """The wall clock the service reads, set by hand."""

    now: float = OPENED

    def __call__(self) -> float:
        return self.now


class Table:
    """A controller behind a service with a journal: what ``tablehost run`` runs, minus the devices."""

    def __init__(self, path: Path, make: Callable[[], TableController], clock: Clock) -> None:
        self.path, self.make, self.clock = path, make, clock
        self.journal = Journal.open(path)
        self.controller = make()
        self.service = Service(self.controller, self.journal, clock=clock)
        self.replayed = self.service.recover()

    def feed(self, *events: DeviceEvent | Iterable[DeviceEvent], gap: float = 1.0) -> list[Decision]:
        """Step each event ``gap`` seconds after the previous one; the decisions."""
        out: list[Decision] = []
        for item in events:
            for event in [item] if isinstance(item, DeviceEvent) else item:
                self.clock.now += gap
                out += self.service.step(event)
        return out

    def killed_and_restarted(self, down_for: float) -> Table:
        """The table after a crash, ``down_for`` seconds later: a fresh controller replays the journal."""
        self.journal.close()
        self.clock.now += down_for
        return Table(self.path, self.make, self.clock)


def both_decide(
    restarted: Table, uninterrupted: Any, *events: DeviceEvent | Iterable[DeviceEvent], gap: float = 1.0
) -> list[Decision]:
    """Feed the same events to the restarted table and to the one never stopped; they must agree."""
    decided: list[Decision] = []
    for event in [e for item in events for e in ([item] if isinstance(item, DeviceEvent) else item)]:
        restarted.clock.now += gap
        after_restart = restarted.service.step(event)
        assert uninterrupted.handle(event, restarted.clock.now) == after_restart, event
        decided += after_restart
    assert restarted.controller.view() == uninterrupted.view()
    return decided


def alerts(decisions: Iterable[Decision]) -> list[str]:
    return [d.data["code"] for d in decisions if d.type == "alert"]


# --------------------------------------------------------------------------- dice, § 535.5(c)


def paigow() -> PaiGowTable:
    return PaiGowTable("T1", APPROVED, PaiGowTableRules())


def paigow_round(seat: int = 3) -> list[DeviceEvent]:
    """One round as the dealer plays it: wager, no more bets, the roll, delivery, the lid back, a shake, done."""
    return [
        wager(seat),
        command("no_more_bets"),
        *roll(3, 5, 1),
        command("delivered"),
        lid(False),
        *shakes(1),
        command("round_complete"),
    ]


def open_paigow(tmp_path: Path) -> Table:
    """A Pai Gow table whose dice were registered at :data:`OPENED`, with one round played."""
    table = Table(tmp_path / "journal.sqlite", paigow, Clock())
    table.feed(SHAKER_UP, command("new_dice"), gap=0.0)
    table.feed(paigow_round())
    return table


def test_535_5_c_dice_expire_while_the_table_is_down_and_the_restarted_table_refuses_a_round(tmp_path: Path) -> None:
    table = open_paigow(tmp_path)
    table.feed(TICK, gap=22 * HOUR)  # decides nothing: not journaled
    uninterrupted = table.controller  # the controller that never stopped
    restarted = table.killed_and_restarted(down_for=2 * HOUR + MINUTE)
    assert restarted.controller.dice.registered_at == uninterrupted.dice.registered_at == OPENED
    decided = both_decide(restarted, uninterrupted, TICK)
    assert alerts(decided) == ["dice-expired"]  # the warning lead was slept through: expired at once
    assert restarted.controller.dice_clock().state == "expired"
    refused = both_decide(restarted, uninterrupted, wager(4), command("no_more_bets"))
    assert "dice-expired" in alerts(refused)


def test_535_5_c_a_warning_given_before_a_restart_is_not_given_again(tmp_path: Path) -> None:
    table = open_paigow(tmp_path)
    warned = table.feed(TICK, gap=23 * HOUR + 30 * MINUTE)  # inside the 60-minute lead: journaled
    assert alerts(warned) == ["dice-warn"]
    uninterrupted = table.controller  # the controller that never stopped
    restarted = table.killed_and_restarted(down_for=10 * MINUTE)
    assert restarted.controller.view() == uninterrupted.view()
    assert alerts(both_decide(restarted, uninterrupted, TICK, TICK, gap=MINUTE)) == []
    assert restarted.controller.dice_clock().state == "warn"


def test_535_5_c_a_clock_stepped_back_before_a_restart_does_not_move_the_dice_clock(tmp_path: Path) -> None:
    # A tick that decides nothing is not journaled; the wall clock then steps back (NTP).
    # The service stamps the next event with the wall clock as read (never clamped) and
    # journals it, so the replay sees the time the live table saw and registers the dice at
    # the same moment.
    table = Table(tmp_path / "journal.sqlite", paigow, Clock())
    table.feed(SHAKER_UP, TICK, gap=HOUR)
    table.clock.now -= 10 * MINUTE
    table.feed(command("new_dice"), gap=0.0)
    registered = table.controller.dice.registered_at
    restarted = table.killed_and_restarted(down_for=MINUTE)
    assert restarted.controller.dice.registered_at == registered == OPENED + 2 * HOUR - 10 * MINUTE


# --------------------------------------------------------------------------- decks, § 541.3(c) and § 541.5(h)(2)


def baccarat_with_shuffler(**config: Any) -> Callable[[], BaccaratTable]:
    shuffler = ShufflerConfig(decks_per_batch=DECKS, **config)
    return lambda: BaccaratTable(
        "T1", APPROVED_WITH_SHUFFLER, RulesSubmission(), DECKS, shuffler=shuffler, shuffler_device=SHUFFLER
    )


def open_baccarat(tmp_path: Path, **config: Any) -> Table:
    """A shuffler table with batch A's shoe in play, burned and betting."""
    table = Table(tmp_path / "journal.sqlite", baccarat_with_shuffler(**config), Clock())
    table.feed(SHOE_UP, SHUFFLER_UP, status("A"), status("B"), shuffled("A"), shuffled("B"), released("A"))
    table.feed(command("shoe_loaded", batch="A"), cards("AH 2C", burn=True))
    return table


def deck_clocks(controller: BaccaratTable, at: float) -> tuple[shuffling.DeckClock, ...]:
    assert controller.shuffler is not None
    return shuffling.deck_clock(controller.shuffler.state, at)


@pytest.mark.parametrize("down_for", [10 * MINUTE, 3 * HOUR + 50 * MINUTE], ids=["short", "past-the-decks-life"])
def test_541_3_c_the_deck_clock_survives_a_restart(tmp_path: Path, down_for: float) -> None:
    table = open_baccarat(tmp_path, deck_life_s=4 * HOUR, deck_warning_s=30 * MINUTE)
    table.feed(command("no_more_bets"), cards("3S 3H 3D 4C"), gap=MINUTE)
    uninterrupted = table.controller  # the controller that never stopped
    restarted = table.killed_and_restarted(down_for)
    now = restarted.clock.now
    assert restarted.controller.shuffler.state == uninterrupted.shuffler.state  # type: ignore[union-attr]
    assert deck_clocks(restarted.controller, now) == deck_clocks(uninterrupted, now)  # type: ignore[arg-type]
    decided = both_decide(restarted, uninterrupted, command("no_more_bets"), cards("9S 8H KD KC"))  # naturals: over
    if down_for > 3 * HOUR:
        assert "deck-clock" in alerts(decided) or "deck-clock-expired" in alerts(decided)


def test_541_5_h_2_a_table_idle_while_down_ends_its_shoe_on_the_first_tick(tmp_path: Path) -> None:
    table = open_baccarat(tmp_path, idle_after_s=15 * MINUTE)
    table.feed(command("no_more_bets"), cards("3S 3H 3D 4C"))
    uninterrupted = table.controller  # the controller that never stopped
    restarted = table.killed_and_restarted(down_for=20 * MINUTE)
    decided = both_decide(restarted, uninterrupted, TICK)
    assert "idle-table" in alerts(decided)
    assert restarted.controller.state == "reading_out"
