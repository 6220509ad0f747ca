"""The event registry: every event survives the journal's JSON round trip unchanged."""

from __future__ import annotations

import dataclasses
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


@dataclasses.dataclass(frozen=True)
class _Face:
    value: int
    corners: tuple[str, ...] = ()


@event
class _Roll(DeviceEvent):
    """A test-only event with nested dataclasses, optional tuples and a union of several types."""

    faces: tuple[_Face, ...]
    first: _Face | None
    held: tuple[_Face, int] | None
    either: int | str | None = None


@pytest.mark.parametrize(
    "original",
    [
        DeviceIdentified(device="shoe", model="TS-8", serial="A1", firmware="2.1.0"),
        DealerCommand(device="buttons", command="void_round", args={"seat": 3}),
        _Pip(device="t", faces=(1, 6, 3), pair=("x", True)),
        _Roll(device="d", faces=(_Face(1, ("a", "b")), _Face(6)), first=_Face(2), held=(_Face(3), 4), either="x"),
        _Roll(device="d", faces=(), first=None, held=None, either=5),
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


def test_a_nested_record_with_wrong_fields_is_refused() -> None:
    with pytest.raises(EventError, match="_Roll: fields"):
        from_record("_Roll", {"device": "d", "faces": [{"value": 1, "colour": "red"}], "first": None, "held": None})
    with pytest.raises(EventError, match="_Roll: fields"):
        from_record("_Roll", {"device": "d", "faces": 7, "first": None, "held": None})


def test_two_events_with_one_name_are_refused() -> None:
    with pytest.raises(EventError, match="two events are named"):

        @event
        class DealerCommand(DeviceEvent):
            pass


def test_all_registers_the_table_events() -> None:
    assert {"ClockTick", "DeviceLost", "DealerCommand", "WagerPlaced"} <= set(all_registered())
    assert registered()["ClockTick"].__name__ == "ClockTick"
