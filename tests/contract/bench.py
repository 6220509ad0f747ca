"""The contract tests' bench: who does what a test asks of the device, and the device under test.

A contract test is written once per driver and runs against a :class:`Target`: a simulator
(CI, and a bench profile's ``port = "sim"`` devices) or a real device of the profile given
with ``pytest --hil-profile PATH``. When a test needs something done to the device ("pull a
card now", "unplug the cable"), it asks the :class:`Bench`: with a simulator the bench does
it itself; with a real device it prompts the person at the bench on the terminal, and the
test's wait for the device's answer times out cleanly (``TABLEHOST_HIL_TIMEOUT`` seconds,
default 60) with a message that repeats what was asked.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from drivers.device import Device, Timing
from drivers.events import DeviceEvent
from firmware_host.config.profiles import DeviceSlot
from tests.support.device_events import FAST, WAIT, Events

__all__ = ["Target", "Bench", "Rig", "needs_person", "sim_only", "HIL_TIMEOUT"]

#: How long a test waits for the device after prompting the person at the bench, seconds.
HIL_TIMEOUT = float(os.environ.get("TABLEHOST_HIL_TIMEOUT", "60"))

F = TypeVar("F", bound=Callable[..., Any])


def needs_person(test: F) -> F:
    """Mark a contract test that asks for something done to the device: on a real device it
    needs a person at the bench, and is marked ``manual`` (``-m "not manual"`` leaves it out)."""
    test.needs_person = True  # type: ignore[attr-defined]
    return test


def sim_only(why: str) -> Callable[[F], F]:
    """Mark a contract test that needs the simulator's fault injection: skipped on a real device."""

    def mark(test: F) -> F:
        test.sim_only = why  # type: ignore[attr-defined]
        return test

    return mark


@dataclasses.dataclass(frozen=True)
class Target:
    """A device under test: its kind and dialect, and its slot in a bench profile (``None``:
    the default simulator of CI)."""

    kind: str
    dialect: str
    slot: DeviceSlot | None = None

    @property
    def hardware(self) -> bool:
        """Whether a real device is under test (not a simulator)."""
        return self.slot is not None and not self.slot.simulated

    @property
    def id(self) -> str:
        """The test id's part for this target (``shoe-framed-sim``, ``shaker-framed-hw``)."""
        return f"{self.kind}-{self.dialect}-{'hw' if self.hardware else 'sim'}"

    @property
    def timing(self) -> Timing:
        """The device model's timing on hardware; short timing against simulators."""
        return self.slot.model.timeouts if self.hardware and self.slot else FAST


class Bench:
    """Does what a test asks of the device: the simulator's API, or the person at the bench.

    :param hardware: whether a person does it.
    :param prompt: shows an instruction to the person (past pytest's output capture).
    """

    def __init__(self, hardware: bool, prompt: Callable[[str], None]) -> None:
        self.hardware, self._prompt = hardware, prompt
        self.asked = ""

    @property
    def timeout(self) -> float:
        """How long to wait for the device after an action."""
        return HIL_TIMEOUT if self.hardware else WAIT

    def do(self, instruction: str, simulate: Callable[[], object]) -> None:
        """Have ``instruction`` carried out: ``simulate()`` against a simulator, else ask the person."""
        self.asked = instruction
        if self.hardware:
            self._prompt(instruction)
        else:
            simulate()


class Rig:
    """A started driver on the target device, its events, and the bench.

    :param make_driver: builds a driver for the target: ``(emit, **options) -> Device``.
    :param sim: the simulator (``None`` on hardware).
    """

    def __init__(self, target: Target, bench: Bench, make_driver: Callable[..., Device], sim: Any) -> None:
        self.target, self.bench, self.sim = target, bench, sim
        self._make_driver = make_driver
        self.events = Events()
        self.driver = make_driver(self.events.queue.put)

    def driver_with(self, emit: Callable[[DeviceEvent], None], **options: Any) -> Device:
        """Another driver for the same device, with other options (not started)."""
        return self._make_driver(emit, **options)

    def expect(self, cls: type, timeout: float | None = None) -> Any:
        """The next event of class ``cls``; fails naming what the bench was asked for if none comes."""
        try:
            return self.events.next(cls, self.bench.timeout if timeout is None else timeout)
        except AssertionError as exc:
            asked = f" after asking: {self.bench.asked!r}" if self.bench.asked else ""
            pytest.fail(f"{self.target.id}: no {cls.__name__}{asked} ({exc})")
