"""Events that do not come from a specific game device: the clock, the dealer's console,
the device lifecycle reported by every driver."""

from __future__ import annotations

from drivers.events import DeviceEvent, event


@event
class ClockTick(DeviceEvent):
    """The service's periodic tick: lets time-based rules (compliance clocks) advance."""


@event
class DeviceIdentified(DeviceEvent):
    """The driver finished the identity handshake with the device."""

    model: str
    serial: str
    firmware: str


@event
class AllowListLoaded(DeviceEvent):
    """The firmware allow-list of each device at the table, as the table profile gave it at start.

    :param approved: by device name: ``{"models": [...], "firmware": [...], "serials": [...]}``.
    """

    approved: dict


@event
class SoftwareStarted(DeviceEvent):
    """tablehost ``version`` took the journal over (journaled when it differs from the version
    in force): the steps before it were decided by an earlier version (see :meth:`Service.recover
    <firmware_host.host.service.Service.recover>`)."""

    version: str


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


@event
class DealerCommand(DeviceEvent):
    """A dealer input: a GPIO button or the dealer console.

    :param command: e.g. ``"no_more_bets"``, ``"reveal"``, ``"card_disclosed"``,
        ``"void_round"``, ``"acknowledge"``, ``"new_dice"``, ``"open_table"``.
    :param args: command arguments as a JSON object, e.g. ``{"seat": 3}``.
    """

    command: str
    args: dict | None = None


@event
class WagerPlaced(DeviceEvent):
    """A wager entered at the dealer console (seat, kind and amount in integer cents)."""

    seat: int
    kind: str
    amount: int
