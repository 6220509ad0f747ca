"""Build each device of a table: its driver and, for ``port = "sim"``, its simulator.

One builder per device kind (shoe, shaker, shuffler). The simulator's options come from
the profile's ``[devices.<name>.sim]`` table; an option the kind does not know is a
:class:`~firmware_host.errors.ProfileError` naming the key.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable

from drivers.capture import CaptureWriter, DeviceInfo, spy_url
from drivers.codecs import framed
from drivers.device import Device, Identity, Timing
from drivers.events import DeviceEvent
from drivers.shaker import Shaker
from drivers.shoe import shoe_driver
from drivers.shuffler import ShufflerDriver
from drivers.usb import default_backend
from firmware_host.errors import ProfileError
from firmware_host.config.profiles import DeviceSlot, Timeouts
from sim.resume import ShakerResumePoint, ShoeResumePoint
from sim.errors import SimError
from sim.devices.faults import ShoeFaults, faults_from
from sim.devices.shaker import ShakerFaults, SimShaker
from sim.devices.shoe import SimShoe, suit_first_share
from sim.devices.replay import Replay
from sim.devices.shuffler import SimulatedShuffler

__all__ = ["DeviceParts", "DeviceContext", "build_device", "shuffler_sim", "SIM_OPTIONS"]

Emit = Callable[[DeviceEvent], None]

#: Options of ``[devices.<name>.sim]`` each kind of simulator takes.
#: Every simulator also takes ``serial`` and ``firmware``: the identity it reports (default:
#: an approved unit of its model), so a profile can present an unapproved unit.
SIM_OPTIONS: dict[str, tuple[str, ...]] = {
    "shoe": ("faults", "endpoint", "suit_first_burns", "serial", "firmware"),
    "shaker": ("faults", "endpoint", "serial", "firmware"),
    "shuffler": ("faults", "recover_after_s", "shuffle_seconds", "serial", "firmware"),
}


@dataclasses.dataclass
class DeviceParts:
    """A device's driver and, when simulated, its simulator (``None`` for real hardware)."""

    slot: DeviceSlot
    driver: Device
    sim: Any | None = None


@dataclasses.dataclass(frozen=True)
class DeviceContext:
    """What the device builders need besides the slot.

    :param table_path: the table profile (named in errors).
    :param seed: the run's seed.
    :param decks: decks in a shoe (Baccarat) or in a shuffler batch.
    :param shoe_resume: where a simulated shoe resumes.
    :param shaker_resume: where a simulated shaker resumes (its lid, covering and shakes).
    :param lid_from_shaker: whether the shaker's own lid line is used (else a GPIO reed switch).
    """

    table_path: Path
    seed: int
    decks: int = 8
    shoe_resume: ShoeResumePoint = ShoeResumePoint()
    shaker_resume: ShakerResumePoint = ShakerResumePoint()
    lid_from_shaker: bool = True
    #: Records every device's traffic (``tablehost run --capture FILE``).
    capture: CaptureWriter | None = None
    #: Hexdumps every serial device's bytes to ``<spy_dir>/<device>.spy`` (``--spy DIR``).
    spy_dir: Path | None = None
    #: Plays a capture's devices in place of their ports or simulators (``--replay FILE``).
    replay: Replay | None = None


def timing(timeouts: Timeouts) -> Timing:
    """The driver timing of a device model's ``[timeouts]``."""
    return Timing(ack=timeouts.ack, retries=timeouts.retries, heartbeat=timeouts.heartbeat,
                  handshake=timeouts.handshake, reconnect_initial=timeouts.reconnect_initial,
                  reconnect_max=timeouts.reconnect_max)


def device_info(slot: DeviceSlot, port: str) -> DeviceInfo:
    """How a capture declares the device of ``slot``, plugged in at ``port``."""
    return DeviceInfo(slot.model.kind, slot.model.dialect, slot.model.transport, slot.model.model, port)


def _replayed(slot: DeviceSlot, context: DeviceContext) -> bool:
    return context.replay is not None and slot.name in context.replay.devices


def _serial_port(slot: DeviceSlot, url: str, context: DeviceContext) -> tuple[str, dict[str, Any]]:
    """The port a serial driver opens and its transport options, after --replay, --spy and --capture."""
    if context.replay is not None and _replayed(slot, context):
        url = context.replay.url(slot.name)
    if context.spy_dir is not None:
        url = spy_url(url, context.spy_dir / f"{slot.name}.spy")
    if context.capture is None:
        return url, {}
    return url, {"transport_factory": context.capture.tap(slot.name, device_info(slot, url)).transport_factory()}


def _sim_options(slot: DeviceSlot, context: DeviceContext) -> dict[str, Any]:
    known = SIM_OPTIONS[slot.model.kind]
    for key in slot.sim:
        if key not in known:
            raise ProfileError(context.table_path, f"devices.{slot.name}.sim.{key}",
                               f"unknown key (a simulated {slot.model.kind} takes: {', '.join(known)})")
    return dict(slot.sim)


def _sim_identity(slot: DeviceSlot) -> framed.Identity:
    """What a simulator reports: the profile's ``serial``/``firmware``, else an approved unit of its model."""
    approved = slot.model.approved
    serial = slot.sim.get("serial", approved.serials[0] if approved.serials else "SIM-0001")
    return framed.Identity(slot.model.model, str(serial), str(slot.sim.get("firmware", approved.firmware[-1])))


def _faults(slot: DeviceSlot, context: DeviceContext, cls: type, spec: Any) -> Any:
    try:
        return faults_from(cls, spec)
    except SimError as exc:
        raise ProfileError(context.table_path, f"devices.{slot.name}.sim.faults", str(exc)) from None


def _shoe(slot: DeviceSlot, emit: Emit, context: DeviceContext) -> DeviceParts:
    model, url, sim = slot.model, slot.port, None
    if slot.simulated and not _replayed(slot, context):
        options = _sim_options(slot, context)
        try:
            suit_first = suit_first_share(options.get("suit_first_burns", 0.0), model.dialect)
        except SimError as exc:
            raise ProfileError(context.table_path, f"devices.{slot.name}.sim.suit_first_burns", str(exc)) from None
        sim = SimShoe(dialect=model.dialect, endpoint=options.get("endpoint", "pty"), seed=context.seed,
                      decks=context.decks, faults=_faults(slot, context, ShoeFaults, options.get("faults")),
                      suit_first_burns=suit_first,
                      shoe_number=max(context.shoe_resume.shoes_loaded, 1), position=context.shoe_resume.draws,
                      identity=_sim_identity(slot), heartbeat=model.timeouts.heartbeat,
                      ack_timeout=model.timeouts.ack)
        url = sim.url
    # The ascii dialect has no identity message: the profile's model stands in, unverified.
    identity = Identity(model.model, "unverified", model.approved.firmware[0], verified=False)
    url, hooks = _serial_port(slot, url, context)
    driver = shoe_driver(model.dialect, slot.name, url, emit, identity=identity,
                         timing=timing(model.timeouts), baudrate=model.baudrate, **hooks)
    return DeviceParts(slot, driver, sim)


def _shaker(slot: DeviceSlot, emit: Emit, context: DeviceContext) -> DeviceParts:
    model, url, sim = slot.model, slot.port, None
    if slot.simulated and not _replayed(slot, context):
        options = _sim_options(slot, context)
        sim = SimShaker(endpoint=options.get("endpoint", "pty"), seed=context.seed,
                        faults=_faults(slot, context, ShakerFaults, options.get("faults")),
                        identity=_sim_identity(slot), heartbeat=model.timeouts.heartbeat,
                        ack_timeout=model.timeouts.ack, lid_open=context.shaker_resume.lid_open,
                        covering=context.shaker_resume.covering, shakes=context.shaker_resume.shakes)
        url = sim.url
    url, hooks = _serial_port(slot, url, context)
    driver = Shaker(slot.name, url, emit, lid_events=context.lid_from_shaker, timing=timing(model.timeouts),
                    baudrate=model.baudrate, **hooks)
    return DeviceParts(slot, driver, sim)


def shuffler_sim(slot: DeviceSlot, context: DeviceContext) -> SimulatedShuffler:
    """The simulated shuffler of ``slot`` (``port = "sim"``), from its ``[devices.<name>.sim]``:
    the same seed and settings give the same shuffles (a restarted one resumes with them).

    :raises ProfileError: for an option or fault the simulator does not know.
    """
    model, options, identity = slot.model, _sim_options(slot, context), _sim_identity(slot)
    try:
        return SimulatedShuffler(context.seed, decks_per_batch=context.decks, fault_rates=options.get("faults"),
                                 recover_after_s=options.get("recover_after_s", 2.0),
                                 shuffle_seconds=float(options.get("shuffle_seconds", 0.0)),
                                 model=identity.model, serial=identity.serial, firmware=identity.firmware,
                                 vendor_id=model.usb_vendor_id, product_id=model.usb_product_id)
    except SimError as exc:
        raise ProfileError(context.table_path, f"devices.{slot.name}.sim", str(exc)) from None


def _shuffler(slot: DeviceSlot, emit: Emit, context: DeviceContext) -> DeviceParts:
    model, sim = slot.model, None
    if context.replay is not None and _replayed(slot, context):  # the capture's shuffler, real or simulated
        backend: Any = context.replay.backend(slot.name)
    else:
        sim = shuffler_sim(slot, context) if slot.simulated else None
        backend = sim
    if context.capture is not None:
        tap = context.capture.tap(slot.name, device_info(slot, f"usb:{model.usb_vendor_id:04x}:{model.usb_product_id:04x}"))
        backend = tap.usb_backend(backend if backend is not None else default_backend())
    driver = ShufflerDriver(slot.name, emit, vendor_id=model.usb_vendor_id, product_id=model.usb_product_id,
                            backend=backend, timing=timing(model.timeouts))
    return DeviceParts(slot, driver, sim)


_BUILDERS: dict[str, Callable[[DeviceSlot, Emit, DeviceContext], DeviceParts]] = {
    "shoe": _shoe, "shaker": _shaker, "shuffler": _shuffler,
}


def build_device(slot: DeviceSlot, emit: Emit, context: DeviceContext) -> DeviceParts:
    """Build the driver (and simulator) of one device slot; nothing is started."""
    return _BUILDERS[slot.model.kind](slot, emit, context)
