"""Issue 28 item 5: ``journal report`` dates rounds by corrected time and measures pace on the
monotonic clock. A table starts on a stale clock (fake-hwclock, three days back), deals two
rounds, then NTP synchronises it mid-round with a step of three days: every round lands on the
right gaming day, and the step is not in the pace."""

from __future__ import annotations

import datetime
from pathlib import Path

from firmware_host.host import figures
from firmware_host.host.journal import Journal
from firmware_host.host.service import Service
from firmware_host.rules.gaming_day import GamingDay
from firmware_host.tables.paigow import PaiGowTable, PaiGowTableRules
from tests.support.hand_clocks import HandClocks
from tests.support.table_driver import command
from tests.tables.paigow.table import APPROVED, SHAKER_UP, lid, roll, shakes, wager

DAY = 86400.0
RIGHT = datetime.datetime(2026, 12, 2, 12, 0, tzinfo=datetime.UTC).timestamp()


def test_rounds_before_ntps_first_step_land_on_the_right_day_and_the_step_is_not_in_the_pace(tmp_path: Path) -> None:
    clocks = HandClocks(RIGHT - 3 * DAY, synced=False)  # fake-hwclock's time, three days back
    journal = Journal.open(tmp_path / "journal.sqlite")
    service = Service(PaiGowTable("T1", APPROVED, PaiGowTableRules()), journal, clock=clocks, clocks=clocks)
    service.recover()

    def step(*events: object) -> None:
        for event in events:
            clocks.run(1)
            service.step(event)  # type: ignore[arg-type]

    step(SHAKER_UP, command("new_dice"))
    play = [wager(3), command("no_more_bets"), *roll(3, 5, 1), command("delivered"), lid(False), *shakes(1)]
    for _ in range(2):
        step(*play, command("round_complete"))
    step(*play)
    clocks.wall, clocks.synced = clocks.wall + 3 * DAY, True  # NTP synchronises: a step of three days
    step(command("round_complete"))
    journal.close()
    day = GamingDay(datetime.time(6), "UTC")
    (by_day,) = figures.report(tmp_path / "journal.sqlite", "day", day)
    assert by_day["day"] == "2026-12-02" and by_day["rounds"] == 3  # not two of them three days back
    assert by_day["rounds_per_hour"] > 300  # about 10 s a round on the monotonic clock, not three days
