"""Typed input events: what drivers (and the dealer's buttons, and the clock) tell the controller.

Events are frozen dataclasses registered by name with :func:`event`, so that the journal
can store each one as ``(type name, JSON object)`` and a replay can rebuild it with
:func:`from_record`. This package imports no I/O library: the controller may import it.

Every event carries ``device``, the name of the device in the table profile (``"shoe"``,
``"shaker"``, ``"shuffler"``, ``"buttons"``, ``"dealer"``, ``"clock"``). Time is not part
of the event: the service stamps each event with the time it was received when it
journals it, and hands that time to the controller together with the event.

Device-specific events live in sibling modules (``shoe``, ``dice``, ``shuffler``, and
``lifecycle`` for what every driver reports); importing :mod:`drivers.events.all` registers all
of them. Table-level events (the clock, the dealer's console, wagers) belong to the host:
:mod:`firmware_host.tables.events`.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, TypeVar

from drivers.errors import DriverError

__all__ = ["DeviceEvent", "event", "to_record", "from_record", "registered", "EventError"]


class EventError(DriverError, ValueError):
    """An event record that does not name a registered event or does not fit its fields."""


@dataclasses.dataclass(frozen=True)
class DeviceEvent:
    """Base of every input event.

    :param device: the name the table profile gives the device that produced the event.
    """

    device: str


_E = TypeVar("_E", bound=type[DeviceEvent])
_REGISTRY: dict[str, type[DeviceEvent]] = {}


@typing.dataclass_transform(frozen_default=True)
def event(cls: _E) -> _E:
    """Class decorator: make ``cls`` a frozen dataclass and register it under its class name."""
    if "__dataclass_fields__" not in cls.__dict__:  # not yet a dataclass itself (its base is)
        cls = typing.cast(_E, dataclasses.dataclass(frozen=True)(cls))
    name = cls.__name__
    if name in _REGISTRY and _REGISTRY[name] is not cls:
        raise EventError(f"two events are named {name!r}")
    _REGISTRY[name] = cls
    return cls


def registered() -> dict[str, type[DeviceEvent]]:
    """Every registered event class by name (a copy)."""
    return dict(_REGISTRY)


def _plain(value: Any) -> Any:
    """Turn tuples (and tuples of dataclasses) into JSON-friendly lists and dicts."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def to_record(ev: DeviceEvent) -> tuple[str, dict[str, Any]]:
    """Return ``(type name, JSON-ready field dict)`` for journaling ``ev``."""
    name = type(ev).__name__
    if _REGISTRY.get(name) is not type(ev):
        raise EventError(f"{name} is not a registered event")
    return name, _plain(ev)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """Resolved field annotations of a dataclass (cached: replay rebuilds many events)."""
    return typing.get_type_hints(cls)


def _rebuild(tp: Any, value: Any) -> Any:
    """Convert a JSON value back to the annotated field type (tuples, nested dataclasses)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return _rebuild(args[0], value) if len(args) == 1 else value
    if origin is tuple:
        items = typing.get_args(tp)
        if len(items) == 2 and items[1] is Ellipsis:
            return tuple(_rebuild(items[0], v) for v in value)
        return tuple(_rebuild(a, v) for a, v in zip(items, value))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp) and isinstance(value, dict):
        hints = _hints(tp)
        return tp(**{k: _rebuild(hints[k], v) for k, v in value.items()})
    return value


def from_record(name: str, data: dict[str, Any]) -> DeviceEvent:
    """Rebuild an event from :func:`to_record`'s output; :class:`EventError` if it does not fit."""
    cls = _REGISTRY.get(name)
    if cls is None:
        raise EventError(f"unknown event type {name!r}")
    hints = _hints(typing.cast(type, cls))  # mypy takes a dataclass's class for unhashable
    try:
        return cls(**{k: _rebuild(hints[k], v) for k, v in data.items()})
    except (TypeError, KeyError) as exc:
        raise EventError(f"{name}: fields {sorted(data)} do not fit: {exc}") from exc
