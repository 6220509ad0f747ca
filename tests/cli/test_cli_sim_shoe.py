"""``tablehost sim shoe`` runs standalone and the shoe driver can be pointed at the path it prints."""

from __future__ import annotations

import queue
import subprocess
import sys

import pytest

from drivers.device import Timing
from drivers.events.lifecycle import DeviceIdentified
from drivers.events.shoe import CardRead
from drivers.shoe import shoe_driver
from firmware_host.cli import main

FAST = Timing(ack=0.05, heartbeat=0.1, handshake=0.2, reconnect_initial=0.05, reconnect_max=0.2)


@pytest.mark.parametrize("extra", [[], ["--socket", "0"]], ids=["pty", "socket"])
def test_standalone_sim_prints_a_port_the_driver_opens(extra: list[str]) -> None:
    command = [sys.executable, "-m", "firmware_host", "sim", "shoe", "--seed", "2", "--auto", "0.05", *extra]
    sim = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    events: queue.Queue[object] = queue.Queue()
    try:
        assert sim.stdout is not None
        url = sim.stdout.readline().strip()
        assert url.startswith("/dev/pts/") or url.startswith("socket://127.0.0.1:")
        driver = shoe_driver("framed", "shoe", url, events.put, timing=FAST)
        driver.start()
        try:
            assert isinstance(events.get(timeout=10), DeviceIdentified)
            assert isinstance(events.get(timeout=10), CardRead)
        finally:
            driver.stop()
    finally:
        sim.terminate()
        sim.wait(10)


def test_dealer_keys_pull_burn_and_reload(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", iter(["\n", "b\n", "\n", "r\n", "x\n", "q\n"]))
    assert main(["sim", "shoe", "--dialect", "ascii", "--seed", "4", "--decks", "1"]) == 0
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert lines[0].startswith("/dev/pts/")
    assert lines[1].startswith("drew ") and "left" in lines[1]
    assert lines[2] == "burn mode on" and "(burn)" in lines[3]
    assert lines[4] == "loaded shoe 2 (52 cards)"
    assert "unknown key 'x'" in out.err


def test_bad_faults_option_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "shoe", "--faults", "jam=0.1"]) == 2
    assert "unknown fault jam" in capsys.readouterr().err


@pytest.mark.parametrize("device", ["shoe", "shaker"])
def test_auto_offers_no_keys_it_does_not_read(device: str) -> None:
    command = [sys.executable, "-m", "firmware_host", "sim", device, "--auto", "60"]
    sim = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        assert sim.stderr is not None
        offer = sim.stderr.readline()
    finally:
        sim.terminate()
        sim.wait(10)
    assert "every 60 s:" in offer and "Ctrl-C: quit" in offer
    assert "Enter" not in offer and "+ Enter" not in offer and "q: quit" not in offer


def test_dealer_keys_are_offered_without_auto(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", iter(["q\n"]))
    assert main(["sim", "shoe", "--dialect", "ascii"]) == 0
    assert "Enter: pull a card; b + Enter: toggle burn mode, r + Enter: new shoe; q: quit" in capsys.readouterr().err


def test_suit_first_burns_option_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "shoe", "--dialect", "ascii", "--suit-first-burns", "2"]) == 2
    assert "suit_first_burns: 2.0 is not a share between 0 and 1" in capsys.readouterr().err
    assert main(["sim", "shoe", "--suit-first-burns", "0.5"]) == 2  # framed: no card text to reorder
    assert "the framed dialect" in capsys.readouterr().err


def test_an_unknown_dialect_is_one_line_naming_it_and_the_registered_ones(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["sim", "shoe", "--dialect", "morse"])
    assert exited.value.code == 2
    line = capsys.readouterr().err.splitlines()[-1]
    assert "--dialect: invalid choice: 'morse'" in line and "framed" in line and "ascii" in line
