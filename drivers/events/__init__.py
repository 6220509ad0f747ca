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


#: How a field's JSON value becomes its annotated type (None: the value as it is).
_Convert = typing.Callable[[Any], Any] | None


@functools.cache
def _plan(cls: type) -> dict[str, _Convert]:
    """How each field of the dataclass ``cls`` is rebuilt (worked out once per class: replay
    rebuilds many events, and reading an annotation each time cost more than the rebuilding)."""
    return {name: _converter(tp) for name, tp in _hints(cls).items()}


def _converter(tp: Any) -> _Convert:
    """How :func:`_rebuild` converts a JSON value to the annotated type ``tp`` (tuples, nested
    dataclasses, optionals of those); None when it takes the value as it is."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) != 1:
            return None  # None stays None, and any other value stays as it is
        inner = _converter(args[0])
        return None if inner is None else lambda value: None if value is None else inner(value)
    if origin is tuple:
        items = typing.get_args(tp)
        if len(items) == 2 and items[1] is Ellipsis:
            each = _converter(items[0])
            return lambda value: tuple(_rebuild(each, v) for v in value)
        converters = [_converter(a) for a in items]
        return lambda value: tuple(_rebuild(c, v) for c, v in zip(converters, value))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return lambda value: _rebuild_dataclass(tp, value) if isinstance(value, dict) else value
    return None


def _rebuild(convert: _Convert, value: Any) -> Any:
    """Convert a JSON value back to a field's type, as ``convert`` (:func:`_converter`) says."""
    return value if convert is None else convert(value)


def _rebuild_dataclass(cls: type, data: dict[str, Any]) -> Any:
    """An instance of the dataclass ``cls`` from its fields' JSON values.

    :raises KeyError: a field ``cls`` does not have; :class:`TypeError`: fields that do not fit.
    """
    plan = _plan(cls)
    return cls(**{k: _rebuild(plan[k], v) for k, v in data.items()})


def from_record(name: str, data: dict[str, Any]) -> DeviceEvent:
    """Rebuild an event from :func:`to_record`'s output; :class:`EventError` if it does not fit."""
    cls = _REGISTRY.get(name)
    if cls is None:
        raise EventError(f"unknown event type {name!r}")
    _plan(typing.cast(type, cls))  # (its annotations resolve, or it raises, before any field is read)
    try:
        return typing.cast(DeviceEvent, _rebuild_dataclass(cls, data))
    except (TypeError, KeyError) as exc:
        raise EventError(f"{name}: fields {sorted(data)} do not fit: {exc}") from exc
