"""Contract checks every device driver must pass, whatever the device: the life of the link."""

from __future__ import annotations

from typing import Any

from drivers.events.lifecycle import DeviceFault, DeviceIdentified, DeviceLost
from tests.contract.bench import Rig
from tests.support.device_events import Events

#: How long a simulator stays away when the bench "unplugs" it, seconds.
OUTAGE_S = 0.5


def check_identity(rig: Rig) -> DeviceIdentified:
    """The device identifies itself (or, in the ASCII dialect, the profile does) as an approved unit."""
    identified = rig.expect(DeviceIdentified)
    if rig.target.hardware:
        assert rig.target.slot is not None
        approved = rig.target.slot.model.approved
        assert approved.refusal(identified.model, identified.serial, identified.firmware) is None, (
            f"{rig.target.id}: {identified} is not on the device model's allow-list"
        )
    assert identified.device == rig.driver.name and identified.model and identified.firmware
    return identified


def check_refused_identity_is_a_fault(rig: Rig) -> None:
    """An identity the allow-list refuses is a DeviceFault "unapproved", never an identification."""
    rig.driver.stop()  # one host on the port at a time
    events = Events()
    driver = rig.driver_with(
        events.queue.put, refusal=lambda model, serial, firmware: f"model {model} not on the bench list"
    )
    driver.start()
    try:
        fault = events.next(DeviceFault, rig.bench.timeout)
    finally:
        driver.stop()
    assert fault.code == "unapproved" and "not on the bench list" in fault.text
    assert not any(isinstance(ev, DeviceIdentified) for ev in events.seen)


def check_missing_device_is_reported_once(rig: Rig, **missing: Any) -> None:
    """A device that is not there is one DeviceFault "port_missing" naming it, retried quietly."""
    events = Events()
    driver = rig.driver_with(events.queue.put, **missing)
    driver.start()
    try:
        fault = events.next(DeviceFault)
        assert fault.code == "port_missing" and fault.text.startswith(f"{driver.name}: ")
        assert driver.state in ("connecting", "stopped")
    finally:
        driver.stop()
    assert [ev for ev in events.seen if isinstance(ev, DeviceFault)] == [fault]


def check_unplug_and_replug(rig: Rig, unplug: Any, replug: Any) -> None:
    """Pulling the cable is DeviceLost; plugging it back is a new identification."""
    rig.expect(DeviceIdentified)
    rig.bench.do(f"Unplug the {rig.driver.name}'s cable now (and leave it out until asked)", unplug)
    lost = rig.expect(DeviceLost)
    assert lost.reason
    rig.bench.do(f"Plug the {rig.driver.name}'s cable back in now", replug)
    rig.expect(DeviceIdentified)
    assert rig.driver.state == "running"
