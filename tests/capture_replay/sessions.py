"""Recorded sessions for the capture and replay tests: a simulated shoe, the real driver,
and (for whole tables) a Baccarat controller, the journal and the simulated dealer."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from drivers.capture import CaptureWriter, DeviceInfo
from drivers.device import Device, Identity
from drivers.events import DeviceEvent
from drivers.shoe import shoe_driver
from drivers.timing import Timing
from firmware_host.host.journal import Journal
from firmware_host.host.service import Service
from firmware_host.rules.baccarat.rules import RulesSubmission
from firmware_host.rules.devices import ApprovedIdentities
from firmware_host.tables.baccarat.controller import BaccaratTable
from firmware_host.tables.events import DealerCommand
from sim.dealers.baccarat import BaccaratDealer
from sim.devices.shoe import SimShoe
from tests.support.device_events import FAST

#: What the ASCII dialect's driver takes from the profile.
ASCII_IDENTITY = Identity("ASCII-SHOE", "PROFILE-SN", "unknown")
#: The shoe models the controller approves (what the sims answer).
APPROVED = {"shoe": ApprovedIdentities(("TS-8", "ASCII-SHOE"), ("2.1.0", "unknown"))}
#: Clock ticks only when the table is idle this long: a tick is the wall clock's, not the
#: capture's, so none falls inside the short sessions these tests compare.
TICK_SECONDS = 30.0
#: Longest a table session may take before the test fails (generous: the machine is shared).
SESSION_TIMEOUT = 60.0


def shoe_info(dialect: str, url: str) -> DeviceInfo:
    """How a capture declares the simulated shoe."""
    return DeviceInfo("shoe", dialect, "serial", "TS-8" if dialect == "framed" else "ASCII-SHOE", url)


def driver_for(
    dialect: str, url: str, emit: Callable[[DeviceEvent], None], timing: Timing = FAST, **options: Any
) -> Device:
    """The shoe driver with the tests' short timing (or ``timing``)."""
    return shoe_driver(dialect, "shoe", url, emit, identity=ASCII_IDENTITY, timing=timing, **options)


@contextlib.contextmanager
def captured_shoe(path: Path, dialect: str, emit: Callable[[DeviceEvent], None], timing: Timing = FAST,
                  **sim_options: Any) -> Iterator[tuple[SimShoe, Device, CaptureWriter]]:  # fmt: skip
    """A simulated shoe and its driver, every byte and event written to the capture ``path``."""
    sim_options.setdefault("ack_timeout", timing.ack)
    with CaptureWriter(path) as writer, SimShoe(dialect=dialect, **sim_options) as sim:
        tap = writer.tap("shoe", shoe_info(dialect, sim.url))
        driver = driver_for(
            dialect, sim.url, writer.tap_events(emit), timing, transport_factory=tap.transport_factory()
        )
        driver.start()
        try:
            yield sim, driver, writer
        finally:
            driver.stop()


def baccarat_service(journal_path: Path, rounds: int) -> Service:
    """A fresh Baccarat controller and journal, stopping after ``rounds`` rounds."""
    table = BaccaratTable("BENCH-1", APPROVED, RulesSubmission())
    return Service(table, Journal.open(journal_path), stop_after_rounds=rounds, tick_seconds=TICK_SECONDS)


def run_service(service: Service) -> None:
    """Run the service until its rounds are done (fails the test after :data:`SESSION_TIMEOUT`)."""
    thread = threading.Thread(target=service.run, daemon=True)
    thread.start()
    thread.join(SESSION_TIMEOUT)
    if thread.is_alive():
        service.stop()
        thread.join(5)
        raise AssertionError(
            f"the table did not finish {service.stop_after_rounds} rounds "
            f"in {SESSION_TIMEOUT}s ({service.rounds_finished} done)"
        )


def record_table(
    capture: Path, journal_path: Path, dialect: str, rounds: int, seed: int, timing: Timing = FAST, **sim_options: Any
) -> None:
    """Play ``rounds`` rounds at a simulated table while capturing the shoe and every input."""
    service = baccarat_service(journal_path, rounds)
    try:
        with captured_shoe(capture, dialect, service.emit, timing, seed=seed, **sim_options) as (sim, _, writer):
            emit = writer.tap_events(service.emit)
            press = lambda name: emit(DealerCommand(device="console", command=name))  # noqa: E731
            dealer = BaccaratDealer(emit, press, seed, sim)
            service.outputs.append(dealer)
            dealer.start()
            try:
                run_service(service)
            finally:
                dealer.stop()
    finally:
        service.journal.close()


def journal_steps(path: Path) -> list[tuple[DeviceEvent, list[Any]]]:
    """Every ``(event, decisions)`` step of a journal, without the times."""
    with Journal.open(path) as journal:
        return [(event, decisions) for _, event, decisions in journal.steps()]
