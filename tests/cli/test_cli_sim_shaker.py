"""``tablehost sim shaker`` runs standalone and the shaker driver can open the port it prints."""

from __future__ import annotations

import subprocess
import sys

import pytest

from drivers.events.dice import ShakeDetected
from drivers.events.lifecycle import DeviceIdentified
from drivers.shaker import Shaker
from firmware_host.cli import main
from tests.support.device_events import FAST, Events


def test_standalone_sim_over_a_socket_plays_rounds_the_driver_hears() -> None:
    command = [sys.executable, "-m", "firmware_host", "sim", "shaker", "--seed", "2", "--auto", "0.05", "--socket", "0"]
    sim = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    events = Events()
    try:
        assert sim.stdout is not None
        url = sim.stdout.readline().strip()
        assert url.startswith("socket://127.0.0.1:")
        driver = Shaker("shaker", url, events.queue.put, timing=FAST)
        driver.start()
        try:
            assert events.next(DeviceIdentified).model == "DS-3"
            assert isinstance(events.next(ShakeDetected), ShakeDetected)
        finally:
            driver.stop()
    finally:
        sim.terminate()
        sim.wait(10)


def test_enter_steps_through_a_round_and_keys_act(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = ["\n"] * 5 + ["o\n", "s\n", "c\n", "z\n", "q\n"]
    monkeypatch.setattr(sys, "stdin", iter(keys))
    assert main(["sim", "shaker", "--seed", "3", "--faults", "die_out=1"]) == 0
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert lines[0].startswith("/dev/pts/")
    assert lines[1:4] == ["shake 1", "shake 2", "shake 3"]
    assert lines[4].startswith("lid off: ") and lines[4].endswith(", 2 in the shaker")  # § 535.12(b) die out
    assert lines[5] == "lid on"
    assert lines[6].startswith("lid off: ") and lines[6].endswith(", 2 in the shaker")
    assert lines[7:] == ["shake not felt (lid is off)", "lid on"]
    assert "unknown key 'z'" in out.err


def test_bad_faults_option_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "shaker", "--faults", "die_cocked=0.1"]) == 2
    assert "unknown fault die_cocked" in capsys.readouterr().err
