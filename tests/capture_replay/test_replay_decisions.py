"""Issue 7 "done when": a capture taken from a simulated run replays to the same journal of decisions.

A Baccarat table plays with a simulated shoe, the real shoe driver, a fresh controller, the
journal and the simulated dealer while the shoe's bytes and every input are captured. The
capture is then replayed into a fresh driver, controller and journal, with the dealer's
actions put back in their place by :meth:`sim.devices.replay.Replay.inputs`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from drivers.capture import read_capture
from sim.devices.faults import ShoeFaults
from sim.devices.replay import Replay
from tests.capture_replay.sessions import baccarat_service, driver_for, journal_steps, record_table, run_service
from tests.support.device_events import FAST

ROUNDS = 3
#: The tests' short timing, but a watchdog of 2 s, not 0.3 s: a loaded machine may stall a
#: process that long, and a heartbeat lost to that is not in what the capture replays.
TIMING = dataclasses.replace(FAST, heartbeat_misses=20)


def replay_table(capture: Path, journal_path: Path, dialect: str, speed: float | None) -> None:
    service = baccarat_service(journal_path, ROUNDS)
    try:
        with Replay(read_capture(capture), speed=speed) as replay:
            driver = driver_for(dialect, replay.url("shoe"), replay.inputs(service.emit), TIMING)
            driver.start()
            try:
                run_service(service)
            finally:
                driver.stop()
    finally:
        service.journal.close()


@pytest.mark.parametrize("dialect", ["framed", "ascii"])
@pytest.mark.parametrize("speed", [None, 4.0], ids=["fast", "timed"])
def test_capture_of_a_simulated_table_replays_to_the_same_journal_of_decisions(
        tmp_path: Path, dialect: str, speed: float | None) -> None:  # fmt: skip
    # Card faults are part of what the shoe says (§ 541.14(d) face up, unreadable), so they replay too.
    faults = ShoeFaults(unreadable_card=0.05, face_up_card=0.03)
    record_table(
        tmp_path / "table.capture", tmp_path / "original.sqlite", dialect, ROUNDS, seed=11, timing=TIMING, faults=faults
    )
    replay_table(tmp_path / "table.capture", tmp_path / "replayed.sqlite", dialect, speed)
    original, replayed = journal_steps(tmp_path / "original.sqlite"), journal_steps(tmp_path / "replayed.sqlite")
    assert sum(1 for _, decisions in original for d in decisions if d.type == "round_result") == ROUNDS
    assert [event for event, _ in replayed] == [event for event, _ in original]
    assert [decisions for _, decisions in replayed] == [decisions for _, decisions in original]
