"""A captured USB shuffler replayed to a fresh driver (sim/devices/replay_usb.py through sim/devices/replay.py):
the captured IN transfers in order, the host's OUT transfers checked, a pulled cable pulled again."""

from __future__ import annotations

import dataclasses
import logging
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from drivers.capture import CaptureWriter, DeviceInfo, Link, read_capture
from drivers.events import DeviceEvent
from drivers.events.lifecycle import DeviceIdentified, DeviceLost
from drivers.events.shuffler import BatchReleased, BatchStatus, ShuffleCompleted, ShuffleStarted
from drivers.shuffler import ShufflerDriver
from firmware_host.cli.run import _report_mismatches
from sim.devices.replay import Mismatch, Replay
from sim.devices.shuffler import SimulatedShuffler
from sim.errors import SimError
from tests.support.device_events import FAST, Events, eventually

#: Fast, but heartbeats far enough apart that a replayed driver does not miss them once the capture ends.
TIMING = dataclasses.replace(FAST, heartbeat=1.0)
#: How the capture declares the shuffler (its port carries the ids the replay enumerates with).
INFO = DeviceInfo("shuffler", "usb-framed", "usb", "SH-16", "usb:1209:7ab1")
#: Events about the link, whose number depends on timing.
LINK = (DeviceIdentified, DeviceLost)


def record(path: Path, *faults: str) -> list[DeviceEvent]:
    """Capture a session: the driver connects, batch A is shuffled (suffering ``faults``) and released."""
    sim = SimulatedShuffler(seed=3, decks_per_batch=1, recover_after_s=0.05)
    events = Events()
    with CaptureWriter(path) as writer:
        tap = writer.tap("shuffler", INFO)
        driver = ShufflerDriver("shuffler", writer.tap_events(events.queue.put), backend=tap.usb_backend(sim),
                                timing=TIMING)  # fmt: skip
        driver.start()
        try:
            play(
                driver,
                events,
                shuffled=lambda ev: (
                    isinstance(ev, ShuffleCompleted)
                    or (isinstance(ev, BatchStatus) and ev.batch == "A" and ev.state == "shuffled")
                ),
                arm=lambda: sim.arm(*faults),
            )
        finally:
            driver.stop()
    return events.seen


def play(driver: ShufflerDriver, events: Events, shuffled: Callable[[DeviceEvent], bool],
         arm: Callable[[], None] = lambda: None) -> None:  # fmt: skip
    """What the host does in :func:`record`: shuffle batch A once it is found, release it once shuffled."""
    events.until(lambda ev: isinstance(ev, BatchStatus) and ev.batch == "B")
    arm()
    driver.start_shuffle("A", 52)
    events.until(shuffled)
    driver.release_batch("A")
    events.next(BatchReleased)


@pytest.fixture
def replayed(request: pytest.FixtureRequest) -> Iterator[Callable[..., tuple[Replay, ShufflerDriver, Events]]]:
    """Replays a capture to a fresh driver (stopped at the end of the test)."""
    started: list[tuple[Replay, ShufflerDriver]] = []

    def replay(path: Path, **options: object) -> tuple[Replay, ShufflerDriver, Events]:
        replay = Replay(read_capture(path), **options).start()  # type: ignore[arg-type]
        events = Events()
        driver = ShufflerDriver("shuffler", replay.inputs(events.queue.put), backend=replay.backend("shuffler"),
                                timing=TIMING)  # fmt: skip
        started.append((replay, driver))
        driver.start()
        return replay, driver, events

    yield replay
    for replay, driver in started:
        driver.stop()
        replay.stop()


def said(events: list[DeviceEvent]) -> list[DeviceEvent]:
    """What the device said (its link's events aside)."""
    return [ev for ev in events if not isinstance(ev, LINK)]


@pytest.mark.parametrize("speed", [None, 4.0], ids=["fast", "timed"])
def test_replayed_shuffler_tells_a_fresh_driver_what_it_told_the_captured_one(
        tmp_path: Path, replayed: Callable[..., tuple[Replay, ShufflerDriver, Events]], speed: float | None) -> None:  # fmt: skip
    captured = record(tmp_path / "c.jsonl")
    replay, driver, events = replayed(tmp_path / "c.jsonl", speed=speed)
    play(driver, events, shuffled=lambda ev: isinstance(ev, ShuffleCompleted))
    assert said(events.seen) == said(captured)
    assert replay.devices == ["shuffler"] and replay.mismatches == []
    assert replay.finished.wait(5.0)


def test_a_pulled_cable_is_pulled_again_where_the_capture_lost_the_device(
        tmp_path: Path, replayed: Callable[..., tuple[Replay, ShufflerDriver, Events]]) -> None:  # fmt: skip
    captured = record(tmp_path / "c.jsonl", "unplug")
    capture = read_capture(tmp_path / "c.jsonl")
    assert any(isinstance(r, Link) and r.state == "lost" for r in capture.records), "the capture says where"
    replay, driver, events = replayed(tmp_path / "c.jsonl")
    # Unplugged mid-shuffle, the device finishes its shuffle unheard: the status after the next handshake tells.
    play(driver, events, shuffled=lambda ev: isinstance(ev, BatchStatus) and ev.batch == "A" and ev.state == "shuffled")
    assert said(events.seen) == said(captured)
    lost = [ev for ev in events.seen if isinstance(ev, DeviceLost)]
    assert lost == [ev for ev in captured if isinstance(ev, DeviceLost)] and len(lost) == 1
    assert sum(isinstance(ev, DeviceIdentified) for ev in events.seen) == 2
    assert replay.mismatches == []


def test_an_unexpected_out_transfer_is_reported_and_logged(
        tmp_path: Path, replayed: Callable[..., tuple[Replay, ShufflerDriver, Events]],
        caplog: pytest.LogCaptureFixture) -> None:  # fmt: skip
    record(tmp_path / "c.jsonl")
    replay, driver, events = replayed(tmp_path / "c.jsonl")
    play(driver, events, shuffled=lambda ev: isinstance(ev, ShuffleCompleted))
    with caplog.at_level(logging.WARNING, logger="tablehost.sim.replay"):
        driver.release_batch("B")  # the captured host made two OUT transfers
        eventually(lambda: bool(replay.mismatches))
    [mismatch] = replay.mismatches
    assert mismatch.device == "shuffler"
    assert "unexpected OUT transfer #3" in mismatch.text and "ReleaseBatch(batch='B')" in mismatch.text
    assert "the capture has 2" in mismatch.text
    assert str(mismatch) in caplog.text


def test_an_out_transfer_other_than_the_captured_one_is_reported(
        tmp_path: Path, replayed: Callable[..., tuple[Replay, ShufflerDriver, Events]]) -> None:  # fmt: skip
    record(tmp_path / "c.jsonl")
    replay, driver, events = replayed(tmp_path / "c.jsonl")
    events.until(lambda ev: isinstance(ev, BatchStatus) and ev.batch == "B")
    driver.start_shuffle("B", 52)
    eventually(lambda: bool(replay.mismatches))
    text = replay.mismatches[0].text
    assert text.startswith("OUT transfer #1 differs from the capture")
    assert "the host sent StartShuffle(batch='B', expected_cards=52)" in text
    assert "the capture has StartShuffle(batch='A', expected_cards=52)" in text


def test_an_out_transfer_the_host_never_makes_is_reported_and_the_replay_goes_on(
        tmp_path: Path, replayed: Callable[..., tuple[Replay, ShufflerDriver, Events]]) -> None:  # fmt: skip
    record(tmp_path / "c.jsonl")
    replay, driver, events = replayed(tmp_path / "c.jsonl", barrier_timeout=0.2)
    events.next(ShuffleStarted)  # what answered the START_SHUFFLE the host never sent, after the wait
    assert "the host did not make OUT transfer #1" in replay.mismatches[0].text
    assert "StartShuffle(batch='A', expected_cards=52)" in replay.mismatches[0].text


def test_a_usb_device_whose_port_names_no_ids_cannot_be_replayed(tmp_path: Path) -> None:
    with CaptureWriter(tmp_path / "c.jsonl") as writer:
        writer.device("shuffler", dataclasses.replace(INFO, port="usb"))
    with pytest.raises(SimError, match=r"replay shuffler: port 'usb' is not usb:vvvv:pppp"):
        Replay(read_capture(tmp_path / "c.jsonl"))


def test_tablehost_run_reports_the_replays_mismatches_on_standard_error(capsys: pytest.CaptureFixture[str]) -> None:
    replayed = types.SimpleNamespace(mismatches=[Mismatch("shuffler", "unexpected OUT transfer #3")])
    _report_mismatches(replayed)  # type: ignore[arg-type]
    assert capsys.readouterr().err.splitlines() == [
        "replay shuffler: unexpected OUT transfer #3",
        "replay: 1 mismatch(es) with the capture (docs/bench.md)",
    ]
