"""The device lifecycle every driver reports: identified, lost, faulted, bytes it could not read."""

from __future__ import annotations

from drivers.events import DeviceEvent, event


@event
class DeviceIdentified(DeviceEvent):
    """The driver finished the identity handshake with the device."""

    model: str
    serial: str
    firmware: str


@event
class DeviceLost(DeviceEvent):
    """The device stopped answering (heartbeat loss, unplug, port gone)."""

    reason: str


@event
class DeviceFault(DeviceEvent):
    """The device reported a fault or the driver saw an error it could not recover from alone."""

    code: str
    text: str


@event
class ProtocolError(DeviceEvent):
    """Bytes the driver could not make sense of (bad CRC, garbage, unknown type); already skipped."""

    text: str
