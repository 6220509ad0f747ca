"""The service loop: journal before outputs, clock ticks when idle, replay reproduces decisions."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from drivers.events import DeviceEvent
from firmware_host.errors import ControllerError, JournalError
from firmware_host.host.journal import Journal
from firmware_host.host.service import Service
from firmware_host.tables.decisions import Decision
from firmware_host.tables.events import ClockTick, DealerCommand


class CountingController:
    """Decides a round_result on every 'finish' command; refuses 'bad'; counts ticks."""

    def __init__(self, offset: int = 0) -> None:
        self.rounds = offset
        self.ticks = 0

    def handle(self, event: DeviceEvent, at: float, mono_ns: int | None = None) -> list[Decision]:
        if isinstance(event, ClockTick):
            self.ticks += 1
            return []
        assert isinstance(event, DealerCommand)
        if event.command == "bad":
            raise ControllerError("button 'bad' pressed in the wrong state")
        self.rounds += 1
        return [Decision("round_result", {"round": self.rounds, "at": at}, self.rounds)]


class JournalSpy:
    """An output that checks the step is already durable when it is called."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.seen: list[tuple[int, list[Decision]]] = []

    def on_decisions(self, decisions: list[Decision]) -> None:
        self.seen.append((self.journal.last_seq, list(decisions)))


def _clock():
    ticks = iter(range(1000, 10**6))
    return lambda: float(next(ticks))


def test_decisions_reach_outputs_only_after_they_are_journaled(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        spy = JournalSpy(journal)
        service = Service(CountingController(), journal, [spy], clock=_clock())
        service.step(DealerCommand(device="dealer", command="finish"))
        seq_when_announced, decisions = spy.seen[0]
        assert seq_when_announced == journal.last_seq
        records = list(journal.records())
        assert [r.kind for r in records[-2:]] == ["input", "decision"]
        assert decisions[0].type == "round_result"


def test_refused_input_is_journaled_as_a_warning_not_a_crash(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        service = Service(CountingController(), journal, clock=_clock())
        decisions = service.step(DealerCommand(device="buttons", command="bad"))
        assert decisions[0].type == "alert"
        assert "wrong state" in decisions[0].data["text"]


def test_idle_loop_feeds_clock_ticks_and_stops_after_rounds(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        controller = CountingController()
        service = Service(controller, journal, tick_seconds=0.01, stop_after_rounds=2, clock=_clock())
        runner = threading.Thread(target=service.run)
        runner.start()
        while controller.ticks < 3:
            service.done.wait(0.01)
        service.emit(DealerCommand(device="dealer", command="finish"))
        service.emit(DealerCommand(device="dealer", command="finish"))
        runner.join(5)
        assert not runner.is_alive()
        assert service.rounds_finished == 2


def test_stop_finishes_the_loop(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        service = Service(CountingController(), journal, tick_seconds=10, clock=_clock())
        runner = threading.Thread(target=service.run)
        runner.start()
        service.stop()
        runner.join(5)
        assert service.done.is_set()


def test_recover_replays_the_journal_into_a_fresh_controller(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        service = Service(CountingController(), journal, clock=_clock())
        for _ in range(3):
            service.step(DealerCommand(device="dealer", command="finish"))
    with Journal.open(path) as journal:
        fresh = CountingController()
        restarted = Service(fresh, journal, stop_after_rounds=3)
        assert restarted.recover() == 3
        assert fresh.rounds == 3 and restarted.rounds_finished == 3


def test_recover_refuses_a_journal_the_controller_now_decides_differently(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal.open(path) as journal:
        Service(CountingController(), journal, clock=_clock()).step(DealerCommand(device="d", command="finish"))
    with Journal.open(path) as journal, pytest.raises(JournalError, match="replay diverged at step 1"):
        Service(CountingController(offset=7), journal).recover()


def test_a_tick_that_decides_nothing_is_not_journaled(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite") as journal:
        service = Service(CountingController(), journal, clock=_clock())
        before = journal.last_seq
        assert service.step(ClockTick(device="clock")) == []
        assert journal.last_seq == before


class SteadyClocks:
    """A monotonic clock that runs on 1 s a read while the test steps the wall clock."""

    boot = "b0"

    def __init__(self) -> None:
        self.ns = 0

    def monotonic_ns(self) -> int:
        self.ns += 1_000_000_000
        return self.ns

    def synchronised(self) -> bool:
        return True


def test_event_times_are_the_wall_clock_as_read_and_the_monotonic_stamp_is_journaled(tmp_path: Path) -> None:
    # NTP may step the clock back: the wall time is recorded as read (never clamped) and the
    # monotonic stamp beside it, so a replay sees both exactly as the live table did.
    times = iter([100.0, 99.0, 101.0])
    with Journal.open(tmp_path / "j.sqlite") as journal:
        service = Service(CountingController(), journal, clock=lambda: next(times), clocks=SteadyClocks())
        stamped = [service.step(DealerCommand(device="d", command="finish"))[0].data["at"] for _ in range(3)]
        replayed = [(at, at.mono_ns) for at, _, _ in journal.steps()]
    assert stamped == [100.0, 99.0, 101.0]
    assert replayed == [(100.0, 1_000_000_000), (99.0, 2_000_000_000), (101.0, 3_000_000_000)]
