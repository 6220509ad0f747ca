"""Device backends, found by name: what a device's driver is connected to.

As python-can finds its interfaces, the wiring looks a backend up by name in
:data:`BACKENDS` (name -> ``"module:factory"``) and imports its module only when a table
uses it, so a table of real devices never imports a simulator. A backend factory takes the
device's slot and the :class:`DeviceContext` and returns the :class:`Port` the driver opens:

* ``serial``: the slot's ``port`` is a serial URL (``/dev/serial/by-id/...``, ``socket://``);
* ``usb``: a USB device found by its ids, through libusb;
* ``sim``: a simulator speaking the device's wire protocol (:mod:`firmware_host.wiring.simulated`);
* ``replay``: a capture's recorded device (``tablehost run --replay FILE``).

A slot names its backend by its ``port`` (:attr:`~firmware_host.config.profiles.DeviceSlot.backend`);
``--replay`` puts the capture's devices in place of whatever their ports name.
"""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from drivers.capture import CaptureWriter
from firmware_host.config.profiles import DeviceSlot
from firmware_host.errors import TablehostError
from sim.devices.resume import ResumePoints

if TYPE_CHECKING:
    from sim.devices.replay import Replay

__all__ = ["BACKENDS", "Backend", "DeviceContext", "Port", "backend", "backend_name", "open_port"]

#: Every device backend by name: ``"module:factory"``, imported when first used.
BACKENDS: dict[str, str] = {
    "serial": "firmware_host.wiring.backends:serial_port",
    "usb": "firmware_host.wiring.backends:usb_port",
    "sim": "firmware_host.wiring.simulated:sim_port",
    "replay": "firmware_host.wiring.backends:replay_port",
}


@dataclasses.dataclass(frozen=True)
class DeviceContext:
    """What the device builders need besides the slot.

    :param table_path: the table profile (named in errors).
    :param seed: the run's seed.
    :param decks: decks in a shoe (Baccarat) or in a shuffler batch.
    :param resume: where simulated devices resume (a simulated shoe its shoe and draws, a
        simulated shaker its lid, covering and shakes).
    :param lid_from_shaker: whether the shaker's own lid line is used (else a GPIO reed switch).
    """

    table_path: Path
    seed: int
    decks: int = 8
    resume: ResumePoints = ResumePoints()
    lid_from_shaker: bool = True
    #: Records every device's traffic (``tablehost run --capture FILE``).
    capture: CaptureWriter | None = None
    #: Hexdumps every serial device's bytes to ``<spy_dir>/<device>.spy`` (``--spy DIR``).
    spy_dir: Path | None = None
    #: Plays a capture's devices in place of their ports or simulators (``--replay FILE``).
    replay: Replay | None = None


@dataclasses.dataclass(frozen=True)
class Port:
    """Where a device's driver reaches it.

    :param url: a serial device's URL, for :func:`serial.serial_for_url`.
    :param usb: a USB device's pyusb backend (``None``: libusb's own).
    :param sim: the simulator behind the port, started and stopped with the table (``None``:
        a real or a replayed device).
    """

    url: str = ""
    usb: Any | None = None
    sim: Any | None = None


class Backend(Protocol):
    """A backend factory: the port of ``slot``'s device."""

    def __call__(self, slot: DeviceSlot, context: DeviceContext) -> Port:
        """Build (but do not start) what the driver of ``slot`` opens."""


def backend(name: str) -> Backend:
    """The backend factory registered as ``name`` in :data:`BACKENDS`, its module imported now.

    :raises TablehostError: for a name no backend is registered under.
    """
    spec = BACKENDS.get(name)
    if spec is None:
        raise TablehostError(f"no device backend {name!r} (known: {', '.join(BACKENDS)})")
    module, _, factory = spec.partition(":")
    return getattr(importlib.import_module(module), factory)  # type: ignore[no-any-return]


def backend_name(slot: DeviceSlot, context: DeviceContext) -> str:
    """The backend of ``slot``: ``replay`` for a device the capture being replayed holds, else
    the one its port names."""
    if context.replay is not None and slot.name in context.replay.devices:
        return "replay"
    return slot.backend


def open_port(slot: DeviceSlot, context: DeviceContext) -> Port:
    """The port of ``slot``'s device, from its backend (nothing is started)."""
    return backend(backend_name(slot, context))(slot, context)


def serial_port(slot: DeviceSlot, context: DeviceContext) -> Port:
    """A serial device at the URL its slot names."""
    return Port(url=slot.port)


def usb_port(slot: DeviceSlot, context: DeviceContext) -> Port:
    """A USB device found by its ids through libusb (the driver's default backend)."""
    return Port()


def replay_port(slot: DeviceSlot, context: DeviceContext) -> Port:
    """The capture's recorded device in place of the slot's: a pseudo-terminal that plays a
    serial device's bytes, or a pyusb backend that plays a USB device's transfers."""
    if context.replay is None or slot.name not in context.replay.devices:
        raise TablehostError(f"device {slot.name}: the replay backend needs a capture that holds it (--replay)")
    if slot.model.transport == "usb":
        return Port(usb=context.replay.backend(slot.name))
    return Port(url=context.replay.url(slot.name))
