"""The event registry: every event survives the journal's JSON round trip unchanged."""

from __future__ import annotations

import json

import pytest

from drivers.events import DeviceEvent, EventError, event, from_record, registered, to_record
from drivers.events.all import registered as all_registered
from drivers.events.lifecycle import DeviceIdentified
from firmware_host.tables.events import DealerCommand


@event
class _Pip(DeviceEvent):
    """A test-only event with nested tuple fields."""

    faces: tuple[int, ...]
    pair: tuple[str, bool]
    note: str | None = None


@pytest.mark.parametrize(
    "original",
    [
        DeviceIdentified(device="shoe", model="TS-8", serial="A1", firmware="2.1.0"),
        DealerCommand(device="buttons", command="void_round", args={"seat": 3}),
        _Pip(device="t", faces=(1, 6, 3), pair=("x", True)),
    ],
)
def test_event_survives_json_round_trip(original: DeviceEvent) -> None:
    name, data = to_record(original)
    assert from_record(name, json.loads(json.dumps(data))) == original


def test_unknown_event_type_is_refused() -> None:
    with pytest.raises(EventError, match="unknown event type 'Nope'"):
        from_record("Nope", {})


def test_record_with_wrong_fields_is_refused() -> None:
    with pytest.raises(EventError, match="DealerCommand: fields"):
        from_record("DealerCommand", {"device": "x", "colour": "red"})


def test_two_events_with_one_name_are_refused() -> None:
    with pytest.raises(EventError, match="two events are named"):

        @event
        class DealerCommand(DeviceEvent):
            pass


def test_all_registers_the_table_events() -> None:
    assert {"ClockTick", "DeviceLost", "DealerCommand", "WagerPlaced"} <= set(all_registered())
    assert registered()["ClockTick"].__name__ == "ClockTick"
