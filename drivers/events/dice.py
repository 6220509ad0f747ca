"""Events of the Pai Gow dice shaker (and of a lid reed switch on a Pi GPIO pin)."""

from __future__ import annotations

from drivers.events import DeviceEvent, event


@event
class LidChanged(DeviceEvent):
    """The shaker's lid was opened (``open=True``) or put back, from the shaker or a GPIO reed switch."""

    open: bool
