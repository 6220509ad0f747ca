"""The dice shaker's contract: identity, every event, commands, errors, reconnection.

§ 535.8(a) (at least three shakes: each one is reported with its count), § 535.12(a)-(b)
(a die not flat, a die out: the reading says so), § 535.11(i) (the lid: reported both ways).
"""

from __future__ import annotations

from drivers.codecs.shaker import FAULTS
from drivers.events.dice import DiceRead, LidChanged, ShakeDetected
from drivers.events.lifecycle import DeviceFault, DeviceIdentified, ProtocolError
from sim.devices.faults import LinkFaults
from sim.devices.shaker import ShakerFaults
from tests.contract.bench import Rig, needs_person, sim_only
from tests.contract.common import (
    OUTAGE_S,
    check_identity,
    check_missing_device_is_reported_once,
    check_refused_identity_is_a_fault,
    check_unplug_and_replug,
)  # fmt: skip

#: Shakes through a corrupting line: enough that at least one frame is damaged (1 - 0.3**6 of the time).
SHAKES = 6


def _reading_is_plausible(reading: DiceRead) -> None:
    assert len(reading.dice) == reading.dice_in_shaker <= 3
    assert all(1 <= face <= 6 and isinstance(flat, bool) for face, flat in reading.dice)


def test_identity(shaker: Rig) -> None:
    check_identity(shaker)


def test_reset_and_reading_on_request_need_no_one(shaker: Rig) -> None:
    shaker.expect(DeviceIdentified)
    shaker.driver.reset()  # type: ignore[attr-defined]
    shaker.driver.request_reading()  # type: ignore[attr-defined]  (sent once the reset is acked)
    _reading_is_plausible(shaker.expect(DiceRead))


@needs_person
def test_535_8_a_each_shake_is_counted_from_the_lid_going_on(shaker: Rig) -> None:
    shaker.expect(DeviceIdentified)
    counts = []
    for shake in (1, 2, 3):
        shaker.bench.do(f"Shake the shaker once (shake {shake} of 3), lid on", shaker.sim and shaker.sim.shake)
        counts.append(shaker.expect(ShakeDetected).count)
    assert counts == [counts[0], counts[0] + 1, counts[0] + 2]
    if shaker.sim is not None:
        assert counts[0] == 1  # the simulated shaker starts with its lid on and no shake


@needs_person
def test_535_11_i_lid_off_reports_the_lid_and_the_reading_then_lid_on(shaker: Rig) -> None:
    shaker.expect(DeviceIdentified)
    shaker.bench.do("Take the shaker's lid off now", shaker.sim and shaker.sim.open_lid)
    assert shaker.expect(LidChanged).open is True
    _reading_is_plausible(shaker.expect(DiceRead))
    shaker.bench.do("Put the lid back on now", shaker.sim and shaker.sim.close_lid)
    assert shaker.expect(LidChanged).open is False


@needs_person
def test_535_12_a_die_not_flat_is_in_the_reading(shaker: Rig) -> None:
    shaker.expect(DeviceIdentified)

    def cock_a_die() -> None:
        shaker.sim.faults = ShakerFaults(die_not_flat=1.0)
        shaker.sim.open_lid()

    shaker.bench.do("Lean one die against the wall of the shaker, then take the lid off", cock_a_die)
    reading = shaker.expect(DiceRead)
    assert not all(flat for _, flat in reading.dice)


@needs_person
def test_535_12_b_die_out_is_in_the_reading(shaker: Rig) -> None:
    shaker.expect(DeviceIdentified)

    def lose_a_die() -> None:
        shaker.sim.faults = ShakerFaults(die_out=1.0)
        shaker.sim.open_lid()

    shaker.bench.do("Take one die out of the shaker, then take the lid off", lose_a_die)
    reading = shaker.expect(DiceRead)
    assert reading.dice_in_shaker < 3 and len(reading.dice) == reading.dice_in_shaker


@needs_person
def test_shaker_fault_is_a_device_fault(shaker: Rig) -> None:
    shaker.expect(DeviceIdentified)
    code = next(iter(FAULTS))
    shaker.bench.do(
        "Make the shaker report a fault (e.g. cover the dice sensor) now",
        lambda: shaker.sim.report_fault(code, "sensor covered"),
    )
    fault = shaker.expect(DeviceFault)
    assert fault.code and fault.device == "shaker"


@needs_person
def test_unplug_is_device_lost_and_replug_identifies_again(shaker: Rig) -> None:
    check_unplug_and_replug(shaker, lambda: shaker.sim.disconnect(OUTAGE_S), lambda: None)


def test_refused_identity_is_a_fault(shaker: Rig) -> None:
    check_refused_identity_is_a_fault(shaker)


def test_missing_port_is_reported_once(shaker: Rig) -> None:
    check_missing_device_is_reported_once(shaker, port="/dev/serial/by-id/no-such-shaker")


@sim_only("it corrupts the wire on purpose")
def test_damaged_frames_are_nakked_and_no_shake_is_lost(shaker: Rig) -> None:
    shaker.expect(DeviceIdentified)
    shaker.sim.link.faults = LinkFaults(corrupt_byte=0.7, duplicate_frame=0.3)
    for _ in range(SHAKES):
        shaker.sim.shake()
    got = shaker.events.until(lambda ev: isinstance(ev, ShakeDetected) and ev.count == SHAKES)
    assert [ev.count for ev in got if isinstance(ev, ShakeDetected)] == list(range(1, SHAKES + 1))
    assert any(isinstance(ev, ProtocolError) for ev in got)
