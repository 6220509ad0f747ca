"""Dealer buttons, tower lamp, buzzer and the shaker lid's reed switch, through gpiozero.

Pins come from the table profile (BCM numbers). The pin factory is injected: ``mock``
(gpiozero's :class:`~gpiozero.pins.mock.MockFactory`) for simulated tables and tests,
``lgpio`` on a Raspberry Pi 5 (or any factory gpiozero registers). Buttons and the lid
become input events on the service's queue; the service's outputs light the lamp and sound
the buzzer. A button press is a table-level event, not a device's: the event class is
injected too (``button_event``, the host's ``DealerCommand``), so the drivers know no host.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib.metadata import EntryPoint, PackageNotFoundError, distribution, entry_points
from typing import Any, Protocol

from gpiozero import LED, Button, Buzzer
from gpiozero.exc import GPIOZeroError
from gpiozero.mixins import HoldThread
from gpiozero.pins import Factory
from gpiozero.pins.mock import MockFactory

from drivers.errors import DriverError
from drivers.events import DeviceEvent
from drivers.events.dice import LidChanged

__all__ = ["GpioError", "pin_factory", "ButtonEvent", "TablePanel"]


#: Device name of GPIO inputs in events and the journal.
DEVICE_NAME = "buttons"
#: Dealer buttons are momentary switches to ground with the Pi's internal pull-up.
BUTTON_PULL_UP = True
#: Debounce for mechanical buttons and the reed switch, in seconds (None for mock pins).
BOUNCE_SECONDS = 0.05
#: How long the buzzer sounds for a fault alert, in seconds.
BUZZ_SECONDS = 0.5


class GpioError(DriverError):
    """A pin that cannot be claimed, or a pin factory that does not exist on this machine."""


#: The entry point group of gpiozero's pin factories (its own and other packages').
PIN_FACTORIES = "gpiozero_pin_factories"


def _gpiozero_factory(name: str) -> list[EntryPoint]:
    """gpiozero's own pin factory ``name`` (``mock``, ``lgpio``...), read from its distribution
    alone: every start looks its factory up, and scanning every installed distribution's entry
    points takes 20 to 40 ms here (under 1 ms this way)."""
    try:
        points = distribution("gpiozero").entry_points
    except PackageNotFoundError:
        return []
    return [point for point in points if point.group == PIN_FACTORIES and point.name == name]


def pin_factory(name: str | None) -> Factory | None:
    """Build the gpiozero pin factory registered under ``name`` (None: gpiozero's own choice):
    gpiozero's own of that name, else one another installed package registers."""
    if name is None:
        return None
    found = _gpiozero_factory(name) or list(entry_points(group=PIN_FACTORIES, name=name))
    if not found:
        raise GpioError(f"gpio: no pin factory named {name!r} is installed")
    try:
        return next(iter(found)).load()()
    except (GPIOZeroError, OSError, ImportError) as exc:
        raise GpioError(f"gpio: pin factory {name!r} cannot start here: {exc}") from exc


class ButtonEvent(Protocol):
    """Builds the input event of a dealer button press (the host's ``DealerCommand`` class)."""

    def __call__(self, *, device: str, command: str) -> DeviceEvent:
        """The event of button ``command`` pressed on ``device`` (:data:`DEVICE_NAME`)."""


class TablePanel:
    """The table's GPIO: dealer buttons, tower lamp, buzzer and (optionally) the lid reed switch.

    :param emit: where button presses and lid changes go (the service's queue).
    :param buttons: button name (``no_more_bets``, ``reveal``...) to BCM pin.
    :param lamp: lamp colour (``green``, ``amber``, ``red``) to BCM pin.
    :param buzzer: buzzer pin, if any.
    :param lid: reed switch pin, if the lid is read on the Pi rather than by the shaker.
    :param factory: the pin factory (see :func:`pin_factory`).
    :param button_event: builds the event a button press emits.
    """

    def __init__(
        self,
        emit: Callable[[DeviceEvent], None],
        buttons: Mapping[str, int],
        lamp: Mapping[str, int],
        buzzer: int | None = None,
        lid: int | None = None,
        factory: Factory | None = None,
        *,
        button_event: ButtonEvent,
    ) -> None:
        self._emit, self._button_event = emit, button_event
        self.factory = factory
        #: Whether the pins are gpiozero mock pins (a simulated table presses them itself).
        self.simulated = isinstance(factory, MockFactory)
        bounce = None if self.simulated else BOUNCE_SECONDS
        self.buttons: dict[str, Button] = {}
        self.lamp: dict[str, LED] = {}
        self.buzzer: Buzzer | None = None
        self.lid: Button | None = None
        try:
            self.buttons = {
                name: Button(pin, pull_up=BUTTON_PULL_UP, bounce_time=bounce, pin_factory=factory)
                for name, pin in buttons.items()
            }
            self.lamp = {colour: LED(pin, pin_factory=factory) for colour, pin in lamp.items()}
            self.buzzer = Buzzer(buzzer, pin_factory=factory) if buzzer is not None else None
            # The reed switch closes (reads low) while the lid's magnet sits on the shaker.
            self.lid = Button(lid, pull_up=True, bounce_time=bounce, pin_factory=factory) if lid is not None else None
        except GPIOZeroError as exc:
            self.close()
            raise GpioError(f"gpio: {exc}") from exc
        for name, button in self.buttons.items():
            button.when_pressed = self._press_handler(name)
        if self.lid is not None:
            self.lid.when_released = lambda: self._emit(LidChanged(device="lid", open=True))
            self.lid.when_pressed = lambda: self._emit(LidChanged(device="lid", open=False))

    def preset_mock_lid(self, open_: bool) -> None:
        """Put a mock reed switch where the lid stands, without reporting a change: a restarted
        simulated table resumes with the lid as its journal left it (a real switch reads true)."""
        if not self.simulated or self.lid is None:
            raise GpioError("gpio: only a lid reed switch on mock pins can be preset")
        pin: Any = self.lid.pin
        handlers = self.lid.when_pressed, self.lid.when_released
        self.lid.when_pressed = self.lid.when_released = None
        try:
            if open_:
                pin.drive_high()
            else:
                pin.drive_low()
        finally:
            self.lid.when_pressed, self.lid.when_released = handlers

    def _press_handler(self, name: str) -> Callable[[], None]:
        return lambda: self._emit(self._button_event(device=DEVICE_NAME, command=name))

    def show(self, colour: str) -> None:
        """Light one lamp colour and put out the others."""
        for name, led in self.lamp.items():
            led.value = name == colour

    def buzz(self) -> None:
        """Sound the buzzer once (non-blocking)."""
        if self.buzzer is not None:
            self.buzzer.blink(on_time=BUZZ_SECONDS, off_time=0, n=1, background=True)

    def alarm(self) -> None:
        """Hold the buzzer on until the pins are closed or the process ends (the table stopped)."""
        if self.buzzer is not None:
            self.buzzer.on()

    def lit(self) -> str | None:
        """The lamp colour that is on, if any."""
        return next((name for name, led in self.lamp.items() if led.is_lit), None)

    def close(self) -> None:
        """Release every pin.

        Each button has a gpiozero :class:`~gpiozero.mixins.HoldThread` that looks for a stop
        every 0.1 s; closing the buttons one by one waited for each in turn (0.1 to 0.5 s at
        every stop of a table). They are all told to stop first, so they end together.
        """
        devices = [device for device in (*self.buttons.values(), *self.lamp.values(), self.buzzer, self.lid) if device]
        for device in devices:
            hold = getattr(device, "_hold_thread", None)
            if isinstance(hold, HoldThread):
                hold.stopping.set()
                hold.holding.set()  # wakes its wait at once; it sees the stop and ends
        for device in devices:
            device.close()
