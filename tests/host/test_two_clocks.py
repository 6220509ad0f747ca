"""Issue 28: the service stamps every step on two clocks, and the compliance limits measure on the
monotonic one. A hand-set wall clock steps (NTP) while the monotonic clock runs on; the boot
changes at a reboot; the journal replays every decision."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_host.host.journal import Journal
from firmware_host.host.service import Service
from firmware_host.rules.clock import NS
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import ClockTick
from firmware_host.tables.paigow import PaiGowTable, PaiGowTableRules
from tests.support.hand_clocks import HandClocks
from tests.support.table_driver import command
from tests.tables.paigow.table import APPROVED, SHAKER_UP, lid, roll, shakes, wager

HOUR, DAY = 3600.0, 86400.0
TICK = ClockTick(device="clock")
OPENED = 1.75e9


class Table:
    def __init__(self, path: Path, clocks: HandClocks) -> None:
        self.clocks = clocks
        self.journal = Journal.open(path)
        self.controller = PaiGowTable("T1", APPROVED, PaiGowTableRules())
        self.service = Service(self.controller, self.journal, clock=clocks, clocks=clocks)
        self.service.recover()

    def step(self, *events: object, gap: float = 1.0) -> list[Decision]:
        out: list[Decision] = []
        for event in events:
            self.clocks.run(gap)
            out += self.service.step(event)  # type: ignore[arg-type]
        return out

    def restarted(self) -> Table:
        self.journal.close()
        return Table(self.journal.path, self.clocks)


def codes(decisions: list[Decision]) -> list[str]:
    return [d.data["code"] for d in decisions if d.type == "alert"]


def journaled(table: Table, after_seq: int) -> list[Decision]:
    """The decisions journaled after ``after_seq`` (a journaled ClockStatus is a step of its own)."""
    return [d for _, _, decisions in table.journal.steps(after_seq) for d in decisions]


def paigow_round() -> list[object]:
    return [wager(3), command("no_more_bets"), *roll(3, 5, 1), command("delivered"), lid(False), *shakes(1),
            command("round_complete")]  # fmt: skip


@pytest.fixture
def table(tmp_path: Path) -> Table:
    table = Table(tmp_path / "journal.sqlite", HandClocks(OPENED))
    table.step(SHAKER_UP, command("new_dice"))
    return table


@pytest.mark.parametrize("step", [HOUR, 3 * DAY, 365 * DAY, -HOUR, -3 * DAY, -365 * DAY])
def test_535_5_c_a_wall_clock_step_neither_expires_the_dice_nor_keeps_them(table: Table, step: float) -> None:
    table.clocks.wall += step
    stepped = table.step(TICK)
    assert codes(stepped) == ["clock-step"]
    (alert,) = [d.data for d in stepped if d.type == "alert"]
    assert alert["step_ns"] == round(step * NS)
    assert table.controller.dice_clock().state == "ok"
    assert codes(table.step(TICK, gap=22 * HOUR)) == []
    assert codes(table.step(TICK, gap=2 * HOUR)) == ["dice-expired"]  # 24 h on the monotonic clock
    replayed = table.restarted()  # every decision replays from the journaled stamps
    assert replayed.controller.dice_clock().state == "expired"
    assert replayed.controller.dice.registered == table.controller.dice.registered


def test_a_slew_within_the_kernels_rate_is_not_a_step(table: Table) -> None:
    table.clocks.wall += 1.5  # under the 2 s tolerance
    assert "clock-step" not in codes(table.step(command("noop")))
    table.clocks.wall += 0.4 * HOUR * 500e-6 * 2  # within 500 ppm of the hour that passes
    assert "clock-step" not in codes(table.step(command("noop"), gap=0.4 * HOUR))


def test_a_restart_in_the_same_boot_counts_the_time_down_on_the_monotonic_clock(table: Table) -> None:
    table.clocks.run(23 * HOUR)
    table.clocks.wall -= 365 * DAY  # and the wall clock went back a year meanwhile
    restarted = table.restarted()
    assert codes(restarted.step(TICK, gap=HOUR)) == ["clock-step", "dice-expired"]


def test_535_5_c_across_a_reboot_a_synchronised_clock_counts_the_time_between(table: Table) -> None:
    table.clocks.boot, table.clocks.mono = "boot-2", 3 * NS
    table.clocks.wall += 2 * HOUR
    restarted = table.restarted()
    seq = restarted.journal.last_seq
    restarted.step(TICK)
    decided = journaled(restarted, seq)
    assert [d.data for d in decided if d.type == "clock"] == [{"boot": "boot-2", "synced": True, "restarted": True}]
    assert restarted.controller.dice_clock().state == "ok"
    assert restarted.controller.dice_clock().seconds_left == pytest.approx(22 * HOUR - 1, abs=1e-6)


def test_535_5_c_across_a_reboot_an_unsynchronised_clock_takes_the_dice_as_expired_and_says_why(table: Table) -> None:
    table.clocks.boot, table.clocks.mono, table.clocks.synced = "boot-2", 3 * NS, False
    restarted = table.restarted()
    seq = restarted.journal.last_seq
    restarted.step(TICK)
    decided = journaled(restarted, seq)
    assert codes(decided) == ["clock-unsynchronised", "dice-expired", "clock-unknown"]
    reason = [d.data["text"] for d in decided if d.type == "alert" and d.data["code"] == "clock-unknown"]
    assert "not synchronised now" in reason[0]
    assert restarted.restarted().controller.dice_clock().state == "expired"  # and so on replay


def test_a_round_dealt_unsynchronised_is_marked_and_the_change_journaled(tmp_path: Path) -> None:
    table = Table(tmp_path / "journal.sqlite", HandClocks(OPENED, synced=False))
    table.step(SHAKER_UP, command("new_dice"), *paigow_round())
    decided = journaled(table, 0)
    assert [d.data for d in decided if d.type == "clock"] == [{"boot": "boot-1", "synced": False, "restarted": False}]
    assert codes(decided)[0] == "clock-unsynchronised"
    (result,) = [d.data for d in decided if d.type == "round_result"]
    assert result["clock"] == "unsynchronised"
    table.clocks.synced = True
    seq = table.journal.last_seq
    table.step(*paigow_round())
    decided = journaled(table, seq)
    assert codes(decided) == ["clock-synchronised"]
    (result,) = [d.data for d in decided if d.type == "round_result"]
    assert "clock" not in result
