"""The Pai Gow dice shaker's driver (``docs/protocols/dice-shaker.md``).

The link layer (identify handshake, ack/nak and retransmission, duplicates dropped,
heartbeat watchdog, reconnection with back-off) is :class:`~drivers.device.FramedDevice`'s;
this module turns the shaker's messages into the events of :mod:`drivers.events.dice` and
offers its two commands. It judges nothing: three shakes (§ 535.8(a)), a die not flat
(§ 535.12(a)), a die out (§ 535.12(b)) and a lid lifted by the bank (§ 535.11(i)) are
the controller's to decide, from these events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drivers.codecs import shaker as codec
from drivers.codecs.shaker import Lid, Reading, RequestReading, Reset, Shake, ShakerFault, ShakerMessage
from drivers.device import FramedDevice
from drivers.errors import DriverError
from drivers.events import DeviceEvent
from drivers.events.dice import DiceRead, LidChanged, ShakeDetected
from drivers.events.lifecycle import DeviceFault

__all__ = ["Shaker", "shaker_event", "DIALECTS"]


def shaker_event(device: str, message: ShakerMessage) -> DeviceEvent:
    """The event for one shaker message, fields passed on unchanged."""
    match message:
        case Shake(count=count):
            return ShakeDetected(device, count)
        case Lid(open=is_open):
            return LidChanged(device, is_open)
        case Reading(dice=dice, dice_in_shaker=dice_in_shaker):
            return DiceRead(device, tuple((die.face, die.flat) for die in dice), dice_in_shaker)
        case ShakerFault(code=code):
            return DeviceFault(device, codec.fault_name(code), codec.fault_text(message))
    raise DriverError(f"{device}: {type(message).__name__} is not a shaker message")


class Shaker(FramedDevice):
    """A dice shaker with dice sensor speaking our framed protocol.

    :param name: the device's name in the table profile (``"shaker"``).
    :param url: its port (``/dev/serial/by-id/...``, ``/dev/pts/N``, ``socket://host:port``).
    :param emit: receives every event, from the driver thread.
    :param lid_events: ``False`` when the table reads the lid on a GPIO reed switch
        (``lid_source = "gpio"``): the shaker's own LID frames are then acked and dropped,
        so the controller hears the lid from one source only.
    :param options: ``timing``, ``baudrate``, ``refusal``, ``transport_factory`` as
        :class:`~drivers.device.Device`.
    """

    def __init__(
        self, name: str, url: str, emit: Callable[[DeviceEvent], None], *, lid_events: bool = True, **options: Any
    ) -> None:
        super().__init__(name, url, emit, codec.FRAMER, **options)
        self.lid_events = lid_events

    def request_reading(self) -> None:
        """Ask the shaker for a reading of the dice now (thread-safe); it arrives as :class:`DiceRead`."""
        self.send(RequestReading())

    def reset(self) -> None:
        """Set the shaker's shake count to zero and clear its latched faults (thread-safe)."""
        self.send(Reset())

    def _on_message(self, message: Any) -> None:
        if isinstance(message, Lid) and not self.lid_events:
            self.log.debug("lid %s ignored: the lid is read on GPIO", "open" if message.open else "closed")
            return
        self._emit(shaker_event(self.name, message))


#: Driver class for each dialect a shaker's device profile may name.
DIALECTS: dict[str, type[FramedDevice]] = {"framed": Shaker}
