"""The capture fixtures of tests/captures (devices misbehaving) replay to the same game events.

What the shoe said (cards, cut card, unreadable and face-up cards, warnings, empty) must come
out of a fresh driver exactly as it came out of the one that was recorded; the protocol errors
must be reported again, though their number may differ (the driver's reads split garbage
where the pseudo-terminal cuts it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from drivers.capture import read_capture
from drivers.events import DeviceEvent
from drivers.events.lifecycle import DeviceIdentified, ProtocolError
from drivers.events.shoe import ShoeEmpty
from sim.devices.replay import Replay
from tests.capture_replay.sessions import driver_for
from tests.support.device_events import Events
from tests.support.paths import REPO

CAPTURES = REPO / "tests" / "captures"
FIXTURES = sorted(CAPTURES.glob("*.jsonl"))
#: Events that say how the link went, not what the device said.
LINK_EVENTS = (ProtocolError, DeviceIdentified)


def said(events: list[DeviceEvent]) -> list[DeviceEvent]:
    return [ev for ev in events if not isinstance(ev, LINK_EVENTS) and type(ev).__name__ != "IdentityUnverified"]


def test_there_are_fixtures_of_both_dialects() -> None:
    assert {read_capture(path).devices["shoe"].dialect for path in FIXTURES} == {"framed", "ascii"}


@pytest.mark.parametrize("path", FIXTURES, ids=[path.stem for path in FIXTURES])
@pytest.mark.parametrize("speed", [None, 2.0], ids=["fast", "timed"])
def test_fixture_replays_to_the_same_game_events(path: Path, speed: float | None) -> None:
    capture = read_capture(path)
    recorded = capture.events("shoe")
    events = Events()
    with Replay(capture, speed=speed) as replay:
        driver = driver_for(capture.devices["shoe"].dialect, replay.url("shoe"), events.queue.put)
        driver.start()
        try:
            got = events.until(lambda ev: isinstance(ev, ShoeEmpty))
        finally:
            driver.stop()
    assert said(got) == said(recorded)
    assert any(isinstance(ev, ProtocolError) for ev in got) and any(isinstance(ev, ProtocolError) for ev in recorded)
