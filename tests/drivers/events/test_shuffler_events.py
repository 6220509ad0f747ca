"""Every shuffler event survives the journal's JSON round trip, and a shuffler fault is a DeviceFault."""

from __future__ import annotations

import json

import pytest

from drivers.events import DeviceEvent, from_record, to_record
from drivers.events.all import registered
from drivers.events.lifecycle import DeviceFault
from drivers.events.shuffler import (
    BatchLoaded,
    BatchReleased,
    BatchStatus,
    ShuffleCompleted,
    ShuffleProgress,
    ShufflerFault,
    ShufflerFaultCleared,
    ShuffleStarted,
)  # fmt: skip

EVENTS = [
    BatchLoaded("shuffler", "A", 8, "red"),
    ShuffleStarted("shuffler", "A"),
    ShuffleProgress("shuffler", "A", 75),
    ShuffleCompleted("shuffler", "A", 416, "6c4f96fd"),
    BatchReleased("shuffler", "B", 415),
    ShufflerFault("shuffler", "jam", "cards jammed at 75%", "A"),
    ShufflerFault("shuffler", "door_open", "door open"),
    ShufflerFaultCleared("shuffler", "door_open"),
    BatchStatus("shuffler", "B", "shuffled", 8, "blue", 416, 100, "ab"),
]


@pytest.mark.parametrize("original", EVENTS, ids=[type(ev).__name__ for ev in EVENTS])
def test_shuffler_event_survives_the_journal(original: DeviceEvent) -> None:
    name, data = to_record(original)
    assert name in registered()
    assert from_record(name, json.loads(json.dumps(data))) == original


def test_a_shuffler_fault_is_a_device_fault_so_every_controller_alerts_on_it() -> None:
    assert isinstance(ShufflerFault("shuffler", "jam", "x"), DeviceFault)
