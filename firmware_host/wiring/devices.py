"""Build each device of a table: its driver, connected to the port its backend gives.

One builder per device kind (shoe, shaker, shuffler), which imports its driver: a table
imports the drivers of the kinds of device it has (a Baccarat table without a shuffler, no
pyusb driver). What the driver is connected to (a serial URL, libusb, a simulator, a
capture's replay) comes from the backend the slot names, found by name in
:data:`firmware_host.wiring.backends.BACKENDS`; ``--spy`` and ``--capture`` wrap it here,
whatever it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from drivers.capture import DeviceInfo, spy_url
from drivers.device import Device, Identity
from drivers.events import DeviceEvent
from firmware_host.config.profiles import DeviceSlot
from firmware_host.wiring.backends import DeviceContext, open_port

__all__ = ["DeviceParts", "DeviceContext", "build_device"]

Emit = Callable[[DeviceEvent], None]


@dataclasses.dataclass
class DeviceParts:
    """A device's driver and, when simulated, its simulator (``None`` for real hardware)."""

    slot: DeviceSlot
    driver: Device
    sim: Any | None = None

    def start_sim(self) -> None:
        """Start the simulator, if there is one that runs on its own (a pty or socket server)."""
        if self.sim is not None and hasattr(self.sim, "start"):
            self.sim.start()

    def stop_sim(self) -> None:
        """Stop the simulator, if there is one that runs on its own."""
        if self.sim is not None and hasattr(self.sim, "stop"):
            self.sim.stop()


def device_info(slot: DeviceSlot, port: str) -> DeviceInfo:
    """How a capture declares the device of ``slot``, plugged in at ``port``."""
    return DeviceInfo(slot.model.kind, slot.model.dialect, slot.model.transport, slot.model.model, port)


def _serial_port(slot: DeviceSlot, url: str, context: DeviceContext) -> tuple[str, dict[str, Any]]:
    """The port a serial driver opens and its transport options, after --spy and --capture."""
    if context.spy_dir is not None:
        url = spy_url(url, context.spy_dir / f"{slot.name}.spy")
    if context.capture is None:
        return url, {}
    return url, {"transport_factory": context.capture.tap(slot.name, device_info(slot, url)).transport_factory()}


def _shoe(slot: DeviceSlot, emit: Emit, context: DeviceContext) -> DeviceParts:
    from drivers.shoe import shoe_driver

    model, port = slot.model, open_port(slot, context)
    # The ascii dialect has no identity message: the profile's model stands in, unverified.
    identity = Identity(model.model, "unverified", model.approved.firmware[0], verified=False)
    url, hooks = _serial_port(slot, port.url, context)
    driver = shoe_driver(
        model.dialect, slot.name, url, emit, identity=identity, timing=model.timeouts, baudrate=model.baudrate, **hooks
    )
    return DeviceParts(slot, driver, port.sim)


def _shaker(slot: DeviceSlot, emit: Emit, context: DeviceContext) -> DeviceParts:
    from drivers.shaker import Shaker

    model, port = slot.model, open_port(slot, context)
    url, hooks = _serial_port(slot, port.url, context)
    driver = Shaker(
        slot.name,
        url,
        emit,
        lid_events=context.lid_from_shaker,
        timing=model.timeouts,
        baudrate=model.baudrate,
        **hooks,
    )
    return DeviceParts(slot, driver, port.sim)


def _shuffler(slot: DeviceSlot, emit: Emit, context: DeviceContext) -> DeviceParts:
    from drivers.shuffler import ShufflerDriver
    from drivers.usb import default_backend

    model, port = slot.model, open_port(slot, context)
    vendor, product = model.usb_vendor_id, model.usb_product_id
    assert vendor is not None and product is not None  # load_table requires both of a USB device
    backend = port.usb
    if context.capture is not None:
        tap = context.capture.tap(slot.name, device_info(slot, f"usb:{vendor:04x}:{product:04x}"))
        backend = tap.usb_backend(backend if backend is not None else default_backend())
    driver = ShufflerDriver(
        slot.name, emit, vendor_id=vendor, product_id=product, backend=backend, timing=model.timeouts
    )
    return DeviceParts(slot, driver, port.sim)


_BUILDERS: dict[str, Callable[[DeviceSlot, Emit, DeviceContext], DeviceParts]] = {
    "shoe": _shoe,
    "shaker": _shaker,
    "shuffler": _shuffler,
}


def build_device(slot: DeviceSlot, emit: Emit, context: DeviceContext) -> DeviceParts:
    """Build the driver (and simulator) of one device slot; nothing is started."""
    return _BUILDERS[slot.model.kind](slot, emit, context)
