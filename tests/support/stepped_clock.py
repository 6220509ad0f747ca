"""A table on the Pi's own clocks while libfaketime steps the wall clock (issue 28 item 8).

Run as ``python -m tests.support.stepped_clock GAME MOMENT JOURNAL`` under
``LD_PRELOAD=libfaketimeMT.so.1`` with ``FAKETIME_TIMESTAMP_FILE``, ``FAKETIME_NO_CACHE=1`` and
``FAKETIME_DONT_FAKE_MONOTONIC=1`` (``tests/recovery/test_stepped_clock.py``): a controller
behind a :class:`~firmware_host.host.service.Service` reading the real
:class:`~firmware_host.host.clock.SystemClock` (``CLOCK_BOOTTIME`` runs on) and the faked wall
clock. The script steps the wall clock itself by rewriting the timestamp file (an offset from
the real time), forward and back by an hour, three days and a year, and prints one JSON line per
moment: what it was, the wall offset then, the alerts decided, and the monotonic clock before and
after its events (a loaded machine may take more than the limit over the steps themselves). Waits are queue timeouts:
libfaketime's ``clock_nanosleep`` refuses Python's ``time.sleep``.

``MOMENT``: ``start`` opens the table on a stale clock (fake-hwclock's, three days back) that NTP
then corrects, ``mid`` on a right one.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import time
from collections.abc import Callable
from pathlib import Path

from drivers.events import DeviceEvent
from firmware_host.host.clock import SystemClock
from firmware_host.host.journal import Journal
from firmware_host.host.service import Service
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.paigow_dice.rules import PaiGowRules
from firmware_host.rules.shuffler import ShufflerConfig
from firmware_host.tables.baccarat.controller import BaccaratTable
from firmware_host.tables.base import TableController
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
from tests.tables.baccarat.table import APPROVED as BACCARAT_APPROVED
from tests.tables.baccarat.table import SHOE_UP, cards
from tests.tables.paigow.table import APPROVED as PAIGOW_APPROVED
from tests.tables.paigow.table import SHAKER_UP

HOUR, DAY = 3600, 86400
#: The steps, in order: forward, then back (the last, a year back, is what froze the old table).
STEPS = (HOUR, 3 * DAY, 365 * DAY, -HOUR, -3 * DAY, -365 * DAY)
#: The short limits: dice (§ 535.5(c)) and deck life (§ 541.3(c)), seconds.
LIMIT_S = 1
TICK = ClockTick(device="clock")
#: A Baccarat round: naturals, over at four cards.
ROUND = [command("no_more_bets"), *cards("9S 8H KD KC")]


def wait(seconds: float) -> None:
    """Wait on the monotonic clock (a queue timeout; libfaketime breaks ``time.sleep``)."""
    end = time.clock_gettime(time.CLOCK_BOOTTIME) + seconds
    while (left := end - time.clock_gettime(time.CLOCK_BOOTTIME)) > 0:
        try:
            queue.SimpleQueue().get(timeout=left)
        except queue.Empty:
            pass


class Stepped:
    """The wall clock's offset from the real time, written where libfaketime reads it."""

    def __init__(self, path: Path, offset: int = 0) -> None:
        self.path, self.offset = path, 0
        self.to(offset)

    def to(self, offset: int) -> None:
        self.offset = offset
        self.path.write_text(f"{offset:+d}\n")
        time.time()  # libfaketime re-reads the file on the next call (FAKETIME_NO_CACHE)


def paigow() -> TableController:
    return PaiGowTable(
        "T1", PAIGOW_APPROVED, PaiGowTableRules(PaiGowRules(dice_max_hours=LIMIT_S / 3600, dice_warning_minutes=0))
    )


def baccarat() -> TableController:
    return BaccaratTable("T1", BACCARAT_APPROVED, RulesSubmission(), 8)


def shuffler() -> TableController:
    config = ShufflerConfig(decks_per_batch=DECKS, deck_life_s=LIMIT_S, deck_warning_s=0, idle_after_s=3600)
    return BaccaratTable("T1", APPROVED_WITH_SHUFFLER, RulesSubmission(), DECKS, shuffler=config,
                         shuffler_device=SHUFFLER)  # fmt: skip


#: How each table opens (its limit's clock starts), and what is tried after the steps (the limit
#: not reached on the monotonic clock) and again once it has passed: a tick at Pai Gow (the dice
#: clock is checked after every event), a round at Baccarat (the deck clock, after each round).
OPENING: dict[str, tuple[Callable[[], TableController], list[DeviceEvent], list[DeviceEvent]]] = {
    "paigow": (paigow, [SHAKER_UP, command("new_dice")], [TICK]),
    "baccarat": (baccarat, [SHOE_UP, command("shoe_loaded"), *cards("AH 2C", burn=True)], ROUND),
    "shuffler": (
        shuffler,
        [
            SHOE_UP,
            SHUFFLER_UP,
            status("A"),
            status("B"),
            *shuffled("A"),
            *shuffled("B"),
            released("A"),
            command("shoe_loaded", batch="A"),
            *cards("AH 2C", burn=True),
        ],
        ROUND,
    ),  # fmt: skip
}


def main(game: str, moment: str, journal_path: str) -> None:
    stepped = Stepped(Path(os.environ["FAKETIME_TIMESTAMP_FILE"]), -3 * DAY if moment == "start" else 0)
    make, opening, after = OPENING[game]
    controller = make()
    service = Service(controller, Journal.open(journal_path), clock=time.time, clocks=SystemClock())
    service.recover()

    def report(what: str, events: list[DeviceEvent]) -> None:
        seq = service.journal.last_seq if service.journal else 0
        began = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
        for event in events:
            service.step(event)
        ended = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
        assert service.journal is not None
        decided = [d for _, _, ds in service.journal.steps(seq) for d in ds if d.type == "alert"]
        line = {"what": what, "offset": stepped.offset, "alerts": [d.data["code"] for d in decided],
                "steps": [d.data.get("step_ns") for d in decided if d.data["code"] == "clock-step"],
                "began_ns": began, "ended_ns": ended}  # fmt: skip
        print(json.dumps(line), flush=True)

    report("opened", opening)
    if moment == "start":
        stepped.to(0)  # NTP's first step corrects the stale clock
        report("corrected", [TICK])
    for step in STEPS:
        stepped.to(stepped.offset + step)
        report("stepped", [TICK])
    report("before the limit", after)
    wait(LIMIT_S + 0.2)
    report("after the limit", after)


if __name__ == "__main__":
    os.environ.setdefault("TABLEHOST_CLOCK", "assume-synchronised")
    main(*sys.argv[1:4])
