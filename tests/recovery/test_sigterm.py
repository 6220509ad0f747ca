"""Issue 6 item 7: SIGTERM (``systemctl stop``) finishes the current journal write, leaves the
round resumable and exits 0; a restart with the same arguments finishes the same rounds."""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

import pytest

from bench.soak.audit import audit
from bench.soak.killloop import FOREVER, STARTUP_SECONDS, Run, Tracker, follow, run_to_end
from bench.soak.profiles import write_profile
from firmware_host.config.profiles import load_table
from firmware_host.host.journal import Journal
from firmware_host.host.journal_verify import verify
from firmware_host.host.service import Service
from firmware_host.wiring import game_wiring

LINK_FAULTS = "corrupt_byte = 0.01, drop_frame = 0.01"


@pytest.mark.parametrize("moment", ["mid_round", "betting", "burn"])
def test_sigterm_exits_0_and_the_interrupted_round_resumes_after_a_restart(ram_path: Path, moment: str) -> None:
    profile = write_profile(ram_path, faults=LINK_FAULTS)
    run = Run(profile, ram_path / "journal.sqlite", rounds=70, seed=4)  # past the first shoe: a second burn
    proc, tracker = run.fork(), Tracker(run)
    follow(proc, tracker, FOREVER, lambda: tracker.rounds >= 3 and tracker.moment(0) == moment)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert "stopped:" in run.log_tail(1)
    tracker.settle()
    assert verify(run.journal).ok
    assert 3 <= tracker.rounds < run.rounds
    table = load_table(profile)
    with Journal.open(run.journal) as journal:  # resumable: a fresh controller replays every step
        controller = game_wiring(table.game).controller(table)
        assert Service(controller, journal).recover() > 0
    assert controller.current_round == tracker.rounds + 1
    assert run_to_end(run) == 0
    assert audit(run).problems == []  # the interrupted round finished once, no card lost or counted twice


@pytest.mark.parametrize("seed", range(4))
def test_sigterm_while_starting_leaves_the_journal_intact_and_resumable(ram_path: Path, seed: int) -> None:
    # Before the service installs its handler (imports, replay) Python dies of the signal,
    # which systemd counts as a clean stop; the journal is intact either way.
    run = Run(write_profile(ram_path), ram_path / "journal.sqlite", rounds=8, seed=seed)
    assert run_to_end(Run(run.profile, run.journal, rounds=4, seed=seed)) == 0
    proc = run.start()
    time.sleep(random.Random(seed).uniform(0.0, STARTUP_SECONDS))
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) in (0, -signal.SIGTERM)
    assert verify(run.journal).ok
    assert run_to_end(run) == 0
    assert audit(run).problems == []
