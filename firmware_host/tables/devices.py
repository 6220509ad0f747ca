"""Device identity at the table: the firmware allow-list in force, devices identifying, lost and
found, and a changed serial number held until a supervisor acknowledges it.

:class:`DeviceIdentities` is a collaborator of :class:`~firmware_host.tables.base.TableController`:
the state it works on is the controller's (:attr:`TableServices.devices`, one
:class:`~.base.DeviceHealth` per device, read at each call: a checkpoint's restore replaces
it), and it decides through the controller's public interface
(:class:`~firmware_host.tables.services.TableServices`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drivers.events.lifecycle import DeviceIdentified, DeviceLost
from firmware_host.rules.devices import ApprovedIdentities
from firmware_host.tables.events import AllowListLoaded

if TYPE_CHECKING:
    from firmware_host.tables.base import DeviceHealth
    from firmware_host.tables.services import TableServices

__all__ = ["DeviceIdentities"]


class DeviceIdentities:
    """The devices' identities and approvals, decided for ``table``.

    :param table: the controller whose devices it decides on (this object holds no state).
    """

    def __init__(self, table: TableServices) -> None:
        self.table = table

    @property
    def devices(self) -> dict[str, DeviceHealth]:
        """The table's devices by name."""
        return self.table.devices

    def allow_list(self) -> dict[str, dict[str, list[str]]]:
        """Each device's allow-list as :class:`AllowListLoaded` carries it."""
        return {
            name: {
                "models": list(d.approved.models),
                "firmware": list(d.approved.firmware),
                "serials": list(d.approved.serials),
            }
            for name, d in self.devices.items()
        }

    def on_allow_list(self, event: AllowListLoaded) -> None:
        """The allow-list in force from now on; identities are checked against it when devices identify."""
        for name, lists in event.approved.items():
            if name in self.devices:
                self.devices[name].approved = ApprovedIdentities(
                    tuple(lists["models"]), tuple(lists["firmware"]), tuple(lists.get("serials", ()))
                )
        self.table.decide("allow_list", {"approved": self.allow_list()})

    def on_identified(self, event: DeviceIdentified, table_id: str) -> None:
        """A device says what it is: approved, refused, or (another serial) held for a supervisor."""
        table = self.table
        device = self.devices.get(event.device)
        if device is None:
            table.alert("unknown-device", f"{event.device}: not a device of table {table_id}", "warning")
            return
        identity = (event.model, event.serial, event.firmware)
        device.online = True
        refusal = device.approved.refusal(*identity)
        if refusal is None and device.identity is not None and device.identity[1] != event.serial:
            # Issue 6 item 3: another unit on the same port is refused until a supervisor acknowledges it.
            device.pending_identity = identity
            refusal = (
                f"serial number changed from {device.identity[1]!r} to {event.serial!r}: supervisor must acknowledge"
            )
        elif refusal is None:
            device.identity = identity
        device.refusal = refusal
        table.decide("device", {"device": device.name, **device.snapshot()})
        if refusal is not None:
            table.alert("device-refused", f"{device.name}: {refusal}", "fault")
        self._changed()

    def on_lost(self, event: DeviceLost) -> None:
        """A device is gone: the table pauses until it is found again."""
        device = self.devices.get(event.device)
        if device is None:
            return
        device.online = False
        self.table.decide("device", {"device": device.name, **device.snapshot(), "reason": event.reason})
        self.table.alert("device-lost", f"{device.name}: lost ({event.reason}); table paused", "fault")
        self._changed()

    def pending(self) -> DeviceHealth | None:
        """The device whose changed identity waits for a supervisor (None: none does)."""
        return next((d for d in self.devices.values() if d.pending_identity is not None), None)

    def accept_pending(self) -> None:
        """The supervisor acknowledged the pending identity: the device is approved as it now is."""
        device = self.pending()
        assert device is not None and device.pending_identity is not None
        device.identity, device.pending_identity, device.refusal = device.pending_identity, None, None
        self.table.decide("device", {"device": device.name, **device.snapshot(), "acknowledged": True})
        self._changed()

    def _changed(self) -> None:
        self.table.show_lamp()
        self.table.on_devices_changed()
