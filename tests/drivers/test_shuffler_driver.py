"""The shuffler driver against the simulated shuffler, through pyusb's own API, with every fault."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from typing import Any

import pytest
import usb.backend.libusb1

from drivers.device import Timing
from drivers.events.lifecycle import DeviceFault, DeviceIdentified, DeviceLost, ProtocolError
from drivers.events.shuffler import (
    BatchLoaded,
    BatchReleased,
    BatchStatus,
    ShuffleCompleted,
    ShuffleProgress,
    ShufflerFault,
    ShufflerFaultCleared,
    ShuffleStarted,
)  # fmt: skip
from drivers.shuffler import ShufflerDriver
from drivers.usb import UsbUnavailable
from sim.devices.shuffler import SimulatedShuffler
from sim.errors import SimError
from tests.support.device_events import Events

#: Quick reconnection; a heartbeat slow enough that a busy machine does not look like a lost device.
TIMING = Timing(heartbeat=1.0, handshake=2.0, reconnect_initial=0.02, reconnect_max=0.1)
FULL = 8 * 52


@contextlib.contextmanager
def shuffler(
    seed: int = 11, handshake: bool = True, **sim_options: Any
) -> Iterator[tuple[SimulatedShuffler, ShufflerDriver, Events]]:
    """A simulated shuffler and a started driver on it (handshake done unless told not to wait)."""
    events = Events()
    sim = SimulatedShuffler(seed, **sim_options)
    driver = ShufflerDriver("shuffler", events.queue.put, backend=sim, timing=TIMING)
    driver.start()
    try:
        if handshake:
            events.next(DeviceIdentified)
            events.until(lambda ev: isinstance(ev, BatchStatus) and ev.batch == "B")
        yield sim, driver, events
    finally:
        driver.stop()


def digest_of(order: tuple[str, ...]) -> str:
    return hashlib.sha256("".join(order).encode()).hexdigest()


def test_handshake_reports_identity_firmware_and_both_batches() -> None:
    events = Events()
    sim = SimulatedShuffler(1, serial="SH16-000042", back_colours=("green", "grey"))
    driver = ShufflerDriver("shuffler", events.queue.put, backend=sim, timing=TIMING)
    driver.start()
    try:
        assert events.next(DeviceIdentified) == DeviceIdentified("shuffler", "SH-16", "SH16-000042", "3.2.0")
        first, second = events.next(BatchStatus), events.next(BatchStatus)
        assert (first.batch, first.state, first.decks, first.back_colour) == ("A", "loaded", 8, "green")
        assert (second.batch, second.state, second.back_colour, second.order_digest) == ("B", "loaded", "grey", "")
        assert driver.state == "running"
    finally:
        driver.stop()
    assert driver.state == "stopped"


def test_541_3_b_4_a_shuffle_reports_progress_the_card_count_and_the_order_digest() -> None:
    with shuffler() as (sim, driver, events):
        driver.start_shuffle("A", FULL)
        got = events.until(lambda ev: isinstance(ev, ShuffleCompleted))
        assert [ev for ev in got if isinstance(ev, (ShuffleStarted, ShuffleProgress))] == [
            ShuffleStarted("shuffler", "A"),
            *(ShuffleProgress("shuffler", "A", p) for p in (25, 50, 75)),
        ]
        completed = got[-1]
        assert (completed.batch, completed.cards) == ("A", FULL)
        assert completed.order_digest == digest_of(sim.order("A"))
        assert sorted(sim.order("A")) != list(sim.order("A"))  # shuffled
        driver.release_batch("A")
        assert events.next(BatchReleased) == BatchReleased("shuffler", "A", FULL)


def test_shuffles_are_seeded() -> None:
    orders = []
    for _ in range(2):
        with shuffler(seed=99) as (sim, driver, events):
            driver.start_shuffle("B", FULL)
            orders.append(events.next(ShuffleCompleted).order_digest)
    assert orders[0] == orders[1]


def test_jam_abandons_the_shuffle_until_cleared() -> None:
    with shuffler() as (sim, driver, events):
        sim.arm("jam")
        driver.start_shuffle("A", FULL)
        got = events.until(lambda ev: isinstance(ev, ShufflerFault))
        assert (got[-1].code, got[-1].batch) == ("jam", "A") and "jammed" in got[-1].text
        assert not any(isinstance(ev, ShuffleCompleted) for ev in got)
        driver.start_shuffle("A", FULL)  # refused while jammed
        refused = events.next(ShufflerFault)
        assert refused.code == "jam" and "clear the jam" in refused.text
        sim.clear_jam()
        assert events.next(ShufflerFaultCleared) == ShufflerFaultCleared("shuffler", "jam")
        driver.start_shuffle("A", FULL)
        assert events.next(ShuffleCompleted).cards == FULL


def test_door_open_refuses_shuffles_and_abandons_one_in_progress() -> None:
    with shuffler() as (sim, driver, events):
        sim.open_door()
        assert events.next(ShufflerFault).code == "door_open"
        driver.start_shuffle("A", FULL)
        assert "door open" in events.next(ShufflerFault).text
        sim.close_door()
        assert events.next(ShufflerFaultCleared).code == "door_open"
        sim.arm("door_open")  # opened at 50 %
        driver.start_shuffle("A", FULL)
        got = events.until(lambda ev: isinstance(ev, ShufflerFault))
        assert got[-1].batch == "A" and "during the shuffle of batch A" in got[-1].text
        assert sim.state("A") == "loaded"


@pytest.mark.parametrize(("fault", "cards"), [("missing_card", FULL - 1), ("extra_card", FULL + 1)])
def test_541_3_b_1_a_wrong_card_count_is_reported_with_the_count(fault: str, cards: int) -> None:
    with shuffler() as (sim, driver, events):
        sim.arm(fault)
        driver.start_shuffle("B", FULL)
        assert events.next(ShuffleCompleted).cards == cards
        count_fault = events.next(ShufflerFault)
        assert (count_fault.code, count_fault.batch) == ("card_count", "B")
        assert f"counted {cards} cards, expected {FULL}" in count_fault.text


def test_unplug_mid_shuffle_then_replug_handshakes_again_and_reports_the_finished_shuffle() -> None:
    with shuffler() as (sim, driver, events):
        sim.arm("unplug")
        driver.start_shuffle("A", FULL)
        lost = events.next(DeviceLost)
        assert "disconnected" in lost.reason
        assert not sim.plugged
        missing = events.next(DeviceFault)  # looked for and not found: reported once
        assert missing.code == "port_missing" and "1209:7ab1" in missing.text
        sim.replug()
        assert events.next(DeviceIdentified).serial == "SH16-SIM-0001"
        status = events.next(BatchStatus)
        assert (status.batch, status.state, status.cards) == ("A", "shuffled", FULL)
        assert status.order_digest == digest_of(sim.order("A"))
        driver.start_shuffle("B", FULL)  # and it works again
        assert events.next(ShuffleCompleted).batch == "B"


def test_unplug_while_idle_is_lost_and_found_with_a_new_handshake() -> None:
    with shuffler() as (sim, driver, events):
        sim.unplug()
        events.next(DeviceLost)
        sim.replug()
        events.next(DeviceIdentified)
        assert driver.state == "running"


def test_a_command_given_while_disconnected_is_sent_after_the_handshake() -> None:
    sim = SimulatedShuffler(3)
    sim.unplug()
    events = Events()
    driver = ShufflerDriver("shuffler", events.queue.put, backend=sim, timing=TIMING)
    driver.start()
    try:
        assert events.next(DeviceFault).code == "port_missing"
        driver.start_shuffle("A", FULL)
        sim.replug()
        events.next(DeviceIdentified)
        assert events.next(ShuffleCompleted).cards == FULL
    finally:
        driver.stop()


def test_541_5_a_a_shuffle_returning_the_previous_order_repeats_its_digest() -> None:
    with shuffler() as (sim, driver, events):
        driver.start_shuffle("A", FULL)
        first = events.next(ShuffleCompleted).order_digest
        sim.arm("same_order")
        driver.start_shuffle("A", FULL)
        assert events.next(ShuffleCompleted).order_digest == first
        driver.start_shuffle("A", FULL)  # a real shuffle again
        assert events.next(ShuffleCompleted).order_digest != first


def test_a_batch_put_back_after_its_shoe_is_reported_loaded() -> None:
    with shuffler() as (sim, driver, events):
        driver.start_shuffle("A", FULL)
        events.next(ShuffleCompleted)
        driver.release_batch("A")
        events.next(BatchReleased)
        sim.load("A")
        assert events.next(BatchLoaded) == BatchLoaded("shuffler", "A", 8, "red")
        with pytest.raises(SimError, match="still in its slot"):
            sim.load("B")


def test_releasing_a_batch_that_is_not_shuffled_is_refused_by_the_device() -> None:
    with shuffler() as (sim, driver, events):
        driver.release_batch("B")
        fault = events.next(ShufflerFault)
        assert (fault.code, fault.batch) == ("not_ready", "B") and "not shuffled" in fault.text


def test_reset_abandons_the_shuffle_in_progress() -> None:
    with shuffler(shuffle_seconds=30.0) as (sim, driver, events):
        driver.start_shuffle("A", FULL)
        events.next(ShuffleStarted)
        driver.reset()
        driver.start_shuffle("B", FULL)  # accepted: no shuffle runs any more
        assert events.next(ShuffleStarted).batch == "B"
        assert sim.state("A") == "loaded"


def test_a_door_opened_while_disconnected_is_reported_at_the_handshake() -> None:
    with shuffler() as (sim, driver, events):
        sim.unplug()
        events.next(DeviceLost)
        sim.open_door()
        sim.replug()
        events.next(DeviceIdentified)
        fault = events.until(lambda ev: isinstance(ev, ShufflerFault))[-1]
        assert fault.code == "door_open" and "found at handshake" in fault.text


def test_an_unapproved_identity_is_refused_and_retried() -> None:
    events = Events()
    sim = SimulatedShuffler(1, firmware="9.9.9")

    def refusal(model: str, serial: str, firmware: str) -> str | None:
        return None if firmware == "3.2.0" else f"firmware {firmware!r} is not approved"

    driver = ShufflerDriver("shuffler", events.queue.put, backend=sim, timing=TIMING, refusal=refusal)
    driver.start()
    try:
        fault = events.next(DeviceFault)
        assert fault.code == "unapproved" and "9.9.9" in fault.text
        assert not any(isinstance(ev, DeviceIdentified) for ev in events.seen)
    finally:
        driver.stop()


def test_another_protocol_version_fails_the_handshake() -> None:
    events = Events()
    sim = SimulatedShuffler(1)
    sim.identity = type(sim.identity)(2, "SH-16", "X")
    driver = ShufflerDriver("shuffler", events.queue.put, backend=sim, timing=TIMING)
    driver.start()
    try:
        fault = events.next(DeviceFault)
        assert fault.code == "no_handshake" and "protocol version 2" in fault.text
    finally:
        driver.stop()


def test_lost_frames_are_reported_as_a_protocol_error() -> None:
    with shuffler() as (sim, driver, events):
        driver.start_shuffle("A", FULL)
        events.next(ShuffleCompleted)
        sim._seq += 2  # the device's frame counter jumps: two frames never reached the host
        driver.release_batch("A")
        error = events.next(ProtocolError)
        assert "2 frame(s) lost" in error.text
        assert events.next(BatchReleased).batch == "A"


def test_without_libusb_the_driver_refuses_to_start_with_the_package_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(usb.backend.libusb1, "get_backend", lambda *args, **kwargs: None)
    with pytest.raises(UsbUnavailable, match="libusb-1.0-0"):
        ShufflerDriver("shuffler", lambda ev: None)


def test_a_bad_batch_name_fails_in_the_callers_thread() -> None:
    with shuffler() as (sim, driver, events), pytest.raises(ValueError, match="'C' is not 'A' or 'B'"):
        driver.start_shuffle("C", FULL)


def test_random_faults_come_from_the_seed() -> None:
    with pytest.raises(SimError, match="unknown fault 'smoke'"):
        SimulatedShuffler(1, fault_rates={"smoke": 0.5})
    with shuffler(fault_rates={"missing_card": 1.0}) as (sim, driver, events):
        driver.start_shuffle("A", FULL)
        assert events.next(ShuffleCompleted).cards == FULL - 1


def test_the_attendant_recovers_an_unattended_simulated_table() -> None:
    with shuffler(recover_after_s=0.0) as (sim, driver, events):
        sim.arm("jam")
        driver.start_shuffle("A", FULL)
        assert events.next(ShufflerFault).code == "jam"
        assert events.next(ShufflerFaultCleared).code == "jam"
        sim.arm("unplug")
        driver.start_shuffle("A", FULL)
        events.next(DeviceLost)
        events.next(DeviceIdentified)
