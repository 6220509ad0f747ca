"""What every table controller shares: the input contract, device health and the allow-list.

A controller is a deterministic function of its input stream: :meth:`TableController.handle`
takes one event and the time the service received it, and returns the decisions it makes.
It does no I/O, reads no clock and draws no random number, so replaying a journal through a
fresh controller reproduces every decision (DEVELOPERS.md, rule 2).

This base class owns what is the same at every table:

- **device health** — a lost device pauses the table (red lamp, alert) until it is found
  again and has handshaken; game controllers ask :attr:`TableController.paused`;
- **the firmware allow-list** — a device whose reported model, serial or firmware is not
  approved by its device profile keeps the table closed, and the journal says why;
- **identity changes** — a device that comes back with another serial number is refused
  until a supervisor acknowledges it (``DealerCommand("acknowledge")``);
- **time** — :attr:`TableController.now` is the receive time of the latest event.

Game controllers subclass it and implement :meth:`TableController.on_game_event`.
"""

from __future__ import annotations

from typing import Any, Mapping

from drivers.events import DeviceEvent
from drivers.events.table import DealerCommand, DeviceFault, DeviceIdentified, DeviceLost, ProtocolError
from firmware_host.decisions import Decision
from firmware_host.profiles import ApprovedIdentities

__all__ = ["TableController", "DeviceHealth"]


class DeviceHealth:
    """What the controller knows of one device: identity, whether it is usable, and why not."""

    def __init__(self, name: str, approved: ApprovedIdentities) -> None:
        self.name = name
        self.approved = approved
        self.identity: tuple[str, str, str] | None = None
        self.online = False
        self.refusal: str | None = "not yet identified"
        self.pending_identity: tuple[str, str, str] | None = None

    @property
    def usable(self) -> bool:
        """Online, identified and approved."""
        return self.online and self.refusal is None

    def snapshot(self) -> dict[str, Any]:
        """JSON-ready state for the status view."""
        model, serial, firmware = self.identity or (None, None, None)
        return {"online": self.online, "model": model, "serial": serial, "firmware": firmware, "refusal": self.refusal}


class TableController:
    """Base of the Baccarat and Pai Gow controllers.

    :param table_id: the table's id from its profile (journaled in announcements).
    :param approved: the allow-list of every device at the table, by device name.
    """

    game = "table"

    def __init__(self, table_id: str, approved: Mapping[str, ApprovedIdentities]) -> None:
        self.table_id = table_id
        self.devices = {name: DeviceHealth(name, allow) for name, allow in approved.items()}
        self.now = 0.0
        self._out: list[Decision] = []

    # -- the input contract -------------------------------------------------------------
    def handle(self, event: DeviceEvent, at: float) -> list[Decision]:
        """Apply one input event received at ``at`` (seconds) and return the decisions made."""
        self.now = max(self.now, at)
        self._out = []
        if isinstance(event, DeviceIdentified):
            self._on_identified(event)
        elif isinstance(event, DeviceLost):
            self._on_lost(event)
        elif isinstance(event, DeviceFault):
            self.alert(f"{event.device}-fault", f"{event.device}: fault {event.code}: {event.text}", "fault")
            self.on_game_event(event)
        elif isinstance(event, ProtocolError):
            self.alert("protocol-error", f"{event.device}: {event.text}", "warning")
        elif isinstance(event, DealerCommand) and event.command == "acknowledge" and self._pending_identity():
            self._accept_pending_identity()
        else:
            self.on_game_event(event)
        return self._out

    def on_game_event(self, event: DeviceEvent) -> None:
        """Game-specific handling; subclasses override it and call :meth:`decide`."""
        raise NotImplementedError

    def on_devices_changed(self) -> None:
        """Hook: called after a device was lost, found, approved or refused."""

    # -- helpers for subclasses ---------------------------------------------------------
    def decide(self, type: str, data: dict[str, Any], round: int | None = None) -> None:
        """Record a decision of this step."""
        self._out.append(Decision(type, data, round))

    def alert(self, code: str, text: str, severity: str = "attention", round: int | None = None) -> None:
        """Record an ``alert`` decision (``severity``: ``warning``, ``attention`` or ``fault``)."""
        self.decide("alert", {"code": code, "text": text, "severity": severity}, round)

    @property
    def paused(self) -> bool:
        """True while any device is lost, unidentified or refused."""
        return not all(device.usable for device in self.devices.values())

    def device_problems(self) -> list[str]:
        """One line per device that keeps the table paused."""
        return [f"{d.name}: {'offline' if not d.online else d.refusal}" for d in self.devices.values() if not d.usable]

    # -- device health ------------------------------------------------------------------
    def _on_identified(self, event: DeviceIdentified) -> None:
        device = self.devices.get(event.device)
        if device is None:
            self.alert("unknown-device", f"{event.device}: not a device of table {self.table_id}", "warning")
            return
        identity = (event.model, event.serial, event.firmware)
        device.online = True
        refusal = device.approved.refusal(*identity)
        if refusal is None and device.identity is not None and device.identity[1] != event.serial:
            # Issue 6 item 3: another unit on the same port is refused until a supervisor acknowledges it.
            device.pending_identity = identity
            refusal = f"serial number changed from {device.identity[1]!r} to {event.serial!r}: supervisor must acknowledge"
        elif refusal is None:
            device.identity = identity
        device.refusal = refusal
        self.decide("device", {"device": device.name, **device.snapshot()})
        if refusal is not None:
            self.alert("device-refused", f"{device.name}: {refusal}", "fault")
        self._lamp()
        self.on_devices_changed()

    def _on_lost(self, event: DeviceLost) -> None:
        device = self.devices.get(event.device)
        if device is None:
            return
        device.online = False
        self.decide("device", {"device": device.name, **device.snapshot(), "reason": event.reason})
        self.alert("device-lost", f"{device.name}: lost ({event.reason}); table paused", "fault")
        self._lamp()
        self.on_devices_changed()

    def _pending_identity(self) -> DeviceHealth | None:
        return next((d for d in self.devices.values() if d.pending_identity is not None), None)

    def _accept_pending_identity(self) -> None:
        device = self._pending_identity()
        assert device is not None and device.pending_identity is not None
        device.identity, device.pending_identity, device.refusal = device.pending_identity, None, None
        self.decide("device", {"device": device.name, **device.snapshot(), "acknowledged": True})
        self._lamp()
        self.on_devices_changed()

    def _lamp(self) -> None:
        self.decide("lamp", {"colour": "red" if self.paused else "green"})
